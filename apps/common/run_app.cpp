#include "apps/common/run_app.hpp"

#include <cstdio>
#include <exception>
#include <string>

#include <cxxopts.hpp>

#include "training/communicator.hpp"
#include "training/loop.hpp"

namespace empl {

int run_app(const char* app_name, int argc, char** argv,
            const std::function<int(int, char**)>& body) {
  // Under mpirun the message names the rank ("toy_urn (rank 1 of 4): ..."), and an error on one
  // rank ends them all: the others would otherwise wait for it in the next sum forever.
  const std::string label = rank_label();
  const std::string name = label.empty() ? std::string(app_name) : std::string(app_name) + " (" + label + ")";
  int status = 2;
  try {
    return body(argc, argv);
  } catch (const Interrupted& stopped) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), stopped.what());
    return 130;  // the shell's convention for a run ended by a signal (every rank stopped at the same step)
  } catch (const cxxopts::exceptions::exception& error) {
    std::fprintf(stderr, "%s: %s (see --help)\n", name.c_str(), error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), error.what());
  }
  if (world().size() > 1) {
    std::fflush(stderr);
    world().abort(status);
  }
  return status;
}

}  // namespace empl

#include "apps/common/run_app.hpp"

#include <cstdio>
#include <exception>

#include <cxxopts.hpp>

#include "training/loop.hpp"

namespace empl {

int run_app(const char* app_name, int argc, char** argv,
            const std::function<int(int, char**)>& body) {
  try {
    return body(argc, argv);
  } catch (const Interrupted& stopped) {
    std::fprintf(stderr, "%s: %s\n", app_name, stopped.what());
    return 130;  // the shell's convention for a run ended by a signal
  } catch (const cxxopts::exceptions::exception& error) {
    std::fprintf(stderr, "%s: %s (see --help)\n", app_name, error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", app_name, error.what());
  }
  return 2;
}

}  // namespace empl

// libFuzzer target: the command line every app shares, plus the apps' own flags. The input is
// split at NUL bytes into arguments; parsing and validation must accept them or throw a clear
// error (cxxopts' or empl::Error), never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/common/app_options.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> arguments = {"app"};
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      arguments.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  arguments.push_back(current);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  try {
    cxxopts::Options parser("app", "fuzzed");
    const empl::CommonDefaults defaults{.losses = {"empl", "em1", "xe", "mae", "gauss"}};
    empl::add_common_options(parser, defaults);
    parser.add_options()("compare", "", cxxopts::value<std::vector<std::string>>())("s1", "")
        ("replays", "", cxxopts::value<int>()->default_value("1000"))("command", "", cxxopts::value<std::string>());
    parser.parse_positional({"command"});
    const auto parsed = empl::parse_command_line(parser, static_cast<int>(argv.size()), argv.data());
    empl::read_common_options(parsed, defaults);
  } catch (const cxxopts::exceptions::exception&) {
  } catch (const empl::Error&) {
  }
  return 0;
}

// libFuzzer target: the football results reader (and the season builder after it) refuse or
// accept any text, reporting skipped rows; never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/bundesliga/league.hpp"
#include "apps/bundesliga/results_csv.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto file = empl::bundesliga::parse_results(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    empl::bundesliga::skipped_report(file);
    empl::bundesliga::build_seasons(file, "1995-96", "1996-97");
  } catch (const empl::Error&) {
  }
  return 0;
}

// The toy urn as files for empl_fit; read example_data.hpp first.
#include "apps/empl_fit/example_data.hpp"

#include <cmath>
#include <cstdio>

#include "apps/toy_urn/urn_data.hpp"
#include "apps/toy_urn/urn_math.hpp"
#include "core/error.hpp"
#include "core/random.hpp"

namespace empl::fit {

ExampleFiles make_example(int64_t rows, uint64_t seed, bool counts) {
  if (rows < 1 || rows > 10'000'000) fail("example: ", rows, " rows, expected 1 to 10000000");
  constexpr int kBins = toy_urn::kBins;
  static const double kUniform[kBins] = {0.2, 0.2, 0.2, 0.2, 0.2};
  ExampleFiles files;
  files.x = "log10_draws\n";
  files.h = "ball1,ball2,ball3,ball4,ball5\n";
  char line[160];
  int64_t drawn[kBins];
  for (int64_t i = 0; i < rows; ++i) {
    Rng rng(seed, /*stream=*/0xE4A, static_cast<uint64_t>(i));
    const int64_t draws = toy_urn::draws_for(rng.uniform_double());
    rng.multinomial(draws, kUniform, drawn);
    std::snprintf(line, sizeof line, "%.6f\n", std::log10(static_cast<double>(draws)));
    files.x += line;
    for (int j = 0; j < kBins; ++j) {
      if (counts) std::snprintf(line, sizeof line, "%s%lld", j ? "," : "", static_cast<long long>(drawn[j]));
      else std::snprintf(line, sizeof line, "%s%.6g", j ? "," : "", static_cast<double>(drawn[j]) / static_cast<double>(draws));
      files.h += line;
    }
    files.h += '\n';
  }
  files.query = "log10_draws\n";
  files.analytic = "sample,tau,bin,cumulative\n";
  for (size_t s = 0; s < std::size(kExampleDraws); ++s) {
    std::snprintf(line, sizeof line, "%.6f\n", std::log10(static_cast<double>(kExampleDraws[s])));
    files.query += line;
    for (const float tau : kExampleTaus)
      for (int j = 0; j < kBins; ++j) {
        std::snprintf(line, sizeof line, "%zu,%.3g,%d,%.6f\n", s, tau, j,
                      toy_urn::cumulative_quantile(tau, kExampleDraws[s], j + 1, kBins));
        files.analytic += line;
      }
  }
  return files;
}

}  // namespace empl::fit

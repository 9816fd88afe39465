// `empl_fit example`: the paper's toy urn (section 3.1, apps/toy_urn) written as files, a data
// set whose quantiles are known exactly. Row i: x = round(10^(3u)) draws with u ~ U(0, 1) from an
// urn of N = 5 balls; the feature is log10(x), the histogram the counts of each ball divided by x
// (or the raw counts). The τ-quantile of the cumulative histogram in bin j is the binomial
// quantile of Bin(x, j/5), divided by x (apps/toy_urn/urn_math.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace empl::fit {

inline constexpr int64_t kExampleDraws[] = {1, 10, 100, 1000};   // the rows of query.csv
inline constexpr float kExampleTaus[] = {0.1f, 0.5f, 0.9f};      // the levels of analytic.csv

struct ExampleFiles {
  std::string x, h, query, analytic;  // the contents of x.csv, h.csv, query.csv, analytic.csv
};

// `rows` urn draws from Rng(seed, stream 0xE4A, row); with `counts`, h holds the raw counts.
ExampleFiles make_example(int64_t rows, uint64_t seed, bool counts);

}  // namespace empl::fit

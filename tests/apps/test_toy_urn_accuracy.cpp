// toy_urn's accuracy criteria (apps/toy_urn/evaluation.hpp) on tables built by hand: a table
// whose predictions are the analytic quantiles scores zero everywhere, and one moved value scores
// what the binomial CDF says it should.
#include <doctest/doctest.h>

#include "apps/toy_urn/evaluation.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "apps/toy_urn/urn_math.hpp"

using namespace empl;
using namespace empl::toy_urn;

namespace {

// predicted = analytic = the binomial quantiles, for every x, τ and bin.
QuantileTable exact_table() {
  QuantileTable table;
  for (int64_t x : kDraws) {
    std::vector<std::vector<double>> rows;
    for (float tau : kTaus) {
      std::vector<double> row;
      for (int j = 1; j <= kBins; ++j) row.push_back(cumulative_quantile(tau, x, j, kBins));
      rows.push_back(row);
    }
    table.analytic.push_back(rows);
  }
  table.predicted = table.analytic;
  return table;
}

}  // namespace

TEST_CASE("toy_urn accuracy: the analytic quantiles themselves score zero") {
  const Accuracy a = accuracy(exact_table());
  CHECK(a.x1_abs == 0.0);
  CHECK(a.x10_counts == 0.0);
  CHECK(a.x100_counts == 0.0);
  CHECK(a.x1000_abs == 0.0);
  CHECK(a.x1000_tau == 0.0);  // Q(τ) = l means F(l − 1) < τ ≤ F(l): no distance
  CHECK(a.ok());
}

TEST_CASE("toy_urn accuracy: the error in tau at x = 1000") {
  // Bin 1 at x = 1000 is Bin(1000, 0.2), whose median is its mean, 200 counts. A τ = 0.5
  // prediction 10 counts high (0.210) is the τ'-quantile for τ' in (F(209), F(210)]: the error in
  // τ is F(209) − 0.5 (≈ Φ(9.5 / 12.65) − 0.5 ≈ 0.27 by the normal approximation).
  QuantileTable table = exact_table();
  REQUIRE(table.analytic[3][4][0] == doctest::Approx(0.200));
  table.predicted[3][4][0] = 0.210;
  const Accuracy high = accuracy(table);
  CHECK(high.x1000_abs == doctest::Approx(0.010));
  CHECK(high.x1000_tau == doctest::Approx(binomial_cdf(209, 1000, 0.2) - 0.5));
  CHECK(high.x1000_tau == doctest::Approx(0.27).epsilon(0.05));
  // 10 counts low (0.190): the levels (F(189), F(190)], so the error is 0.5 − F(190).
  table.predicted[3][4][0] = 0.190;
  CHECK(accuracy(table).x1000_tau == doctest::Approx(0.5 - binomial_cdf(190, 1000, 0.2)));
  // Within the same count (0.2004 rounds to 200): no error in τ, though |pred − analytic| = 4e-4.
  table.predicted[3][4][0] = 0.2004;
  CHECK(accuracy(table).x1000_tau == 0.0);
}

TEST_CASE("toy_urn accuracy: at x = 10 the tolerance is the quantiles of tau +- 0.05, plus half a count") {
  // Bin 1 at x = 10 is Bin(10, 0.2): F(1) = 0.376, F(2) = 0.678. τ = 0.4: Q(0.35) = 1, Q(0.45) = 2
  // counts, so predictions in [0.1, 0.2] score 0; 0.25 is 0.5 count above Q(0.45).
  QuantileTable table = exact_table();
  table.predicted[1][3][0] = 0.1;
  CHECK(accuracy(table).x10_counts == 0.0);
  table.predicted[1][3][0] = 0.25;
  CHECK(accuracy(table).x10_counts == doctest::Approx(0.5));
  CHECK(accuracy(table).ok());
  table.predicted[1][3][0] = 0.04;  // 0.6 count below Q(0.35) = 0.1
  CHECK(accuracy(table).x10_counts == doctest::Approx(0.6));
  CHECK_FALSE(accuracy(table).ok());
}

#include "apps/toy_urn/urn_math.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"

namespace empl::toy_urn {

double binomial_cdf(int64_t k, int64_t n, double p) {
  if (n < 0 || !(p >= 0.0 && p <= 1.0)) fail("binomial_cdf: n = ", n, ", p = ", p);
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (p == 0.0) return 1.0;
  if (p == 1.0) return 0.0;
  // log pmf(m) = lgamma(n+1) − lgamma(m+1) − lgamma(n−m+1) + m log p + (n−m) log(1−p)
  const double log_p = std::log(p), log_q = std::log1p(-p), log_n = std::lgamma(n + 1.0);
  double total = 0.0;
  for (int64_t m = 0; m <= k; ++m)
    total += std::exp(log_n - std::lgamma(m + 1.0) - std::lgamma(n - m + 1.0) + m * log_p +
                      (n - m) * log_q);
  return std::min(total, 1.0);
}

int64_t binomial_quantile(double tau, int64_t n, double p) {
  if (!(tau >= 0.0 && tau <= 1.0)) fail("binomial_quantile: tau = ", tau, " is outside [0, 1]");
  // The CDF is increasing in l: bisect for the first l with CDF(l) ≥ τ.
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (binomial_cdf(mid, n, p) >= tau) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

double cumulative_quantile(double tau, int64_t draws, int bin, int bins) {
  if (draws <= 0) fail("cumulative_quantile: draws = ", draws, " must be positive");
  if (bin < 1 || bin > bins) fail("cumulative_quantile: bin ", bin, " outside 1..", bins);
  return static_cast<double>(binomial_quantile(tau, draws, static_cast<double>(bin) / bins)) / draws;
}

double expected_emd_median_strategy(int bins) {
  const double n = bins;
  return (n * n - 1.0) / (4.0 * n * n);
}

double expected_emd_mean_strategy(int bins) {
  const double n = bins;
  return (n * n - 1.0) / (3.0 * n * n);
}

StrategyEstimate monte_carlo_emd(int bins, int64_t samples, uint64_t seed) {
  if (bins < 1 || bins % 2 == 0) fail("monte_carlo_emd: N = ", bins, " must be odd and positive");
  if (samples <= 0) fail("monte_carlo_emd: samples = ", samples, " must be positive");
  const int centre = (bins + 1) / 2;
  double median_total = 0.0, mean_total = 0.0;
  for (int64_t s = 0; s < samples; ++s) {
    Rng rng(seed, /*stream=*/0, static_cast<uint64_t>(s));
    const int drawn = 1 + static_cast<int>(rng.uniform_int(static_cast<uint64_t>(bins)));
    double median_emd = 0.0, mean_emd = 0.0;
    for (int j = 1; j <= bins; ++j) {
      const double truth = j >= drawn ? 1.0 : 0.0;           // M_j after one draw
      median_emd += std::abs((j >= centre ? 1.0 : 0.0) - truth);
      mean_emd += std::abs(static_cast<double>(j) / bins - truth);
    }
    median_total += median_emd / bins;
    mean_total += mean_emd / bins;
  }
  return {median_total / samples, mean_total / samples};
}

}  // namespace empl::toy_urn

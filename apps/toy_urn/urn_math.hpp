// The analytic side of the toy example (paper section 3.1 and supplementary S1): drawing x balls
// with replacement from an urn of N numbered balls.
//
// The cumulative count in bin j, M_j^c = #(draws ≤ j), is binomial Bin(x, j/N), so the quantiles
// of the relative cumulative histogram M_j = M_j^c / x follow from inverting the binomial CDF
//   P(M_j^c ≤ l | x) = Σ_{m=0}^{l} C(x, m) p^m (1 − p)^{x−m},   p = j/N.
// Supplementary S1: for one draw, predicting the median histogram (all mass in the central bin)
// gives expected EMD (N² − 1)/(4N²); predicting the mean (uniform) gives (N² − 1)/(3N²).
#pragma once

#include <cstdint>
#include <vector>

namespace empl::toy_urn {

// P(X ≤ k) for X ~ Bin(n, p), exact in double (summed from the pmf in log space).
double binomial_cdf(int64_t k, int64_t n, double p);

// The τ-quantile inf{l : P(X ≤ l) ≥ τ} of X ~ Bin(n, p), as a count in 0..n.
int64_t binomial_quantile(double tau, int64_t n, double p);

// The analytic τ-quantile of the relative cumulative histogram M_j (bin j in 1..N) after x draws.
double cumulative_quantile(double tau, int64_t draws, int bin, int bins);

// Supplementary S1, expected EMD W1 = (1/N) Σ_j |M̃_j − M_j| for a single draw.
double expected_emd_median_strategy(int bins);  // (N² − 1) / (4N²)
double expected_emd_mean_strategy(int bins);    // (N² − 1) / (3N²)

// The same expectations by Monte Carlo over `samples` single draws (seeded), for checking.
struct StrategyEstimate {
  double median_strategy;
  double mean_strategy;
};
StrategyEstimate monte_carlo_emd(int bins, int64_t samples, uint64_t seed);

}  // namespace empl::toy_urn

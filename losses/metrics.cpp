// The evaluation metrics of metrics.hpp, summed in double: MAE, MSE on q̃ − q; EM1, EM2 on the
// cumulative sums Q̃ − Q; histogram intersection (1/B) Σ_b Σ_j min(q̃, q); interval coverage; and
// quantile-crossing counts. No gradients. Read metrics.hpp first.
#include "losses/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace empl {
namespace {

void check_pair(const char* metric, const Tensor& predicted, const Tensor& target) {
  if (predicted.rank() != 2 || predicted.shape() != target.shape() || predicted.numel() == 0)
    fail(metric, ": predicted is ", predicted.shape(), ", target is ", target.shape(),
         ": both must be non-empty [B, N] histograms");
}

// Mean over all elements of f(p, t), on the histograms or on their cumulative sums.
template <typename F>
double mean_of(const char* metric, const Tensor& predicted, const Tensor& target, bool cumulative, F f) {
  check_pair(metric, predicted, target);
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1];
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    double cp = 0.0, ct = 0.0;
    for (int64_t j = 0; j < bins; ++j) {
      const double p = predicted[r * bins + j], t = target[r * bins + j];
      total += cumulative ? f(cp += p, ct += t) : f(p, t);
    }
  }
  return total / static_cast<double>(rows * bins);
}

}  // namespace

double mae(const Tensor& p, const Tensor& t) { return mean_of("mae", p, t, false, [](double a, double b) { return std::abs(a - b); }); }
double mse(const Tensor& p, const Tensor& t) { return mean_of("mse", p, t, false, [](double a, double b) { return (a - b) * (a - b); }); }
double em1(const Tensor& p, const Tensor& t) { return mean_of("em1", p, t, true, [](double a, double b) { return std::abs(a - b); }); }
double em2(const Tensor& p, const Tensor& t) {
  return std::sqrt(mean_of("em2", p, t, true, [](double a, double b) { return (a - b) * (a - b); }));
}

double histogram_intersection(const Tensor& p, const Tensor& t) {
  // mean_of divides by B·N; the intersection sums over bins and averages over the batch.
  return mean_of("histogram_intersection", p, t, false, [](double a, double b) { return std::min(a, b); }) *
         static_cast<double>(p.shape()[1]);
}

double coverage(const Tensor& lower, const Tensor& upper, const Tensor& truth, double valid_low, double valid_high) {
  if (lower.shape() != truth.shape() || upper.shape() != truth.shape())
    fail("coverage: lower ", lower.shape(), ", upper ", upper.shape(), ", truth ", truth.shape(), " differ");
  int64_t inside = 0, counted = 0;
  for (int64_t i = 0; i < truth.numel(); ++i) {
    if (truth[i] < valid_low || truth[i] > valid_high) continue;
    ++counted;
    inside += lower[i] <= truth[i] && truth[i] <= upper[i];
  }
  return counted == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(inside) / counted;
}

int64_t quantile_crossings(const std::vector<Tensor>& levels, float tolerance) {
  int64_t crossings = 0;
  for (size_t k = 1; k < levels.size(); ++k) {
    if (levels[k].shape() != levels[0].shape())
      fail("quantile_crossings: level ", k, " is ", levels[k].shape(), ", level 0 is ", levels[0].shape());
    for (int64_t i = 0; i < levels[k].numel(); ++i) crossings += levels[k][i] < levels[k - 1][i] - tolerance;
  }
  return crossings;
}

}  // namespace empl

#include "losses/loss_checks.hpp"

#include <cmath>

#include "core/error.hpp"

namespace empl {

void check_histograms(const char* loss, const Tensor& predicted, const Tensor& target, bool normalised) {
  if (predicted.rank() != 2 || predicted.shape() != target.shape())
    fail(loss, ": predicted is ", predicted.shape(), ", target is ", target.shape(),
         ": both must be [B, N] histograms of the same shape");
  const int64_t bins = predicted.shape()[1];
  for (int64_t i = 0; i < predicted.numel(); ++i) {
    if (!std::isfinite(predicted[i]))
      fail(loss, ": predicted[", i / bins, ",", i % bins, "] is ", predicted[i],
           "\nHINT: the network diverged; lower the learning rate or check its inputs");
    if (!std::isfinite(target[i])) fail(loss, ": target[", i / bins, ",", i % bins, "] is ", target[i]);
  }
  if (!normalised) return;
  for (int64_t r = 0; r < target.shape()[0]; ++r) {
    double total = 0.0;
    for (int64_t j = 0; j < bins; ++j) total += target[r * bins + j];
    if (std::abs(total - 1.0) > 1e-3)
      fail(loss, ": target row ", r, " sums to ", total, ", not 1 (the loss compares normalised histograms)");
  }
}

void check_tau(const char* loss, const Tensor& tau, int64_t batch) {
  if (tau.shape() != Shape{batch, 1}) fail(loss, ": tau is ", tau.shape(), ", expected [", batch, ",1]");
  for (int64_t i = 0; i < batch; ++i)
    if (!(tau[i] >= 0.0f && tau[i] <= 1.0f)) fail(loss, ": tau[", i, "] = ", tau[i], " is outside [0, 1]");
}

}  // namespace empl

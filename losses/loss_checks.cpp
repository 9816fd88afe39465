// The input checks of loss_checks.hpp: shapes, every value finite (a bit test on the exponent so
// the loop vectorises), target rows summing to 1 within 1e-3 when normalised, τ in [0, 1]. No
// equation: it only refuses bad inputs with a message naming the loss. Read loss_checks.hpp first.
#include "losses/loss_checks.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"

namespace empl {
namespace {

// True if no value is NaN or ±∞ (all exponent bits set). Integer bit tests OR-ed together, so
// that the loop vectorises: this check runs on every loss evaluation.
bool all_finite(const float* __restrict values, int64_t count) {
  uint32_t not_finite = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    not_finite |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return not_finite == 0;
}

}  // namespace

void check_histograms(const char* loss, const Tensor& predicted, const Tensor& target, bool normalised) {
  if (predicted.rank() != 2 || predicted.shape() != target.shape())
    fail(loss, ": predicted is ", predicted.shape(), ", target is ", target.shape(),
         ": both must be [B, N] histograms of the same shape");
  const int64_t bins = predicted.shape()[1], count = predicted.numel();
  // A mean over B·N = 0 terms is 0/0 (and zero bins would divide the row grain by zero).
  if (count == 0) fail(loss, ": predicted is ", predicted.shape(), ": an empty batch or zero bins has no mean");
  const float* p = predicted.data();
  const float* t = target.data();
  if (!all_finite(p, count) || !all_finite(t, count)) {  // rare: find the first bad value, slowly
    for (int64_t i = 0; i < count; ++i) {
      if (!std::isfinite(p[i]))
        fail(loss, ": predicted[", i / bins, ",", i % bins, "] is ", p[i],
             "\nHINT: the network diverged; lower the learning rate or check its inputs");
      if (!std::isfinite(t[i])) fail(loss, ": target[", i / bins, ",", i % bins, "] is ", t[i]);
    }
  }
  if (!normalised) return;
  for (int64_t r = 0; r < target.shape()[0]; ++r) {
    double total = 0.0;
    for (int64_t j = 0; j < bins; ++j) total += t[r * bins + j];
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

// The width-weighted EMPL's forward and backward (the equation is in empl_bin_widths.hpp): the
// EMPL of losses/empl.cpp with each bin's term and slope multiplied by its width w_j.
//
//   forward   δ_j = Q̃_j − Q_j,   L = (1/(B·W)) Σ_b Σ_j w_j·ρ_τb(δ_bj)
//   backward  ∂L/∂Q̃_j = w_j·ρ'_τ(δ_j)/(B·W),   ∂L/∂q̃_k = Σ_{j≥k} ∂L/∂Q̃_j
//
// Each product is formed as (w_j·ρ)·scale with scale = 1/(B·W) a float, as the EMPL forms ρ·scale
// with scale = 1/(B·N): with w_j = 1 (W = N) every operation is the EMPL's, bit for bit.
// Read empl_bin_widths.hpp first, then losses/empl.cpp.
#include "losses/empl_bin_widths.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reduce.hpp"
#include "losses/empl.hpp"
#include "losses/loss_checks.hpp"

namespace empl {
namespace {

// Forward of rows [begin, end). Shapes as in empl.cpp's empl_forward_rows, plus widths [N].
template <bool Smoothed>
void forward_rows(const float* q_pred, const float* q_true, const float* tau, const float* widths, float alpha,
                  int64_t bins, float scale, int64_t begin, int64_t end, float* row_sums, float* slopes) {
  for (int64_t b = begin; b < end; ++b) {
    const float tau_b = tau[b];  // a local: the stores to slopes could alias tau[b] for the compiler
    float Q_pred = 0.0f, Q_true = 0.0f, sum = 0.0f;
    for (int64_t j = 0; j < bins; ++j) {
      const int64_t i = b * bins + j;
      Q_pred += q_pred[i];
      Q_true += q_true[i];
      const float delta = Q_pred - Q_true;
      const PinballTerm rho = Smoothed ? smoothed_pinball_term(delta, tau_b, alpha) : pinball_term(delta, tau_b);
      sum += widths[j] * rho.value;
      if (slopes) slopes[i] = (widths[j] * rho.slope) * scale;
    }
    row_sums[b] = sum;
  }
}

}  // namespace

// Forward. Shapes: predicted q̃ [B, N], target q [B, N], tau [B, 1], bin_edges [N + 1] →
// loss []; saves slopes [B, N] = ∂L/∂Q̃ (Note [fused slope] in losses/empl.cpp).
Var empl_bin_widths_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau,
                         const Tensor& bin_edges, float alpha) {
  const char* name = "empl_bin_widths_loss";
  check_histograms(name, predicted.value, target, /*normalised=*/true);
  check_tau(name, tau, predicted.shape()[0]);
  if (!(alpha >= 0.0f) || !std::isfinite(alpha))
    fail(name, ": alpha = ", alpha, " must be >= 0 (0: plain EMPL, > 0: smoothed)");
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1];
  if (bin_edges.shape() != Shape{bins + 1})
    fail(name, ": bin_edges is ", bin_edges.shape(), ", predicted is ", predicted.shape(), ": expected [", bins + 1,
         "] edges for ", bins, " bins");
  Tensor widths = tape.alloc({bins});
  double total_width = 0.0;
  for (int64_t j = 0; j < bins; ++j) {
    const float low = bin_edges[j], high = bin_edges[j + 1];
    if (!std::isfinite(low) || !std::isfinite(high) || !(high > low))
      fail(name, ": bin_edges[", j, "] = ", low, " and bin_edges[", j + 1, "] = ", high,
           ": edges must be finite and strictly increasing");
    widths[j] = high - low;
    total_width += widths[j];
  }
  // W in double, then one rounding to float, as the EMPL's float(B·N): with w_j = 1, B·W = B·N.
  const float scale = 1.0f / static_cast<float>(static_cast<double>(rows) * total_width);
  Var loss = tape.make_output(Shape{}, {&predicted});
  Tensor row_sums = tape.alloc({rows});
  Tensor slopes = loss.requires_grad() ? tape.alloc({rows, bins}) : Tensor();
  const float* q_pred = predicted.value.data();
  const float* q_true = target.data();
  const float* tau_values = tau.data();
  const float* width_values = widths.data();
  float* sums = row_sums.data();
  float* slope_values = slopes.defined() ? slopes.data() : nullptr;
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
    if (alpha > 0.0f)
      forward_rows<true>(q_pred, q_true, tau_values, width_values, alpha, bins, scale, begin, end, sums, slope_values);
    else
      forward_rows<false>(q_pred, q_true, tau_values, width_values, alpha, bins, scale, begin, end, sums, slope_values);
  });
  // core/reduce's sum_all adds in a fixed order: the same bits for any thread count.
  loss.value[0] = static_cast<float>(sum_all(row_sums) * scale);
  if (Node* node = tape.record("empl_bin_widths", cumulative_slopes_backward, loss, {&predicted}))
    node->saved[0] = slopes;
  return loss;
}

}  // namespace empl

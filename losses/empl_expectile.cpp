// The expectile EMPL's forward and backward (the equation is in empl_expectile.hpp), written in
// δ = Q̃ − Q = −u as losses/empl.cpp writes the EMPL:
//
//   forward   w(δ) = 1 − τ if δ > 0 (prediction above the truth, u < 0), τ otherwise,
//             L = (1/(B·N)) Σ_b Σ_j w(δ_bj)·δ_bj²
//   backward  ∂L/∂Q̃_j = 2·w(δ_j)·δ_j/(B·N),   ∂L/∂q̃_k = Σ_{j≥k} ∂L/∂Q̃_j
//
// Unlike the pinball loss, w·δ² has a derivative everywhere (both sides give 0 at δ = 0).
// Read empl_expectile.hpp first, then losses/empl.cpp.
#include "losses/empl_expectile.hpp"

#include <algorithm>

#include "core/parallel.hpp"
#include "core/reduce.hpp"
#include "losses/empl.hpp"
#include "losses/loss_checks.hpp"

namespace empl {
namespace {

}  // namespace

// Forward. Shapes: predicted q̃ [B, N], target q [B, N], tau [B, 1] → loss []; saves slopes
// [B, N] = ∂L/∂Q̃, computed in the same pass (Note [fused slope] in losses/empl.cpp).
Var expectile_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau) {
  check_histograms("expectile_loss", predicted.value, target, /*normalised=*/true);
  check_tau("expectile_loss", tau, predicted.shape()[0]);
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1];
  const float scale = 1.0f / static_cast<float>(rows * bins);
  Var loss = tape.make_output(Shape{}, {&predicted});
  Tensor row_sums = tape.alloc({rows});
  Tensor slopes = loss.requires_grad() ? tape.alloc({rows, bins}) : Tensor();
  const float* q_pred = predicted.value.data();
  const float* q_true = target.data();
  const float* tau_values = tau.data();
  float* sums = row_sums.data();
  float* slope_values = slopes.defined() ? slopes.data() : nullptr;
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const float tau_b = tau_values[b];  // a local: the stores to slopes could alias it for the compiler
      float Q_pred = 0.0f, Q_true = 0.0f, sum = 0.0f;
      for (int64_t j = 0; j < bins; ++j) {
        const int64_t i = b * bins + j;
        Q_pred += q_pred[i];
        Q_true += q_true[i];
        const float delta = Q_pred - Q_true;
        const float weight = delta > 0.0f ? 1.0f - tau_b : tau_b;  // |τ − 1[u < 0]|
        sum += weight * delta * delta;
        if (slope_values) slope_values[i] = 2.0f * weight * delta * scale;
      }
      sums[b] = sum;
    }
  });
  // core/reduce's sum_all adds in a fixed order: the same bits for any thread count.
  loss.value[0] = static_cast<float>(sum_all(row_sums) * scale);
  if (Node* node = tape.record("expectile", cumulative_slopes_backward, loss, {&predicted})) node->saved[0] = slopes;
  return loss;
}

}  // namespace empl

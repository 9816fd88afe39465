// The EMPL's forward and backward, written out (the equations are in empl.hpp):
//
//   forward   Q̃_j = Q̃_{j−1} + q̃_j,  Q_j = Q_{j−1} + q_j,  δ_j = Q̃_j − Q_j,
//             L = (1/(B·N)) Σ_b Σ_j ρ_τb(δ_bj)
//   backward  ∂L/∂Q̃_j = ρ'_τ(δ_j)/(B·N),   ∂L/∂q̃_k = Σ_{j≥k} ∂L/∂Q̃_j   (q̃_k is in every Q̃_j, j ≥ k)
//
// The backward's reverse cumulative sum is the adjoint of the forward's cumulative sum. Read
// autograd/tape.hpp first (Node, saved tensors); losses/pointwise_loss does the same for EM1/EM2.
#include "losses/empl.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reduce.hpp"
#include "losses/loss_checks.hpp"

namespace empl {
namespace {

// Note [fused slope]: the forward computes each ρ'_τ(δ_bj)/(B·N) in the same pass as the loss and
// saves it ([B, N] floats from the tape's arena). The cumulative sums and δ are at hand there;
// a backward of its own would read q̃, q and τ again and redo both cumulative sums. In
// evaluation (no gradient wanted) the slopes are neither computed nor stored.

// Forward of rows [begin, end). Shapes: q_pred, q_true [B, N] (row-major, N = bins), tau [B];
// writes row_sums [B] (Σ_j ρ, unscaled) and, when slopes is not null, slopes [B, N] = ρ'/(B·N).
// Smoothed is a template argument so that the element loop has no branch on α.
template <bool Smoothed>
void empl_forward_rows(const float* q_pred, const float* q_true, const float* tau, float alpha, int64_t bins,
                       float scale, int64_t begin, int64_t end, float* row_sums, float* slopes) {
  for (int64_t b = begin; b < end; ++b) {
    const float tau_b = tau[b];  // a local: the stores to slopes could alias tau[b] for the compiler
    float Q_pred = 0.0f, Q_true = 0.0f, sum = 0.0f;
    for (int64_t j = 0; j < bins; ++j) {
      const int64_t i = b * bins + j;
      Q_pred += q_pred[i];  // the cumulative histograms, one bin at a time
      Q_true += q_true[i];
      const float delta = Q_pred - Q_true;
      const PinballTerm rho = Smoothed ? smoothed_pinball_term(delta, tau_b, alpha) : pinball_term(delta, tau_b);
      sum += rho.value;
      if (slopes) slopes[i] = rho.slope * scale;  // Note [fused slope]
    }
    row_sums[b] = sum;
  }
}


// The EMPL of checked inputs: predicted [B, N], target [B, N], tau [B, 1] → loss [].
Var empl_forward(Tape& tape, const char* name, const Var& predicted, const Tensor& target, const Tensor& tau,
                 float alpha) {
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
  // Rows are independent: in parallel over rows, each row's sum in bin order.
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
    if (alpha > 0.0f)
      empl_forward_rows<true>(q_pred, q_true, tau_values, alpha, bins, scale, begin, end, sums, slope_values);
    else
      empl_forward_rows<false>(q_pred, q_true, tau_values, alpha, bins, scale, begin, end, sums, slope_values);
  });
  // core/reduce's sum_all adds in a fixed order: the same bits for any thread count.
  loss.value[0] = static_cast<float>(sum_all(row_sums) * scale);
  if (Node* node = tape.record(name, cumulative_slopes_backward, loss, {&predicted})) node->saved[0] = slopes;
  return loss;
}

}  // namespace

// Backward. Shapes: saved[0] slopes [B, N] (= ∂L/∂Q̃), output gradient g [] → predicted.grad
// [B, N] += g · reverse_cumsum(slopes) along the bins.
void cumulative_slopes_backward(Node& node) {
  Var& predicted = node.inputs[0];
  if (!predicted.requires_grad()) return;
  const Tensor& slopes = node.saved[0];
  const float g = node.output.grad[0];
  const int64_t rows = slopes.shape()[0], bins = slopes.shape()[1];
  const float* dQ = slopes.data();
  float* dq = predicted.grad.data();
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      float running = 0.0f;  // Σ_{j ≥ k} ∂L/∂Q̃_j, grown from the last bin down
      for (int64_t k = bins - 1; k >= 0; --k) {
        running += dQ[b * bins + k];
        dq[b * bins + k] += g * running;
      }
    }
  });
}

Var empl_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau, float alpha) {
  check_histograms("empl_loss", predicted.value, target, /*normalised=*/true);
  check_tau("empl_loss", tau, predicted.shape()[0]);
  if (!(alpha >= 0.0f) || !std::isfinite(alpha))
    fail("empl_loss: alpha = ", alpha, " must be >= 0 (0: plain EMPL, > 0: smoothed)");
  return empl_forward(tape, "empl", predicted, target, tau, alpha);
}

Var pinball_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau) {
  if (predicted.shape() != target.shape() || predicted.value.rank() != 2 || predicted.shape()[1] != 1)
    fail("pinball_loss: predicted is ", predicted.shape(), ", target is ", target.shape(), ": both must be [B,1]");
  check_histograms("pinball_loss", predicted.value, target, /*normalised=*/false);
  check_tau("pinball_loss", tau, predicted.shape()[0]);
  // One bin: Q̃ = q̃ and Q = q (0 + x is x), so the EMPL is the pinball loss averaged over B.
  return empl_forward(tape, "pinball", predicted, target, tau, 0.0f);
}

}  // namespace empl

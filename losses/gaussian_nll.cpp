// The Gaussian likelihood baseline's forward and backward (the equation is in gaussian_nll.hpp):
//   forward   μ = cumsum(softmax(l)),  L = (1/(B·N)) Σ_b Σ_j ½ (s_bj + (M_bj − μ_bj)² · e^{−s_bj})
//   backward  formed in the forward: ∂L/∂μ, its reverse cumulative sum (the adjoint of cumsum),
//             then ∂L/∂l = q ⊙ (∂L/∂q − Σ_k q_k ∂L/∂q_k); the backward only scales it by g
// Also the quantile inputs μ, σ = e^{s/2} and Φ⁻¹ (Acklam + one Halley step). Read gaussian_nll.hpp first.
#include "losses/gaussian_nll.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/rowwise.hpp"
#include "losses/loss_checks.hpp"

namespace empl {
namespace {

// Rows of [B, 2N] output split as logits | log-variances.
void split_rows(const Tensor& output, Tensor& logits, Tensor& log_variance) {
  const int64_t rows = output.shape()[0], bins = output.shape()[1] / 2;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < bins; ++j) {
      logits[r * bins + j] = output[r * 2 * bins + j];
      log_variance[r * bins + j] = output[r * 2 * bins + bins + j];
    }
}

// The forward already formed ∂L/∂output (it has every intermediate at hand), so the backward
// only scales it by the incoming gradient.
// Shapes: saved[0] ∂L/∂output [B, 2N] (logits | log-variances), output gradient g [] →
// output.grad [B, 2N].
void gaussian_nll_backward(Node& node) {
  Var& output = node.inputs[0];
  if (!output.requires_grad()) return;
  const Tensor& d_output = node.saved[0];
  const float g = node.output.grad[0];
  for (int64_t i = 0; i < d_output.numel(); ++i) output.grad[i] += g * d_output[i];
}

}  // namespace

Var gaussian_nll_loss(Tape& tape, const Var& output, const Tensor& target) {
  const int64_t rows = output.shape().rank() == 2 ? output.shape()[0] : 0;
  const int64_t bins = target.rank() == 2 ? target.shape()[1] : 0;
  if (output.value.rank() != 2 || target.rank() != 2 || target.shape()[0] != rows || output.shape()[1] != 2 * bins)
    fail("gaussian_nll_loss: output is ", output.shape(), ", target is ", target.shape(),
         ": the output must be [B, 2N] for a [B, N] target");
  Tensor logits = tape.alloc({rows, bins}), log_variance = tape.alloc({rows, bins});
  split_rows(output.value, logits, log_variance);
  check_histograms("gaussian_nll_loss", logits, target, /*normalised=*/true);
  for (int64_t i = 0; i < log_variance.numel(); ++i)
    if (!std::isfinite(log_variance[i])) fail("gaussian_nll_loss: log-variance output ", i, " is ", log_variance[i]);

  Var loss = tape.make_output(Shape{}, {&output});
  Tensor probabilities = tape.alloc({rows, bins});
  softmax(logits, probabilities);
  Tensor d_output = tape.alloc({rows, 2 * bins});
  const float scale = 1.0f / static_cast<float>(rows * bins);
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* q = probabilities.data() + r * bins;
    float* d_logits = d_output.data() + r * 2 * bins;  // first ∂L/∂μ, then turned into ∂L/∂l
    float* d_log_variance = d_logits + bins;
    float mean = 0.0f, truth = 0.0f;
    for (int64_t j = 0; j < bins; ++j) {
      const int64_t i = r * bins + j;
      mean += q[j];
      truth += target[i];
      const bool clipped = log_variance[i] < kMinLogVariance;
      const float s = clipped ? kMinLogVariance : log_variance[i];
      const float precision = std::exp(-s), error = truth - mean;
      total += 0.5 * (s + error * error * precision);
      d_logits[j] = -error * precision * scale;                                         // ∂/∂μ_j
      d_log_variance[j] = clipped ? 0.0f : 0.5f * (1.0f - error * error * precision) * scale;  // ∂/∂s_j
    }
    // μ = cumsum(q): ∂L/∂q_k = Σ_{j ≥ k} ∂L/∂μ_j; then softmax: ∂L/∂l = q ⊙ (∂L/∂q − Σ_k q_k ∂L/∂q_k).
    float running = 0.0f, dot = 0.0f;
    for (int64_t k = bins - 1; k >= 0; --k) {
      d_logits[k] = running += d_logits[k];
      dot += d_logits[k] * q[k];
    }
    for (int64_t k = 0; k < bins; ++k) d_logits[k] = q[k] * (d_logits[k] - dot);
  }
  loss.value[0] = static_cast<float>(total * scale);
  if (Node* node = tape.record("gaussian_nll", gaussian_nll_backward, loss, {&output})) node->saved[0] = d_output;
  return loss;
}

void gaussian_mean_and_std(const Tensor& output, Tensor& mean, Tensor& std) {
  const int64_t rows = output.shape()[0], bins = output.shape()[1] / 2;
  if (output.rank() != 2 || output.shape()[1] != 2 * bins || mean.shape() != Shape{rows, bins} ||
      std.shape() != Shape{rows, bins})
    fail("gaussian_mean_and_std: output ", output.shape(), ", mean ", mean.shape(), ", std ", std.shape());
  Tensor logits = Tensor::empty({rows, bins}), log_variance = Tensor::empty({rows, bins});
  split_rows(output, logits, log_variance);
  softmax(logits, mean);
  cumsum(mean, mean);
  for (int64_t i = 0; i < std.numel(); ++i) std[i] = std::exp(0.5f * std::max(log_variance[i], kMinLogVariance));
}

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) fail("normal_quantile: p = ", p, " must be in (0, 1)");
  // Acklam's rational approximations for the central region and the two tails.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  // One Halley step on Φ(x) − p, with Φ from erfc (accurate in both tails).
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2.0 * M_PI) * std::exp(x * x / 2.0);
  return x - u / (1.0 + x * u / 2.0);
}

}  // namespace empl

// The paper's likelihood baseline (section 3.2): a Gaussian for the cumulative histogram in
// each bin, independently. The network has 2N outputs: N logits l, turned into the means
// μ = cumsum(softmax(l)) (monotone, μ_N = 1, as for the EMPL), and N log-variances s, clipped
// below at −15 (where the gradient to s is zero). The loss, without the constant ½·log 2π, is
//   L = (1/(B·N)) Σ_b Σ_j ½ (s_bj + (M_bj − μ_bj)² · e^{−s_bj}).
// Its quantiles μ + σ·Φ⁻¹(τ) are neither bounded to [0, 1] nor monotone in j: the paper's point.
// Read losses/empl.hpp first: this is the baseline the EMPL is compared with.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

inline constexpr float kMinLogVariance = -15.0f;

// output: [B, 2N] network output; target: density histograms [B, N].
Var gaussian_nll_loss(Tape& tape, const Var& output, const Tensor& target);

// μ [B, N] and σ [B, N] from a [B, 2N] output (no gradient), for predictions and quantiles.
void gaussian_mean_and_std(const Tensor& output, Tensor& mean, Tensor& std);

// Φ⁻¹(p), the standard normal quantile, accurate to about 1e-9 (Acklam's rational
// approximation refined by one Halley step). p in (0, 1).
double normal_quantile(double p);

}  // namespace empl

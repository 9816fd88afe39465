// The Earth Mover's Pinball Loss (paper eq. 9 and the appendix code), the loss empl is named for.
//
//   Q̃_bj = Σ_{k≤j} q̃_bk,  Q_bj = Σ_{k≤j} q_bk,  δ_bj = Q̃_bj − Q_bj
//   EMPL = (1/(B·N)) Σ_b Σ_j ρ_τb(δ_bj),   ρ_τ(δ) = (1[δ ≥ 0] − τ)·δ   (the pinball loss, eq. 4)
//   smoothed (α > 0): ρ_τ(δ) = −τ·δ + α·softplus(δ/α)                    (section 2.5)
//
// Minimising it over τ ~ U(0, 1) makes a network fed τ predict the τ-quantile of the cumulative
// histogram in every bin (paper, Proposition 1). At τ = 0.5 it is half the Earth Mover's
// distance EM1. Each τ_b is the sample's own quantile level (paper section 2.5). Read empl.cpp
// next: the forward and backward are written out there.
// Read autograd/tape.hpp first (Var, Tape and the Node a backward receives).
#pragma once

#include <algorithm>
#include <cmath>

#include "autograd/tape.hpp"

namespace empl {

// predicted, target: density histograms [B, N] (rows summing to 1; predicted from a softmax);
// tau [B, 1] in [0, 1]; alpha = 0 for the plain loss, > 0 for the smoothed one. The gradient
// flows to `predicted`. Refuses NaNs, unnormalised targets, τ outside [0, 1] and α < 0.
Var empl_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau, float alpha = 0.0f);

// The backward every loss on cumulative histograms shares (the EMPL, its expectile, bin-width and
// crossing relatives): its forward saves the slopes ∂L/∂Q̃ [B, N] in saved[0], and since
// Q̃ = cumsum(q̃), ∂L/∂q̃_k = Σ_{j ≥ k} ∂L/∂Q̃_j, a reverse cumulative sum along the bins.
// Shapes: saved[0] slopes [B, N], output gradient g [] → predicted.grad [B, N].
void cumulative_slopes_backward(Node& node);

// The pinball loss of scalar quantile regression (paper eq. 4), mean over the batch:
// predicted, target, tau all [B, 1]. It is the EMPL of one bin (the cumulative sum of one bin is
// the bin), and empl.cpp computes it so.
Var pinball_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau);

// ρ_τ(δ) and its slope ∂ρ/∂δ for one difference δ = prediction − truth. Written here, in the
// header, because the EMPL's relatives (losses/empl_bin_widths) apply the same term.
struct PinballTerm {
  float value;  // ρ_τ(δ)
  float slope;  // ∂ρ_τ/∂δ
};

// (1[δ ≥ 0] − τ)·δ: slope 1 − τ above the truth, −τ below (the appendix code's mask − τ). At
// δ = 0 exactly the slope is taken as 1 − τ, a subgradient, as the appendix code does.
inline PinballTerm pinball_term(float delta, float tau) {
  const float slope = (delta >= 0.0f ? 1.0f : 0.0f) - tau;
  return {slope * delta, slope};
}

// −τδ + α·softplus(δ/α), slope σ(δ/α) − τ. softplus(z) = max(z, 0) + log1p(e^−|z|) never
// overflows, and σ(z) is formed from e^−|z| ≤ 1 for the same reason (α = 0.001 with |δ| ~ 1
// gives |z| ~ 1000, where e^z is infinite in float).
inline PinballTerm smoothed_pinball_term(float delta, float tau, float alpha) {
  const float z = delta / alpha;
  const float e = std::exp(-std::abs(z));
  const float softplus = std::max(z, 0.0f) + std::log1p(e);
  const float sigmoid = z >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
  return {-tau * delta + alpha * softplus, sigmoid - tau};
}

}  // namespace empl

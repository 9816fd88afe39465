// The pointwise-loss engine of pointwise_loss.hpp (MAE, MSE, EM1, EM2):
//   forward   δ = Q̃ − Q (or q̃ − q),  L = (1/(B·N)) Σ_b Σ_j f(δ_bj),  f = |δ| or δ²; saves f'(δ)/(B·N)
//   backward  ∂L/∂Q̃ = g·f'(δ)/(B·N); for cumulative losses ∂L/∂q̃_k = Σ_{j≥k} ∂L/∂Q̃_j
// The loss kind is a template parameter, so the row loop has no switch. Read pointwise_loss.hpp first.
#include "losses/pointwise_loss.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/parallel.hpp"

namespace empl {

namespace {

// f(δ) and f'(δ) of one loss, chosen at compile time so that the row loop below has no switch inside.
struct LossTerm {
  float value;       // f(δ)
  float derivative;  // ∂f/∂δ
};

template <PointwiseLoss Kind>
LossTerm term(float delta) {
  if constexpr (Kind == PointwiseLoss::Absolute) {
    return {std::abs(delta), float((delta > 0.0f) - (delta < 0.0f))};
  } else {
    return {delta * delta, 2.0f * delta};
  }
}

// Calls body(std::integral_constant<PointwiseLoss, kind>): one switch per call, not per element.
template <typename Body>
auto with_kind(PointwiseLoss kind, Body&& body) {
  if (kind == PointwiseLoss::Absolute)
    return body(std::integral_constant<PointwiseLoss, PointwiseLoss::Absolute>{});
  return body(std::integral_constant<PointwiseLoss, PointwiseLoss::Squared>{});
}

// Backward. Shapes: saved[0] f'(δ)/(B·N) [B, N], output gradient g [] → predicted.grad [B, N].
void pointwise_loss_backward(Node& node) {
  Var& predicted = node.inputs[0];
  if (!predicted.requires_grad()) return;
  const Tensor& derivative = node.saved[0];  // f'(δ) / (B·N), stored by the forward
  const bool cumulative = node.scalars[0] != 0.0f;
  const float g = node.output.grad[0];
  const int64_t bins = derivative.shape()[1], rows = derivative.shape()[0];
  const float* d = derivative.data();
  float* dp = predicted.grad.data();
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* dr = d + r * bins;
      float* out = dp + r * bins;
      if (cumulative) {
        // ∂L/∂q̃_k = Σ_{j ≥ k} ∂L/∂Q̃_j: the reverse cumulative sum.
        float running = 0.0f;
        for (int64_t k = bins - 1; k >= 0; --k) out[k] += g * (running += dr[k]);
      } else {
        for (int64_t k = 0; k < bins; ++k) out[k] += g * dr[k];
      }
    }
  });
}

}  // namespace

Var pointwise_loss(Tape& tape, const char* name, PointwiseLoss kind, bool cumulative,
                   const Var& predicted, const Tensor& target) {
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1];
  const float scale = 1.0f / static_cast<float>(rows * bins);
  Var loss = tape.make_output(Shape{}, {&predicted});
  Tensor row_sums = tape.alloc({rows});
  Tensor derivative = loss.requires_grad() ? tape.alloc({rows, bins}) : Tensor();
  const float* p = predicted.value.data();
  const float* t = target.data();
  float* d = derivative.defined() ? derivative.data() : nullptr;
  float* sums = row_sums.data();
  with_kind(kind, [&](auto k) {
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / bins), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float cum_p = 0.0f, cum_t = 0.0f, sum = 0.0f;
        for (int64_t j = 0; j < bins; ++j) {
          const int64_t i = r * bins + j;
          float delta;
          if (cumulative) delta = (cum_p += p[i]) - (cum_t += t[i]);
          else delta = p[i] - t[i];
          const LossTerm f = term<decltype(k)::value>(delta);
          sum += f.value;
          if (d) d[i] = f.derivative * scale;
        }
        sums[r] = sum;
      }
    });
  });
  double total = 0.0;  // rows added in order: the same bits for any thread count
  for (int64_t r = 0; r < rows; ++r) total += row_sums[r];
  loss.value[0] = static_cast<float>(total * scale);
  if (Node* node = tape.record(name, pointwise_loss_backward, loss, {&predicted})) {
    node->saved[0] = derivative;
    node->scalars[0] = cumulative ? 1.0f : 0.0f;
  }
  return loss;
}

}  // namespace empl

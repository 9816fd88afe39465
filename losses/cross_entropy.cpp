// The cross-entropy's forward and backward (the equation is in cross_entropy.hpp):
//   forward   XE = −(1/B) Σ_b Σ_j q_bj · log q̃_bj   (log q̃ as log_softmax(l) for logits)
//   backward  ∂XE/∂q̃_j = −q_j / (B·q̃_j),   ∂XE/∂l_j = (softmax(l)_j · Σ_k q_k − q_j) / B
// Read cross_entropy.hpp first.
#include "losses/cross_entropy.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/rowwise.hpp"
#include "losses/loss_checks.hpp"

namespace empl {
namespace {

// Probabilities: ∂XE/∂q̃_j = −q_j / (B·q̃_j). Probabilities are floored at 1e-30 so that a bin the
// network rounded to zero gives a large finite loss instead of infinity.
constexpr float kFloor = 1e-30f;

// Backward. Shapes: saved[0] target q [B, N], output gradient g [] → predicted.grad [B, N].
void cross_entropy_backward(Node& node) {
  Var& predicted = node.inputs[0];
  if (!predicted.requires_grad()) return;
  const Tensor& target = node.saved[0];
  const float g = node.output.grad[0] / static_cast<float>(predicted.shape()[0]);
  for (int64_t i = 0; i < target.numel(); ++i)
    predicted.grad[i] -= g * target[i] / std::max(predicted.value[i], kFloor);
}

// Logits: ∂XE/∂l_j = (softmax(l)_j · Σ_k q_k − q_j) / B, with softmax(l) = exp(log_softmax(l)).
// Shapes: saved[0] target q [B, N], saved[1] log_softmax(l) [B, N], output gradient g [] →
// logits.grad [B, N].
void cross_entropy_logits_backward(Node& node) {
  Var& logits = node.inputs[0];
  if (!logits.requires_grad()) return;
  const Tensor& target = node.saved[0];
  const Tensor& log_probabilities = node.saved[1];
  const int64_t rows = target.shape()[0], bins = target.shape()[1];
  const float g = node.output.grad[0] / static_cast<float>(rows);
  for (int64_t r = 0; r < rows; ++r) {
    float mass = 0.0f;
    for (int64_t j = 0; j < bins; ++j) mass += target[r * bins + j];
    for (int64_t j = 0; j < bins; ++j) {
      const int64_t i = r * bins + j;
      logits.grad[i] += g * (std::exp(log_probabilities[i]) * mass - target[i]);
    }
  }
}

}  // namespace

Var cross_entropy(Tape& tape, const Var& predicted, const Tensor& target) {
  check_histograms("cross_entropy", predicted.value, target, /*normalised=*/true);
  for (int64_t i = 0; i < predicted.value.numel(); ++i)
    if (predicted.value[i] < 0.0f) fail("cross_entropy: predicted[", i, "] = ", predicted.value[i], " is negative");
  Var loss = tape.make_output(Shape{}, {&predicted});
  double total = 0.0;
  for (int64_t i = 0; i < target.numel(); ++i)
    total -= double(target[i]) * std::log(std::max(predicted.value[i], kFloor));
  loss.value[0] = static_cast<float>(total / static_cast<double>(predicted.shape()[0]));
  if (Node* node = tape.record("cross_entropy", cross_entropy_backward, loss, {&predicted})) node->saved[0] = target;
  return loss;
}

Var cross_entropy_with_logits(Tape& tape, const Var& logits, const Tensor& target) {
  check_histograms("cross_entropy_with_logits", logits.value, target, /*normalised=*/true);
  Var loss = tape.make_output(Shape{}, {&logits});
  Tensor log_probabilities = tape.alloc(logits.shape());
  log_softmax(logits.value, log_probabilities);
  double total = 0.0;
  for (int64_t i = 0; i < target.numel(); ++i) total -= double(target[i]) * log_probabilities[i];
  loss.value[0] = static_cast<float>(total / static_cast<double>(logits.shape()[0]));
  if (Node* node = tape.record("cross_entropy_with_logits", cross_entropy_logits_backward, loss, {&logits})) {
    node->saved[0] = target;
    node->saved[1] = log_probabilities;
  }
  return loss;
}

}  // namespace empl

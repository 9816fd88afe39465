// Cross-entropy between a target density histogram and a prediction (the paper's XE baseline):
//   XE = −(1/B) Σ_b Σ_j q_bj · log q̃_bj
// A network should hand its logits to cross_entropy_with_logits, which forms log q̃ as a
// log-softmax (never log of a rounded-to-zero probability) and has the simple gradient
// (softmax(l) − q)/B. cross_entropy takes probabilities, for models that end in a softmax.
// Read after autograd/tape.hpp (Var, Tape); losses/empl.hpp is the loss it is a baseline for.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var cross_entropy(Tape& tape, const Var& predicted, const Tensor& target);           // predicted: [B, N] probabilities
Var cross_entropy_with_logits(Tape& tape, const Var& logits, const Tensor& target);  // logits: [B, N]

}  // namespace empl

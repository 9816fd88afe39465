// The toy example's network and losses (paper section 3.1): an MLP 2 → 128 → 128 → N with ReLU
// and batch norm on the hidden layers and a softmax output, trained with the EMPL (τ drawn per
// sample) or, for comparison, with EM1, cross-entropy (XE) or MAE (τ fixed at 0.5, unused).
#pragma once

#include <memory>
#include <string>

#include "autograd/tape.hpp"
#include "layers/sequential.hpp"

namespace empl::toy_urn {

inline const char* const kLosses[] = {"empl", "em1", "xe", "mae"};

// Linear → ReLU → BatchNorm twice, then Linear → Softmax; with `fuse`, each ReLU → BatchNorm is
// one layer (layers/fusion.hpp: the same bits, faster), as the app and its checkpoints use it.
std::unique_ptr<Sequential> build_model(uint64_t seed, int64_t hidden = 128, bool fuse = true);

// The training loss `name` of predicted densities [B, N] against labels, with per-sample τ.
Var training_loss(const std::string& name, Tape& tape, const Var& predicted, const Tensor& labels, const Tensor& tau);

// Whether the loss takes τ (only the EMPL does; the others are trained at τ = 0.5).
bool uses_tau(const std::string& loss);

}  // namespace empl::toy_urn

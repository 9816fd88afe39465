// Batch normalisation over the rows of [B, F] (or over B·V rows of [B, V, F]), one fused op.
//
//   training:   μ, σ² = mean and (biased) variance of each feature over the rows,
//               x̂ = (x − μ)/√(σ² + ε),  y = γ·x̂ + β,
//               running ← (1 − m)·running + m·batch  (PyTorch's convention; unbiased σ² kept)
//   evaluation: x̂ = (x − running_mean)/√(running_var + ε)
// Backward in training (μ and 1/√(σ² + ε) saved by the forward, x̂ recomputed from x), R rows:
//   dx = (1/√(σ²+ε)) · (dx̂ − mean(dx̂) − x̂ · mean(dx̂ ⊙ x̂)),  dx̂ = γ·dy,
//   dγ += Σ dy ⊙ x̂,  dβ += Σ dy.
// With relu_input the layer normalises relu(x) instead of x: ReLU → BatchNorm as one layer, the
// same bits, one pass less each way. Models are written with the two layers and fused by
// layers/fusion.hpp, which explains why and where; read this file without it first.
// On a sharded tape (autograd/shards.hpp) the sums behind μ, σ² and the backward's means are
// taken per shard and along the shards' tree over every rank: the statistics of the global batch.
// Read after layers/linear.hpp.
#pragma once

#include "layers/module.hpp"

namespace empl {

struct BatchNormOptions {
  float momentum = 0.1f;
  float eps = 1e-5f;
  bool affine = true;  // learned scale γ and shift β
  bool relu_input = false;  // normalise relu(x): ReLU → BatchNorm in one layer (layers/fusion.hpp)
};

class BatchNorm1d : public Module {
 public:
  explicit BatchNorm1d(int64_t features, const BatchNormOptions& options = {});
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "BatchNorm1d"; }
  void visit_parameters(const std::string& prefix, const ParameterVisitor& visit) override;
  void visit_buffers(const std::string& prefix, const BufferVisitor& visit) override;
  bool relu_input() const { return options_.relu_input; }
  void set_relu_input(bool relu_input) { options_.relu_input = relu_input; }  // layers/fusion.hpp

  Var scale, shift;            // γ, β: [F] each (undefined without affine)
  Tensor running_mean, running_var;  // [F]

 private:
  int64_t features_;
  BatchNormOptions options_;
};

}  // namespace empl

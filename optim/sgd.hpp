// Stochastic gradient descent with momentum over flat parameters (a packed model's flat_values):
//   b ← μ·b + g + λ·θ       θ ← θ − lr·b
// (PyTorch's formulation; λ is L2 weight decay added to the gradient).
// Read after optim/adam.hpp.
#pragma once

#include <vector>

#include "core/tensor.hpp"
#include "layers/module.hpp"  // NamedTensor

namespace empl {

struct SgdOptions {
  float momentum = 0.0f;
  float weight_decay = 0.0f;
};

class Sgd {
 public:
  // values and gradients [P], as for Adam: updated in place, read after each backward.
  Sgd(const Tensor& values, const Tensor& gradients, const SgdOptions& options = {});
  void step(float lr);
  std::vector<NamedTensor> state();  // "sgd.momentum_buffer"

 private:
  Tensor values_, gradients_, buffer_;
  SgdOptions options_;
};

}  // namespace empl

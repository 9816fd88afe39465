// Stochastic gradient descent with momentum over a packed model's flat parameters:
//   b ← μ·b + g + λ·θ       θ ← θ − lr·b
// (PyTorch's formulation; λ is L2 weight decay added to the gradient).
#pragma once

#include <vector>

#include "layers/module.hpp"

namespace empl {

struct SgdOptions {
  float momentum = 0.0f;
  float weight_decay = 0.0f;
};

class Sgd {
 public:
  Sgd(Module& model, const SgdOptions& options = {});
  void step(float lr);
  std::vector<NamedTensor> state();  // "sgd.momentum_buffer"

 private:
  Tensor values_, gradients_, buffer_;
  SgdOptions options_;
};

}  // namespace empl

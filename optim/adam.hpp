// Adam (Kingma & Ba 2015) over a packed model's one flat span of parameters:
//   m ← β1·m + (1 − β1)·g          v ← β2·v + (1 − β2)·g²
//   θ ← θ − lr · (m / (1 − β1^t)) / (√(v / (1 − β2^t)) + ε)      (t = the step, from 1)
// with optional decoupled weight decay θ ← θ − lr·λ·θ (AdamW). Defaults are Keras's (ε = 1e-7),
// which the paper's networks used. One fused loop over all parameters, parallel above a grain.
#pragma once

#include <vector>

#include "layers/module.hpp"

namespace empl {

struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-7f;
  float weight_decay = 0.0f;  // decoupled
};

class Adam {
 public:
  Adam(Module& model, const AdamOptions& options = {});
  // One update with learning rate lr from the gradients currently in the model.
  void step(float lr);
  int64_t steps() const { return static_cast<int64_t>(step_count_[0]); }
  // m, v and the step count, for checkpoints ("adam.m", "adam.v", "adam.step").
  std::vector<NamedTensor> state();

 private:
  Tensor values_, gradients_;
  Tensor m_, v_, step_count_;
  AdamOptions options_;
};

}  // namespace empl

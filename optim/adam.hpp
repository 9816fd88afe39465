// Adam (Kingma & Ba 2015) over one flat span of parameters (a packed model's Module::flat_values,
// with its Module::flat_gradients beside it):
//   m ← β1·m + (1 − β1)·g          v ← β2·v + (1 − β2)·g²
//   θ ← θ − lr · (m / (1 − β1^t)) / (√(v / (1 − β2^t)) + ε)      (t = the step, from 1)
// with optional decoupled weight decay θ ← θ − lr·λ·θ (AdamW). Defaults are Keras's (ε = 1e-7),
// which the paper's networks used. One fused loop over all parameters, parallel above a grain.
// Read after layers/module.hpp (pack(): the flat span).
#pragma once

#include <vector>

#include "core/tensor.hpp"
#include "layers/module.hpp"  // NamedTensor

namespace empl {

struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-7f;
  float weight_decay = 0.0f;  // decoupled
};

// Throws unless values and gradients are two defined [P] tensors (used by Adam and Sgd).
void check_flat_pair(const char* optimizer, const Tensor& values, const Tensor& gradients);

class Adam {
 public:
  // values and gradients [P] share storage with what they name (a packed model's flat buffers):
  // the optimizer updates the values in place and reads the gradients the backward wrote.
  Adam(const Tensor& values, const Tensor& gradients, const AdamOptions& options = {});
  // One update with learning rate lr from the gradients currently in `gradients`.
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

// Inverted dropout: in training each element is kept with probability 1 − p and scaled by
// 1/(1 − p), so the expected activation is unchanged and evaluation is the identity.
//   y = x ⊙ mask,  mask_i ∈ {0, 1/(1 − p)},   dx = dy ⊙ mask
// The mask of the k-th training forward comes from Rng(seed, stream + k, row): reproducible,
// independent of the thread count, and resumable, because k is a buffer saved in checkpoints.
// Read after layers/batch_norm.hpp (the other layer with a training mode).
#pragma once

#include <cstdint>

#include "layers/module.hpp"

namespace empl {

class Dropout : public Module {
 public:
  explicit Dropout(float p = 0.5f, uint64_t seed = 1, uint64_t stream = 1'000'000);
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "Dropout"; }
  void visit_buffers(const std::string& prefix, const BufferVisitor& visit) override;

 private:
  float p_;
  uint64_t seed_, stream_;
  Tensor calls_;  // [1]: training forwards so far (exact in float up to 2^24)
};

}  // namespace empl

// Linear (dense) layer: y = x·W + b, W stored [F_in, F_out] so that the forward is one sgemm
// with no transpose. A fused op: the bias is written into y first and the product added on top
// (beta = 1), and the backward is two sgemms and a column sum:
//   dW += xᵀ·dy      dx += dy·Wᵀ      db += Σ_rows dy
// x may be [B, F_in] or [B, V, F_in] (the leading axes are one matrix of rows).
// On a sharded tape (autograd/shards.hpp) every product takes one shard's rows, and dW, db are
// summed per shard and then along the shards' tree: the same bits on any number of ranks.
// Read after layers/module.hpp and autograd/matmul.hpp.
#pragma once

#include <cstdint>

#include "layers/module.hpp"

namespace empl {

enum class Init { GlorotUniform, HeNormal };

struct LinearOptions {
  bool bias = true;
  Init init = Init::GlorotUniform;  // Keras's default, which the paper's networks used
  // The weights come from Rng(seed, stream) alone: the same seed, stream and sizes give the same
  // weights, in any order of construction and whatever else the program builds (no hidden global
  // counter). So give each layer of a network its own stream, as the apps do (101, 102, 103):
  // two layers of one shape built with the default options start equal.
  uint64_t seed = 1;
  uint64_t stream = 0;
};

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, const LinearOptions& options = {});
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "Linear"; }
  void visit_parameters(const std::string& prefix, const ParameterVisitor& visit) override;

  Var weight;  // [F_in, F_out]
  Var bias;    // [1, F_out], undefined without bias

 private:
  int64_t in_features_, out_features_;
};

// The fused op itself, usable without a module: w [F_in, F_out], b [1, F_out] or undefined.
Var linear(Tape& tape, const Var& x, const Var& w, const Var& b);

}  // namespace empl

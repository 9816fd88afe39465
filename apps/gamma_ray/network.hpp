// The gamma-ray network (paper section "An example from astrophysics"; GAMMA_RAY.md "Layers"): a
// DeepSphere-style graph network from a photon-count map to a 21-bin brightness histogram.
//   block i (i = 0 … log2(nside) − 1), on level nside/2^i:
//     ChebConv(K = 5) → max pool (4 NESTED children → 1) → batch norm (no learned γ, β) → + bias → ReLU
//   after the last block one node is left: [1, B, F] → [B, F], then append log10(total counts) and
//   (τ − 0.5)·12 → dense 2048 → ReLU → dense 512 → ReLU → dense 21 (no bias) → softmax.
// Inputs are node-major [V, B, 1] (layers/cheb_conv.hpp), each map divided by its total counts.
// Read layers/cheb_conv.hpp, layers/healpix_pool.hpp and layers/batch_norm.hpp first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/laplacian.hpp"
#include "layers/batch_norm.hpp"
#include "layers/cheb_conv.hpp"
#include "layers/linear.hpp"
#include "layers/module.hpp"

namespace empl::gamma_ray {

struct NetworkConfig {
  int64_t nside = 16;                       // blocks = log2(nside): the last pool leaves one node
  std::vector<int64_t> features = {8, 16, 16, 16};  // F_out of each block
  int64_t order = 5;                        // Chebyshev K
  std::vector<int64_t> dense = {2048, 512}; // hidden widths of the head
  int64_t bins = 21;
};

// Fills `w` from a normal of standard deviation `std` truncated at 2σ (redrawn outside), from
// Rng(seed, stream) alone: the authors' TensorFlow initialiser, which ChebConv also uses.
void fill_truncated_normal(Tensor& w, double std, uint64_t seed, uint64_t stream);

class GammaNetwork : public Module {
 public:
  // Builds the graph hierarchy nside → 1 and the layers (weights from `seed`); packed.
  GammaNetwork(const NetworkConfig& config, uint64_t seed);

  // Module's one-input forward does not fit (the map and the scalars come apart): it throws.
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "GammaNetwork"; }

  // maps [V, B, 1] (node-major, each map / its total) → conv features [B, F_last].
  // (Vars, so that a gradcheck can differentiate with respect to the inputs too.)
  Var features(Tape& tape, const Var& maps);
  // features [B, F_last], scalars [B, 2] (log10 total counts, (τ − 0.5)·12) → histogram [B, bins].
  Var head(Tape& tape, const Var& features, const Var& scalars);
  Var forward(Tape& tape, const Tensor& maps, const Tensor& scalars) { return head(tape, features(tape, maps), scalars); }

  void set_training(bool training) override;
  void visit_parameters(const std::string& prefix, const ParameterVisitor& visit) override;
  void visit_buffers(const std::string& prefix, const BufferVisitor& visit) override;

  const NetworkConfig& config() const { return config_; }
  int64_t nodes() const { return config_.nside * config_.nside; }

 private:
  NetworkConfig config_;
  std::vector<GraphLevel> levels_;  // nside, nside/2, …, 1: block i convolves on levels_[i]
  std::vector<std::unique_ptr<ChebConv>> convs_;
  std::vector<std::unique_ptr<BatchNorm1d>> norms_;
  std::vector<Var> biases_;          // [1, F] each, added after the normalisation
  std::vector<std::unique_ptr<Linear>> dense_;
};

}  // namespace empl::gamma_ray

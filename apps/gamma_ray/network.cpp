// The gamma-ray network (read network.hpp first). Parameter names: "conv<i>.weight",
// "bias<i>", "norm<i>.running_mean"/"running_var", "dense<j>.weight"/"dense<j>.bias".
#include "apps/gamma_ray/network.hpp"

#include <cmath>

#include "autograd/concat.hpp"
#include "autograd/elementwise.hpp"
#include "autograd/rowwise.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "graph/healpix.hpp"
#include "layers/healpix_pool.hpp"

namespace empl::gamma_ray {

void fill_truncated_normal(Tensor& w, double std, uint64_t seed, uint64_t stream) {
  Rng rng(seed, stream);
  for (float& v : w.values()) {
    double z = rng.normal_double();
    while (std::abs(z) > 2.0) z = rng.normal_double();
    v = static_cast<float>(std * z);
  }
}

GammaNetwork::GammaNetwork(const NetworkConfig& config, uint64_t seed) : config_(config) {
  healpix::check_nside("GammaNetwork", config.nside);
  int64_t blocks = 0;
  while ((int64_t{1} << blocks) < config.nside) ++blocks;
  if (static_cast<int64_t>(config.features.size()) != blocks)
    fail("GammaNetwork: nside ", config.nside, " needs ", blocks, " blocks (log2 nside) to pool down to one node, got ",
         config.features.size(), " feature widths");
  if (config.order < 1 || config.bins < 2) fail("GammaNetwork: order ", config.order, ", bins ", config.bins);
  levels_ = build_graph_hierarchy(config.nside);
  int64_t in = 1;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t out = config.features[static_cast<size_t>(i)];
    if (out < 1) fail("GammaNetwork: block ", i, " has ", out, " features");
    // The conv's own bias would be removed by the normalisation that follows: the block's bias
    // comes after it instead.
    convs_.push_back(std::make_unique<ChebConv>(levels_[static_cast<size_t>(i)].laplacian, config.order, in, out,
                                                ChebConvOptions{.bias = false, .seed = seed, .stream = 100 + static_cast<uint64_t>(i)}));
    norms_.push_back(std::make_unique<BatchNorm1d>(out, BatchNormOptions{.momentum = 0.1f, .eps = 1e-5f, .affine = false}));
    biases_.push_back(make_leaf(Tensor::zeros({1, out}, "block bias")));
    in = out;
  }
  in += 2;  // log10 total counts, τ feature
  std::vector<int64_t> widths = config.dense;
  widths.push_back(config.bins);
  for (size_t j = 0; j < widths.size(); ++j) {
    const bool last = j + 1 == widths.size();
    auto layer = std::make_unique<Linear>(in, widths[j], LinearOptions{.bias = !last, .seed = seed, .stream = 200 + j});
    fill_truncated_normal(layer->weight.value, 1.0 / std::sqrt(static_cast<double>(in)), seed, 200 + j);
    dense_.push_back(std::move(layer));
    in = widths[j];
  }
  pack();
}

Var GammaNetwork::forward(Tape&, const Var& x) {
  fail("GammaNetwork: forward(tape, x) with one input [", x.shape(), "] is not defined: call forward(tape, maps, scalars)");
}

Var GammaNetwork::features(Tape& tape, const Var& maps) {
  if (maps.value.rank() != 3 || maps.shape()[0] != nodes() || maps.shape()[2] != 1)
    fail("GammaNetwork: maps are ", maps.shape(), ", expected [", nodes(), ", B, 1] (node-major, nside ", config_.nside, ")");
  Var h = maps;
  for (size_t i = 0; i < convs_.size(); ++i) {
    h = convs_[i]->forward(tape, h);
    h = healpix_pool(tape, h, PoolMode::Max);
    h = norms_[i]->forward(tape, h);
    h = add(tape, h, biases_[i]);
    h = relu(tape, h);
  }
  // [1, B, F] → [B, F]: a view; its gradient is the same buffer, so no op is needed (reduce.cpp does the same).
  const Shape flat{h.shape()[1], h.shape()[2]};
  return Var(h.value.reshape(flat), h.grad.defined() ? h.grad.reshape(flat) : Tensor());
}

Var GammaNetwork::head(Tape& tape, const Var& features, const Var& scalars) {
  if (features.value.rank() != 2 || scalars.shape() != Shape{features.shape()[0], 2})
    fail("GammaNetwork head: features ", features.shape(), ", scalars ", scalars.shape(), ": expected [B, F] and [B, 2]");
  Var h = concat(tape, features, scalars);
  for (size_t j = 0; j < dense_.size(); ++j) {
    h = dense_[j]->forward(tape, h);
    if (j + 1 < dense_.size()) h = relu(tape, h);
  }
  return softmax(tape, h);
}

void GammaNetwork::set_training(bool training) {
  Module::set_training(training);
  for (auto& n : norms_) n->set_training(training);
}

void GammaNetwork::visit_parameters(const std::string& prefix, const ParameterVisitor& visit) {
  for (size_t i = 0; i < convs_.size(); ++i) {
    convs_[i]->visit_parameters(prefix + "conv" + std::to_string(i) + ".", visit);
    norms_[i]->visit_parameters(prefix + "norm" + std::to_string(i) + ".", visit);  // none without affine
    visit(prefix + "bias" + std::to_string(i), biases_[i]);
  }
  for (size_t j = 0; j < dense_.size(); ++j) dense_[j]->visit_parameters(prefix + "dense" + std::to_string(j) + ".", visit);
}

void GammaNetwork::visit_buffers(const std::string& prefix, const BufferVisitor& visit) {
  for (size_t i = 0; i < norms_.size(); ++i) norms_[i]->visit_buffers(prefix + "norm" + std::to_string(i) + ".", visit);
}

}  // namespace empl::gamma_ray

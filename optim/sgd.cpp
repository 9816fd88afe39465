// optim/sgd: b ← μ·b + g + λ·θ, θ ← θ − lr·b over the flat parameters (PyTorch's momentum
// formulation; without momentum, θ ← θ − lr·(g + λ·θ)).
// Read optim/sgd.hpp first.
#include "optim/sgd.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "optim/adam.hpp"  // check_flat_pair

namespace empl {

Sgd::Sgd(const Tensor& values, const Tensor& gradients, const SgdOptions& options)
    : values_(values), gradients_(gradients), options_(options) {
  check_flat_pair("Sgd", values, gradients);
  if (!(options.momentum >= 0.0f && options.momentum < 1.0f)) fail("Sgd: momentum ", options.momentum, " must be in [0, 1)");
  buffer_ = Tensor::zeros(values_.shape(), "SGD momentum buffer");
}

void Sgd::step(float lr) {
  if (!std::isfinite(lr) || lr < 0.0f) fail("Sgd: learning rate ", lr, " must be finite and >= 0");
  const float mu = options_.momentum, lambda = options_.weight_decay;
  float* theta = values_.data();
  const float* g = gradients_.data();
  float* b = buffer_.data();
  parallel_for(values_.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      b[i] = mu * b[i] + g[i] + lambda * theta[i];
      theta[i] -= lr * b[i];
    }
  });
}

std::vector<NamedTensor> Sgd::state() { return {{"sgd.momentum_buffer", buffer_}}; }

}  // namespace empl

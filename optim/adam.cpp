// optim/adam: one fused loop over the flat parameters, m ← β1·m + (1 − β1)·g, v ← β2·v + (1 − β2)·g²,
// θ ← θ − lr·m̂/(√v̂ + ε), in parallel chunks (each element independent, so the bits do not
// depend on the thread count). Read optim/adam.hpp first.
#include "optim/adam.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// One range of the update. The arrays are __restrict parameters (they never overlap), which lets
// the compiler vectorise the loop; through the lambda's captured pointers it could not.
void adam_update(float* __restrict theta, float* __restrict m, float* __restrict v, const float* __restrict g,
                 int64_t begin, int64_t end, float b1, float b2, float step_size, float inv_sqrt_c2, float eps,
                 float decay) {
  for (int64_t i = begin; i < end; ++i) {
    m[i] = b1 * m[i] + (1.0f - b1) * g[i];
    v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    theta[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_c2 + eps) + decay * theta[i];
  }
}

}  // namespace

void check_flat_pair(const char* optimizer, const Tensor& values, const Tensor& gradients) {
  if (!values.defined() || !gradients.defined())
    fail(optimizer, ": values and gradients must be defined tensors (pack() the model first)");
  if (values.rank() != 1 || gradients.shape() != values.shape())
    fail(optimizer, ": values are ", values.shape(), ", gradients are ", gradients.shape(), ": expected two [P] tensors");
}

Adam::Adam(const Tensor& values, const Tensor& gradients, const AdamOptions& options)
    : values_(values), gradients_(gradients), options_(options) {
  check_flat_pair("Adam", values, gradients);
  if (!(options.beta1 >= 0.0f && options.beta1 < 1.0f) || !(options.beta2 >= 0.0f && options.beta2 < 1.0f))
    fail("Adam: betas (", options.beta1, ", ", options.beta2, ") must be in [0, 1)");
  if (!(options.eps > 0.0f)) fail("Adam: eps = ", options.eps, " must be positive");
  m_ = Tensor::zeros(values_.shape(), "Adam first moment");
  v_ = Tensor::zeros(values_.shape(), "Adam second moment");
  step_count_ = Tensor::zeros({1}, "Adam step count");
}

void Adam::step(float lr) {
  if (!std::isfinite(lr) || lr < 0.0f) fail("Adam: learning rate ", lr, " must be finite and >= 0");
  step_count_[0] += 1.0f;
  const double t = step_count_[0];
  const float b1 = options_.beta1, b2 = options_.beta2, eps = options_.eps;
  // Bias corrections as two factors: lr·m̂/(√v̂ + ε) with m̂ = m/c1, √v̂ = √v/√c2.
  const float correction1 = static_cast<float>(1.0 - std::pow(double(b1), t));
  const float correction2 = static_cast<float>(1.0 - std::pow(double(b2), t));
  const float step_size = lr / correction1;
  const float inv_sqrt_c2 = 1.0f / std::sqrt(correction2);
  const float decay = lr * options_.weight_decay;
  float* theta = values_.data();
  const float* g = gradients_.data();
  float* m = m_.data();
  float* v = v_.data();
  parallel_for(values_.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    adam_update(theta, m, v, g, begin, end, b1, b2, step_size, inv_sqrt_c2, eps, decay);
  });
}

std::vector<NamedTensor> Adam::state() { return {{"adam.m", m_}, {"adam.v", v_}, {"adam.step", step_count_}}; }

}  // namespace empl

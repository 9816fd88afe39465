// layers/dropout: y = x ⊙ mask with mask_i ∈ {0, 1/(1 − p)} drawn from Rng(seed, stream + k, row)
// in training, the identity in evaluation; backward dx += dy ⊙ mask. Read layers/dropout.hpp
// first.
#include "layers/dropout.hpp"

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"

namespace empl {
namespace {

// Shapes: x, dy, dx and the saved mask all of x's shape ([B, F] or [B, V, F]).
void dropout_backward(Node& node) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const Tensor& mask = node.saved[0];
  const float* g = node.output.grad.data();
  const float* m = mask.data();
  float* dx = x.grad.data();
  parallel_for(mask.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dx[i] += g[i] * m[i];
  });
}

}  // namespace

Dropout::Dropout(float p, uint64_t seed, uint64_t stream) : p_(p), seed_(seed), stream_(stream) {
  if (!(p >= 0.0f && p < 1.0f)) fail("Dropout: p = ", p, " must be in [0, 1)");
  calls_ = Tensor::zeros({1}, "Dropout call counter");
}

Var Dropout::forward(Tape& tape, const Var& x) {
  if (!training_ || p_ == 0.0f) return x;
  const uint64_t call = static_cast<uint64_t>(calls_[0]);
  calls_[0] += 1.0f;
  Var y = tape.make_output(x.shape(), {&x});
  Tensor mask = tape.alloc(x.shape());
  const int64_t cols = x.shape().last(), rows = x.shape().rows();
  const float keep_scale = 1.0f / (1.0f - p_);
  const float* in = x.value.data();
  float* out = y.value.data();
  float* m = mask.data();
  parallel_for(rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      Rng rng(seed_, stream_ + call, static_cast<uint64_t>(r));
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = r * cols + c;
        m[i] = rng.uniform() < p_ ? 0.0f : keep_scale;
        out[i] = in[i] * m[i];
      }
    }
  });
  if (Node* node = tape.record("dropout", dropout_backward, y, {&x})) node->saved[0] = mask;
  return y;
}

void Dropout::visit_buffers(const std::string& prefix, const BufferVisitor& visit) { visit(prefix + "calls", calls_); }

}  // namespace empl

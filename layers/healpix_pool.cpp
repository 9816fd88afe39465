// layers/healpix_pool: y[p] = max_j or ¼Σ_j x[4p + j] over the 4 consecutive NESTED children,
// forward and backward side by side (max: dy goes to the saved argmax child; mean: ¼dy to each).
// Read layers/healpix_pool.hpp first.
#include "layers/healpix_pool.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// One coarse node's rows are 4 runs of C = B·F floats; the fine row j of coarse p starts at
// (4p + j)·C. Chunks of coarse nodes of about 16K floats of output each.
int64_t grain_for(int64_t c) { return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, c)); }

// Shapes: x, dx [V, B, F]; dy and the saved argmax [V/4, B, F].
void healpix_max_pool_backward(Node& node) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const Tensor& dy = node.output.grad;
  const Tensor& argmax = node.saved[0];  // [V/4, B, F], child index 0..3 as a float
  const int64_t coarse = dy.shape()[0], c = dy.numel() / coarse;
  const bool fresh = node.fresh_grad[0];
  float* dx = x.grad.data();
  parallel_for(coarse, grain_for(c), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p)
      for (int64_t j = 0; j < 4; ++j) {
        float* out = dx + (4 * p + j) * c;
        const float* g = dy.data() + p * c;
        const float* which = argmax.data() + p * c;
        const float child = static_cast<float>(j);
        for (int64_t i = 0; i < c; ++i) {
          const float contribution = which[i] == child ? g[i] : 0.0f;
          out[i] = fresh ? contribution : out[i] + contribution;
        }
      }
  });
}

// Shapes: x, dx [V, B, F]; dy [V/4, B, F].
void healpix_mean_pool_backward(Node& node) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const Tensor& dy = node.output.grad;
  const int64_t coarse = dy.shape()[0], c = dy.numel() / coarse;
  const bool fresh = node.fresh_grad[0];
  float* dx = x.grad.data();
  parallel_for(coarse, grain_for(c), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p)
      for (int64_t j = 0; j < 4; ++j) {
        float* out = dx + (4 * p + j) * c;
        const float* g = dy.data() + p * c;
        for (int64_t i = 0; i < c; ++i) out[i] = fresh ? 0.25f * g[i] : out[i] + 0.25f * g[i];
      }
  });
}

}  // namespace

Var healpix_pool(Tape& tape, const Var& x, PoolMode mode) {
  if (x.value.rank() != 3 || x.shape()[0] % 4 != 0 || x.shape()[0] == 0)
    fail("healpix_pool: x is ", x.shape(), ": expected [V, B, F] with V a positive multiple of 4 (4 children per node)");
  const int64_t coarse = x.shape()[0] / 4, c = x.value.numel() / x.shape()[0];
  Var y = tape.make_output({coarse, x.shape()[1], x.shape()[2]}, {&x});
  const float* in = x.value.data();
  float* out = y.value.data();
  if (mode == PoolMode::Mean) {
    parallel_for(coarse, grain_for(c), [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        for (int64_t i = 0; i < c; ++i) {
          const float* child = in + 4 * p * c + i;
          out[p * c + i] = 0.25f * (((child[0] + child[c]) + child[2 * c]) + child[3 * c]);
        }
    });
    if (Node* node = tape.record("healpix_mean_pool", healpix_mean_pool_backward, y, {&x}))
      node->assigns_fresh_grads = true;
    return y;
  }
  Tensor argmax = tape.alloc(y.value.shape());  // filled only when a backward will read it
  const bool save = y.requires_grad();
  float* which = argmax.data();
  parallel_for(coarse, grain_for(c), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p)
      for (int64_t i = 0; i < c; ++i) {
        const float* child = in + 4 * p * c + i;
        float best = child[0], best_j = 0.0f;
        for (int j = 1; j < 4; ++j)
          if (child[j * c] > best) {
            best = child[j * c];
            best_j = static_cast<float>(j);
          }
        out[p * c + i] = best;
        if (save) which[p * c + i] = best_j;
      }
  });
  if (Node* node = tape.record("healpix_max_pool", healpix_max_pool_backward, y, {&x})) {
    node->assigns_fresh_grads = true;
    node->saved[0] = argmax;
  }
  return y;
}

}  // namespace empl

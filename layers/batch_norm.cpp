// layers/batch_norm: the fused batch-norm op, x̂ = (x − μ)/√(σ² + ε), y = γ·x̂ + β, forward and
// backward (dx = (1/√(σ²+ε))·(dx̂ − mean(dx̂) − x̂·mean(dx̂ ⊙ x̂))) over fixed row chunks, so the bits
// do not depend on the thread count. Read layers/batch_norm.hpp first (the equations in full).
#include "layers/batch_norm.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// Rows are summed in fixed chunks (whatever the thread count), each chunk's column sums kept
// apart and then added in chunk order: the same bits on 1 or 2 threads. Walking rows (not
// columns) keeps every inner loop contiguous; the kernels take their pointers as __restrict
// parameters so that the compiler vectorises them over the features.
constexpr int64_t kChunkRows = 256;

int64_t chunk_count(int64_t rows) { return (rows + kChunkRows - 1) / kChunkRows; }

// The layer's input as the kernels read it: x, or relu(x) with relu_input (the same expression as
// the ReLU op, so that the fused layer gives the ReLU → BatchNorm bits). Each kernel takes
// ReluInput as a template parameter, so that its loop stays one straight vectorised pass.
template <bool ReluInput>
inline float input(float x) {
  if constexpr (ReluInput) return x > 0.0f ? x : 0.0f;
  else return x;
}

// acc[c] += x[r, c] − shift[c] (squared when `square`), over rows [begin, end).
template <bool ReluInput>
void add_rows(const float* __restrict x, const float* __restrict shift, float* __restrict acc, int64_t begin, int64_t end,
              int64_t cols, bool square) {
  for (int64_t r = begin; r < end; ++r) {
    const float* __restrict row = x + r * cols;
    if (square) {
      for (int64_t c = 0; c < cols; ++c) {
        const float v = input<ReluInput>(row[c]);
        acc[c] += (v - shift[c]) * (v - shift[c]);
      }
    } else {
      for (int64_t c = 0; c < cols; ++c) acc[c] += input<ReluInput>(row[c]);
    }
  }
}

// x̂ = (x − μ)·(1/σ) is recomputed wherever it is needed rather than stored: storing it was one
// more pass of writes to memory per layer (and as much memory as the activation itself). Every
// kernel below computes it with this same expression, so forward and backward see the same bits.
inline float normalised(float x, float mean, float inv_std) { return (x - mean) * inv_std; }

// sum_dy[c] += dy[r, c], sum_dy_xhat[c] += dy[r, c]·x̂[r, c], over rows [begin, end).
template <bool ReluInput>
void add_gradient_rows(const float* __restrict dy, const float* __restrict x, const float* __restrict mean,
                       const float* __restrict inv_std, float* __restrict sum_dy, float* __restrict sum_dy_xhat,
                       int64_t begin, int64_t end, int64_t cols) {
  for (int64_t r = begin; r < end; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      sum_dy[c] += dy[r * cols + c];
      sum_dy_xhat[c] += dy[r * cols + c] * normalised(input<ReluInput>(x[r * cols + c]), mean[c], inv_std[c]);
    }
}

// Column sums into `out` ([sums, cols]), from per-chunk partials in `scratch` ([chunks, sums, cols]);
// add(chunk_partials, begin, end) fills one chunk's partials.
template <typename AddChunk>
void column_sums(int64_t rows, int64_t cols, int sums, float* scratch, float* out, AddChunk&& add) {
  const int64_t chunks = chunk_count(rows);
  parallel_for(chunks, 1, [&](int64_t first, int64_t last) {
    for (int64_t chunk = first; chunk < last; ++chunk) {
      float* partial = scratch + chunk * sums * cols;
      std::fill(partial, partial + sums * cols, 0.0f);
      add(partial, chunk * kChunkRows, std::min(rows, (chunk + 1) * kChunkRows));
    }
  });
  std::fill(out, out + sums * cols, 0.0f);
  for (int64_t chunk = 0; chunk < chunks; ++chunk)
    for (int64_t i = 0; i < sums * cols; ++i) out[i] += scratch[chunk * sums * cols + i];
}

// y = γ·x̂ + β, for rows [begin, end).
template <bool ReluInput>
void normalise_rows(const float* __restrict x, const float* __restrict mean, const float* __restrict inv_std,
                    const float* __restrict gamma, const float* __restrict beta, float* __restrict y, int64_t begin,
                    int64_t end, int64_t cols) {
  for (int64_t r = begin; r < end; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = r * cols + c;
      y[i] = gamma[c] * normalised(input<ReluInput>(x[i]), mean[c], inv_std[c]) + beta[c];
    }
}

// dx += k·(dy − mean(dy) − x̂·mean(dy ⊙ x̂)) per feature, k = γ/σ (training), or dx += k·dy;
// with ReluInput, times 1[x > 0] (ReLU's derivative). Assign: dx = ... instead, for a fresh dx
// (Note [fresh gradients]): then dx is never read.
template <bool Assign, bool ReluInput>
void input_gradient_rows(const float* __restrict dy, const float* __restrict x, const float* __restrict mean,
                         const float* __restrict inv_std, const float* __restrict k, const float* __restrict mean_dy,
                         const float* __restrict mean_dy_xhat, float* __restrict dx, int64_t begin, int64_t end,
                         int64_t cols, bool training) {
  for (int64_t r = begin; r < end; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = r * cols + c;
      float g = training ? k[c] * (dy[i] - mean_dy[c] - normalised(input<ReluInput>(x[i]), mean[c], inv_std[c]) * mean_dy_xhat[c])
                         : k[c] * dy[i];
      if constexpr (ReluInput) g = x[i] > 0.0f ? g : 0.0f;
      if constexpr (Assign) dx[i] = g;
      else dx[i] += g;
    }
}

int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)); }

// Shapes: x, dy, dx [R, F] (R = B, or B·V for [B, V, F]); γ, β, dγ, dβ [F]; saved μ, 1/σ [F].
template <bool ReluInput>
void batch_norm_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& gamma = node.inputs[1];
  Var& beta = node.inputs[2];
  const float* mean = node.saved[0].data();     // [F] (then γ and β)
  const float* inv_std = node.saved[1].data();  // [F]
  Tensor scratch = node.saved[2];          // per-chunk partials, then the sums, then k
  const bool training = node.scalars[0] != 0.0f;
  const Tensor& dy = node.output.grad;
  const int64_t features = dy.shape().last(), rows = dy.shape().rows();
  const float* g = dy.data();
  const float* xv = x.value.data();
  float* sums = scratch.data() + chunk_count(rows) * 2 * features;  // [2, F]: Σ dy, Σ dy ⊙ x̂
  float* k = sums + 2 * features;                                   // [F]: γ/σ
  const Shards* shards = static_cast<const Shards*>(node.context);
  // Sharded (autograd/shards.hpp): the sums of each shard, then this rank's subtree of them (for
  // dγ, dβ, which the training loop sums over the ranks with every other gradient), then all
  // ranks' (for dx, which needs the means over the global batch now).
  float* shard_sums = k + features;               // [shards, 2F]
  float* global = shard_sums + (shards ? shards->local : 0) * 2 * features;  // [2F]
  if (shards == nullptr) {
    column_sums(rows, features, 2, scratch.data(), sums, [&](float* partial, int64_t begin, int64_t end) {
      add_gradient_rows<ReluInput>(g, xv, mean, inv_std, partial, partial + features, begin, end, features);
    });
  } else {
    const int64_t shard = rows / shards->local;
    for (int64_t s = 0; s < shards->local; ++s)
      column_sums(shard, features, 2, scratch.data(), shard_sums + s * 2 * features, [&](float* partial, int64_t begin, int64_t end) {
        add_gradient_rows<ReluInput>(g, xv, mean, inv_std, partial, partial + features, s * shard + begin, s * shard + end, features);
      });
    shards->local_sum(shard_sums, 2 * features, sums);
  }
  float* sum_dy = sums;
  float* sum_dy_xhat = sums + features;
  if (node.fresh_grad[1]) gamma.grad.zero();  // tiny; the parameters are leaves anyway
  if (node.fresh_grad[2]) beta.grad.zero();
  for (int64_t f = 0; f < features; ++f) {
    if (gamma.requires_grad()) gamma.grad[f] += sum_dy_xhat[f];
    if (beta.requires_grad()) beta.grad[f] += sum_dy[f];
  }
  int64_t mean_rows = rows;
  if (shards != nullptr) {
    std::copy_n(sums, 2 * features, global);
    if (shards->ranks != nullptr) shards->ranks->sum_subtrees(global, 2 * features);
    sum_dy = global;
    sum_dy_xhat = global + features;
    mean_rows = shards->global_rows(rows);
  }
  for (int64_t f = 0; f < features; ++f) {
    k[f] = (gamma.value.defined() ? gamma.value[f] : 1.0f) * inv_std[f];
    sum_dy[f] /= static_cast<float>(mean_rows);       // now the means
    sum_dy_xhat[f] /= static_cast<float>(mean_rows);
  }
  if (!x.requires_grad()) return;
  float* dx = x.grad.data();
  parallel_for(rows, row_grain(features), [&](int64_t begin, int64_t end) {
    if (node.fresh_grad[0])
      input_gradient_rows<true, ReluInput>(g, xv, mean, inv_std, k, sum_dy, sum_dy_xhat, dx, begin, end, features, training);
    else
      input_gradient_rows<false, ReluInput>(g, xv, mean, inv_std, k, sum_dy, sum_dy_xhat, dx, begin, end, features, training);
  });
}

}  // namespace

BatchNorm1d::BatchNorm1d(int64_t features, const BatchNormOptions& options) : features_(features), options_(options) {
  if (features <= 0) fail("BatchNorm1d: features must be positive, got ", features);
  if (!(options.momentum >= 0.0f && options.momentum <= 1.0f)) fail("BatchNorm1d: momentum ", options.momentum, " outside [0, 1]");
  if (!(options.eps > 0.0f)) fail("BatchNorm1d: eps ", options.eps, " must be positive");
  if (options.affine) {
    scale = make_leaf(Tensor::full({features}, 1.0f, "BatchNorm scale"));
    shift = make_leaf(Tensor::zeros({features}, "BatchNorm shift"));
  }
  running_mean = Tensor::zeros({features}, "BatchNorm running mean");
  running_var = Tensor::full({features}, 1.0f, "BatchNorm running variance");
}

Var BatchNorm1d::forward(Tape& tape, const Var& x) {
  if (x.value.rank() < 2 || x.shape().last() != features_)
    fail("BatchNorm1d: x is ", x.shape(), ", expected [B, ", features_, "] or [B, V, ", features_, "]");
  const int64_t rows = x.shape().rows(), features = features_;
  if (training_ && rows < 2) fail("BatchNorm1d: training needs at least 2 rows to estimate a variance, got ", rows);
  Var y = tape.make_output(x.shape(), {&x, &scale, &shift});
  Tensor inv_std = tape.alloc({features});
  // Per-chunk partials [chunks, 2F], then [2F] of sums and [F] of factors (used by the backward);
  // sharded, also [shards, 2F] of shard sums and [2F] of global sums.
  const Shards* shards = training_ ? tape.shards() : nullptr;
  if (shards != nullptr && x.shape()[0] % shards->local != 0)
    fail("BatchNorm1d: x is ", x.shape(), ": a batch of ", x.shape()[0], " does not split into ", shards->local, " shards");
  const int64_t shard_floats = shards ? (shards->local + 1) * 2 * features : 0;
  Tensor scratch = tape.alloc({chunk_count(rows) * 2 * features + 3 * features + shard_floats});
  Tensor statistics = tape.alloc({3 * features});  // μ, γ, β as plain arrays (1 and 0 without affine)
  float* mu = statistics.data();
  float* gamma = mu + features;
  float* beta = gamma + features;
  float* is = inv_std.data();
  const float* in = x.value.data();
  // Calls the kernels with their ReluInput parameter set from the layer's option.
  const auto with_relu_input = [&](auto&& kernel) {
    if (options_.relu_input) kernel(std::true_type{});
    else kernel(std::false_type{});
  };
  // Sums over the batch's rows into out[F]: at once, or (sharded) per shard and then along the
  // shards' tree over every rank, so that μ and σ are those of the global batch.
  const auto batch_sums = [&](float* out, auto&& add) {
    if (shards == nullptr) {
      column_sums(rows, features, 1, scratch.data(), out, add);
      return;
    }
    float* shard_sums = scratch.data() + chunk_count(rows) * 2 * features + 3 * features;  // [shards, F]
    const int64_t shard = rows / shards->local;
    for (int64_t s = 0; s < shards->local; ++s)
      column_sums(shard, features, 1, scratch.data(), shard_sums + s * features,
                  [&](float* partial, int64_t begin, int64_t end) { add(partial, s * shard + begin, s * shard + end); });
    shards->global_sum(shard_sums, features, out);
  };
  const int64_t batch_rows = shards ? shards->global_rows(rows) : rows;
  if (training_) {
    with_relu_input([&](auto relu_input) {
      constexpr bool relu = decltype(relu_input)::value;
      batch_sums(mu, [&](float* partial, int64_t begin, int64_t end) {
        add_rows<relu>(in, nullptr, partial, begin, end, features, false);
      });
      for (int64_t f = 0; f < features; ++f) mu[f] /= static_cast<float>(batch_rows);
      batch_sums(is, [&](float* partial, int64_t begin, int64_t end) {
        add_rows<relu>(in, mu, partial, begin, end, features, true);  // Σ (x − μ)², turned into 1/σ below
      });
    });
    const float m = options_.momentum;
    for (int64_t f = 0; f < features; ++f) {
      const float var = is[f] / static_cast<float>(batch_rows);
      running_mean[f] = (1.0f - m) * running_mean[f] + m * mu[f];
      running_var[f] = (1.0f - m) * running_var[f] + m * var * static_cast<float>(batch_rows) / static_cast<float>(batch_rows - 1);
      is[f] = 1.0f / std::sqrt(var + options_.eps);
    }
  } else {
    for (int64_t f = 0; f < features; ++f) {
      mu[f] = running_mean[f];
      is[f] = 1.0f / std::sqrt(running_var[f] + options_.eps);
    }
  }
  for (int64_t f = 0; f < features; ++f) {
    gamma[f] = scale.value.defined() ? scale.value[f] : 1.0f;
    beta[f] = shift.value.defined() ? shift.value[f] : 0.0f;
  }
  float* out = y.value.data();
  with_relu_input([&](auto relu_input) {
    constexpr bool relu = decltype(relu_input)::value;
    parallel_for(rows, row_grain(features), [&](int64_t begin, int64_t end) {
      normalise_rows<relu>(in, mu, is, gamma, beta, out, begin, end, features);
    });
  });
  const Node::BackwardFn backward = options_.relu_input ? batch_norm_backward<true> : batch_norm_backward<false>;
  if (Node* node = tape.record(options_.relu_input ? "relu_batch_norm" : "batch_norm", backward, y, {&x, &scale, &shift})) {
    node->saved[0] = statistics;
    node->saved[1] = inv_std;
    node->saved[2] = scratch;
    node->scalars[0] = training_ ? 1.0f : 0.0f;
    node->context = shards;
    node->assigns_fresh_grads = true;
  }
  return y;
}

void BatchNorm1d::visit_parameters(const std::string& prefix, const ParameterVisitor& visit) {
  if (!options_.affine) return;
  visit(prefix + "weight", scale);
  visit(prefix + "bias", shift);
}

void BatchNorm1d::visit_buffers(const std::string& prefix, const BufferVisitor& visit) {
  visit(prefix + "running_mean", running_mean);
  visit(prefix + "running_var", running_var);
}

}  // namespace empl

#include "layers/batch_norm.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// Rows are summed in fixed chunks (whatever the thread count), each chunk's column sums kept
// apart and then added in chunk order: the same bits on 1 or 2 threads. Walking rows (not
// columns) keeps every inner loop contiguous, so it vectorises over the features.
constexpr int64_t kChunkRows = 256;

int64_t chunk_count(int64_t rows) { return (rows + kChunkRows - 1) / kChunkRows; }

// out[c] (for each of `sums` outputs) = Σ_r term(r, c, k); scratch is [chunks, sums·cols].
template <int Sums, typename Term>
void column_sums(int64_t rows, int64_t cols, Tensor& scratch, float* const (&out)[Sums], Term&& term) {
  const int64_t chunks = chunk_count(rows);
  float* partial = scratch.data();
  parallel_for(chunks, 1, [&](int64_t first, int64_t last) {
    for (int64_t chunk = first; chunk < last; ++chunk) {
      float* acc = partial + chunk * Sums * cols;
      std::fill(acc, acc + Sums * cols, 0.0f);
      for (int64_t r = chunk * kChunkRows; r < std::min(rows, (chunk + 1) * kChunkRows); ++r)
        for (int k = 0; k < Sums; ++k)
          for (int64_t c = 0; c < cols; ++c) acc[k * cols + c] += term(r, c, k);
    }
  });
  for (int k = 0; k < Sums; ++k) {
    std::fill(out[k], out[k] + cols, 0.0f);
    for (int64_t chunk = 0; chunk < chunks; ++chunk)
      for (int64_t c = 0; c < cols; ++c) out[k][c] += partial[(chunk * Sums + k) * cols + c];
  }
}

// Calls row(r) for every row, rows in parallel.
template <typename Row>
void for_rows(int64_t rows, int64_t cols, Row&& row) {
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(r);
  });
}

void batch_norm_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& gamma = node.inputs[1];
  Var& beta = node.inputs[2];
  const Tensor& x_hat = node.saved[0];     // [R, F]
  const Tensor& inv_std = node.saved[1];   // [F]
  Tensor scratch = node.saved[2];          // [chunks, 2F] for the column sums, then [2, F] of sums
  const bool training = node.scalars[0] != 0.0f;
  const Tensor& dy = node.output.grad;
  const int64_t features = dy.shape().last(), rows = dy.shape().rows();
  const float* g = dy.data();
  const float* xh = x_hat.data();
  float* sums = scratch.data() + chunk_count(rows) * 2 * features;
  float* const totals[2] = {sums, sums + features};  // Σ dy, Σ dy ⊙ x̂ per feature
  column_sums<2>(rows, features, scratch, totals, [&](int64_t r, int64_t c, int k) {
    const float d = g[r * features + c];
    return k == 0 ? d : d * xh[r * features + c];
  });
  const float* sum_dy = totals[0];
  const float* sum_dy_xhat = totals[1];
  for (int64_t f = 0; f < features; ++f) {
    if (gamma.requires_grad()) gamma.grad[f] += sum_dy_xhat[f];
    if (beta.requires_grad()) beta.grad[f] += sum_dy[f];
  }
  if (!x.requires_grad()) return;
  const float* gm = gamma.value.defined() ? gamma.value.data() : nullptr;
  const float* is = inv_std.data();
  float* dx = x.grad.data();
  const float inv_rows = 1.0f / static_cast<float>(rows);
  for_rows(rows, features, [&](int64_t r) {
    const float* gr = g + r * features;
    const float* xr = xh + r * features;
    float* out = dx + r * features;
    for (int64_t f = 0; f < features; ++f) {
      const float k = (gm ? gm[f] : 1.0f) * is[f];
      // evaluation: x̂ is an affine function of x with fixed statistics
      out[f] += training ? k * (gr[f] - sum_dy[f] * inv_rows - xr[f] * sum_dy_xhat[f] * inv_rows) : k * gr[f];
    }
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
  Tensor x_hat = tape.alloc(x.shape());
  Tensor inv_std = tape.alloc({features});
  // Column sums need [chunks, 2F] of partials, then [2, F] for the totals (shared with backward).
  Tensor scratch = tape.alloc({chunk_count(rows) * 2 * features + 2 * features});
  Tensor mean = tape.alloc({features});
  const float* in = x.value.data();
  float* out = y.value.data();
  float* xh = x_hat.data();
  float* mu = mean.data();
  float* is = inv_std.data();
  if (training_) {
    float* const mean_out[1] = {mu};
    column_sums<1>(rows, features, scratch, mean_out, [&](int64_t r, int64_t c, int) { return in[r * features + c]; });
    for (int64_t f = 0; f < features; ++f) mu[f] /= static_cast<float>(rows);
    float* const var_out[1] = {is};  // the variance first, turned into 1/√(σ² + ε) below
    column_sums<1>(rows, features, scratch, var_out, [&](int64_t r, int64_t c, int) {
      const float d = in[r * features + c] - mu[c];
      return d * d;
    });
    const float m = options_.momentum;
    for (int64_t f = 0; f < features; ++f) {
      const float var = is[f] / static_cast<float>(rows);
      running_mean[f] = (1.0f - m) * running_mean[f] + m * mu[f];
      running_var[f] = (1.0f - m) * running_var[f] + m * var * static_cast<float>(rows) / static_cast<float>(rows - 1);
      is[f] = 1.0f / std::sqrt(var + options_.eps);
    }
  } else {
    for (int64_t f = 0; f < features; ++f) {
      mu[f] = running_mean[f];
      is[f] = 1.0f / std::sqrt(running_var[f] + options_.eps);
    }
  }
  const float* gamma = scale.value.defined() ? scale.value.data() : nullptr;
  const float* beta = shift.value.defined() ? shift.value.data() : nullptr;
  for_rows(rows, features, [&](int64_t r) {
    for (int64_t f = 0; f < features; ++f) {
      const int64_t i = r * features + f;
      xh[i] = (in[i] - mu[f]) * is[f];
      out[i] = (gamma ? gamma[f] : 1.0f) * xh[i] + (beta ? beta[f] : 0.0f);
    }
  });
  if (Node* node = tape.record("batch_norm", batch_norm_backward, y, {&x, &scale, &shift})) {
    node->saved[0] = x_hat;
    node->saved[1] = inv_std;
    node->saved[2] = scratch;
    node->scalars[0] = training_ ? 1.0f : 0.0f;
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

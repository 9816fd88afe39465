#include "layers/batch_norm.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// Calls body(first_feature, last_feature) over blocks of features in parallel: each thread owns
// whole columns and walks the rows in order, so sums do not depend on the thread count.
template <typename Body>
void for_feature_blocks(int64_t features, Body&& body) {
  parallel_for(features, 8, body);
}

void batch_norm_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& gamma = node.inputs[1];
  Var& beta = node.inputs[2];
  const Tensor& x_hat = node.saved[0];      // [R, F]
  const Tensor& inv_std = node.saved[1];    // [F]
  const bool training = node.scalars[0] != 0.0f;
  const Tensor& dy = node.output.grad;
  const int64_t features = dy.shape().last(), rows = dy.shape().rows();
  const float* g = dy.data();
  const float* xh = x_hat.data();
  const float* gm = gamma.value.defined() ? gamma.value.data() : nullptr;
  for_feature_blocks(features, [&](int64_t begin, int64_t end) {
    for (int64_t f = begin; f < end; ++f) {
      float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
      for (int64_t r = 0; r < rows; ++r) {
        sum_dy += g[r * features + f];
        sum_dy_xhat += g[r * features + f] * xh[r * features + f];
      }
      if (gamma.requires_grad()) gamma.grad[f] += sum_dy_xhat;
      if (beta.requires_grad()) beta.grad[f] += sum_dy;
      if (!x.requires_grad()) continue;
      const float gamma_f = gm ? gm[f] : 1.0f;
      const float k = gamma_f * inv_std[f];
      float* dx = x.grad.data();
      if (!training) {  // evaluation: x̂ is an affine function of x with fixed statistics
        for (int64_t r = 0; r < rows; ++r) dx[r * features + f] += k * g[r * features + f];
        continue;
      }
      const float mean_dy = sum_dy / rows, mean_dy_xhat = sum_dy_xhat / rows;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = r * features + f;
        dx[i] += k * (g[i] - mean_dy - xh[i] * mean_dy_xhat);
      }
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
  const float* in = x.value.data();
  float* out = y.value.data();
  float* xh = x_hat.data();
  const float momentum = options_.momentum, eps = options_.eps;
  const bool training = training_;
  for_feature_blocks(features, [&](int64_t begin, int64_t end) {
    for (int64_t f = begin; f < end; ++f) {
      float mean, var;
      if (training) {
        double sum = 0.0, sum_sq = 0.0;
        for (int64_t r = 0; r < rows; ++r) sum += in[r * features + f];
        mean = static_cast<float>(sum / rows);
        for (int64_t r = 0; r < rows; ++r) {
          const double d = in[r * features + f] - mean;
          sum_sq += d * d;
        }
        var = static_cast<float>(sum_sq / rows);
        running_mean[f] = (1.0f - momentum) * running_mean[f] + momentum * mean;
        running_var[f] = (1.0f - momentum) * running_var[f] + momentum * var * rows / (rows - 1);
      } else {
        mean = running_mean[f];
        var = running_var[f];
      }
      const float is = 1.0f / std::sqrt(var + eps);
      inv_std[f] = is;
      const float gamma = scale.value.defined() ? scale.value[f] : 1.0f;
      const float beta = shift.value.defined() ? shift.value[f] : 0.0f;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = r * features + f;
        xh[i] = (in[i] - mean) * is;
        out[i] = gamma * xh[i] + beta;
      }
    }
  });
  if (Node* node = tape.record("batch_norm", batch_norm_backward, y, {&x, &scale, &shift})) {
    node->saved[0] = x_hat;
    node->saved[1] = inv_std;
    node->scalars[0] = training ? 1.0f : 0.0f;
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

// layers/linear: y = x·W + b as one op (bias written first, the product added with β = 1) and its
// backward dW += xᵀ·dy, dx += dy·Wᵀ, db += Σ_rows dy; weights drawn Glorot-uniform (or
// He-normal) from Rng(seed, stream). Read layers/linear.hpp first.
#include "layers/linear.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/matmul.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "core/reduce.hpp"

namespace empl {
namespace {

// The input seen as a matrix [rows, F_in], and the output shape with F_out in the last place.
Shape output_shape(const Shape& x, int64_t out) {
  switch (x.rank()) {
    case 2: return Shape{x[0], out};
    case 3: return Shape{x[0], x[1], out};
    default: fail("linear: x is ", x, ", expected [B, F] or [B, V, F]");
  }
}

// Shard s's rows of a [rows, cols] matrix (or of [B, V, cols] seen as one), as a [rows/shards, cols] view.
Tensor shard_rows(const Tensor& t, int64_t s, int64_t shards) {
  const int64_t rows = t.shape().rows() / shards, cols = t.shape().last();
  return t.view_at(s * rows * cols, Shape{rows, cols});
}

// Sets (fresh) or adds `sum` into a parameter gradient.
void set_or_add(Tensor& grad, const float* sum, bool fresh) {
  float* g = grad.data();
  for (int64_t i = 0; i < grad.numel(); ++i) g[i] = fresh ? sum[i] : g[i] + sum[i];
}

// Shapes: as linear_backward below; saved partials [n, F_in·F_out] and [n, F_out].
// The backward of a sharded batch (autograd/shards.hpp): every product has one shard's rows, so
// its shape is the same on any number of ranks; dW and db are summed per shard, then along the
// shards' tree (this rank's subtree; the training loop adds the ranks' subtrees).
void linear_backward_sharded(Node& node) {
  Var& x = node.inputs[0];
  Var& w = node.inputs[1];
  Var& b = node.inputs[2];
  const Tensor& dy = node.output.grad;
  const Shards& shards = *static_cast<const Shards*>(node.context);
  const int64_t n = shards.local;
  if (w.requires_grad()) {
    Tensor& partials = node.saved[0];  // [n, F_in·F_out]
    for (int64_t s = 0; s < n; ++s) {
      Tensor dw = partials.view_at(s * w.value.numel(), w.shape());
      gemm(shard_rows(x.value, s, n), true, shard_rows(dy, s, n), false, dw, 1.0f, 0.0f);
    }
    shards.local_sum(partials.data(), w.value.numel(), partials.data());
    set_or_add(w.grad, partials.data(), node.fresh_grad[1]);
  }
  if (x.requires_grad())
    for (int64_t s = 0; s < n; ++s) {
      Tensor dx = shard_rows(x.grad, s, n);
      gemm(shard_rows(dy, s, n), false, w.value, true, dx, 1.0f, node.fresh_grad[0] ? 0.0f : 1.0f);
    }
  if (b.value.defined() && b.requires_grad()) {
    Tensor& partials = node.saved[1];  // [n, F_out]
    const int64_t rows = dy.shape().rows() / n, cols = dy.shape().last();
    const float* g = dy.data();
    partials.zero();
    for (int64_t s = 0; s < n; ++s) {
      float* db = partials.data() + s * cols;
      for (int64_t r = s * rows; r < (s + 1) * rows; ++r)
        for (int64_t c = 0; c < cols; ++c) db[c] += g[r * cols + c];
    }
    shards.local_sum(partials.data(), cols, partials.data());
    set_or_add(b.grad, partials.data(), node.fresh_grad[2]);
  }
}

// Shapes: x, dx [B, F_in] (or [B, V, F_in]); W, dW [F_in, F_out]; b, db [1, F_out];
// dy [B, F_out] (or [B, V, F_out]).
void linear_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& w = node.inputs[1];
  Var& b = node.inputs[2];
  const Tensor& dy = node.output.grad;
  // A fresh gradient (Note [fresh gradients]) is assigned: GEMM with beta = 0.
  const auto beta = [&](int input) { return node.fresh_grad[input] ? 0.0f : 1.0f; };
  if (w.requires_grad()) gemm(x.value, true, dy, false, w.grad, 1.0f, beta(1));  // dW += xᵀ·dy
  if (x.requires_grad()) gemm(dy, false, w.value, true, x.grad, 1.0f, beta(0));  // dx += dy·Wᵀ
  if (b.value.defined() && b.requires_grad()) {
    if (node.fresh_grad[2]) b.grad.zero();
    add_column_sums(dy, b.grad);  // db += Σ_rows dy, each column's rows in order
  }
}

}  // namespace

Var linear(Tape& tape, const Var& x, const Var& w, const Var& b) {
  if (w.value.rank() != 2 || x.value.rank() < 2 || x.shape().last() != w.shape()[0])
    fail("linear: x is ", x.shape(), ", weight is ", w.shape(), ": x's last axis must equal the weight's rows");
  const int64_t out = w.shape()[1];
  // An empty weight has no product to take (and out = 0 would divide the row grain below by zero).
  if (w.value.numel() == 0) fail("linear: weight is ", w.shape(), ": a layer needs at least one input and one output feature");
  if (b.value.defined() && b.shape() != Shape{1, out})
    fail("linear: bias is ", b.shape(), ", expected [1,", out, "]");
  Var y = tape.make_output(output_shape(x.shape(), out), {&x, &w, &b});
  if (b.value.defined()) {
    const float* bias = b.value.data();
    float* rows_out = y.value.data();
    parallel_for(y.value.shape().rows(), std::max<int64_t>(1, kDefaultGrain / out), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) std::copy_n(bias, out, rows_out + r * out);
    });
  }
  const Shards* shards = tape.shards();
  if (shards == nullptr) {
    gemm(x.value, false, w.value, false, y.value, 1.0f, b.value.defined() ? 1.0f : 0.0f);
    if (Node* node = tape.record("linear", linear_backward, y, {&x, &w, &b})) node->assigns_fresh_grads = true;
    return y;
  }
  const int64_t n = shards->local;
  if (x.shape().rows() % n != 0) fail("linear: x is ", x.shape(), ": ", x.shape().rows(), " rows do not split into ", n, " shards");
  for (int64_t s = 0; s < n; ++s) {
    Tensor ys = shard_rows(y.value, s, n);
    gemm(shard_rows(x.value, s, n), false, w.value, false, ys, 1.0f, b.value.defined() ? 1.0f : 0.0f);
  }
  if (Node* node = tape.record("linear", linear_backward_sharded, y, {&x, &w, &b})) {
    node->assigns_fresh_grads = true;
    node->context = shards;
    if (w.requires_grad()) node->saved[0] = tape.alloc({n * w.value.numel()});
    if (b.value.defined() && b.requires_grad()) node->saved[1] = tape.alloc({n * out});
  }
  return y;
}

Linear::Linear(int64_t in_features, int64_t out_features, const LinearOptions& options)
    : in_features_(in_features), out_features_(out_features) {
  if (in_features <= 0 || out_features <= 0)
    fail("Linear: features must be positive, got ", in_features, " -> ", out_features);
  Tensor w = Tensor::empty({in_features, out_features}, "Linear weight");
  if (options.init == Init::GlorotUniform) {
    const float limit = std::sqrt(6.0f / static_cast<float>(in_features + out_features));
    fill_uniform(w, -limit, limit, options.seed, options.stream);
  } else {
    fill_normal(w, 0.0f, std::sqrt(2.0f / static_cast<float>(in_features)), options.seed, options.stream);
  }
  weight = make_leaf(w);
  if (options.bias) bias = make_leaf(Tensor::zeros({1, out_features}, "Linear bias"));
}

Var Linear::forward(Tape& tape, const Var& x) { return linear(tape, x, weight, bias); }

void Linear::visit_parameters(const std::string& prefix, const ParameterVisitor& visit) {
  visit(prefix + "weight", weight);
  if (bias.value.defined()) visit(prefix + "bias", bias);
}

}  // namespace empl

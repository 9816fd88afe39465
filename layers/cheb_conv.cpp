// layers/cheb_conv: the forward recurrence T0 = x, T1 = L̃x, Tk = 2L̃T(k−1) − T(k−2), one GEMM
// y = [T0 … T(K−1)]·W + b, and the reverse recurrence of the backward through the same sparse
// product (L̃ is symmetric). Read layers/cheb_conv.hpp first.
#include "layers/cheb_conv.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/matmul.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "core/reduce.hpp"
#include "graph/sparse_matmul.hpp"

namespace empl {
namespace {

// dst = or += src, two blocks of the same layout (a [V, B, F] tensor is block 0 of 1), row-parallel.
void copy_rows(const BlockRows& src, const BlockRows& dst, bool accumulate) {
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, src.row_length()));
  parallel_for(src.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t b = 0; b < src.segments; ++b) {
        const float* in = src.data + r * src.row_stride() + b * src.segment_stride;
        float* out = dst.data + r * dst.row_stride() + b * dst.segment_stride;
        if (accumulate) {
          for (int64_t c = 0; c < src.segment_length; ++c) out[c] += in[c];
        } else {
          std::copy_n(in, src.segment_length, out);
        }
      }
  });
}

// Shapes: x, dx [V, B, F_in]; saved basis [V, B, K·F_in]; W, dW [K·F_in, F_out]; b, db [1, F_out];
// dy [V, B, F_out]; L̃ [V, V] (CSR, node.context).
void cheb_conv_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& w = node.inputs[1];
  Var& b = node.inputs[2];
  const auto& laplacian = *static_cast<const CsrMatrix<float>*>(node.context);
  Tensor& basis = node.saved[0];
  const Tensor& dy = node.output.grad;
  const int64_t order = static_cast<int64_t>(node.scalars[0]);
  const int64_t f_in = x.shape()[2];
  const auto beta = [&](int input) { return node.fresh_grad[input] ? 0.0f : 1.0f; };
  if (w.requires_grad()) gemm(basis, true, dy, false, w.grad, 1.0f, beta(1));  // dW += basisᵀ·dy
  if (b.value.defined() && b.requires_grad()) {
    if (node.fresh_grad[2]) b.grad.zero();
    add_column_sums(dy, b.grad);  // db += Σ_rows dy
  }
  if (!x.requires_grad()) return;
  Tensor& dbasis = node.saved[1];
  gemm(dy, false, w.value, true, dbasis, 1.0f, 0.0f);  // dbasis = dy·Wᵀ
  const auto block = [&](int64_t k) { return BlockRows::block(dbasis, k, f_in); };
  // The reverse recurrence (Clenshaw's), in place: block k holds G(k) = dy·Wkᵀ and becomes
  //   U(k) = G(k) + 2·L̃·U(k+1) − U(k+2),   k = K−2 … 1   (U(K−1) = G(K−1), U(K) = 0),
  //   dx   = G(0) +   L̃·U(1)   − U(2),
  // one sparse product per term, the subtraction done in its pass. L̃ is symmetric, so L̃ᵀ·g is
  // sparse_matmul(L̃, g) (see the header).
  // A fresh dx is the last product's output itself; an accumulated one gets U(0) added.
  const BlockRows dx = BlockRows::block(x.grad, 0, f_in);
  for (int64_t k = order - 2; k >= 0; --k) {
    const BlockRows current = block(k);
    const BlockRows two_ahead = k + 2 < order ? block(k + 2) : BlockRows{};
    const bool into_dx = k == 0 && node.fresh_grad[0];
    sparse_matmul(laplacian, block(k + 1), into_dx ? dx : current, k == 0 ? 1.0f : 2.0f, &current, 1.0f,
                  k + 2 < order ? &two_ahead : nullptr);
  }
  if (order == 1 || !node.fresh_grad[0]) copy_rows(block(0), dx, !node.fresh_grad[0]);  // dx (+)= U(0)
}

}  // namespace

Var cheb_conv(Tape& tape, const Var& x, const CsrMatrix<float>& laplacian, const Var& w, const Var& b) {
  if (x.value.rank() != 3 || w.value.rank() != 2 || x.shape()[0] != laplacian.rows || w.shape()[0] == 0 ||
      w.shape()[0] % x.shape()[2] != 0)
    fail("cheb_conv: x is ", x.shape(), ", weight is ", w.shape(), ", graph has ", laplacian.rows,
         " nodes: expected x [V, B, F_in] with V the graph's nodes and weight [K·F_in, F_out]");
  const int64_t nodes = x.shape()[0], batch = x.shape()[1], f_in = x.shape()[2];
  const int64_t order = w.shape()[0] / f_in, f_out = w.shape()[1];
  if (b.value.defined() && b.shape() != Shape{1, f_out})
    fail("cheb_conv: bias is ", b.shape(), ", weight is ", w.shape(), ": expected bias [1,", f_out, "]");
  Tensor basis = tape.alloc({nodes, batch, order * f_in});
  Tensor x_value = x.value;
  copy_rows(BlockRows::block(x_value, 0, f_in), BlockRows::block(basis, 0, f_in), false);  // T0 = x
  if (order >= 2) sparse_matmul(laplacian, BlockRows::block(basis, 0, f_in), BlockRows::block(basis, 1, f_in));
  for (int64_t k = 2; k < order; ++k) {  // Tk = 2·L̃·T(k−1) − T(k−2)
    const BlockRows two_back = BlockRows::block(basis, k - 2, f_in);
    sparse_matmul(laplacian, BlockRows::block(basis, k - 1, f_in), BlockRows::block(basis, k, f_in), 2.0f,
                  &two_back, -1.0f);
  }
  Var y = tape.make_output({nodes, batch, f_out}, {&x, &w, &b});
  if (b.value.defined()) {
    const float* bias = b.value.data();
    float* rows_out = y.value.data();
    parallel_for(nodes * batch, std::max<int64_t>(1, kDefaultGrain / f_out), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) std::copy_n(bias, f_out, rows_out + r * f_out);
    });
  }
  gemm(basis, false, w.value, false, y.value, 1.0f, b.value.defined() ? 1.0f : 0.0f);  // y (+)= basis·W
  if (Node* node = tape.record("cheb_conv", cheb_conv_backward, y, {&x, &w, &b})) {
    node->assigns_fresh_grads = true;
    node->context = &laplacian;
    node->saved[0] = basis;
    if (x.requires_grad()) node->saved[1] = tape.alloc(basis.shape());  // dbasis, scratch of the backward
    node->scalars[0] = static_cast<float>(order);
  }
  return y;
}

ChebConv::ChebConv(const CsrMatrix<float>& laplacian, int64_t order, int64_t in_features, int64_t out_features,
                   const ChebConvOptions& options)
    : laplacian_(&laplacian) {
  if (order <= 0 || in_features <= 0 || out_features <= 0)
    fail("ChebConv: order and features must be positive, got K ", order, ", ", in_features, " -> ", out_features);
  Tensor w = Tensor::empty({order * in_features, out_features}, "ChebConv weight");
  const double std = 1.0 / std::sqrt(static_cast<double>(in_features) * (static_cast<double>(order) + 0.5) / 2.0);
  Rng rng(options.seed, options.stream);
  for (float& v : w.values()) {
    double z = rng.normal_double();
    while (std::abs(z) > 2.0) z = rng.normal_double();  // truncated at 2σ by redrawing, as TensorFlow does
    v = static_cast<float>(std * z);
  }
  weight = make_leaf(w);
  if (options.bias) bias = make_leaf(Tensor::zeros({1, out_features}, "ChebConv bias"));
}

Var ChebConv::forward(Tape& tape, const Var& x) { return cheb_conv(tape, x, *laplacian_, weight, bias); }

void ChebConv::visit_parameters(const std::string& prefix, const ParameterVisitor& visit) {
  visit(prefix + "weight", weight);
  if (bias.value.defined()) visit(prefix + "bias", bias);
}

}  // namespace empl

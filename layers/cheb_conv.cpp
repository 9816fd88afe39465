// layers/cheb_conv: the forward recurrence T0 = x, T1 = L̃x, Tk = 2L̃T(k−1) − T(k−2), one GEMM
// y = [T0 … T(K−1)]·W + b, and the reverse recurrence of the backward through the same sparse
// product (L̃ is symmetric). Read layers/cheb_conv.hpp first.
#include "layers/cheb_conv.hpp"

#include <algorithm>
#include <cmath>

#include "core/elementwise.hpp"
#include "core/error.hpp"
#include "core/matmul.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "core/reduce.hpp"
#include "graph/sparse_matmul.hpp"

namespace empl {
namespace {

// Term k of the Chebyshev recurrence, a [V, B, F_in] view into the terms tensor [K, V, B, F_in].
Tensor term_of(const Tensor& terms, int64_t k) {
  const Shape& s = terms.shape();
  return terms.view_at(k * s[1] * s[2] * s[3], {s[1], s[2], s[3]});
}

// Copies a term [V, B, F] into block k of the basis [V, B, K·F] (into_basis) or back: F floats for
// each of the V·B rows, row-parallel.
void copy_block(Tensor term, Tensor& basis, int64_t k, bool into_basis) {
  const int64_t rows = term.shape()[0] * term.shape()[1], f = term.shape()[2], stride = basis.shape()[2];
  float* t = term.data();
  float* block = basis.data() + k * f;
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / f), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      if (into_basis) std::copy_n(t + r * f, f, block + r * stride);
      else std::copy_n(block + r * stride, f, t + r * f);
    }
  });
}

// Shapes: x, dx [V, B, F_in]; saved basis [V, B, K·F_in] and terms [K, V, B, F_in]; W, dW
// [K·F_in, F_out]; b, db [1, F_out]; dy [V, B, F_out]; L̃ [V, V] (CSR, node.context).
void cheb_conv_backward(Node& node) {
  Var& x = node.inputs[0];
  Var& w = node.inputs[1];
  Var& b = node.inputs[2];
  const auto& laplacian = *static_cast<const CsrMatrix<float>*>(node.context);
  Tensor& basis = node.saved[0];
  const Tensor& dy = node.output.grad;
  const int64_t order = static_cast<int64_t>(node.scalars[0]);
  const auto beta = [&](int input) { return node.fresh_grad[input] ? 0.0f : 1.0f; };
  if (w.requires_grad()) gemm(basis, true, dy, false, w.grad, 1.0f, beta(1));  // dW += basisᵀ·dy
  if (b.value.defined() && b.requires_grad()) {
    if (node.fresh_grad[2]) b.grad.zero();
    add_column_sums(dy, b.grad);  // db += Σ_rows dy
  }
  if (!x.requires_grad()) return;
  // The basis is spent once dW is made: its memory takes G = dy·Wᵀ, [V, B, K·F_in] like it.
  Tensor& g = basis;
  gemm(dy, false, w.value, true, g, 1.0f, 0.0f);  // G = dy·Wᵀ
  // The reverse recurrence (Clenshaw's) runs on the contiguous terms, as the forward's did: term k
  // gets G(k) = dy·Wkᵀ and becomes
  //   U(k) = G(k) + 2·L̃·U(k+1) − U(k+2),   k = K−2 … 1   (U(K−1) = G(K−1), U(K) = 0),
  //   dx   = G(0) +   L̃·U(1)   − U(2),
  // one sparse product per term, the subtraction done in its pass. L̃ is symmetric, so L̃ᵀ·g is
  // sparse_matmul(L̃, g) (see the header).
  // A fresh dx is the last product's output itself; an accumulated one gets U(0) added.
  const Tensor& terms = node.saved[1];
  for (int64_t k = 0; k < order; ++k) copy_block(term_of(terms, k), g, k, false);  // term k = G(k)
  for (int64_t k = order - 2; k >= 0; --k) {
    Tensor current = term_of(terms, k);
    const Tensor two_ahead = k + 2 < order ? term_of(terms, k + 2) : Tensor{};
    const bool into_dx = k == 0 && node.fresh_grad[0];
    sparse_matmul(laplacian, term_of(terms, k + 1), into_dx ? x.grad : current, k == 0 ? 1.0f : 2.0f, &current, 1.0f,
                  k + 2 < order ? &two_ahead : nullptr);
  }
  if (!node.fresh_grad[0]) binary(Binary::Add, x.grad, term_of(terms, 0), x.grad);  // dx += U(0)
  else if (order == 1) x.grad.copy_from(term_of(terms, 0));                           // dx = U(0) = G(0)
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
  // The recurrence runs on contiguous terms [K, V, B, F_in], where each sparse product streams whole
  // rows of B·F_in floats; the GEMM needs them side by side, [V, B, K·F_in], so each term is then
  // copied into its block of the basis. (Run on the basis's own blocks, runs of F_in floats K·F_in
  // apart, the products of the gamma-ray network's first blocks, F_in = 1 and 4, gathered single
  // floats: a training step at 1 thread took 0.113–0.120 s against 0.079–0.084 s now.)
  Tensor basis = tape.alloc({nodes, batch, order * f_in});
  Tensor terms = tape.alloc({order, nodes, batch, f_in});  // term 0 unused here: T0 is x itself
  const auto term = [&](int64_t k) { return k == 0 ? x.value : term_of(terms, k); };
  for (int64_t k = 1; k < order; ++k) {  // T1 = L̃·T0,  Tk = 2·L̃·T(k−1) − T(k−2)
    Tensor out = term(k);
    const Tensor two_back = k >= 2 ? term(k - 2) : Tensor{};
    sparse_matmul(laplacian, term(k - 1), out, k == 1 ? 1.0f : 2.0f, k >= 2 ? &two_back : nullptr, -1.0f);
  }
  for (int64_t k = 0; k < order; ++k) copy_block(term(k), basis, k, true);
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
    node->saved[1] = terms;  // the backward's U(k) take the terms' place
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

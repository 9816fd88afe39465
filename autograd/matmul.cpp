// autograd/matmul: y = op(a)·op(b) forward, and its backward da += dy·op(b)ᵀ, db += op(a)ᵀ·dy as
// sgemms with β = 1 (the transposed cases by transposing both sides). Read autograd/matmul.hpp
// first: it is the worked example of an op on the tape.
#include "autograd/matmul.hpp"

#include "core/matmul.hpp"

namespace empl {
namespace {

// Shapes: op(a) [M, K], op(b) [K, N], dy [M, N] → da of a's shape, db of b's shape.
void matmul_backward(Node& node) {
  Var& a = node.inputs[0];
  Var& b = node.inputs[1];
  const Tensor& dy = node.output.grad;
  const bool ta = node.scalars[0] != 0.0f, tb = node.scalars[1] != 0.0f;
  if (a.requires_grad()) {
    if (!ta) gemm(dy, false, b.value, !tb, a.grad, 1.0f, 1.0f);   // da = dy · op(b)ᵀ
    else     gemm(b.value, tb, dy, true, a.grad, 1.0f, 1.0f);     // (aᵀ)' : da = op(b) · dyᵀ
  }
  if (b.requires_grad()) {
    if (!tb) gemm(a.value, !ta, dy, false, b.grad, 1.0f, 1.0f);   // db = op(a)ᵀ · dy
    else     gemm(dy, true, a.value, ta, b.grad, 1.0f, 1.0f);     // (bᵀ)' : db = dyᵀ · op(a)
  }
}

}  // namespace

Var matmul(Tape& tape, const Var& a, const Var& b, bool transpose_a, bool transpose_b) {
  const int64_t m = transpose_a ? a.value.shape().last() : a.value.shape().rows();
  const int64_t n = transpose_b ? b.value.shape().rows() : b.value.shape().last();
  Var y = tape.make_output({m, n}, {&a, &b});
  gemm(a.value, transpose_a, b.value, transpose_b, y.value);  // checks the shapes
  if (Node* node = tape.record("matmul", matmul_backward, y, {&a, &b})) {
    node->scalars[0] = transpose_a ? 1.0f : 0.0f;
    node->scalars[1] = transpose_b ? 1.0f : 0.0f;
  }
  return y;
}

}  // namespace empl

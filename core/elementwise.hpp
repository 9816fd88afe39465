// Elementwise kernels: out[i] = f(x[i]) and out[i] = f(a[i], b[i]), with broadcasting of b.
//
// Read after core/tensor.hpp. Every kernel is one contiguous loop (which the compiler
// vectorises), run in parallel chunks above kDefaultGrain elements and serially below. Kernels
// write into a caller-provided `out` (which may be the input itself): the autograd ops pass
// buffers from the tape's arena, so a training step allocates nothing.
//
// Broadcasting, deliberately small: b may have a's shape, or be a row [1, n] (or [n]) applied to
// every row of a [.., n] tensor, or a column [m, 1] applied to every column of an [m, n] tensor.
#pragma once

#include "core/tensor.hpp"

namespace empl {

enum class Unary { Neg, Exp, Log, Sqrt, Abs, Relu, Sigmoid, Softplus, Step, Sign };
enum class Binary { Add, Sub, Mul, Div, Max, Min };
enum class Broadcast { Same, Row, Column };

const char* name_of(Unary op);
const char* name_of(Binary op);

// How b combines with a; throws "op: a is [..], b is [..]: cannot broadcast" otherwise.
Broadcast broadcast_kind(const char* op, const Tensor& a, const Tensor& b);

void unary(Unary op, const Tensor& x, Tensor& out);                  // out has x's shape
void binary(Binary op, const Tensor& a, const Tensor& b, Tensor& out);  // out has a's shape
void binary_scalar(Binary op, const Tensor& a, float b, Tensor& out);   // out[i] = a[i] op b
void clamp(const Tensor& x, float lo, float hi, Tensor& out);

// Fresh-tensor conveniences for use outside training steps.
Tensor unary(Unary op, const Tensor& x);
Tensor binary(Binary op, const Tensor& a, const Tensor& b);

// Reduces a gradient of a's shape back to b's broadcast shape: sums over rows (Row) or over
// columns (Column), and accumulates (+=) into b_grad. Deterministic for any thread count.
void accumulate_broadcast(Broadcast kind, const Tensor& grad, const Tensor& factor, Tensor& b_grad);

}  // namespace empl

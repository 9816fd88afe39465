// Reductions: sum, mean and max over all elements, or over one axis keeping it as extent 1
// (an [m, n] tensor summed over axis 1 gives [m, 1], over axis 0 gives [1, n]).
//
// Sums accumulate in double, in a fixed order of fixed chunks, so the result has the same bits
// for any thread count (core/parallel.hpp).
// Read after core/elementwise.hpp.
#pragma once

#include "core/tensor.hpp"

namespace empl {

double sum_all(const Tensor& x);
double mean_all(const Tensor& x);
float max_all(const Tensor& x);  // throws on an empty tensor

// The shape of a reduction of `shape` over `axis`, keeping the axis with extent 1.
Shape reduced_shape(const char* op, const Shape& shape, int axis);

// out has reduced_shape(x, axis). `argmax` (optional, same shape as out) receives, for max, the
// index along the axis of the first maximum.
void sum_axis(const Tensor& x, int axis, Tensor& out);
void mean_axis(const Tensor& x, int axis, Tensor& out);
void max_axis(const Tensor& x, int axis, Tensor& out, Tensor* argmax = nullptr);

// out[c] += Σ_r x[r, c] for x viewed as [rows, C] and out with C elements (a bias gradient): in
// float, each column's rows added in order, so the bits do not depend on the thread count. One
// pass over x: a thread owns a block of up to 64 columns and sweeps all rows through it.
void add_column_sums(const Tensor& x, Tensor& out);

}  // namespace empl

// Sparse × dense: Y = α·A·X + s·Z − W for a CSR matrix A [V, V] (the rescaled Laplacian L̃) and
// dense X, Y, Z, W of V rows of C floats each, the product every Chebyshev term and its backward is
// made of. Read graph/laplacian.hpp first.
//
// Parallel over rows with oneTBB. Each row of Y is computed by one thread, its terms added in the
// CSR order, so the bits do not depend on the thread count or on the chunking.
#pragma once

#include "core/tensor.hpp"
#include "graph/laplacian.hpp"

namespace empl {

// y = alpha·A·x + add_scale·add − subtract, every tensor [V, ...] of x's shape (add and subtract
// may be null: then their terms are absent). Per float, the row's sum starts at add_scale·add −
// subtract and the entries are added in CSR order. y may be the same memory as add or subtract
// (each row reads its own row of them before writing it), never as x. The subtracted term lets
// the ChebConv backward's recurrence U(k−1) = G(k−1) + 2·L̃·U(k) − U(k+1) be one pass over memory
// instead of two.
void sparse_matmul(const CsrMatrix<float>& a, const Tensor& x, Tensor& y, float alpha = 1.0f,
                   const Tensor* add = nullptr, float add_scale = 0.0f, const Tensor* subtract = nullptr);

}  // namespace empl

// Sparse × dense: Y = α·A·X + s·Z − W for a CSR matrix A [V, V] (the rescaled Laplacian L̃) and
// dense X, Y, Z, W of V rows, the product every Chebyshev term and its backward is made of. Read
// graph/laplacian.hpp first.
//
// A row of X need not be contiguous: a BlockRows view sees row v as `segments` runs of
// `segment_length` floats, `segment_stride` apart. The Chebyshev basis is stored [V, B, K·F] so
// that one GEMM multiplies it by the weights; its k-th term T_k is then, in row v, B runs of F
// floats K·F apart, and the product reads and writes it in place (no copy in or out).
//
// Parallel over rows with oneTBB. Each row of Y is computed by one thread, its terms added in the
// CSR order, so the bits do not depend on the thread count or on the chunking.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "graph/laplacian.hpp"

namespace empl {

struct BlockRows {
  float* data = nullptr;
  int64_t rows = 0;
  int64_t segments = 1;        // B (1 for a plain [V, C] matrix)
  int64_t segment_length = 0;  // F (C for a plain matrix)
  int64_t segment_stride = 0;  // floats from one segment to the next within a row

  int64_t row_stride() const { return segments * segment_stride; }
  int64_t row_length() const { return segments * segment_length; }
  // The whole tensor as [V, C], V = its first axis.
  static BlockRows of(Tensor& tensor);
  // Segment block k of K, each of length `length`, of a [V, B, K·length] tensor.
  static BlockRows block(Tensor& tensor, int64_t k, int64_t length);
};

// y = alpha·A·x + add_scale·add − subtract (add and subtract may be null: then their terms are
// absent). Per float, the row's sum starts at add_scale·add − subtract and the entries are added
// in CSR order. y may be the same memory as add or subtract (each row reads its own row of them
// before writing it), never as x. The subtracted term lets the ChebConv backward's recurrence
// U(k−1) = G(k−1) + 2·L̃·U(k) − U(k+1) be one pass over memory instead of two.
void sparse_matmul(const CsrMatrix<float>& a, const BlockRows& x, const BlockRows& y, float alpha = 1.0f,
                   const BlockRows* add = nullptr, float add_scale = 0.0f, const BlockRows* subtract = nullptr);

// Convenience for plain tensors: y [V, ...] = A·x [V, ...] (same shapes), y written.
void sparse_matmul(const CsrMatrix<float>& a, Tensor x, Tensor& y);

}  // namespace empl

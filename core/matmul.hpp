// Matrix products through OpenBLAS's cblas_sgemm: the one place where most FLOPs of a dense
// network are spent. Transposes are passed to BLAS as flags, never made as copies.
//
// A tensor of rank > 2 enters as the matrix [rows(), last()] (leading axes flattened), so a
// [B, V, F] activation times a [F, G] weight is one GEMM of [B*V, F] by [F, G].
// Read after core/tensor.hpp and core/parallel.hpp (the row tiles).
#pragma once

#include "core/tensor.hpp"

namespace empl {

// out = alpha * op(a) · op(b) + beta * out, with op(x) = x or xᵀ. out must already have the
// right number of rows and columns. beta = 1 accumulates (used by backward passes).
void gemm(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& out,
          float alpha = 1.0f, float beta = 0.0f);

// A fresh [rows of op(a), cols of op(b)] tensor holding op(a) · op(b).
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

}  // namespace empl

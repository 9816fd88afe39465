#include "core/matmul.hpp"

#include <cblas.h>

#include "core/error.hpp"

namespace empl {
namespace {

struct MatrixView {
  int64_t rows, cols;  // of the stored (untransposed) matrix
};

MatrixView as_matrix(const char* which, const Tensor& t) {
  if (!t.defined() || t.rank() < 1) fail("matmul: ", which, " is undefined or a scalar");
  return {t.rank() == 1 ? 1 : t.shape().rows(), t.shape().last()};
}

}  // namespace

void gemm(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& out,
          float alpha, float beta) {
  const MatrixView ma = as_matrix("a", a), mb = as_matrix("b", b), mo = as_matrix("out", out);
  const int64_t m = transpose_a ? ma.cols : ma.rows;
  const int64_t k = transpose_a ? ma.rows : ma.cols;
  const int64_t k_b = transpose_b ? mb.cols : mb.rows;
  const int64_t n = transpose_b ? mb.rows : mb.cols;
  if (k != k_b)
    fail("matmul: a is ", a.shape(), transpose_a ? "ᵀ" : "", ", b is ", b.shape(),
         transpose_b ? "ᵀ" : "", ": inner dims ", k, " != ", k_b);
  if (mo.rows != m || mo.cols != n)
    fail("matmul: a is ", a.shape(), ", b is ", b.shape(), ": out is ", out.shape(),
         ", expected [", m, ",", n, "]");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: BLAS would still scale by beta, do the same
    for (float& v : out.values()) v *= beta;
    return;
  }
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a.data(), static_cast<int>(ma.cols), b.data(),
              static_cast<int>(mb.cols), beta, out.data(), static_cast<int>(n));
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const MatrixView ma = as_matrix("a", a), mb = as_matrix("b", b);
  Tensor out = Tensor::empty({transpose_a ? ma.cols : ma.rows, transpose_b ? mb.rows : mb.cols},
                             "matmul output");
  gemm(a, transpose_a, b, transpose_b, out);
  return out;
}

}  // namespace empl

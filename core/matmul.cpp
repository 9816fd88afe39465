// core/matmul: C = α·op(A)·op(B) + β·C through cblas_sgemm, split into fixed row tiles of C that
// oneTBB runs in parallel, each tile one single-threaded sgemm (so OpenBLAS never competes with
// TBB for the cores, and the bits do not depend on the thread count). Read core/matmul.hpp and
// core/parallel.hpp first.
#include "core/matmul.hpp"

#include <cblas.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

struct MatrixView {
  int64_t rows, cols;  // of the stored (untransposed) matrix
};

MatrixView as_matrix(const char* which, const Tensor& t) {
  if (!t.defined() || t.rank() < 1) fail("matmul: ", which, " is undefined or a scalar");
  return {t.rank() == 1 ? 1 : t.shape().rows(), t.shape().last()};
}

// The product is split into tiles of output rows, each one single-threaded sgemm call, and the
// tiles run on TBB's threads. Two reasons, both measured (bench/): (1) OpenBLAS's own threading
// rounds differently with the thread count (its edge kernels see other row ranges), so results
// would change between 1 and 2 threads; a fixed tiling gives the same bits on any thread count.
// (2) One thread pool instead of two: OpenBLAS's threads gained little on these shapes (2048x128
// by 128x128: 1.0-1.4x on 2 cores) where TBB tiles gain 1.8x. At most kMaxTiles tiles of at
// least kMinTileRows rows: each tile repacks op(b), so tiles must stay large (one thread loses
// about 1% against a single call).
constexpr int64_t kMaxTiles = 4;
constexpr int64_t kMinTileRows = 64;

int64_t rows_per_tile(int64_t m) {
  const int64_t quarter = (m + kMaxTiles - 1) / kMaxTiles;
  return std::max(kMinTileRows, (quarter + 15) / 16 * 16);  // whole SIMD row panels
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
  num_threads();  // applies the thread setting on first use: OpenBLAS must be at one thread
  const int64_t tile_rows = rows_per_tile(m);
  const int64_t tiles = (m + tile_rows - 1) / tile_rows;
  parallel_for(tiles, 1, [&](int64_t first_tile, int64_t last_tile) {
    for (int64_t tile = first_tile; tile < last_tile; ++tile) {
      const int64_t row = tile * tile_rows, rows = std::min(tile_rows, m - row);
      // Rows [row, row + rows) of op(a): rows of a, or columns of a when it is transposed.
      const float* a_tile = a.data() + (transpose_a ? row : row * ma.cols);
      cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
                  transpose_b ? CblasTrans : CblasNoTrans, static_cast<int>(rows),
                  static_cast<int>(n), static_cast<int>(k), alpha, a_tile,
                  static_cast<int>(ma.cols), b.data(), static_cast<int>(mb.cols), beta,
                  out.data() + row * n, static_cast<int>(n));
    }
  });
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const MatrixView ma = as_matrix("a", a), mb = as_matrix("b", b);
  Tensor out = Tensor::empty({transpose_a ? ma.cols : ma.rows, transpose_b ? mb.rows : mb.cols},
                             "matmul output");
  gemm(a, transpose_a, b, transpose_b, out);
  return out;
}

}  // namespace empl

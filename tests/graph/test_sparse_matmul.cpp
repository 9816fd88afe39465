// graph/sparse_matmul: against a dense product in double, on strided blocks, 1 vs 2 threads.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "graph/sparse_matmul.hpp"

using namespace empl;

namespace {

Tensor random_tensor(const Shape& shape, uint64_t stream) {
  Tensor t = Tensor::empty(shape);
  fill_normal(t, 0.0f, 1.0f, 7, stream);
  return t;
}

// y = 2·A·x − z in double, the Chebyshev recurrence's step, from a dense copy of A.
std::vector<double> dense_step(const CsrMatrix<float>& a, const Tensor& x, const Tensor& z) {
  const int64_t v = a.rows, c = x.numel() / v;
  std::vector<double> dense(static_cast<size_t>(v * v), 0.0), y(static_cast<size_t>(v * c));
  for (int64_t r = 0; r < v; ++r)
    for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) dense[r * v + a.indices[e]] = a.values[e];
  for (int64_t r = 0; r < v; ++r)
    for (int64_t j = 0; j < c; ++j) {
      double sum = 0.0;
      for (int64_t k = 0; k < v; ++k) sum += dense[r * v + k] * x[k * c + j];
      y[r * c + j] = 2.0 * sum - z[r * c + j];
    }
  return y;
}

}  // namespace

TEST_CASE("sparse_matmul: y = 2·L~·x − z agrees with a dense product, plain and on strided blocks") {
  const GraphLevel level = build_graph_level(8);  // 64 nodes
  // B = 9 runs of F = 1, 4, 5, 8, 16, 32, 64, 128, 100 floats reach every kernel, whatever the
  // CPU's vector width: the L1 buffer with fixed (1, 4) and runtime widths (5, 100, and plain rows
  // of 9F floats), narrow register tiles full and partial (9 runs are never a whole number of
  // tiles), and wide tiles cut along a run's columns (128, and plain rows of 9·128).
  for (const int64_t f : {1, 4, 5, 8, 16, 32, 64, 128, 100}) {
    INFO("F = ", f);
    Tensor x = random_tensor({64, 9, f}, 1), z = random_tensor({64, 9, f}, 2);
    const std::vector<double> expected = dense_step(level.laplacian, x, z);
    Tensor y = Tensor::empty({64, 9, f});
    BlockRows zr = BlockRows::of(z);
    sparse_matmul(level.laplacian, BlockRows::of(x), BlockRows::of(y), 2.0f, &zr, -1.0f);
    double worst = 0.0;
    for (int64_t i = 0; i < y.numel(); ++i) worst = std::max(worst, std::abs(y[i] - expected[i]));
    CHECK(worst < 2e-6);  // float32 sums of 9 terms of size ~1
    // The same x and z as blocks 1 and 0, and y as block 2, of a [64, 9, 3·F] basis: same bits.
    Tensor basis = Tensor::zeros({64, 9, 3 * f});
    for (int64_t r = 0; r < 64 * 9; ++r)
      for (int64_t c = 0; c < f; ++c) {
        basis[r * 3 * f + f + c] = x[r * f + c];
        basis[r * 3 * f + c] = z[r * f + c];
      }
    BlockRows block0 = BlockRows::block(basis, 0, f);
    sparse_matmul(level.laplacian, BlockRows::block(basis, 1, f), BlockRows::block(basis, 2, f), 2.0f, &block0, -1.0f);
    int differ = 0;
    for (int64_t r = 0; r < 64 * 9; ++r)
      for (int64_t c = 0; c < f; ++c) differ += basis[r * 3 * f + 2 * f + c] != y[r * f + c];
    CHECK(differ == 0);
    // In place on the added operand: z ← 2·A·x − z.
    sparse_matmul(level.laplacian, BlockRows::of(x), BlockRows::of(z), 2.0f, &zr, -1.0f);
    differ = 0;
    for (int64_t i = 0; i < y.numel(); ++i) differ += z[i] != y[i];
    CHECK(differ == 0);
  }
}

TEST_CASE("sparse_matmul: the backward's step U = z + 2·L~·x − w, in place on z, agrees with a dense product") {
  const GraphLevel level = build_graph_level(8);
  for (const int64_t f : {5, 32, 128}) {  // the L1 buffer, narrow and wide register tiles
    INFO("F = ", f);
    Tensor x = random_tensor({64, 9, f}, 3), z = random_tensor({64, 9, f}, 4), w = random_tensor({64, 9, f}, 5);
    Tensor minus_z = Tensor::empty(z.shape());
    for (int64_t i = 0; i < z.numel(); ++i) minus_z[i] = -z[i];
    std::vector<double> expected = dense_step(level.laplacian, x, minus_z);  // 2·A·x + z
    for (int64_t i = 0; i < w.numel(); ++i) expected[static_cast<size_t>(i)] -= w[i];
    const BlockRows zr = BlockRows::of(z), wr = BlockRows::of(w);
    sparse_matmul(level.laplacian, BlockRows::of(x), zr, 2.0f, &zr, 1.0f, &wr);
    double worst = 0.0;
    for (int64_t i = 0; i < z.numel(); ++i) worst = std::max(worst, std::abs(z[i] - expected[static_cast<size_t>(i)]));
    CHECK(worst < 2e-6);
  }
}

TEST_CASE("sparse_matmul: the same bits on 1 and on 2 threads") {
  const GraphLevel level = build_graph_level(64);  // 4096 rows, several chunks
  Tensor x = random_tensor({4096, 64}, 3);
  Tensor y1 = Tensor::empty({4096, 64}), y2 = Tensor::empty({4096, 64});
  const int before = num_threads();
  set_num_threads(1);
  sparse_matmul(level.laplacian, x, y1);
  set_num_threads(2);
  sparse_matmul(level.laplacian, x, y2);
  set_num_threads(before);
  int differ = 0;
  for (int64_t i = 0; i < y1.numel(); ++i) differ += y1[i] != y2[i];
  CHECK(differ == 0);
}

TEST_CASE("sparse_matmul: mismatched rows name the shapes") {
  const GraphLevel level = build_graph_level(2);  // 4 nodes
  Tensor x = Tensor::zeros({5, 2}), y = Tensor::zeros({5, 2}), y3 = Tensor::zeros({4, 3});
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, x, y), doctest::Contains("A is [4,4], x is [5,1x2]"), Error);
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, Tensor::zeros({4, 2}), y3), doctest::Contains("[4,2]"), Error);
}

TEST_CASE("sparse_matmul: rows wider than the row buffer (B·F > 2048) are done in parts, same bits") {
  // Every kernel does each float's operations in the same order (s·z, then the entries in CSR
  // order), so a block view and a plain one give the same bits.
  const GraphLevel level = build_graph_level(8);
  const int64_t f = 100, b = 25;  // plain rows of 2500 floats: two column parts; block runs: groups of 20 and 5
  Tensor x = random_tensor({64, b, f}, 5), y = Tensor::empty({64, b, f});
  sparse_matmul(level.laplacian, x, y);
  Tensor basis = Tensor::zeros({64, b, 2 * f});
  for (int64_t r = 0; r < 64 * b; ++r)
    for (int64_t c = 0; c < f; ++c) basis[r * 2 * f + c] = x[r * f + c];
  sparse_matmul(level.laplacian, BlockRows::block(basis, 0, f), BlockRows::block(basis, 1, f));
  int differ = 0;
  for (int64_t r = 0; r < 64 * b; ++r)
    for (int64_t c = 0; c < f; ++c) differ += basis[r * 2 * f + f + c] != y[r * f + c];
  CHECK(differ == 0);
}

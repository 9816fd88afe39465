// graph/sparse_matmul: against a dense product in double, in place, 1 vs 2 threads, bad shapes.
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

TEST_CASE("sparse_matmul: y = 2·L~·x − z agrees with a dense product, in place on z the same bits") {
  const GraphLevel level = build_graph_level(8);  // 64 nodes
  // Row widths that reach every kernel whatever the CPU's vector width (4, 8 or 16 floats): whole
  // tiles of 8 vectors (1152 = 9 tiles of 128, 18 of 64, 36 of 32), the rest in tiles of 4, 2 and
  // 1 vectors (200, 100, 24) and single floats (1, 3, and the ends of 200, 100, 24).
  for (const int64_t c : {1, 3, 24, 100, 200, 1152}) {
    INFO("C = ", c);
    Tensor x = random_tensor({64, c}, 1), z = random_tensor({64, c}, 2);
    const std::vector<double> expected = dense_step(level.laplacian, x, z);
    Tensor y = Tensor::empty({64, c});
    sparse_matmul(level.laplacian, x, y, 2.0f, &z, -1.0f);
    double worst = 0.0;
    for (int64_t i = 0; i < y.numel(); ++i) worst = std::max(worst, std::abs(y[i] - expected[static_cast<size_t>(i)]));
    CHECK(worst < 2e-6);  // float32 sums of 9 terms of size ~1
    // In place on the added operand: z ← 2·A·x − z.
    sparse_matmul(level.laplacian, x, z, 2.0f, &z, -1.0f);
    int differ = 0;
    for (int64_t i = 0; i < y.numel(); ++i) differ += z[i] != y[i];
    CHECK(differ == 0);
  }
}

TEST_CASE("sparse_matmul: the backward's step U = z + 2·L~·x − w, in place on z, agrees with a dense product") {
  const GraphLevel level = build_graph_level(8);
  for (const int64_t c : {3, 200}) {
    INFO("C = ", c);
    Tensor x = random_tensor({64, c}, 3), z = random_tensor({64, c}, 4), w = random_tensor({64, c}, 5);
    Tensor minus_z = Tensor::empty(z.shape());
    for (int64_t i = 0; i < z.numel(); ++i) minus_z[i] = -z[i];
    std::vector<double> expected = dense_step(level.laplacian, x, minus_z);  // 2·A·x + z
    for (int64_t i = 0; i < w.numel(); ++i) expected[static_cast<size_t>(i)] -= w[i];
    sparse_matmul(level.laplacian, x, z, 2.0f, &z, 1.0f, &w);
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

TEST_CASE("sparse_matmul: mismatched shapes are named") {
  const GraphLevel level = build_graph_level(2);  // 4 nodes
  Tensor x = Tensor::zeros({5, 2}), y = Tensor::zeros({5, 2}), y3 = Tensor::zeros({4, 3}), x4 = Tensor::zeros({4, 2});
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, x, y), doctest::Contains("A is [4,4], x is [5,2], y is [5,2]"),
                       Error);
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, x4, y3), doctest::Contains("x is [4,2], y is [4,3]"), Error);
  Tensor y4 = Tensor::zeros({4, 2});
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, x4, y4, 1.0f, &y3), doctest::Contains("add is [4,3]"), Error);
  CHECK_THROWS_WITH_AS(sparse_matmul(level.laplacian, x4, x4), doctest::Contains("y must not be x"), Error);
}

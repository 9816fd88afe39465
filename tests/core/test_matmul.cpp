// gemm: the tiled product against a plain triple loop, and the same bits on any thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "core/matmul.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"

using namespace empl;

namespace {

// op(a) · op(b) in double precision, the reference.
double reference_entry(const Tensor& a, bool ta, const Tensor& b, bool tb, int64_t i, int64_t j) {
  const int64_t k = ta ? a.shape()[0] : a.shape()[1];
  double sum = 0;
  for (int64_t p = 0; p < k; ++p)
    sum += double(ta ? a.at(p, i) : a.at(i, p)) * double(tb ? b.at(j, p) : b.at(p, j));
  return sum;
}

}  // namespace

TEST_CASE("gemm over several row tiles matches the triple loop for every transpose") {
  // 301 rows make four tiles of 80 rows with a short last one.
  const int64_t m = 301, k = 37, n = 19;
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      Tensor a = Tensor::empty(ta ? Shape{k, m} : Shape{m, k}), b = Tensor::empty(tb ? Shape{n, k} : Shape{k, n});
      fill_normal(a, 0.0f, 1.0f, 3, 1);
      fill_normal(b, 0.0f, 1.0f, 3, 2);
      Tensor out = Tensor::full({m, n}, 1.0f);
      gemm(a, ta, b, tb, out, 2.0f, 0.5f);  // alpha and beta reach every tile
      double worst = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          worst = std::max(worst, std::abs(out.at(i, j) - (2.0 * reference_entry(a, ta, b, tb, i, j) + 0.5)));
      CAPTURE(ta);
      CAPTURE(tb);
      CHECK(worst < 1e-4);
    }
}

TEST_CASE("gemm gives the same bits on 1 and 2 threads") {
  // The toy network's shapes, where OpenBLAS's own threading rounded differently: the forward
  // product x · W and the weight gradient xᵀ · dy (inner dimension 2048).
  const int before = num_threads();
  Tensor x = Tensor::empty({2048, 128}), w = Tensor::empty({128, 128}), dy = Tensor::empty({2048, 128});
  fill_normal(x, 0.0f, 1.0f, 4, 1);
  fill_normal(w, 0.0f, 1.0f, 4, 2);
  fill_normal(dy, 0.0f, 1.0f, 4, 3);
  const auto same_bits = [](const Tensor& p, const Tensor& q) {
    return std::memcmp(p.data(), q.data(), sizeof(float) * static_cast<size_t>(p.numel())) == 0;
  };
  set_num_threads(1);
  const Tensor forward_one = matmul(x, w), weight_grad_one = matmul(x, dy, true, false);
  set_num_threads(2);
  const Tensor forward_two = matmul(x, w), weight_grad_two = matmul(x, dy, true, false);
  set_num_threads(before);
  CHECK(same_bits(forward_one, forward_two));
  CHECK(same_bits(weight_grad_one, weight_grad_two));
}

// core/reduce's add_column_sums (bias gradients): exact values, accumulation, widths around its
// 64-column blocks, the same bits on 1 and 2 threads, and the shape error.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "core/reduce.hpp"

using namespace empl;

TEST_CASE("add_column_sums: adds each column's sum to out, for widths around the 64-column blocks") {
  Tensor small = Tensor::from({3, 2}, std::vector<float>{1.0f, 10.0f, 2.0f, 20.0f, 4.0f, 40.0f});
  Tensor out = Tensor::from({1, 2}, std::vector<float>{0.5f, -1.0f});
  add_column_sums(small, out);
  CHECK(out[0] == 7.5f);
  CHECK(out[1] == 69.0f);
  for (const int64_t cols : {1, 63, 64, 65, 130}) {
    INFO("columns ", cols);
    Tensor x = Tensor::empty({301, cols});
    fill_normal(x, 0.0f, 1.0f, 5, static_cast<uint64_t>(cols));
    Tensor sums = Tensor::zeros({cols});
    add_column_sums(x, sums);
    double worst = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      double expected = 0.0;
      for (int64_t r = 0; r < 301; ++r) expected += x[r * cols + c];
      worst = std::max(worst, std::abs(sums[c] - expected));
    }
    CHECK(worst < 1e-4);  // float sums of 301 terms of size ~1; a missed row is ~1
  }
}

TEST_CASE("add_column_sums: the same bits on 1 and on 2 threads, and a shape error naming both sizes") {
  Tensor x = Tensor::empty({4096, 8, 200});
  fill_normal(x, 0.0f, 1.0f, 6, 1);
  const int before = num_threads();
  Tensor one = Tensor::zeros({200}), two = Tensor::zeros({200});
  set_num_threads(1);
  add_column_sums(x, one);
  set_num_threads(2);
  add_column_sums(x, two);
  set_num_threads(before);
  int differ = 0;
  for (int64_t c = 0; c < 200; ++c) differ += one[c] != two[c];
  CHECK(differ == 0);
  Tensor wrong = Tensor::zeros({7});
  CHECK_THROWS_WITH_AS(add_column_sums(x, wrong), doctest::Contains("x is [4096,8,200], out has 7"), Error);
}

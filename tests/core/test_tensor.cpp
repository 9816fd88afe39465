// Tensor: creation, views, copies, fill, printing, and the errors of each.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"

using namespace empl;

TEST_CASE("a tensor is created with its shape, aligned to 64 bytes") {
  const Tensor t = Tensor::zeros({2, 3, 4});
  CHECK(t.rank() == 3);
  CHECK(t.numel() == 24);
  CHECK(t.shape()[-1] == 4);
  CHECK(t.shape().rows() == 6);
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % 64 == 0);
  for (float v : t.values()) CHECK(v == 0.0f);
  CHECK_THROWS_AS(Shape({1, 2, 3, 4, 5}), Error);
  CHECK_THROWS_AS(Shape({2, -1}), Error);
}

TEST_CASE("reshape is a view, clone is a copy") {
  Tensor t = Tensor::from({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor view = t.reshape({3, 2});
  view.at(2, 1) = 60.0f;
  CHECK(t.at(1, 2) == 60.0f);  // same buffer
  Tensor copy = t.clone();
  copy[0] = -1.0f;
  CHECK(t[0] == 1.0f);
  CHECK_THROWS_WITH_AS(t.reshape({4, 2}), doctest::Contains("[2,3]"), Error);
}

TEST_CASE("slice_rows views a block of rows, copy_from and fill write in place") {
  Tensor t = Tensor::from({3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor middle = t.slice_rows(1, 2);
  CHECK(middle.shape() == Shape{1, 2});
  CHECK(middle[0] == 3.0f);
  middle.fill(9.0f);
  CHECK(t[2] == 9.0f);
  CHECK(t[3] == 9.0f);
  CHECK_THROWS_AS(t.slice_rows(2, 4), Error);
  Tensor other = Tensor::zeros({6});
  other.copy_from(t);
  CHECK(other[5] == 6.0f);
  CHECK_THROWS_AS(other.copy_from(Tensor::zeros({5})), Error);
}

TEST_CASE("printing shows the shape and elides long tensors") {
  const Tensor t = Tensor::full({100}, 2.0f);
  const std::string text = t.str(3);
  CHECK(text.find("[100]") != std::string::npos);
  CHECK(text.find("...") != std::string::npos);
  CHECK(Tensor().str().find("undefined") != std::string::npos);
}

TEST_CASE("an impossible size is refused with a message naming the tensor and the size") {
  CHECK_THROWS_WITH_AS(Tensor::empty({1LL << 20, 1LL << 20, 1LL << 10}, "huge activations"),
                       doctest::Contains("huge activations"), Error);
}

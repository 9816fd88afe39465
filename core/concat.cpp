// core/concat: concat([B, F1], [B, F2]) = [B, F1 + F2] and slice_columns(x, b, e) = x[:, b:e],
// as row-by-row copies (tensors are contiguous, so a column block is one memcpy per row).
// Read core/concat.hpp first.
#include "core/concat.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace empl {
namespace {

Shape with_last(const Shape& shape, int64_t last) {
  switch (shape.rank()) {
    case 1: return Shape{last};
    case 2: return Shape{shape[0], last};
    case 3: return Shape{shape[0], shape[1], last};
    default: return Shape{shape[0], shape[1], shape[2], last};
  }
}

}  // namespace

Shape concat_shape(std::span<const Tensor> parts) {
  if (parts.empty()) fail("concat: no tensors given");
  int64_t cols = 0;
  for (const Tensor& part : parts) {
    if (part.rank() == 0 || part.shape().rows() != parts[0].shape().rows() || part.rank() != parts[0].rank())
      fail("concat: a is ", parts[0].shape(), ", b is ", part.shape(), ": rows differ");
    cols += part.shape().last();
  }
  return with_last(parts[0].shape(), cols);
}

void concat(std::span<const Tensor> parts, Tensor& out) {
  const Shape shape = concat_shape(parts);
  if (out.shape() != shape) fail("concat: out is ", out.shape(), ", expected ", shape);
  const int64_t rows = shape.rows(), cols = shape.last();
  int64_t offset = 0;
  for (const Tensor& part : parts) {
    const int64_t width = part.shape().last();
    for (int64_t r = 0; r < rows; ++r)
      std::copy_n(part.data() + r * width, width, out.data() + r * cols + offset);
    offset += width;
  }
}

Shape slice_columns_shape(const Tensor& x, int64_t begin, int64_t end) {
  if (x.rank() == 0 || begin < 0 || end < begin || end > x.shape().last())
    fail("slice_columns: columns [", begin, ",", end, ") of a tensor of shape ", x.shape());
  return with_last(x.shape(), end - begin);
}

void slice_columns(const Tensor& x, int64_t begin, int64_t end, Tensor& out) {
  const Shape shape = slice_columns_shape(x, begin, end);
  if (out.shape() != shape) fail("slice_columns: out is ", out.shape(), ", expected ", shape);
  const int64_t rows = shape.rows(), cols = x.shape().last(), width = end - begin;
  for (int64_t r = 0; r < rows; ++r) std::copy_n(x.data() + r * cols + begin, width, out.data() + r * width);
}

}  // namespace empl

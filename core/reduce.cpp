// core/reduce: Σ x, mean and max over all elements or one axis (kept with extent 1). Sums run in
// double over fixed chunks added in chunk order, so the result is the same on any thread count.
// Read core/reduce.hpp and core/parallel.hpp first.
#include "core/reduce.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// A tensor seen as [outer, extent, inner] around the reduced axis.
struct AxisView {
  int64_t outer, extent, inner;
};

AxisView axis_view(const Shape& shape, int axis) {
  const int resolved = axis < 0 ? axis + shape.rank() : axis;
  AxisView view{1, shape[resolved], 1};
  for (int i = 0; i < resolved; ++i) view.outer *= shape[i];
  for (int i = resolved + 1; i < shape.rank(); ++i) view.inner *= shape[i];
  return view;
}

// Calls reduce(outer, inner) -> float for every output element, in parallel over outputs.
template <typename Reduce>
void for_each_output(const AxisView& v, Tensor& out, Reduce&& reduce) {
  float* o = out.data();
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(v.extent, 1));
  parallel_for(v.outer * v.inner, grain, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) o[k] = reduce(k / v.inner, k % v.inner);
  });
}

}  // namespace

double sum_all(const Tensor& x) {
  const float* p = x.data();
  return parallel_chunk_reduce(x.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    double s = 0.0;
    for (int64_t i = begin; i < end; ++i) s += p[i];
    return s;
  });
}

double mean_all(const Tensor& x) {
  if (x.numel() == 0) fail("mean: tensor of shape ", x.shape(), " is empty");
  return sum_all(x) / static_cast<double>(x.numel());
}

float max_all(const Tensor& x) {
  if (x.numel() == 0) fail("max: tensor of shape ", x.shape(), " is empty");
  float best = x[0];
  for (float v : x.values()) best = v > best ? v : best;
  return best;
}

Shape reduced_shape(const char* op, const Shape& shape, int axis) {
  if (shape.rank() == 0 || axis < -shape.rank() || axis >= shape.rank())
    fail(op, ": axis ", axis, " is out of range for a tensor of shape ", shape);
  const int resolved = axis < 0 ? axis + shape.rank() : axis;
  int64_t d[4] = {0, 0, 0, 0};
  for (int i = 0; i < shape.rank(); ++i) d[i] = i == resolved ? 1 : shape[i];
  switch (shape.rank()) {
    case 1: return Shape{d[0]};
    case 2: return Shape{d[0], d[1]};
    case 3: return Shape{d[0], d[1], d[2]};
    default: return Shape{d[0], d[1], d[2], d[3]};
  }
}

void sum_axis(const Tensor& x, int axis, Tensor& out) {
  if (out.shape() != reduced_shape("sum", x.shape(), axis))
    fail("sum: out is ", out.shape(), ", expected ", reduced_shape("sum", x.shape(), axis));
  const AxisView v = axis_view(x.shape(), axis);
  const float* p = x.data();
  for_each_output(v, out, [&](int64_t o, int64_t i) {
    double s = 0.0;
    for (int64_t e = 0; e < v.extent; ++e) s += p[(o * v.extent + e) * v.inner + i];
    return static_cast<float>(s);
  });
}

void mean_axis(const Tensor& x, int axis, Tensor& out) {
  sum_axis(x, axis, out);
  const int64_t extent = x.shape()[axis];
  if (extent == 0) fail("mean: axis ", axis, " of ", x.shape(), " is empty");
  for (float& v : out.values()) v /= static_cast<float>(extent);
}

void max_axis(const Tensor& x, int axis, Tensor& out, Tensor* argmax) {
  const Shape expected = reduced_shape("max", x.shape(), axis);
  if (out.shape() != expected || (argmax && argmax->shape() != expected))
    fail("max: out is ", out.shape(), ", expected ", expected);
  const AxisView v = axis_view(x.shape(), axis);
  if (v.extent == 0) fail("max: axis ", axis, " of ", x.shape(), " is empty");
  const float* p = x.data();
  float* index = argmax ? argmax->data() : nullptr;
  for_each_output(v, out, [&](int64_t o, int64_t i) {
    int64_t best = 0;
    for (int64_t e = 1; e < v.extent; ++e)
      if (p[(o * v.extent + e) * v.inner + i] > p[(o * v.extent + best) * v.inner + i]) best = e;
    if (index) index[o * v.inner + i] = static_cast<float>(best);
    return p[(o * v.extent + best) * v.inner + i];
  });
}

void add_column_sums(const Tensor& x, Tensor& out) {
  const int64_t cols = out.numel();
  if (cols == 0 || x.numel() % cols != 0 || x.shape().last() != cols)
    fail("add_column_sums: x is ", x.shape(), ", out has ", cols, " elements: x's last axis must be out's size");
  const int64_t rows = x.numel() / cols;
  const float* in = x.data();
  float* sums = out.data();
  // Blocks of up to 64 columns, summed in a local array (which the compiler may keep in
  // registers: it cannot alias x) and stored once.
  constexpr int64_t kBlock = 64;
  parallel_for(cols, kBlock, [&](int64_t begin, int64_t end) {
    for (int64_t c0 = begin; c0 < end; c0 += kBlock) {
      const int64_t width = std::min(kBlock, end - c0);
      float acc[kBlock];
      std::copy_n(sums + c0, width, acc);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < width; ++c) acc[c] += in[r * cols + c0 + c];
      std::copy_n(acc, width, sums + c0);
    }
  });
}

}  // namespace empl

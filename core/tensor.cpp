// core/tensor: the storage of a Tensor (one shared, 64-byte-aligned float buffer), its views and
// its factories (empty, zeros, full, from). No equation: this is the container every other file
// computes on. Read core/tensor.hpp first, and core/shape.hpp for the extents.
#include "core/tensor.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <sstream>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

constexpr std::align_val_t kAlignment{64};  // a cache line, and enough for AVX-512 loads

struct AlignedDelete {
  void operator()(float* pointer) const { ::operator delete[](pointer, kAlignment); }
};

}  // namespace

Tensor Tensor::empty(const Shape& shape, const char* name) {
  Tensor tensor;
  const int64_t count = shape.numel();
  // Round up to whole cache lines so that vectorised loops may read a little past the end.
  const int64_t padded = std::max<int64_t>(16, (count + 15) / 16 * 16);
  // A size beyond the machine's memory is refused before asking for it: some allocators (and
  // AddressSanitizer's) abort on such requests instead of throwing std::bad_alloc.
  static const double physical_bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (static_cast<double>(padded) * sizeof(float) > physical_bytes)
    fail("cannot allocate ", name, " of shape ", shape, " (", padded * sizeof(float) / 1048576.0,
         " MiB): more than the machine's memory");
  float* buffer = nullptr;
  try {
    buffer = static_cast<float*>(::operator new[](static_cast<size_t>(padded) * sizeof(float),
                                                  kAlignment));
  } catch (const std::bad_alloc&) {
    fail("cannot allocate ", name, " of shape ", shape, " (", padded * sizeof(float) / 1048576.0,
         " MiB)");
  }
  tensor.storage_ = std::shared_ptr<float[]>(buffer, AlignedDelete{});
  tensor.data_ = buffer;
  tensor.capacity_ = padded;
  tensor.shape_ = shape;
  return tensor;
}

Tensor Tensor::zeros(const Shape& shape, const char* name) { return full(shape, 0.0f, name); }

Tensor Tensor::full(const Shape& shape, float value, const char* name) {
  Tensor tensor = empty(shape, name);
  tensor.fill(value);
  return tensor;
}

Tensor Tensor::from(const Shape& shape, std::span<const float> values) {
  if (static_cast<int64_t>(values.size()) != shape.numel())
    fail("Tensor::from: shape ", shape, " needs ", shape.numel(), " values, got ", values.size());
  Tensor tensor = empty(shape);
  std::copy(values.begin(), values.end(), tensor.data_);
  return tensor;
}

float Tensor::item() const {
  if (numel() != 1) fail("Tensor::item: tensor of shape ", shape_, " has ", numel(), " elements");
  return data_[0];
}

Tensor Tensor::reshape(const Shape& shape) const {
  if (shape.numel() != numel())
    fail("reshape: cannot view ", shape_, " (", numel(), " elements) as ", shape, " (",
         shape.numel(), " elements)");
  Tensor view = *this;
  view.shape_ = shape;
  return view;
}

Tensor Tensor::view_prefix(const Shape& shape) const {
  if (shape.numel() > capacity_)
    fail("view_prefix: ", shape, " needs ", shape.numel(), " floats, buffer holds ", capacity_);
  Tensor view = *this;
  view.shape_ = shape;
  return view;
}

Tensor Tensor::view_at(int64_t offset, const Shape& shape) const {
  if (offset < 0 || offset + shape.numel() > capacity_)
    fail("view_at: ", shape, " at offset ", offset, " does not fit a buffer of ", capacity_, " floats");
  Tensor view = *this;
  view.data_ = data_ + offset;
  view.capacity_ = capacity_ - offset;
  view.shape_ = shape;
  return view;
}

Tensor Tensor::slice_rows(int64_t begin, int64_t end) const {
  if (rank() == 0 || begin < 0 || end < begin || end > shape_[0])
    fail("slice_rows: rows [", begin, ",", end, ") of a tensor of shape ", shape_);
  const int64_t row_size = shape_[0] == 0 ? 0 : numel() / shape_[0];
  Tensor view = *this;
  view.data_ = data_ + begin * row_size;
  view.capacity_ = (end - begin) * row_size;
  switch (rank()) {
    case 1: view.shape_ = Shape{end - begin}; break;
    case 2: view.shape_ = Shape{end - begin, shape_[1]}; break;
    case 3: view.shape_ = Shape{end - begin, shape_[1], shape_[2]}; break;
    default: view.shape_ = Shape{end - begin, shape_[1], shape_[2], shape_[3]}; break;
  }
  return view;
}

Tensor Tensor::clone() const {
  Tensor copy = empty(shape_);
  if (numel() > 0) std::memcpy(copy.data_, data_, static_cast<size_t>(numel()) * sizeof(float));
  return copy;
}

void Tensor::copy_from(const Tensor& source) {
  if (source.numel() != numel())
    fail("copy_from: destination ", shape_, " and source ", source.shape_, " differ in size");
  if (numel() > 0) std::memmove(data_, source.data_, static_cast<size_t>(numel()) * sizeof(float));
}

void Tensor::fill(float value) {
  // Parallel: zeroing the gradients of a step's activations is a large share of its memory traffic.
  float* data = data_;
  parallel_for(numel(), 4 * kDefaultGrain, [=](int64_t begin, int64_t end) { std::fill(data + begin, data + end, value); });
}

std::string Tensor::str(int max_per_axis) const {
  std::ostringstream out;
  out << "Tensor" << shape_;
  if (!defined()) return out.str() + " (undefined)";
  out << " {";
  const int64_t count = numel();
  for (int64_t i = 0; i < count; ++i) {
    if (i == max_per_axis && count > 2 * max_per_axis) {
      out << ", ...";
      i = count - max_per_axis - 1;
      continue;
    }
    out << (i > 0 ? ", " : "") << data_[i];
  }
  return out.str() + "}";
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.str(); }

void check_same_shape(const char* op, const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) fail(op, ": a is ", a.shape(), ", b is ", b.shape(), ": shapes differ");
}

}  // namespace empl

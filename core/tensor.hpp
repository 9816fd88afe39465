// Tensor: float32 values, contiguous row-major, up to 4 dimensions, shared storage.
//
// Read this first. A Tensor is a cheap handle: copying it shares the same 64-byte-aligned buffer
// (like a NumPy view), so `Tensor b = a;` does not copy numbers; `a.clone()` does. Reshaping a
// tensor gives a view of the same buffer. There are no strides: every tensor is contiguous, which
// keeps every kernel a plain loop over `data()` and every matrix product a single cblas_sgemm.
//
// A view may be smaller than its buffer (`capacity()`): the tape's arena hands out views of
// buffers it keeps from one training step to the next, so that a step allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>

#include "core/shape.hpp"

namespace empl {

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor: no buffer, rank 0; see defined()

  // Fresh buffers. `name` only appears in the error message when the allocation fails.
  static Tensor empty(const Shape& shape, const char* name = "tensor");   // values unspecified
  static Tensor zeros(const Shape& shape, const char* name = "tensor");
  static Tensor full(const Shape& shape, float value, const char* name = "tensor");
  static Tensor from(const Shape& shape, std::span<const float> values);  // copies values

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t numel() const { return shape_.numel(); }
  int64_t capacity() const { return capacity_; }   // floats in the underlying buffer

  float* data() { return data_; }
  const float* data() const { return data_; }
  std::span<float> values() { return {data_, static_cast<size_t>(numel())}; }
  std::span<const float> values() const { return {data_, static_cast<size_t>(numel())}; }
  float& operator[](int64_t flat_index) { return data_[flat_index]; }
  float operator[](int64_t flat_index) const { return data_[flat_index]; }
  float& at(int64_t row, int64_t col) { return data_[row * shape_.last() + col]; }
  float at(int64_t row, int64_t col) const { return data_[row * shape_.last() + col]; }
  float item() const;  // the value of a one-element tensor

  // A view of the same buffer with another shape of the same number of elements.
  Tensor reshape(const Shape& shape) const;
  // A view of the first shape.numel() floats of the buffer (used by the arena): no size check
  // against numel(), only against capacity().
  Tensor view_prefix(const Shape& shape) const;
  // A view of `shape.numel()` floats starting `offset` floats into this tensor's buffer (how a
  // model's parameters become views into one contiguous allocation).
  Tensor view_at(int64_t offset, const Shape& shape) const;
  // Rows [begin, end) along the first axis, as a view (contiguous because row-major).
  Tensor slice_rows(int64_t begin, int64_t end) const;

  Tensor clone() const;                         // a deep copy in a fresh buffer
  void copy_from(const Tensor& source);         // same numel required; copies the numbers
  void fill(float value);
  void zero() { fill(0.0f); }

  // Same storage and same shape: the two handles see the same numbers.
  bool same_as(const Tensor& other) const { return data_ == other.data_ && shape_ == other.shape_; }

  std::string str(int max_per_axis = 6) const;  // for debugging: shape and (elided) values

 private:
  std::shared_ptr<float[]> storage_;
  float* data_ = nullptr;
  int64_t capacity_ = 0;
  Shape shape_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// A tensor with a name: parameters, buffers and optimizer state ("0.weight", "adam.m").
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// Throws "op: a is [..], b is [..]" when two shapes differ.
void check_same_shape(const char* op, const Tensor& a, const Tensor& b);

}  // namespace empl

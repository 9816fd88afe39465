// Shape: the extents of a tensor, up to 4 dimensions, stored inline (no heap) so that passing
// shapes around in a training step allocates nothing.
//
// Shape letters used across the code: B batch, N bins, V pixels (graph nodes), F features,
// K Chebyshev order. A histogram batch is [B, N]; a graph activation is [B, V, F].
// Read first, with core/tensor.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>

namespace empl {

class Shape {
 public:
  static constexpr int kMaxRank = 4;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);

  int rank() const { return rank_; }
  int64_t operator[](int axis) const;          // negative axes count from the end
  int64_t numel() const;                       // product of the extents; 1 for a scalar
  int64_t last() const { return rank_ == 0 ? 1 : dims_[rank_ - 1]; }
  // Everything but the last axis, flattened: a [B, V, F] tensor has rows() == B*V.
  int64_t rows() const { return last() == 0 ? 0 : numel() / last(); }
  std::string str() const;                     // "[32,128]"

  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Shape& shape);

}  // namespace empl

// core/shape: extents up to rank 4 kept inline; numel() = Π extents (1 for a scalar), negative
// axes counted from the end, and the "[32,128]" form every error message prints.
// Read core/shape.hpp first.
#include "core/shape.hpp"

#include "core/error.hpp"

namespace empl {

Shape::Shape(std::initializer_list<int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank))
    fail("Shape: ", dims.size(), " dims given, at most ", kMaxRank, " are supported");
  for (int64_t extent : dims) {
    if (extent < 0) fail("Shape: negative extent ", extent);
    dims_[rank_++] = extent;
  }
}

int64_t Shape::operator[](int axis) const {
  const int resolved = axis < 0 ? axis + rank_ : axis;
  if (resolved < 0 || resolved >= rank_) fail("Shape: axis ", axis, " out of range for ", str());
  return dims_[resolved];
}

int64_t Shape::numel() const {
  int64_t count = 1;
  for (int axis = 0; axis < rank_; ++axis) count *= dims_[axis];
  return count;
}

std::string Shape::str() const {
  std::string text = "[";
  for (int axis = 0; axis < rank_; ++axis) {
    if (axis > 0) text += ",";
    text += std::to_string(dims_[axis]);
  }
  return text + "]";
}

bool Shape::operator==(const Shape& other) const {
  if (rank_ != other.rank_) return false;
  for (int axis = 0; axis < rank_; ++axis)
    if (dims_[axis] != other.dims_[axis]) return false;
  return true;
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) { return out << shape.str(); }

}  // namespace empl

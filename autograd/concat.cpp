// autograd/concat: concat and slice_columns on the tape. Backward of a concatenation cuts dy back
// into the pieces (dx_i += dy[:, offset_i : offset_i + F_i]); that of a slice adds dy into the
// sliced columns of dx. Read autograd/concat.hpp first.
#include "autograd/concat.hpp"

#include <array>

#include "core/concat.hpp"

namespace empl {
namespace {

// Adds columns [offset, offset + width) of dy into dx ([rows, width]) for every row.
void add_columns(const Tensor& dy, int64_t offset, Tensor& dx) {
  const int64_t rows = dy.shape().rows(), cols = dy.shape().last(), width = dx.shape().last();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c) dx[r * width + c] += dy[r * cols + offset + c];
}

// Shapes: parts x_i [B, F_i] (up to 3), dy [B, ΣF_i] → dx_i [B, F_i] += dy[:, offset_i : offset_i + F_i].
void concat_backward(Node& node) {
  int64_t offset = 0;
  for (Var& part : node.inputs) {
    if (!part.value.defined()) break;
    if (part.requires_grad()) add_columns(node.output.grad, offset, part.grad);
    offset += part.value.shape().last();
  }
}

Var concat_parts(Tape& tape, std::initializer_list<const Var*> parts) {
  std::array<Tensor, 3> values;
  size_t count = 0;
  for (const Var* part : parts) values[count++] = part->value;
  const std::span<const Tensor> pieces(values.data(), count);
  Var y = tape.make_output(concat_shape(pieces), parts);
  concat(pieces, y.value);
  tape.record("concat", concat_backward, y, parts);
  return y;
}

// Shapes: x [B, F], dy [B, end − begin] → dx [B, F] += dy in columns [begin, end), 0 elsewhere.
void slice_backward(Node& node) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const int64_t begin = static_cast<int64_t>(node.scalars[0]);
  const Tensor& dy = node.output.grad;
  const int64_t rows = dy.shape().rows(), width = dy.shape().last(), cols = x.value.shape().last();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c) x.grad[r * cols + begin + c] += dy[r * width + c];
}

}  // namespace

Var concat(Tape& tape, const Var& a, const Var& b) { return concat_parts(tape, {&a, &b}); }
Var concat(Tape& tape, const Var& a, const Var& b, const Var& c) { return concat_parts(tape, {&a, &b, &c}); }

Var slice_columns(Tape& tape, const Var& x, int64_t begin, int64_t end) {
  Var y = tape.make_output(slice_columns_shape(x.value, begin, end), {&x});
  slice_columns(x.value, begin, end, y.value);
  if (Node* node = tape.record("slice_columns", slice_backward, y, {&x}))
    node->scalars[0] = static_cast<float>(begin);
  return y;
}

}  // namespace empl

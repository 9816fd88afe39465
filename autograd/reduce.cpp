// autograd/reduce: sum, mean and max on the tape. Backward: sum dx_i += dy, mean dx_i += dy/n,
// max dx_i += dy at the first maximum only; over an axis, each element gets its own output's dy.
// Read autograd/reduce.hpp first.
#include "autograd/reduce.hpp"

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reduce.hpp"

namespace empl {
namespace {

// Shapes: x any, dy [] (one element) → dx of x's shape.
// dx += dy · scale, with one dy for the whole tensor (sum, mean over all).
void all_backward(Node& node) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const float g = node.output.grad[0] * node.scalars[0];
  float* dx = x.grad.data();
  parallel_for(x.value.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dx[i] += g;
  });
}

// Shapes: x [outer, extent, inner] (the axis in the middle), dy [outer, 1, inner] → dx of x's shape.
// Walks x as [outer, extent, inner] around the reduced axis (scalars[1]) and gives each element
// its output's gradient: times scalars[0] for sum and mean, only at the first maximum for max.
void axis_backward(Node& node, bool only_at_max) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const Shape& shape = x.value.shape();
  const int axis = static_cast<int>(node.scalars[1]);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= shape[i];
  for (int i = axis + 1; i < shape.rank(); ++i) inner *= shape[i];
  const int64_t extent = shape[axis];
  const float* xv = x.value.data();
  const float* yv = node.output.value.data();
  const float* dy = node.output.grad.data();
  float* dx = x.grad.data();
  const float scale = node.scalars[0];
  parallel_for(outer * inner, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(extent, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t k = begin; k < end; ++k) {
                   const int64_t o = k / inner, i = k % inner;
                   for (int64_t e = 0; e < extent; ++e) {
                     const int64_t at = (o * extent + e) * inner + i;
                     if (!only_at_max) {
                       dx[at] += dy[k] * scale;
                     } else if (xv[at] == yv[k]) {  // the first element equal to the max
                       dx[at] += dy[k];
                       break;
                     }
                   }
                 }
               });
}

Var reduce_all(Tape& tape, const Var& x, const char* name, float value, float scale, Node::BackwardFn backward) {
  Var y = tape.make_output(Shape{}, {&x});
  y.value[0] = value;
  if (Node* node = tape.record(name, backward, y, {&x})) node->scalars[0] = scale;
  return y;
}

int resolve_axis(const char* op, const Var& x, int axis) {
  reduced_shape(op, x.shape(), axis);  // throws on a bad axis
  return axis < 0 ? axis + x.value.rank() : axis;
}

}  // namespace

Var sum(Tape& tape, const Var& x) {
  return reduce_all(tape, x, "sum", static_cast<float>(sum_all(x.value)), 1.0f, all_backward);
}

Var mean(Tape& tape, const Var& x) {
  return reduce_all(tape, x, "mean", static_cast<float>(mean_all(x.value)),
                    1.0f / static_cast<float>(x.value.numel()), all_backward);
}

Var max(Tape& tape, const Var& x) {
  // The maximum over all elements is the maximum over axis 0 of the flattened tensor.
  const Var flat(x.value.reshape({x.value.numel()}), x.grad.defined() ? x.grad.reshape({x.value.numel()}) : Tensor());
  Var y = max(tape, flat, 0);
  return Var(y.value.reshape(Shape{}), y.grad.defined() ? y.grad.reshape(Shape{}) : Tensor());
}

Var sum(Tape& tape, const Var& x, int axis) {
  const int a = resolve_axis("sum", x, axis);
  Var y = tape.make_output(reduced_shape("sum", x.shape(), a), {&x});
  sum_axis(x.value, a, y.value);
  if (Node* node = tape.record("sum", [](Node& n) { axis_backward(n, false); }, y, {&x})) {
    node->scalars[0] = 1.0f;
    node->scalars[1] = static_cast<float>(a);
  }
  return y;
}

Var mean(Tape& tape, const Var& x, int axis) {
  const int a = resolve_axis("mean", x, axis);
  Var y = tape.make_output(reduced_shape("mean", x.shape(), a), {&x});
  mean_axis(x.value, a, y.value);
  if (Node* node = tape.record("mean", [](Node& n) { axis_backward(n, false); }, y, {&x})) {
    node->scalars[0] = 1.0f / static_cast<float>(x.shape()[a]);
    node->scalars[1] = static_cast<float>(a);
  }
  return y;
}

Var max(Tape& tape, const Var& x, int axis) {
  const int a = resolve_axis("max", x, axis);
  Var y = tape.make_output(reduced_shape("max", x.shape(), a), {&x});
  max_axis(x.value, a, y.value);
  if (Node* node = tape.record("max", [](Node& n) { axis_backward(n, true); }, y, {&x}))
    node->scalars[1] = static_cast<float>(a);
  return y;
}

}  // namespace empl

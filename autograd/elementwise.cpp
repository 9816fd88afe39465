// autograd/elementwise: each elementwise op's forward (a core/elementwise kernel) and its backward
// dx += dy · ∂y/∂x side by side, one line each, e.g. relu: dx += dy·1[y > 0]; mul: da += dy·b,
// db += dy·a (summed over a broadcast axis). Read autograd/elementwise.hpp first.
#include "autograd/elementwise.hpp"

#include <algorithm>
#include <cmath>

#include "core/elementwise.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// The loop of every unary backward. The pointers are function parameters marked __restrict (a
// gradient never aliases a value), which is what lets the compiler vectorise it; captured in a
// lambda, the same promise would be lost.
// `assign`: dx is fresh (Note [fresh gradients]) and is written, not added to.
template <typename Local>
void unary_backward_range(const float* __restrict xv, const float* __restrict yv, const float* __restrict dy,
                          float* __restrict dx, int64_t begin, int64_t end, bool assign, Local local) {
  if (assign) {
    for (int64_t i = begin; i < end; ++i) dx[i] = local(xv[i], yv[i], dy[i]);
  } else {
    for (int64_t i = begin; i < end; ++i) dx[i] += local(xv[i], yv[i], dy[i]);
  }
}

// Shapes: x, y, dy, dx all of x's shape (any rank).
// dx += local(x, y, dy) = dy · ∂y/∂x: the shared shape of every unary backward. Derivatives that
// are 0 or 1 are written as selects (y > 0 ? dy : 0), never as dy·(y > 0 ? 1 : 0): the compiler
// turns the latter into a branch, unpredictable for half-negative activations.
template <typename Local>
void unary_backward(Node& node, Local local) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const float* xv = x.value.data();
  const float* yv = node.output.value.data();
  const float* dy = node.output.grad.data();
  float* dx = x.grad.data();
  const bool assign = node.fresh_grad[0];
  parallel_for(x.value.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    unary_backward_range(xv, yv, dy, dx, begin, end, assign, local);
  });
}

Var unary_op(Tape& tape, Unary op, const Var& x, Node::BackwardFn backward) {
  Var y = tape.make_output(x.shape(), {&x});
  unary(op, x.value, y.value);
  if (Node* node = tape.record(name_of(op), backward, y, {&x})) node->assigns_fresh_grads = true;
  return y;
}

// Shapes: a [.., n], b of a's shape or a row [1, n] ([n]) or a column [m, 1]; y, dy of a's shape
// → da of a's shape, db of b's shape.
// Binary backward: for every element, local(a, b, y) gives (∂y/∂a, ∂y/∂b); the output gradient
// times each goes to a (same element) and to b (summed where b was broadcast). Rows run in
// parallel when each row owns its b entries (same shape, column); a broadcast row is summed
// serially over rows so that the result does not depend on the thread count.
template <typename Local>
void binary_backward(Node& node, Local local) {
  Var& a = node.inputs[0];
  Var& b = node.inputs[1];
  const Broadcast kind = broadcast_kind(node.name, a.value, b.value);
  const int64_t cols = a.value.shape().last(), rows = a.value.shape().rows();
  const float* av = a.value.data();
  const float* bv = b.value.data();
  const float* yv = node.output.value.data();
  const float* dy = node.output.grad.data();
  float* da = a.requires_grad() ? a.grad.data() : nullptr;
  float* db = b.requires_grad() ? b.grad.data() : nullptr;
  auto rows_body = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = r * cols + c;
        const int64_t j = kind == Broadcast::Same ? i : kind == Broadcast::Row ? c : r;
        const auto [ga, gb] = local(av[i], bv[j], yv[i]);
        if (da) da[i] += dy[i] * ga;
        if (db) db[j] += dy[i] * gb;
      }
    }
  };
  if (kind == Broadcast::Row && db) rows_body(0, rows);
  else parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)), rows_body);
}

Var binary_op(Tape& tape, Binary op, const Var& a, const Var& b, Node::BackwardFn backward) {
  Var y = tape.make_output(a.shape(), {&a, &b});
  binary(op, a.value, b.value, y.value);
  tape.record(name_of(op), backward, y, {&a, &b});
  return y;
}

struct Pair {
  float da, db;
};

}  // namespace

// d(−x)/dx = −1
Var neg(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Neg, x, [](Node& n) { unary_backward(n, [](float, float, float g) { return -g; }); });
}
// d(eˣ)/dx = eˣ = y
Var exp(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Exp, x, [](Node& n) { unary_backward(n, [](float, float y, float g) { return g * y; }); });
}
// d(log x)/dx = 1/x
Var log(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Log, x, [](Node& n) { unary_backward(n, [](float x, float, float g) { return g / x; }); });
}
// d(√x)/dx = 1/(2√x) = 1/(2y)
Var sqrt(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Sqrt, x, [](Node& n) { unary_backward(n, [](float, float y, float g) { return 0.5f * g / y; }); });
}
// d|x|/dx = sign(x) (0 at the kink)
Var abs(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Abs, x, [](Node& n) {
    unary_backward(n, [](float x, float, float g) { return x > 0.0f ? g : x < 0.0f ? -g : 0.0f; });
  });
}
// d relu(x)/dx = 1[x > 0] = 1[y > 0]
Var relu(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Relu, x, [](Node& n) { unary_backward(n, [](float, float y, float g) { return y > 0.0f ? g : 0.0f; }); });
}
// dσ/dx = σ(1 − σ) = y(1 − y)
Var sigmoid(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Sigmoid, x, [](Node& n) { unary_backward(n, [](float, float y, float g) { return g * y * (1.0f - y); }); });
}
// d softplus(x)/dx = σ(x) = 1 − e^−y (y = log(1 + eˣ)), exact and stable for any x
Var softplus(Tape& tape, const Var& x) {
  return unary_op(tape, Unary::Softplus, x, [](Node& n) { unary_backward(n, [](float, float y, float g) { return -g * std::expm1(-y); }); });
}

Var step(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {});  // no inputs: no gradient, nothing recorded
  unary(Unary::Step, x.value, y.value);
  return y;
}

Var sign(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {});
  unary(Unary::Sign, x.value, y.value);
  return y;
}

// ∂(a + b) = (1, 1)
Var add(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Add, a, b, [](Node& n) { binary_backward(n, [](float, float, float) { return Pair{1.0f, 1.0f}; }); });
}
// ∂(a − b) = (1, −1)
Var sub(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Sub, a, b, [](Node& n) { binary_backward(n, [](float, float, float) { return Pair{1.0f, -1.0f}; }); });
}
// ∂(a·b) = (b, a)
Var mul(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Mul, a, b, [](Node& n) { binary_backward(n, [](float a, float b, float) { return Pair{b, a}; }); });
}
// ∂(a/b) = (1/b, −a/b²) = (1/b, −y/b)
Var div(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Div, a, b, [](Node& n) {
    binary_backward(n, [](float, float b, float y) { return Pair{1.0f / b, -y / b}; });
  });
}
// ∂ max(a, b) = (1[a ≥ b], 1[a < b]): ties go to a, so the gradient is not counted twice
Var maximum(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Max, a, b, [](Node& n) {
    binary_backward(n, [](float a, float b, float) { return a >= b ? Pair{1.0f, 0.0f} : Pair{0.0f, 1.0f}; });
  });
}
// ∂ min(a, b) = (1[a ≤ b], 1[a > b])
Var minimum(Tape& tape, const Var& a, const Var& b) {
  return binary_op(tape, Binary::Min, a, b, [](Node& n) {
    binary_backward(n, [](float a, float b, float) { return a <= b ? Pair{1.0f, 0.0f} : Pair{0.0f, 1.0f}; });
  });
}

namespace {
// x op s for a constant s: the derivative is 1 for + and −, s for ·, 1/s for /.
Var scalar_op(Tape& tape, Binary op, const Var& x, float s, float derivative) {
  Var y = tape.make_output(x.shape(), {&x});
  binary_scalar(op, x.value, s, y.value);
  if (Node* node = tape.record(name_of(op), [](Node& n) {
        const float d = n.scalars[0];
        unary_backward(n, [d](float, float, float g) { return g * d; });
      }, y, {&x}))
    node->scalars[0] = derivative;
  return y;
}
}  // namespace

Var add_scalar(Tape& tape, const Var& x, float s) { return scalar_op(tape, Binary::Add, x, s, 1.0f); }
Var sub_scalar(Tape& tape, const Var& x, float s) { return scalar_op(tape, Binary::Sub, x, s, 1.0f); }
Var mul_scalar(Tape& tape, const Var& x, float s) { return scalar_op(tape, Binary::Mul, x, s, s); }
Var div_scalar(Tape& tape, const Var& x, float s) {
  if (s == 0.0f) fail("div_scalar: division by zero");
  return scalar_op(tape, Binary::Div, x, s, 1.0f / s);
}

// d clamp(x, lo, hi)/dx = 1[lo < x < hi]
Var clamp(Tape& tape, const Var& x, float lo, float hi) {
  Var y = tape.make_output(x.shape(), {&x});
  clamp(x.value, lo, hi, y.value);
  if (Node* node = tape.record("clamp", [](Node& n) {
        const float lo = n.scalars[0], hi = n.scalars[1];
        unary_backward(n, [=](float x, float, float g) { return x > lo && x < hi ? g : 0.0f; });
      }, y, {&x})) {
    node->scalars[0] = lo;
    node->scalars[1] = hi;
  }
  return y;
}

}  // namespace empl

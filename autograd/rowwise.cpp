// autograd/rowwise: cumsum, softmax and log_softmax on the tape, their backward row by row:
// cumsum dx_k += Σ_{j ≥ k} dy_j (a reverse cumsum), softmax dx += y ⊙ (dy − Σ_j dy_j y_j),
// log_softmax dx += dy − softmax(x)·Σ_j dy_j. Read autograd/rowwise.hpp first.
#include "autograd/rowwise.hpp"

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "core/rowwise.hpp"

namespace empl {
namespace {

// Shapes: x, y, dy, dx all [R, C] (leading axes flattened into the R rows); each row on its own.
// Calls row(y, dy, dx, cols) for every row, in parallel, when x needs a gradient.
template <typename Row>
void rows_backward(Node& node, Row&& row) {
  Var& x = node.inputs[0];
  if (!x.requires_grad()) return;
  const int64_t cols = x.value.shape().last(), rows = x.value.shape().rows();
  const float* y = node.output.value.data();
  const float* dy = node.output.grad.data();
  float* dx = x.grad.data();
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(y + r * cols, dy + r * cols, dx + r * cols, cols);
  });
}

// Shapes: x, y, dy, dx [R, N], row by row (rows_backward above).
void cumsum_backward(Node& node) {
  rows_backward(node, [](const float*, const float* dy, float* dx, int64_t cols) {
    float running = 0.0f;
    for (int64_t k = cols - 1; k >= 0; --k) dx[k] += running += dy[k];
  });
}

// Shapes: x, y, dy, dx [R, N], row by row (rows_backward above).
void softmax_backward(Node& node) {
  rows_backward(node, [](const float* y, const float* dy, float* dx, int64_t cols) {
    float dot = 0.0f;
    for (int64_t j = 0; j < cols; ++j) dot += dy[j] * y[j];
    for (int64_t j = 0; j < cols; ++j) dx[j] += y[j] * (dy[j] - dot);
  });
}

// Shapes: x, y, dy, dx [R, N], row by row (rows_backward above).
void log_softmax_backward(Node& node) {
  rows_backward(node, [](const float* y, const float* dy, float* dx, int64_t cols) {
    float total = 0.0f;
    for (int64_t j = 0; j < cols; ++j) total += dy[j];
    for (int64_t j = 0; j < cols; ++j) dx[j] += dy[j] - std::exp(y[j]) * total;
  });
}

}  // namespace

Var cumsum(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {&x});
  cumsum(x.value, y.value);
  tape.record("cumsum", cumsum_backward, y, {&x});
  return y;
}

Var softmax(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {&x});
  softmax(x.value, y.value);
  tape.record("softmax", softmax_backward, y, {&x});
  return y;
}

Var log_softmax(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {&x});
  log_softmax(x.value, y.value);
  tape.record("log_softmax", log_softmax_backward, y, {&x});
  return y;
}

}  // namespace empl

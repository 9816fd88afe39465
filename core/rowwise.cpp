// core/rowwise: along the last axis, cumsum Q_j = Σ_{r ≤ j} q_r, softmax q_j = e^{l_j − m}/Σ e^{l_k − m}
// (m = the row maximum, so no overflow) and log-softmax l_j − m − log Σ e^{l_k − m}, rows in
// parallel. Read core/rowwise.hpp first.
#include "core/rowwise.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// Calls row(in, out, cols) for every row of x, rows in parallel.
template <typename Row>
void for_each_row(const char* op, const Tensor& x, Tensor& out, Row&& row) {
  if (x.rank() == 0) fail(op, ": needs at least one axis, got a scalar");
  if (out.shape() != x.shape()) fail(op, ": out is ", out.shape(), ", x is ", x.shape());
  const int64_t cols = x.shape().last(), rows = x.shape().rows();
  const float* in = x.data();
  float* o = out.data();
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(in + r * cols, o + r * cols, cols);
  });
}

}  // namespace

void cumsum(const Tensor& x, Tensor& out) {
  for_each_row("cumsum", x, out, [](const float* in, float* o, int64_t cols) {
    float running = 0.0f;
    for (int64_t j = 0; j < cols; ++j) o[j] = running += in[j];
  });
}

void reverse_cumsum(const Tensor& x, Tensor& out) {
  for_each_row("reverse_cumsum", x, out, [](const float* in, float* o, int64_t cols) {
    float running = 0.0f;
    for (int64_t j = cols - 1; j >= 0; --j) o[j] = running += in[j];
  });
}

void softmax(const Tensor& x, Tensor& out) {
  for_each_row("softmax", x, out, [](const float* in, float* o, int64_t cols) {
    const float top = *std::max_element(in, in + cols);
    float total = 0.0f;
    for (int64_t j = 0; j < cols; ++j) total += o[j] = std::exp(in[j] - top);
    const float inverse = 1.0f / total;
    for (int64_t j = 0; j < cols; ++j) o[j] *= inverse;
  });
}

void log_softmax(const Tensor& x, Tensor& out) {
  for_each_row("log_softmax", x, out, [](const float* in, float* o, int64_t cols) {
    const float top = *std::max_element(in, in + cols);
    float total = 0.0f;
    for (int64_t j = 0; j < cols; ++j) total += std::exp(in[j] - top);
    const float log_total = top + std::log(total);
    for (int64_t j = 0; j < cols; ++j) o[j] = in[j] - log_total;
  });
}

Tensor cumsum(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape());
  cumsum(x, out);
  return out;
}

Tensor softmax(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape());
  softmax(x, out);
  return out;
}

}  // namespace empl

// core/elementwise: the kernels out[i] = f(x[i]) and out[i] = f(a[i], b[i]) (b broadcast as a row
// or a column), each one contiguous loop in parallel chunks above a grain size.
// Read core/elementwise.hpp first; autograd/elementwise.cpp puts a derivative beside each.
#include "core/elementwise.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// softplus(x) = log(1 + e^x), written as max(x, 0) + log1p(e^−|x|) so that neither branch
// overflows: e^−|x| ≤ 1 always.
inline float softplus_value(float x) { return std::max(x, 0.0f) + std::log1p(std::exp(-std::abs(x))); }

// σ(x) from e^−|x| ≤ 1 for the same reason.
inline float sigmoid_value(float x) {
  const float e = std::exp(-std::abs(x));
  return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

// Unary loops take their pointers as parameters so that the compiler vectorises them (aliasing
// is allowed only as exact in-place use, out == in, which vectorises just as well).
template <typename F>
void map_unary_range(const float* in, float* o, int64_t begin, int64_t end, F f) {
#pragma GCC ivdep
  for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
}

template <typename F>
void map_unary(const Tensor& x, Tensor& out, F f) {
  const float* in = x.data();
  float* o = out.data();
  parallel_for(x.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) { map_unary_range(in, o, begin, end, f); });
}

template <typename F>
void map_binary(Broadcast kind, const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const float* pa = a.data();
  const float* pb = b.data();
  float* o = out.data();
  const int64_t cols = a.shape().last();
  switch (kind) {
    case Broadcast::Same:
      parallel_for(a.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = f(pa[i], pb[i]);
      });
      break;
    case Broadcast::Row:
    case Broadcast::Column: {
      const bool row = kind == Broadcast::Row;
      const int64_t grain_rows = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1));
      parallel_for(a.shape().rows(), grain_rows, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const float* ar = pa + r * cols;
          float* orow = o + r * cols;
          if (row) {
            for (int64_t c = 0; c < cols; ++c) orow[c] = f(ar[c], pb[c]);
          } else {
            const float br = pb[r];
            for (int64_t c = 0; c < cols; ++c) orow[c] = f(ar[c], br);
          }
        }
      });
      break;
    }
  }
}

template <typename Op>
void dispatch_binary(Binary op, Op&& apply) {
  switch (op) {
    case Binary::Add: apply([](float p, float q) { return p + q; }); break;
    case Binary::Sub: apply([](float p, float q) { return p - q; }); break;
    case Binary::Mul: apply([](float p, float q) { return p * q; }); break;
    case Binary::Div: apply([](float p, float q) { return p / q; }); break;
    case Binary::Max: apply([](float p, float q) { return std::max(p, q); }); break;
    case Binary::Min: apply([](float p, float q) { return std::min(p, q); }); break;
  }
}

void check_out(const char* op, const Tensor& reference, const Tensor& out) {
  if (out.numel() != reference.numel())
    fail(op, ": out is ", out.shape(), ", expected ", reference.shape());
}

}  // namespace

const char* name_of(Unary op) {
  static const char* names[] = {"neg", "exp", "log", "sqrt", "abs", "relu", "sigmoid", "softplus", "step", "sign"};
  return names[static_cast<int>(op)];
}

const char* name_of(Binary op) {
  static const char* names[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  return names[static_cast<int>(op)];
}

Broadcast broadcast_kind(const char* op, const Tensor& a, const Tensor& b) {
  if (a.shape() == b.shape()) return Broadcast::Same;
  const int64_t cols = a.shape().last();
  const bool b_is_row = (b.rank() == 1 && b.shape()[0] == cols) ||
                        (b.rank() == 2 && b.shape()[0] == 1 && b.shape()[1] == cols);
  if (a.rank() >= 1 && b_is_row) return Broadcast::Row;
  if (a.rank() == 2 && b.rank() == 2 && b.shape()[0] == a.shape()[0] && b.shape()[1] == 1)
    return Broadcast::Column;
  fail(op, ": a is ", a.shape(), ", b is ", b.shape(),
       ": cannot broadcast (b must have a's shape, be a row [1,", cols, "] or a column [",
       a.rank() >= 1 ? a.shape()[0] : 0, ",1])");
}

void unary(Unary op, const Tensor& x, Tensor& out) {
  check_out(name_of(op), x, out);
  switch (op) {
    case Unary::Neg: map_unary(x, out, [](float v) { return -v; }); break;
    case Unary::Exp: map_unary(x, out, [](float v) { return std::exp(v); }); break;
    case Unary::Log: map_unary(x, out, [](float v) { return std::log(v); }); break;
    case Unary::Sqrt: map_unary(x, out, [](float v) { return std::sqrt(v); }); break;
    case Unary::Abs: map_unary(x, out, [](float v) { return std::abs(v); }); break;
    case Unary::Relu: map_unary(x, out, [](float v) { return v > 0.0f ? v : 0.0f; }); break;
    case Unary::Sigmoid: map_unary(x, out, sigmoid_value); break;
    case Unary::Softplus: map_unary(x, out, softplus_value); break;
    case Unary::Step: map_unary(x, out, [](float v) { return v >= 0.0f ? 1.0f : 0.0f; }); break;
    case Unary::Sign: map_unary(x, out, [](float v) { return float((v > 0.0f) - (v < 0.0f)); }); break;
  }
}

void binary(Binary op, const Tensor& a, const Tensor& b, Tensor& out) {
  const Broadcast kind = broadcast_kind(name_of(op), a, b);
  check_out(name_of(op), a, out);
  dispatch_binary(op, [&](auto f) { map_binary(kind, a, b, out, f); });
}

void binary_scalar(Binary op, const Tensor& a, float b, Tensor& out) {
  check_out(name_of(op), a, out);
  dispatch_binary(op, [&](auto f) { map_unary(a, out, [&](float v) { return f(v, b); }); });
}

void clamp(const Tensor& x, float lo, float hi, Tensor& out) {
  if (!(lo <= hi)) fail("clamp: lo ", lo, " > hi ", hi);
  check_out("clamp", x, out);
  map_unary(x, out, [=](float v) { return std::min(std::max(v, lo), hi); });
}

Tensor unary(Unary op, const Tensor& x) {
  Tensor out = Tensor::empty(x.shape());
  unary(op, x, out);
  return out;
}

Tensor binary(Binary op, const Tensor& a, const Tensor& b) {
  Tensor out = Tensor::empty(a.shape());
  binary(op, a, b, out);
  return out;
}

void accumulate_broadcast(Broadcast kind, const Tensor& grad, const Tensor& factor, Tensor& b_grad) {
  // b_grad += Σ over the broadcast axis of grad·factor (factor undefined means 1).
  const float* g = grad.data();
  const float* f = factor.defined() ? factor.data() : nullptr;
  float* out = b_grad.data();
  const int64_t cols = grad.shape().last(), rows = grad.shape().rows();
  if (kind == Broadcast::Same) {
    parallel_for(grad.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] += f ? g[i] * f[i] : g[i];
    });
  } else if (kind == Broadcast::Column) {
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float sum = 0.0f;
        for (int64_t c = 0; c < cols; ++c) sum += f ? g[r * cols + c] * f[r * cols + c] : g[r * cols + c];
        out[r] += sum;
      }
    });
  } else {
    // Column sums over all rows: each thread owns a block of columns, rows summed in order.
    parallel_for(cols, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(rows, 1)), [&](int64_t begin, int64_t end) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = begin; c < end; ++c) out[c] += f ? g[r * cols + c] * f[r * cols + c] : g[r * cols + c];
    });
  }
}

}  // namespace empl

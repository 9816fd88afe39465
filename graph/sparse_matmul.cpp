// graph/sparse_matmul: Y = α·A·X + s·Z − W row by row for CSR A, each row's terms added in CSR
// order by one thread, on strided blocks of rows (BlockRows), so the bits do not depend on the
// thread count. Read graph/sparse_matmul.hpp first.
#include "graph/sparse_matmul.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {

BlockRows BlockRows::of(Tensor& tensor) {
  if (tensor.rank() < 1 || tensor.shape()[0] == 0) fail("sparse_matmul: tensor ", tensor.shape(), " has no rows");
  const int64_t rows = tensor.shape()[0], length = tensor.numel() / rows;
  return BlockRows{tensor.data(), rows, 1, length, length};
}

BlockRows BlockRows::block(Tensor& tensor, int64_t k, int64_t length) {
  if (tensor.rank() != 3 || length <= 0 || tensor.shape()[2] % length != 0 || k < 0 || (k + 1) * length > tensor.shape()[2])
    fail("sparse_matmul: block ", k, " of length ", length, " does not fit a tensor ", tensor.shape());
  const Shape& s = tensor.shape();
  return BlockRows{tensor.data() + k * length, s[0], s[1], length, s[2]};
}

namespace {

// Every kernel below finds the row's start value s·z − w already in y (start_row) and adds the
// entries to it. One row r of y, columns [c0, c0 + width) of one segment: acc = y, then
// acc += (α·a_re)·x_e for the row's entries in CSR order, then stored once. The sum lives in
// local variables, not in y: accumulating in y costs a load and a store per entry, since the
// compiler must assume y may alias x. A full tile of 32 floats is 4 vectors of 8 (GCC's vector
// extension: each lane does exactly the scalar code's operations in the same order, so the bits
// are those of the plain loop); left to itself, GCC vectorised across the entries with gathers
// instead (about 1.5× slower here).
using Float8 = float __attribute__((vector_size(32)));
constexpr int64_t kTile = 32;

Float8 load8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void full_tile(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t x_row_stride, float alpha, float* out) {
  Float8 acc[4];
  for (int q = 0; q < 4; ++q) acc[q] = load8(out + 8 * q);
  for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
    const float v = alpha * a.values[e];
    const float* in = x + a.indices[e] * x_row_stride;
    for (int q = 0; q < 4; ++q) acc[q] += v * load8(in + 8 * q);
  }
  std::memcpy(out, acc, sizeof acc);
}

// The rest of a row, narrower than a tile: the same operations, one float at a time.
void partial_tile(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t x_row_stride, float alpha, float* out,
                  int64_t width) {
  float acc[kTile];
  std::copy_n(out, width, acc);
  for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
    const float v = alpha * a.values[e];
    const float* in = x + a.indices[e] * x_row_stride;
    for (int64_t c = 0; c < width; ++c) acc[c] += v * in[c];
  }
  std::copy_n(acc, width, out);
}


// All segments of row r at once (the B runs of F floats of a basis block): the sums for the whole
// row live in a local buffer in L1, and each entry's value and column are read once per row, not
// once per segment. The order of operations per float is the one above: acc = y, += in CSR order.
template <int64_t Length>
void row_segments(const CsrMatrix<float>& a, int64_t r, const BlockRows& x, const BlockRows& y, float alpha,
                  int64_t length) {
  constexpr int64_t kBuffer = 2048;
  const int64_t n = Length > 0 ? Length : length;
  alignas(64) float acc[kBuffer];
  const int64_t group = std::max<int64_t>(1, kBuffer / n);
  for (int64_t b0 = 0; b0 < y.segments; b0 += group) {
    const int64_t nb = std::min(group, y.segments - b0);
    for (int64_t b = 0; b < nb; ++b)
      std::copy_n(y.data + r * y.row_stride() + (b0 + b) * y.segment_stride, n, acc + b * n);
    for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
      const float v = alpha * a.values[e];
      const float* base = x.data + a.indices[e] * x.row_stride() + b0 * x.segment_stride;
      for (int64_t b = 0; b < nb; ++b) {
        const float* in = base + b * x.segment_stride;
        float* sums = acc + b * n;
        for (int64_t c = 0; c < n; ++c) sums[c] += v * in[c];
      }
    }
    for (int64_t b = 0; b < nb; ++b)
      std::copy_n(acc + b * n, n, y.data + r * y.row_stride() + (b0 + b) * y.segment_stride);
  }
}

// y's row r = add_scale·add − subtract, segment by segment (0 when both are absent): the value
// each kernel above starts its sums from. y may be add or subtract itself: each float is read,
// then written.
void start_row(int64_t r, const BlockRows& y, const BlockRows* add, float add_scale, const BlockRows* subtract) {
  for (int64_t b = 0; b < y.segments; ++b) {
    float* out = y.data + r * y.row_stride() + b * y.segment_stride;
    const float* z = add ? add->data + r * add->row_stride() + b * add->segment_stride : nullptr;
    const float* w = subtract ? subtract->data + r * subtract->row_stride() + b * subtract->segment_stride : nullptr;
    if (z && w) {
      for (int64_t c = 0; c < y.segment_length; ++c) out[c] = add_scale * z[c] - w[c];
    } else if (z) {
      for (int64_t c = 0; c < y.segment_length; ++c) out[c] = add_scale * z[c];
    } else if (w) {
      for (int64_t c = 0; c < y.segment_length; ++c) out[c] = -w[c];
    } else {
      std::fill_n(out, y.segment_length, 0.0f);
    }
  }
}

}  // namespace

void sparse_matmul(const CsrMatrix<float>& a, const BlockRows& x, const BlockRows& y, float alpha,
                   const BlockRows* add, float add_scale, const BlockRows* subtract) {
  const auto same_layout = [&](const BlockRows& other) {
    return other.rows == y.rows && other.segments == y.segments && other.segment_length == y.segment_length;
  };
  if (a.rows != x.rows || !same_layout(x) || (add && !same_layout(*add)) || (subtract && !same_layout(*subtract)))
    fail("sparse_matmul: A is [", a.rows, ",", a.rows, "], x is [", x.rows, ",", x.segments, "x", x.segment_length,
         "], y is [", y.rows, ",", y.segments, "x", y.segment_length, "]: rows and row layouts must agree");
  if (x.data == y.data) fail("sparse_matmul: y must not be x (rows of x are read after y's are written)");
  const int64_t segments = y.segments, length = y.segment_length;
  // About 16K floats of output per chunk: enough work to be worth a task.
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, y.row_length()));
  parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      start_row(r, y, add, add_scale, subtract);
      if (segments > 1 && length <= 2 * kTile) {
        // The gamma-ray network's widths (1, 4, 8, 16, 32) get their own copy of the kernel: with
        // the run's length known when compiling, its inner loop is unrolled, not a loop of one
        // to sixteen turns (the first block, F_in = 1, spent half of a training step there).
        switch (length) {
          case 1: row_segments<1>(a, r, x, y, alpha, length); break;
          case 4: row_segments<4>(a, r, x, y, alpha, length); break;
          case 8: row_segments<8>(a, r, x, y, alpha, length); break;
          case 16: row_segments<16>(a, r, x, y, alpha, length); break;
          case kTile: row_segments<kTile>(a, r, x, y, alpha, length); break;
          default: row_segments<0>(a, r, x, y, alpha, length);
        }
        continue;
      }
      for (int64_t b = 0; b < segments; ++b) {
        float* out = y.data + r * y.row_stride() + b * y.segment_stride;
        const float* in = x.data + b * x.segment_stride;
        if (length > 2 * kTile) {
          // Long runs (a plain [V, C] product, or F > 64): entry by entry over the whole run,
          // summing in y, which reads each neighbour's run in one go (tiles would revisit each
          // neighbour once per tile). On the loaded 2-core machine neither was measurably faster.
          for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
            const float v = alpha * a.values[e];
            const float* row = in + a.indices[e] * x.row_stride();
            for (int64_t c = 0; c < length; ++c) out[c] += v * row[c];
          }
          continue;
        }
        int64_t c0 = 0;
        for (; c0 + kTile <= length; c0 += kTile)
          full_tile(a, r, in + c0, x.row_stride(), alpha, out + c0);
        if (c0 < length)  // the rest, narrower than a tile
          partial_tile(a, r, in + c0, x.row_stride(), alpha, out + c0, length - c0);
      }
    }
  });
}

void sparse_matmul(const CsrMatrix<float>& a, Tensor x, Tensor& y) {
  if (x.shape() != y.shape()) fail("sparse_matmul: x is ", x.shape(), ", y is ", y.shape(), ": shapes must agree");
  sparse_matmul(a, BlockRows::of(x), BlockRows::of(y));
}

}  // namespace empl

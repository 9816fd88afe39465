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
// entries to it: per float, acc = y, then acc += (α·a_re)·x_e for the row's entries in CSR order,
// then stored once. The sums live in local variables, not in y: accumulating in y costs a load and
// a store per entry, since the compiler must assume y may alias x.
//
// The register tile. A tile is 8 vectors of kLanes floats of one row of y (the widest vectors the
// build's CPU has: 16 floats with AVX-512, 8 with AVX, 4 otherwise), its sums kept in registers
// for the whole row of entries. GCC's vector extension: each lane does exactly the scalar code's
// operations in the same order, so the bits are those of the plain loop, on every CPU; left to
// itself, GCC vectorised across the entries with gathers instead (about 1.5× slower here).
#if defined(__AVX512F__)
constexpr int64_t kLanes = 16;
#elif defined(__AVX__)
constexpr int64_t kLanes = 8;
#else
constexpr int64_t kLanes = 4;
#endif
using FloatVector = float __attribute__((vector_size(kLanes * sizeof(float))));
constexpr int64_t kTileFloats = 8 * kLanes;

FloatVector load_vector(const float* p) {
  FloatVector v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// `Segments` runs of `Length` floats of row r, run s at x + s·x_stride (of row 0) and at y_row +
// s·y_stride; Segments·Length = kTileFloats for a full tile (one run of a wide segment, or several
// narrow runs of consecutive segments), less for the last runs of a row.
template <int64_t Length, int64_t Segments>
void register_tile(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t x_row_stride, int64_t x_stride,
                   float* y_row, int64_t y_stride, float alpha) {
  constexpr int64_t kPerRun = Length / kLanes;
  FloatVector acc[Segments][kPerRun];
  for (int64_t s = 0; s < Segments; ++s)
    for (int64_t q = 0; q < kPerRun; ++q) acc[s][q] = load_vector(y_row + s * y_stride + q * kLanes);
  for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
    const float v = alpha * a.values[e];
    const float* in = x + a.indices[e] * x_row_stride;
    for (int64_t s = 0; s < Segments; ++s)
      for (int64_t q = 0; q < kPerRun; ++q) acc[s][q] += v * load_vector(in + s * x_stride + q * kLanes);
  }
  for (int64_t s = 0; s < Segments; ++s)
    for (int64_t q = 0; q < kPerRun; ++q) std::memcpy(y_row + s * y_stride + q * kLanes, &acc[s][q], sizeof(FloatVector));
}

// Row r in register tiles when its runs are a whole number of vectors long, Length = kLanes, 2·kLanes
// or 4·kLanes: kTileFloats / Length consecutive runs share a tile.
template <int64_t Length>
void row_in_narrow_tiles(const CsrMatrix<float>& a, int64_t r, const BlockRows& x, const BlockRows& y, float alpha) {
  constexpr int64_t kRunsPerTile = kTileFloats / Length;
  float* y_row = y.data + r * y.row_stride();
  int64_t b = 0;
  for (; b + kRunsPerTile <= y.segments; b += kRunsPerTile)
    register_tile<Length, kRunsPerTile>(a, r, x.data + b * x.segment_stride, x.row_stride(), x.segment_stride,
                                        y_row + b * y.segment_stride, y.segment_stride, alpha);
  for (; b < y.segments; ++b)  // the last runs, fewer than a tile's
    register_tile<Length, 1>(a, r, x.data + b * x.segment_stride, x.row_stride(), 0, y_row + b * y.segment_stride, 0,
                             alpha);
}

// Runs of a whole number of tiles (a plain [V, 256] product, wide features): each run is cut into
// tiles along its columns.
void row_in_wide_tiles(const CsrMatrix<float>& a, int64_t r, const BlockRows& x, const BlockRows& y, float alpha) {
  float* y_row = y.data + r * y.row_stride();
  for (int64_t b = 0; b < y.segments; ++b)
    for (int64_t c0 = 0; c0 < y.segment_length; c0 += kTileFloats)
      register_tile<kTileFloats, 1>(a, r, x.data + b * x.segment_stride + c0, x.row_stride(), 0,
                                    y_row + b * y.segment_stride + c0, 0, alpha);
}

// Any other width, runs shorter than a vector or not a whole number of them (the gamma-ray
// network's first blocks have runs of 1, 4 and 8 floats): the sums of a group of the row's runs
// live in a local buffer in L1, each entry's value and column read once per group. Per float the
// operations are those above: acc = y, += in CSR order.
template <int64_t Length>
void row_in_buffer(const CsrMatrix<float>& a, int64_t r, const BlockRows& x, const BlockRows& y, float alpha,
                   int64_t length) {
  constexpr int64_t kBuffer = 2048;
  const int64_t n = Length > 0 ? Length : length;
  alignas(64) float acc[kBuffer];
  for (int64_t c0 = 0; c0 < n; c0 += kBuffer) {  // runs longer than the buffer, a part at a time
    const int64_t width = std::min(kBuffer, n - c0), group = std::max<int64_t>(1, kBuffer / width);
    for (int64_t b0 = 0; b0 < y.segments; b0 += group) {
      const int64_t nb = std::min(group, y.segments - b0);
      float* out = y.data + r * y.row_stride() + b0 * y.segment_stride + c0;
      for (int64_t b = 0; b < nb; ++b) std::copy_n(out + b * y.segment_stride, width, acc + b * width);
      for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
        const float v = alpha * a.values[e];
        const float* base = x.data + a.indices[e] * x.row_stride() + b0 * x.segment_stride + c0;
        for (int64_t b = 0; b < nb; ++b) {
          const float* in = base + b * x.segment_stride;
          float* sums = acc + b * width;
          for (int64_t c = 0; c < width; ++c) sums[c] += v * in[c];
        }
      }
      for (int64_t b = 0; b < nb; ++b) std::copy_n(acc + b * width, width, out + b * y.segment_stride);
    }
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

// Asks the cache for row r's runs of `rows`, each cache line once. In a basis block a row is B
// short runs K·F floats apart: a strided pattern the hardware prefetcher follows poorly, so the
// rows a kernel is about to start from and write are requested ahead (sparse_matmul below).
// Always inlined: as a function of its own, GCC 12 finds it free of side effects (a prefetch is
// none to it), and drops every call.
constexpr int64_t kCacheLine = 64;  // bytes

template <bool ForWriting>
[[gnu::always_inline]] inline void prefetch_runs(const BlockRows& rows, int64_t r) {
  const char* row = reinterpret_cast<const char*>(rows.data + r * rows.row_stride());
  const char* last_line = nullptr;
  for (int64_t b = 0; b < rows.segments; ++b) {
    const char* begin = row + b * rows.segment_stride * int64_t{sizeof(float)};
    const char* end = begin + rows.segment_length * int64_t{sizeof(float)};
    for (const char* line = begin - reinterpret_cast<uintptr_t>(begin) % kCacheLine; line < end; line += kCacheLine) {
      if (line == last_line) continue;  // a run ending and the next starting in one line
      __builtin_prefetch(line, ForWriting ? 1 : 0);
      last_line = line;
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
  const int64_t length = y.segment_length;
  // About 16K floats of output per chunk: enough work to be worth a task.
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, y.row_length()));
  constexpr int64_t kPrefetchRows = 4;
  parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      // The runs of y, add and subtract that row r + kPrefetchRows starts from, asked for now so
      // that they arrive while this row's sums are made (ChebConv K = 6, nside 128, 1 thread:
      // 158 → 134 ms forward + backward; a plain [V, 256] product: 2.1 → 1.7 ms). Asking for the
      // neighbours' rows of x as well gained nothing measurable: NESTED order keeps half of them
      // within a few rows, and the sequential stream of x is the hardware prefetcher's. Runs
      // shorter than a line (the first blocks' F = 1, 4, 8) lie a few lines apart, which the
      // hardware follows; asking for them run by run cost more than it saved.
      if (length * int64_t{sizeof(float)} >= kCacheLine && r + kPrefetchRows < end) {
        prefetch_runs<true>(y, r + kPrefetchRows);
        if (add) prefetch_runs<false>(*add, r + kPrefetchRows);
        if (subtract) prefetch_runs<false>(*subtract, r + kPrefetchRows);
      }
      start_row(r, y, add, add_scale, subtract);
      // Each narrow width gets its own copy of the kernel: with the run's length known when
      // compiling, the loops over a tile are unrolled into straight-line vector code.
      if (length % kTileFloats == 0) row_in_wide_tiles(a, r, x, y, alpha);
      else if (length == kLanes) row_in_narrow_tiles<kLanes>(a, r, x, y, alpha);
      else if (length == 2 * kLanes) row_in_narrow_tiles<2 * kLanes>(a, r, x, y, alpha);
      else if (length == 4 * kLanes) row_in_narrow_tiles<4 * kLanes>(a, r, x, y, alpha);
      else if (length == 1) row_in_buffer<1>(a, r, x, y, alpha, length);
      else if (length == 4) row_in_buffer<4>(a, r, x, y, alpha, length);
      else row_in_buffer<0>(a, r, x, y, alpha, length);
    }
  });
}

void sparse_matmul(const CsrMatrix<float>& a, Tensor x, Tensor& y) {
  if (x.shape() != y.shape()) fail("sparse_matmul: x is ", x.shape(), ", y is ", y.shape(), ": shapes must agree");
  sparse_matmul(a, BlockRows::of(x), BlockRows::of(y));
}

}  // namespace empl

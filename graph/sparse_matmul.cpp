// graph/sparse_matmul: Y = α·A·X + s·Z − W row by row for CSR A, each row's terms added in CSR
// order by one thread, so the bits do not depend on the thread count. Read
// graph/sparse_matmul.hpp first.
#include "graph/sparse_matmul.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

// Every kernel below finds the row's start value s·z − w already in y (start_row) and adds the
// entries to it: per float, acc = y, then acc += (α·a_re)·x_e for the row's entries in CSR order,
// then stored once. The sums live in local variables, not in y: accumulating in y costs a load and
// a store per entry, since the compiler must assume y may alias x.
//
// The register tile: `Vectors` vectors of kLanes floats of one row of y (the widest vectors the
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
constexpr int64_t kTileVectors = 8;  // 8 vectors: 4 or 16 were slower on a [16384, 256] product

FloatVector load_vector(const float* p) {
  FloatVector v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Columns [c, c + Vectors·kLanes) of row r: x and y point at column c of row 0 and of row r.
template <int64_t Vectors>
void register_tile(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t columns, float* y, float alpha) {
  FloatVector acc[Vectors];
  for (int64_t q = 0; q < Vectors; ++q) acc[q] = load_vector(y + q * kLanes);
  for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
    const float v = alpha * a.values[e];
    const float* in = x + a.indices[e] * columns;
    for (int64_t q = 0; q < Vectors; ++q) acc[q] += v * load_vector(in + q * kLanes);
  }
  std::memcpy(y, acc, sizeof acc);
}

// The last `width` < kLanes columns of row r: the same operations, one float at a time.
void scalar_tile(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t columns, float* y, float alpha,
                 int64_t width) {
  float acc[kLanes];
  std::copy_n(y, width, acc);
  for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
    const float v = alpha * a.values[e];
    const float* in = x + a.indices[e] * columns;
    for (int64_t c = 0; c < width; ++c) acc[c] += v * in[c];
  }
  std::copy_n(acc, width, y);
}

// Row r of y, `columns` floats: whole tiles along it, then what is left in tiles of 4, 2 and 1
// vectors and single floats (a row of 64 floats is one tile of 4 vectors with AVX-512).
void product_row(const CsrMatrix<float>& a, int64_t r, const float* x, int64_t columns, float* y_row, float alpha) {
  int64_t c = 0;
  for (; c + kTileVectors * kLanes <= columns; c += kTileVectors * kLanes)
    register_tile<kTileVectors>(a, r, x + c, columns, y_row + c, alpha);
  if (columns - c >= 4 * kLanes) {
    register_tile<4>(a, r, x + c, columns, y_row + c, alpha);
    c += 4 * kLanes;
  }
  if (columns - c >= 2 * kLanes) {
    register_tile<2>(a, r, x + c, columns, y_row + c, alpha);
    c += 2 * kLanes;
  }
  if (columns - c >= kLanes) {
    register_tile<1>(a, r, x + c, columns, y_row + c, alpha);
    c += kLanes;
  }
  if (c < columns) scalar_tile(a, r, x + c, columns, y_row + c, alpha, columns - c);
}

// y's row = add_scale·add − subtract (0 when both are absent): the value the kernels above start
// their sums from. y may be add or subtract itself: each float is read, then written.
void start_row(float* out, const float* z, float add_scale, const float* w, int64_t columns) {
  if (z && w) {
    for (int64_t c = 0; c < columns; ++c) out[c] = add_scale * z[c] - w[c];
  } else if (z) {
    for (int64_t c = 0; c < columns; ++c) out[c] = add_scale * z[c];
  } else if (w) {
    for (int64_t c = 0; c < columns; ++c) out[c] = -w[c];
  } else {
    std::fill_n(out, columns, 0.0f);
  }
}

}  // namespace

void sparse_matmul(const CsrMatrix<float>& a, const Tensor& x, Tensor& y, float alpha, const Tensor* add,
                   float add_scale, const Tensor* subtract) {
  const auto shape_of = [](const char* name, const Tensor* t) {
    return t ? std::string(", ") + name + " is " + t->shape().str() : std::string();
  };
  if (x.rank() < 1 || x.shape()[0] != a.rows || y.shape() != x.shape() || (add && add->shape() != x.shape()) ||
      (subtract && subtract->shape() != x.shape()))
    fail("sparse_matmul: A is [", a.rows, ",", a.rows, "], x is ", x.shape(), ", y is ", y.shape(), shape_of("add", add),
         shape_of("subtract", subtract), ": expected all of x's shape [V, ...], V = A's rows");
  if (x.data() == y.data()) fail("sparse_matmul: y must not be x (rows of x are read after y's are written)");
  if (a.rows == 0) return;
  const int64_t columns = x.numel() / a.rows;
  const float* in = x.data();
  float* out = y.data();
  const float* z = add ? add->data() : nullptr;
  const float* w = subtract ? subtract->data() : nullptr;
  // About 16K floats of output per chunk: enough work to be worth a task.
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, columns));
  parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t offset = r * columns;
      start_row(out + offset, z ? z + offset : nullptr, add_scale, w ? w + offset : nullptr, columns);
      product_row(a, r, in, columns, out + offset, alpha);
    }
  });
}

}  // namespace empl

// graph/sparse_matmul: row-parallel CSR × dense on strided blocks of rows (see the header).
#include "graph/sparse_matmul.hpp"

#include <algorithm>

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

void sparse_matmul(const CsrMatrix<float>& a, const BlockRows& x, const BlockRows& y, float alpha,
                   const BlockRows* add, float add_scale) {
  const auto same_layout = [&](const BlockRows& other) {
    return other.rows == y.rows && other.segments == y.segments && other.segment_length == y.segment_length;
  };
  if (a.rows != x.rows || !same_layout(x) || (add && !same_layout(*add)))
    fail("sparse_matmul: A is [", a.rows, ",", a.rows, "], x is [", x.rows, ",", x.segments, "x", x.segment_length,
         "], y is [", y.rows, ",", y.segments, "x", y.segment_length, "]: rows and row layouts must agree");
  if (x.data == y.data) fail("sparse_matmul: y must not be x (rows of x are read after y's are written)");
  const int64_t segments = y.segments, length = y.segment_length;
  // About 16K floats of output per chunk: enough work to be worth a task.
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, y.row_length()));
  parallel_for(a.rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t b = 0; b < segments; ++b) {
        float* out = y.data + r * y.row_stride() + b * y.segment_stride;
        if (add) {
          const float* z = add->data + r * add->row_stride() + b * add->segment_stride;
          for (int64_t c = 0; c < length; ++c) out[c] = add_scale * z[c];
        } else {
          std::fill_n(out, length, 0.0f);
        }
        for (int64_t e = a.indptr[r]; e < a.indptr[r + 1]; ++e) {
          const float v = alpha * a.values[e];
          const float* in = x.data + a.indices[e] * x.row_stride() + b * x.segment_stride;
          for (int64_t c = 0; c < length; ++c) out[c] += v * in[c];
        }
      }
    }
  });
}

void sparse_matmul(const CsrMatrix<float>& a, Tensor x, Tensor& y) {
  if (x.shape() != y.shape()) fail("sparse_matmul: x is ", x.shape(), ", y is ", y.shape(), ": shapes must agree");
  sparse_matmul(a, BlockRows::of(x), BlockRows::of(y));
}

}  // namespace empl

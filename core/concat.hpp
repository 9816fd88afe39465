// Joining and cutting along the last axis: concat([B, F1], [B, F2]) = [B, F1 + F2] and
// slice_columns(x, begin, end) = x[:, begin:end]. Tensors are contiguous, so both copy.
// The typical use is appending the quantile level τ as one more input column.
// Read after core/tensor.hpp.
#pragma once

#include <span>

#include "core/tensor.hpp"

namespace empl {

// out[r] = parts[0][r] ‖ parts[1][r] ‖ ...; every part has the same rows().
void concat(std::span<const Tensor> parts, Tensor& out);
// out = x[..., begin:end]
void slice_columns(const Tensor& x, int64_t begin, int64_t end, Tensor& out);

// The shapes of the results (they check the arguments).
Shape concat_shape(std::span<const Tensor> parts);
Shape slice_columns_shape(const Tensor& x, int64_t begin, int64_t end);

}  // namespace empl

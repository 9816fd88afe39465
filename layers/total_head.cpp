// The softmax-and-total head; read total_head.hpp first.
#include "layers/total_head.hpp"

#include "autograd/concat.hpp"
#include "autograd/rowwise.hpp"
#include "core/error.hpp"

namespace empl {

Var SoftmaxWithTotal::forward(Tape& tape, const Var& x) {
  if (x.value.rank() != 2 || x.shape()[1] < 2)
    fail("SoftmaxWithTotal: input is ", x.shape(), ", expected [B, N + 1] with N >= 1");
  const int64_t bins = x.shape()[1] - 1;
  return concat(tape, softmax(tape, slice_columns(tape, x, 0, bins)), slice_columns(tape, x, bins, bins + 1));
}

}  // namespace empl

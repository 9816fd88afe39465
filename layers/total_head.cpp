// The softmax-and-total head of total_head.hpp: for an input x [B, N + 1],
//   y = [ softmax(x[:, 0:N]) | x[:, N] ]   (the density, then the standardised log total count)
// built from the autograd slice, softmax and concat ops, so it has no backward of its own.
// Read layers/total_head.hpp first.
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

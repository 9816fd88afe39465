// layers/tau_input: appends the scaled quantile level (τ − 0.5)·12 to the inputs as one more
// column (paper section 2.5), the τ the EMPL is then evaluated at. Read layers/tau_input.hpp
// first.
#include "layers/tau_input.hpp"

#include "autograd/concat.hpp"
#include "core/error.hpp"

namespace empl {

Var append_tau(Tape& tape, const Var& x, const Tensor& tau) {
  if (x.value.rank() != 2 || tau.shape() != Shape{x.shape()[0], 1})
    fail("append_tau: x is ", x.shape(), ", tau is ", tau.shape(), ": expected [B, F] and [B, 1]");
  Var column(tape.alloc(tau.shape()));
  for (int64_t i = 0; i < tau.numel(); ++i) column.value[i] = tau_feature(tau[i]);
  return concat(tape, x, column);
}

}  // namespace empl

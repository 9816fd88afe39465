// HEALPix pooling, nside → nside/2: the 4 NESTED children 4p .. 4p+3 of a coarse pixel p are 4
// consecutive nodes (graph/healpix.hpp), so pooling is a reduction over groups of 4 rows of the
// node-major activation (layers/cheb_conv.hpp). Read layers/cheb_conv.hpp first.
//
// Shapes: x [V, B, F] → y [V/4, B, F].
//   max:   y[p] = max_j x[4p + j]          dx[4p + j] += dy[p] where j was the argmax, 0 elsewhere
//          (the argmax j ∈ {0..3} is saved; a tie goes to the first child)
//   mean:  y[p] = ¼ Σ_j x[4p + j]          dx[4p + j] += ¼ dy[p]
#pragma once

#include "layers/module.hpp"

namespace empl {

enum class PoolMode { Max, Mean };

Var healpix_pool(Tape& tape, const Var& x, PoolMode mode);

class HealpixPool : public Module {
 public:
  explicit HealpixPool(PoolMode mode = PoolMode::Max) : mode_(mode) {}
  Var forward(Tape& tape, const Var& x) override { return healpix_pool(tape, x, mode_); }
  const char* type_name() const override { return "HealpixPool"; }

 private:
  PoolMode mode_;
};

}  // namespace empl

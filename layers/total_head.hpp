// The output head of a network that predicts a histogram and its total count (paper section 2.1:
// histograms that are not normalised are handled "by appending the total histogram count before
// normalization as an additional NN output"). The last layer gives N + 1 values: the first N are
// logits, turned into a density by a softmax as for any EMPL network, and the last one passes
// through unchanged, as the (standardised) log of the total count, with its own loss.
// Read after layers/activations.hpp; training/quantiles.hpp evaluates it (QuantileHead::density_with_total).
#pragma once

#include "layers/module.hpp"

namespace empl {

// x [B, N + 1] -> [B, N + 1]: softmax(x[:, :N]) and x[:, N] side by side.
class SoftmaxWithTotal : public Module {
 public:
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "SoftmaxWithTotal"; }
};

}  // namespace empl

// Activation modules: thin wrappers of the autograd ops, so that they can stand in a Sequential.
// ReLU for the hidden layers; Softmax at the end of a histogram network (its output is the
// predicted density histogram q̃, whose cumulative sum the EMPL compares).
// Read after layers/module.hpp.
#pragma once

#include "layers/module.hpp"

namespace empl {

class ReLU : public Module {
 public:
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "ReLU"; }
};

class Softmax : public Module {
 public:
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "Softmax"; }
};

}  // namespace empl

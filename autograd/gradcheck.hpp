// Gradient checking: does an op's backward agree with finite differences of its forward?
//
// For inputs x_1..x_k and an op y = f(x), gradcheck draws a fixed random weight r of y's shape,
// forms the scalar L = Σ r·y (so every output element is checked, not only their sum), gets
// dL/dx from the tape, and compares each element with the central difference
//   (L(x + h e_i) − L(x − h e_i)) / 2h,
// evaluated in double from float32 forward passes. Float32 rounding makes the difference noisy
// (about ε_float·|L|/h), so the default h and tolerances are chosen for float32; choose inputs
// away from kinks (ReLU at 0, |x| at 0), where no derivative exists.
// Read after autograd/matmul.hpp (the op a gradcheck is first shown on).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/tape.hpp"

namespace empl {

// An element passes when |analytic − numeric| ≤ floor + relative_tolerance·|numeric|, where the
// floor is absolute_tolerance times the largest |numeric| of that input, i.e. it scales with the
// gradient's size (a fixed floor of 2e-3 passed any error in a loss gradient of size 1/(B·N)),
// but never below the round-off of the difference itself, 4·ε_float·Σ|r·y|/h.
struct GradcheckOptions {
  double step = 1e-2;            // h
  double absolute_tolerance = 2e-3;
  double relative_tolerance = 2e-2;
  uint64_t seed = 1234;          // for the random output weights r
};

struct GradcheckResult {
  bool ok = true;
  double worst_error = 0.0;      // |analytic − numeric| at the worst element
  std::string worst;             // "input 1 element 7: analytic 0.25 numeric 0.2501"
};

using GradcheckFunction = std::function<Var(Tape&, const std::vector<Var>&)>;

// `inputs` are copied into leaves; `f` builds the op on them. Every input is checked.
GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace empl

// layers/activations: ReLU y = max(x, 0) and Softmax y_j = e^{x_j}/Σ_k e^{x_k} as modules, each
// one call of its autograd op (the backward lives there). Read layers/activations.hpp and
// autograd/elementwise.hpp first.
#include "layers/activations.hpp"

#include "autograd/elementwise.hpp"
#include "autograd/rowwise.hpp"

namespace empl {

Var ReLU::forward(Tape& tape, const Var& x) { return relu(tape, x); }
Var Softmax::forward(Tape& tape, const Var& x) { return softmax(tape, x); }

}  // namespace empl

// The tape, printed: one line per recorded node, in execution order, so that a learner can see
// what one training step records and what backward() will walk in reverse (docs/2-tape.md).
//
//   #1 relu [4,3] <- #0
//
// Each input is named by where it came from: "#k" for the output of node k, a parameter's name
// when one is given (Module::named_parameters), "leaf" for another value with a gradient, and
// "const" for a value without one (the data). Read autograd/tape.hpp first.
#pragma once

#include <string>
#include <vector>

#include "autograd/tape.hpp"

namespace empl {

// One line per node: "#i name [output shape] <- input, input, ...", each input with its shape
// unless it is the output of an earlier node (whose shape is on that node's line).
std::string dump_tape(const Tape& tape, const std::vector<NamedTensor>& parameters = {});

}  // namespace empl

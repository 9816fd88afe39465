// optim/schedule: lr(step) = lr0 · rate^(step / decay_steps), the exponential decay of the
// paper's runs (the toy run decays 1e-3 to 1e-4 over its steps: rate 0.1, decay_steps = steps).
// Read optim/schedule.hpp first.
#include "optim/schedule.hpp"

#include <cmath>

#include "core/error.hpp"

namespace empl {

float ExponentialDecay::at(int64_t step) const {
  if (decay_steps <= 0) fail("ExponentialDecay: decay_steps = ", decay_steps, " must be positive");
  if (!(rate > 0.0f)) fail("ExponentialDecay: rate = ", rate, " must be positive");
  return initial * std::pow(rate, static_cast<float>(step) / static_cast<float>(decay_steps));
}

}  // namespace empl

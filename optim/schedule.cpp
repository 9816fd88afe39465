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

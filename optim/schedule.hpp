// Learning-rate schedules. Exponential decay: lr(step) = lr0 · rate^(step / decay_steps), so the
// rate is reached after decay_steps steps (the toy example decays 1e-3 to 1e-4 over its run:
// rate 0.1, decay_steps = the number of steps).
// Read after optim/adam.hpp.
#pragma once

#include <cstdint>

namespace empl {

struct ExponentialDecay {
  float initial = 1e-3f;
  float rate = 1.0f;          // 1: constant
  int64_t decay_steps = 1;

  float at(int64_t step) const;
};

}  // namespace empl

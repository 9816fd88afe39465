// An exponential moving average of a packed model's parameters (Polyak averaging in its EMA form;
// Polyak & Juditsky 1992, and the "shadow variables" of TensorFlow's ExponentialMovingAverage):
//   θ̄ ← θ                       at the first update
//   θ̄ ← β·θ̄ + (1 − β)·θ         at each later one (after an optimizer step)
// The last steps of a run with a constant or slowly decaying learning rate scatter the weights
// around a minimum; θ̄ sits nearer its centre, so a network evaluated with θ̄ is steadier from seed
// to seed. Read optim/adam.hpp first (the same flat span of parameters).
#pragma once

#include <vector>

#include "layers/module.hpp"

namespace empl {

// The first step the average takes in: the last `window` steps of a run of `steps`, but never more
// than the run's second half. From step 0, the copy of the untrained weights would keep a share
// β^steps of the average (45% after 400 steps at β = 0.998) and a short run would be evaluated
// half untrained.
int64_t average_start(int64_t steps, int64_t window);

class WeightAverage {
 public:
  // β in [0, 1): 1/(1 − β) is the number of steps the average effectively spans.
  WeightAverage(Module& model, float decay);
  // Folds the model's current parameters into the average.
  void update();
  int64_t count() const { return static_cast<int64_t>(count_[0]); }
  const Tensor& values() const { return average_; }
  // Exchanges the model's parameters and the average: evaluate with θ̄, swap again to go on training.
  void swap_into_model();
  // The average and its update count, for checkpoints ("average.values", "average.count"), so
  // that a resumed run averages exactly as an uninterrupted one.
  std::vector<NamedTensor> state();
  // Finds "average.values" and "average.count" among a checkpoint's tensors and copies them in;
  // false when the checkpoint has none (it was written without averaging).
  bool restore_from(const std::vector<NamedTensor>& tensors);

 private:
  Tensor values_;  // the model's packed parameters (shared, not a copy)
  Tensor average_, count_;
  float decay_;
};

}  // namespace empl

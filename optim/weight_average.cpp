// optim/weight_average: θ̄ ← θ at the first update, θ̄ ← β·θ̄ + (1 − β)·θ after, over the flat
// parameters, and the swap that evaluates a model with θ̄ and then restores θ.
// Read optim/weight_average.hpp first.
#include "optim/weight_average.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

void average_update(float* __restrict average, const float* __restrict theta, int64_t begin, int64_t end, float decay) {
  for (int64_t i = begin; i < end; ++i) average[i] = decay * average[i] + (1.0f - decay) * theta[i];
}

}  // namespace

WeightAverage::WeightAverage(Module& model, float decay) : values_(model.flat_values()), decay_(decay) {
  if (!(decay >= 0.0f && decay < 1.0f)) fail("WeightAverage: decay ", decay, " must be in [0, 1)");
  average_ = Tensor::zeros(values_.shape(), "weight average");
  count_ = Tensor::zeros({1}, "weight average count");
}

void WeightAverage::update() {
  // The first update copies θ: starting from zeros would pull θ̄ towards 0 (Adam's bias
  // correction fixes the same thing by division; a copy is exact and simpler).
  if (count_[0] == 0.0f) average_.copy_from(values_);
  else {
    float* average = average_.data();
    const float* theta = values_.data();
    const float decay = decay_;
    parallel_for(values_.numel(), kDefaultGrain,
                 [&](int64_t begin, int64_t end) { average_update(average, theta, begin, end, decay); });
  }
  count_[0] += 1.0f;
}

void WeightAverage::swap_into_model() {
  if (count() == 0) fail("WeightAverage: swap_into_model before any update: there is no average yet");
  float* average = average_.data();
  float* theta = values_.data();
  for (int64_t i = 0; i < values_.numel(); ++i) std::swap(average[i], theta[i]);
}

std::vector<NamedTensor> WeightAverage::state() { return {{"average.values", average_}, {"average.count", count_}}; }

bool WeightAverage::restore_from(const std::vector<NamedTensor>& tensors) {
  const NamedTensor *values = nullptr, *count = nullptr;
  for (const NamedTensor& t : tensors) {
    if (t.name == "average.values") values = &t;
    if (t.name == "average.count") count = &t;
  }
  if (!values || !count) return false;
  if (values->tensor.shape() != average_.shape() || count->tensor.shape() != count_.shape())
    fail("WeightAverage: checkpoint's average.values is ", values->tensor.shape(), ", the model has ", average_.shape(),
         " parameters");
  average_.copy_from(values->tensor);
  count_.copy_from(count->tensor);
  return true;
}

int64_t average_start(int64_t steps, int64_t window) { return steps - std::min(window, steps / 2); }

}  // namespace empl

#include "apps/toy_urn/urn_data.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "layers/tau_input.hpp"

namespace empl::toy_urn {

int64_t draws_for(double u) { return std::llround(std::pow(10.0, 3.0 * u)); }

double input_for_draws(int64_t draws) { return std::log10(static_cast<double>(draws)) / 3.0; }

void make_batch(uint64_t seed, uint64_t step, Tensor& inputs, Tensor& labels, Tensor& tau,
                float fixed_tau, int64_t first) {
  const int64_t batch = inputs.shape()[0];
  if (inputs.shape() != Shape{batch, kFeatures} || labels.shape() != Shape{batch, kBins} ||
      tau.shape() != Shape{batch, 1})
    fail("toy_urn::make_batch: inputs ", inputs.shape(), ", labels ", labels.shape(), ", tau ",
         tau.shape(), " for a batch of ", batch);
  static const double kUniform[kBins] = {0.2, 0.2, 0.2, 0.2, 0.2};
  parallel_for(batch, 64, [&](int64_t begin, int64_t end) {
    int64_t counts[kBins];
    for (int64_t i = begin; i < end; ++i) {
      Rng rng(seed, step, static_cast<uint64_t>(first + i));
      const double u = rng.uniform_double();
      const float t = fixed_tau >= 0.0f ? fixed_tau : rng.uniform();
      const int64_t draws = draws_for(u);
      rng.multinomial(draws, kUniform, counts);
      float* label = labels.data() + i * kBins;
      for (int j = 0; j < kBins; ++j) label[j] = static_cast<float>(counts[j]) / static_cast<float>(draws);
      inputs[i * kFeatures + 0] = tau_feature(t);
      inputs[i * kFeatures + 1] = static_cast<float>((u - 0.5) * 12.0);
      tau[i] = t;
    }
  });
}

}  // namespace empl::toy_urn

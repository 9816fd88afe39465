#include "apps/bimodal/bimodal_data.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "layers/tau_input.hpp"

namespace empl::bimodal {

void draw_histogram(const BimodalInput& input, uint64_t seed, uint64_t stream, uint64_t index,
                    float* histogram) {
  Rng rng(seed, stream, index);
  const bool first_mode = rng.uniform_double() < input.xi;
  double line[kBins];
  for (int j = 0; j < kBins; ++j)
    line[j] = first_mode ? j + input.b1 * rng.normal_double() : -j + input.b2 * rng.normal_double();
  const double lowest = *std::min_element(line, line + kBins);
  double total = 0.0;
  for (double& value : line) total += (value -= lowest);
  // total is 0 only if every bin is equal, which needs b = 0 and cannot happen for line1/line2
  // slopes of ±1; guard anyway so that a label is always a normalised histogram.
  for (int j = 0; j < kBins; ++j)
    histogram[j] = total > 0 ? static_cast<float>(line[j] / total) : 1.0f / kBins;
}

void make_batch(uint64_t seed, uint64_t step, Tensor& inputs, Tensor& labels, Tensor& tau, int64_t first) {
  const int64_t batch = inputs.shape()[0];
  if (inputs.shape() != Shape{batch, kFeatures} || labels.shape() != Shape{batch, kBins} ||
      tau.shape() != Shape{batch, 1})
    fail("bimodal::make_batch: inputs ", inputs.shape(), ", labels ", labels.shape(), ", tau ",
         tau.shape(), " for a batch of ", batch);
  parallel_for(batch, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      // The input and τ come from stream 2·step, the label's noise from stream 2·step + 1.
      const uint64_t sample = static_cast<uint64_t>(first + i);
      Rng rng(seed, 2 * step, sample);
      const BimodalInput x{rng.uniform_double(), rng.uniform_double(), rng.uniform_double()};
      const float t = rng.uniform();
      draw_histogram(x, seed, 2 * step + 1, sample, labels.data() + i * kBins);
      float* row = inputs.data() + i * kFeatures;
      row[0] = tau_feature(t);
      fill_features(x, row + 1);
      tau[i] = t;
    }
  });
}

void fill_features(const BimodalInput& input, float* row) {
  row[0] = static_cast<float>((input.xi - 0.5) * 12.0);
  row[1] = static_cast<float>((input.b1 - 0.5) * 12.0);
  row[2] = static_cast<float>((input.b2 - 0.5) * 12.0);
}

}  // namespace empl::bimodal

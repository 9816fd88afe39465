// Checking, normalising, splitting, standardising and batching a user's histograms:
//   density q_rj = h_rj / Σ_k h_rk   (log Σ_k h_rk kept as the total when the rows are counts)
//   standardised feature x'_rf = (x_rf − mean_f) / std_f, mean and std over the training rows
// Batches are drawn from (seed, step, row) alone. Read training/histogram_data.hpp first.
#include "training/histogram_data.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"

namespace empl {

HistogramTargets prepare_histograms(const MatrixFile& histograms, RowSums sums, const std::string& hint) {
  const int64_t rows = histograms.rows(), bins = histograms.cols();
  HistogramTargets targets{Tensor::empty({rows, bins}, "densities"), {}};
  if (sums == RowSums::counts) targets.log_totals.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = histograms.values.data() + r * bins;
    double sum = 0.0;
    for (int64_t j = 0; j < bins; ++j) {
      if (!(row[j] >= 0.0f))  // NaN fails this too (io/matrix_file refuses it already)
        fail(histograms.where(r), ", column ", j + 1, ": ", row[j], " is negative; a histogram holds counts or fractions");
      sum += row[j];
    }
    if (!(sum > 0.0)) fail(histograms.where(r), ": sums to 0; an empty histogram has no distribution to learn");
    if (sums == RowSums::must_be_one && std::abs(sum - 1.0) > 1e-3)
      fail(histograms.where(r), ": sums to ", sum, ", not 1", hint.empty() ? "" : "; ", hint);
    float* density = targets.densities.data() + r * bins;
    for (int64_t j = 0; j < bins; ++j) density[j] = static_cast<float>(row[j] / sum);
    if (sums == RowSums::counts) targets.log_totals[static_cast<size_t>(r)] = static_cast<float>(std::log(sum));
  }
  return targets;
}

RowSplit split_rows(int64_t rows, double validation_fraction, uint64_t seed) {
  if (!(validation_fraction >= 0.0 && validation_fraction < 1.0))
    fail("split_rows: validation fraction ", validation_fraction, " is outside [0, 1)");
  if (rows <= 0 || rows > int64_t{1} << 31) fail("split_rows: ", rows, " rows, expected 1 to 2^31");
  Rng rng(seed, /*stream=*/0x5B117);
  const std::vector<int> order = rng.permutation(static_cast<int>(rows));
  const auto validation = static_cast<size_t>(std::llround(validation_fraction * static_cast<double>(rows)));
  if (validation_fraction > 0.0 && (validation == 0 || validation == order.size()))
    fail("split_rows: a validation fraction of ", validation_fraction, " of ", rows, " rows leaves ",
         validation == 0 ? "no validation row" : "no training row");
  RowSplit split;
  split.validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(validation));
  split.train.assign(order.begin() + static_cast<std::ptrdiff_t>(validation), order.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

Standardisation fit_standardisation(const Tensor& x, const std::vector<int64_t>& rows) {
  if (x.rank() != 2 || rows.empty()) fail("fit_standardisation: x is ", x.shape(), " with ", rows.size(), " rows to fit");
  const int64_t width = x.shape()[1];
  Standardisation s{Tensor::zeros({width}, "feature mean"), Tensor::zeros({width}, "feature scale")};
  for (int64_t f = 0; f < width; ++f) {
    // Two passes in double: the mean, then the spread about it (no cancellation for large means).
    double mean = 0.0, square = 0.0;
    for (const int64_t r : rows) mean += x[r * width + f];
    mean /= static_cast<double>(rows.size());
    for (const int64_t r : rows) square += (x[r * width + f] - mean) * (x[r * width + f] - mean);
    const double std = std::sqrt(square / static_cast<double>(rows.size()));
    s.mean[f] = static_cast<float>(mean);
    s.scale[f] = std > 1e-12 * std::max(1.0, std::abs(mean)) ? static_cast<float>(std) : 1.0f;
  }
  return s;
}

Tensor standardise(const Standardisation& s, const Tensor& x) {
  const int64_t width = s.mean.numel();
  if (x.rank() != 2 || x.shape()[1] != width) fail("standardise: x is ", x.shape(), ", the statistics are for ", width, " features");
  Tensor out = Tensor::empty(x.shape(), "standardised features");
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = (x[i] - s.mean[i % width]) / s.scale[i % width];
  return out;
}

TotalScale fit_total_scale(const std::vector<float>& log_totals, const std::vector<int64_t>& rows) {
  if (rows.empty()) fail("fit_total_scale: no rows to fit");
  double mean = 0.0, square = 0.0;
  for (const int64_t r : rows) mean += log_totals[static_cast<size_t>(r)];
  mean /= static_cast<double>(rows.size());
  for (const int64_t r : rows) square += (log_totals[static_cast<size_t>(r)] - mean) * (log_totals[static_cast<size_t>(r)] - mean);
  const double std = std::sqrt(square / static_cast<double>(rows.size()));
  return {static_cast<float>(mean), std > 1e-6 ? static_cast<float>(std) : 1.0f};
}

void fill_batch(const Tensor& features, const HistogramTargets& targets, const TotalScale& total_scale,
                const std::vector<int64_t>& rows, uint64_t seed, uint64_t step, float fixed_tau, Tensor& inputs,
                Tensor& labels, Tensor& tau, Tensor& totals) {
  const int64_t batch = inputs.shape()[0], width = features.shape()[1], bins = targets.densities.shape()[1];
  const bool with_totals = !targets.log_totals.empty();
  if (inputs.shape() != Shape{batch, width} || labels.shape() != Shape{batch, bins} || tau.shape() != Shape{batch, 1} ||
      (with_totals && totals.shape() != Shape{batch, 1}) || rows.empty())
    fail("fill_batch: inputs ", inputs.shape(), ", labels ", labels.shape(), ", tau ", tau.shape(), " for a batch of ",
         batch, " from ", rows.size(), " rows of ", width, " features and ", bins, " bins");
  parallel_for(batch, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      Rng rng(seed, step, static_cast<uint64_t>(i));
      const int64_t row = rows[rng.uniform_int(rows.size())];
      tau[i] = fixed_tau >= 0.0f ? fixed_tau : rng.uniform();
      std::copy_n(features.data() + row * width, width, inputs.data() + i * width);
      std::copy_n(targets.densities.data() + row * bins, bins, labels.data() + i * bins);
      if (with_totals) totals[i] = (targets.log_totals[static_cast<size_t>(row)] - total_scale.mean) / total_scale.scale;
    }
  });
}

}  // namespace empl

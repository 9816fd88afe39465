// A user's data set for the EMPL: features X [S, F] and histograms H [S, N] read from files
// (io/matrix_file.hpp), turned into what training needs: density histograms that sum to 1 (each
// row checked, or divided by its sum, or taken as raw counts whose log total becomes one more
// target, paper section 2.1), features standardised with the training rows' mean and standard
// deviation, a seeded split into training and validation rows, and batches drawn from the step
// number alone (so a resumed run draws what an uninterrupted one would). apps/empl_fit is its
// command line; read after training/loop.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "io/matrix_file.hpp"

namespace empl {

enum class RowSums {
  must_be_one,  // each row must sum to 1 within 1e-3 (then divided by its sum exactly)
  normalise,    // each row is divided by its sum
  counts,       // raw counts: divided by the sum, and log(sum) kept as the total-count target
};

struct HistogramTargets {
  Tensor densities;               // [S, N], every row sums to 1
  std::vector<float> log_totals;  // [S], log of each row's sum; RowSums::counts only
};

// Refuses a negative entry, a row that sums to 0, and (must_be_one) a row whose sum is not 1,
// naming the file, the row and the value; `hint` is appended to the last message (how to ask for
// normalising, in the caller's words).
HistogramTargets prepare_histograms(const MatrixFile& histograms, RowSums sums, const std::string& hint = "");

// The seeded split: a permutation of 0..S−1 from Rng(seed, stream 0x5B117); its first
// round(fraction·S) rows validate, the rest train (both lists sorted).
struct RowSplit {
  std::vector<int64_t> train, validation;
};
RowSplit split_rows(int64_t rows, double validation_fraction, uint64_t seed);

// Per-feature mean and standard deviation over `rows` of x [S, F]; a column that is constant
// there gets scale 1 (it carries no information, and dividing by 0 would make it NaN).
struct Standardisation {
  Tensor mean, scale;  // [F] each
};
Standardisation fit_standardisation(const Tensor& x, const std::vector<int64_t>& rows);
Tensor standardise(const Standardisation& standardisation, const Tensor& x);  // (x − mean) / scale, [S, F]

// Mean and standard deviation of the log totals over `rows`, to standardise that target too.
struct TotalScale {
  float mean = 0.0f, scale = 1.0f;
};
TotalScale fit_total_scale(const std::vector<float>& log_totals, const std::vector<int64_t>& rows);

// A training batch: sample i of step s is row rows[Rng(seed, s, i) % |rows|] of the standardised
// features [S, F] and densities [S, N], with τ ~ U(0, 1) from the same generator (or every τ =
// fixed_tau when that is ≥ 0, for losses that take none). inputs [B, F] (τ is appended by the
// network's caller, layers/tau_input.hpp), labels [B, N], tau [B, 1]; totals [B, 1] receives the
// standardised log totals when `log_totals` is not empty.
void fill_batch(const Tensor& features, const HistogramTargets& targets, const TotalScale& total_scale,
                const std::vector<int64_t>& rows, uint64_t seed, uint64_t step, float fixed_tau, Tensor& inputs,
                Tensor& labels, Tensor& tau, Tensor& totals);

}  // namespace empl

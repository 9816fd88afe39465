// training/histogram_data: row checks (the row and the sum named), normalising, raw counts, the
// seeded split, standardisation by hand, and batches that depend on the step alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/matrix_file.hpp"
#include "training/histogram_data.hpp"

using namespace empl;

TEST_CASE("histogram data: rows must sum to 1 unless normalised; negative and empty rows are refused") {
  const MatrixFile h = parse_matrix_text("a,b\n0.25,0.75\n0.5,0.3\n", "h.csv");
  CHECK_THROWS_WITH_AS(prepare_histograms(h, RowSums::must_be_one, "normalise"),
                       "h.csv, row 1 (line 3): sums to 0.8, not 1; normalise", Error);
  const HistogramTargets normalised = prepare_histograms(h, RowSums::normalise);
  CHECK(normalised.densities[2] == doctest::Approx(0.625f).epsilon(1e-7));
  CHECK(normalised.densities[3] == doctest::Approx(0.375f).epsilon(1e-7));
  CHECK(normalised.log_totals.empty());
  const MatrixFile counts = parse_matrix_text("3 1\n0 10\n", "c.txt");
  const HistogramTargets raw = prepare_histograms(counts, RowSums::counts);
  CHECK(raw.densities[0] == 0.75f);
  CHECK(raw.log_totals[0] == doctest::Approx(std::log(4.0f)));
  CHECK(raw.log_totals[1] == doctest::Approx(std::log(10.0f)));
  CHECK_THROWS_WITH_AS(prepare_histograms(parse_matrix_text("1 0\n0.5 -0.5\n", "n.txt"), RowSums::normalise),
                       "n.txt, row 1 (line 2), column 2: -0.5 is negative; a histogram holds counts or fractions", Error);
  CHECK_THROWS_WITH_AS(prepare_histograms(parse_matrix_text("1 0\n0 0\n", "z.txt"), RowSums::counts),
                       "z.txt, row 1 (line 2): sums to 0; an empty histogram has no distribution to learn", Error);
}

TEST_CASE("histogram data: the split is seeded, disjoint and complete") {
  const RowSplit a = split_rows(100, 0.2, 7), b = split_rows(100, 0.2, 7), c = split_rows(100, 0.2, 8);
  CHECK(a.validation.size() == 20);
  CHECK(a.train.size() == 80);
  CHECK(a.validation == b.validation);
  CHECK(a.validation != c.validation);
  std::vector<int> seen(100, 0);
  for (const int64_t r : a.train) ++seen[static_cast<size_t>(r)];
  for (const int64_t r : a.validation) ++seen[static_cast<size_t>(r)];
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  CHECK(split_rows(10, 0.0, 1).train.size() == 10);
  CHECK_THROWS_AS(split_rows(10, 0.01, 1), Error);  // no validation row
}

TEST_CASE("histogram data: standardisation from the training rows only, by hand") {
  // Column 0 over rows 0 and 2: values 1 and 3, mean 2, std 1. Column 1 is constant there: scale 1.
  const Tensor x = Tensor::from({3, 2}, std::vector<float>{1, 5, 100, 7, 3, 5});
  const Standardisation s = fit_standardisation(x, {0, 2});
  CHECK(s.mean[0] == 2.0f);
  CHECK(s.scale[0] == 1.0f);
  CHECK(s.mean[1] == 5.0f);
  CHECK(s.scale[1] == 1.0f);
  const Tensor z = standardise(s, x);
  CHECK(z[0] == -1.0f);
  CHECK(z[2] == 98.0f);
  CHECK(z[3] == 2.0f);
  const Standardisation wide = fit_standardisation(Tensor::from({2, 1}, std::vector<float>{0, 4}), {0, 1});
  CHECK(wide.scale[0] == 2.0f);  // the population std: sqrt(((0-2)² + (4-2)²)/2)
  const TotalScale t = fit_total_scale({0.0f, 2.0f, 50.0f}, {0, 1});
  CHECK(t.mean == 1.0f);
  CHECK(t.scale == 1.0f);
}

TEST_CASE("histogram data: a batch depends on (seed, step) alone, not on the thread count") {
  const MatrixFile h = parse_matrix_text("1 3\n2 2\n5 0\n0 1\n", "h.txt");
  const HistogramTargets targets = prepare_histograms(h, RowSums::counts);
  const Tensor features = Tensor::from({4, 1}, std::vector<float>{0, 1, 2, 3});
  const TotalScale scale = fit_total_scale(targets.log_totals, {0, 1, 2, 3});
  const auto batch = [&](int threads, uint64_t step) {
    set_num_threads(threads);
    Tensor in = Tensor::empty({300, 1}), lab = Tensor::empty({300, 2}), tau = Tensor::empty({300, 1}), tot = Tensor::empty({300, 1});
    fill_batch(features, targets, scale, {0, 2, 3}, 5, step, -1.0f, in, lab, tau, tot);
    std::vector<float> all(in.values().begin(), in.values().end());
    all.insert(all.end(), tau.values().begin(), tau.values().end());
    all.insert(all.end(), tot.values().begin(), tot.values().end());
    // Each sample's label and total belong to its feature's row; row 1 is not in the list.
    for (int64_t i = 0; i < 300; ++i) {
      const auto row = static_cast<int64_t>(in[i]);
      CHECK(row != 1);
      CHECK(lab[i * 2] == targets.densities[row * 2]);
      CHECK(tot[i] == (targets.log_totals[static_cast<size_t>(row)] - scale.mean) / scale.scale);
    }
    return all;
  };
  const int before = num_threads();
  const std::vector<float> one = batch(1, 4), two = batch(2, 4), other = batch(2, 5);
  set_num_threads(before);
  CHECK(one == two);
  CHECK(one != other);
}

// The quantile-crossing penalty: value and gradient by hand, zero without crossings, agreement
// with a direct double-precision sum on random predictions, a gradcheck and its refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "losses/quantile_crossing.hpp"

using namespace empl;

namespace {

// Positive, unnormalised predictions [samples·levels, bins] with a fixed seed: row sums differ,
// so no two rows' last cumulative bins tie (a tie is the hinge's kink).
Tensor random_predictions(int64_t rows, int64_t bins, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(0.05f, 1.0f);
  Tensor p = Tensor::empty({rows, bins});
  for (float& value : p.values()) value = uniform(engine);
  return p;
}

// Levels 0.1, 0.3, … per sample: [samples·levels, 1].
Tensor sorted_tau(int64_t samples, int64_t levels) {
  Tensor tau = Tensor::empty({samples * levels, 1});
  for (int64_t r = 0; r < samples * levels; ++r) tau[r] = 0.1f + 0.2f * static_cast<float>(r % levels);
  return tau;
}

}  // namespace

TEST_CASE("quantile-crossing penalty by hand: one crossing in three levels") {
  // One sample at three levels, two bins. Cumulative: level 1 [0.5 1], level 2 [0.25 1], level 3
  // [0.75 1]. Bin 1 falls by 0.25 from level 1 to 2 (a crossing) and rises to level 3; bin 2 ties.
  // P = 0.25/(B·(T − 1)·N) = 0.25/4 = 0.0625.
  const Tensor pred = Tensor::from({3, 2}, std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f, 0.75f, 0.25f});
  const Tensor tau = Tensor::from({3, 1}, std::vector<float>{0.1f, 0.5f, 0.9f});
  Tape tape;
  Var leaf = make_leaf(pred);
  Var penalty = quantile_crossing_penalty(tape, leaf, tau, 3);
  CHECK(penalty.value.item() == doctest::Approx(0.0625).epsilon(1e-6));
  // ∂P/∂Q̃: +1/4 at (level 1, bin 1), −1/4 at (level 2, bin 1): the lower level is pulled down,
  // the higher one pushed up. Through the cumsum: q̃ row 1 [0.25 0], row 2 [−0.25 0], row 3 0.
  tape.backward(penalty);
  const std::vector<float> expected{0.25f, 0.0f, -0.25f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 6; ++i) CHECK(leaf.grad[i] == doctest::Approx(expected[i]).epsilon(1e-6));
}

TEST_CASE("quantile-crossing penalty: rows are grouped by sample, and a sample without crossings adds 0") {
  // Sample 1 as above (one fall of 0.25); sample 2 rises in every bin. P = 0.25/(2·2·2) = 0.03125.
  const Tensor pred = Tensor::from({6, 2}, std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f, 0.75f, 0.25f,  //
                                                             0.1f, 0.9f, 0.2f, 0.8f, 0.7f, 0.3f});
  const Tensor tau = sorted_tau(2, 3);
  Tape tape;
  Var leaf = make_leaf(pred);
  Var penalty = quantile_crossing_penalty(tape, leaf, tau, 3);
  CHECK(penalty.value.item() == doctest::Approx(0.03125).epsilon(1e-6));
  tape.backward(penalty);
  for (int i = 6; i < 12; ++i) CHECK(leaf.grad[i] == 0.0f);
  // Read as three samples at two levels instead, the pairs are rows (1,2), (3,4), (5,6). Bin 1's
  // cumulative values per row are 0.5, 0.25, 0.75, 0.1, 0.2, 0.7: falls of 0.25 and 0.65, a rise,
  // so P = (0.25 + 0.65)/(3·1·2) = 0.15.
  Tape other;
  CHECK(quantile_crossing_penalty(other, Var(pred), sorted_tau(3, 2), 2).value.item() ==
        doctest::Approx(0.15).epsilon(1e-6));
}

TEST_CASE("quantile-crossing penalty: zero, with a zero gradient, when every quantile grows with tau") {
  // Predicted cumulative histograms that grow with τ in every bin: row t of a sample puts
  // more mass early as τ grows (the paper's Fig. 1: high τ rises early).
  const Tensor pred = Tensor::from({3, 3}, std::vector<float>{0.2f, 0.3f, 0.5f, 0.3f, 0.3f, 0.4f, 0.5f, 0.3f, 0.2f});
  Tape tape;
  Var leaf = make_leaf(pred);
  Var penalty = quantile_crossing_penalty(tape, leaf, sorted_tau(1, 3), 3);
  CHECK(penalty.value.item() == 0.0f);
  tape.backward(penalty);
  for (float g : leaf.grad.values()) CHECK(g == 0.0f);
}

TEST_CASE("quantile-crossing penalty agrees with the formula summed directly in double") {
  const int64_t samples = 5, levels = 4, bins = 6;
  const Tensor pred = random_predictions(samples * levels, bins, 41);
  double sum = 0.0;
  int crossings = 0;
  for (int64_t b = 0; b < samples; ++b)
    for (int64_t t = 0; t + 1 < levels; ++t)
      for (int64_t j = 0; j < bins; ++j) {
        double lower = 0.0, upper = 0.0;  // Q̃ at levels t and t + 1, bin j
        for (int64_t k = 0; k <= j; ++k) {
          lower += pred[(b * levels + t) * bins + k];
          upper += pred[(b * levels + t + 1) * bins + k];
        }
        if (lower > upper) ++crossings;
        sum += std::max(0.0, lower - upper);
      }
  REQUIRE(crossings > 10);  // the random predictions cross often: the comparison means something
  Tape tape;
  CHECK(quantile_crossing_penalty(tape, Var(pred), sorted_tau(samples, levels), levels).value.item() ==
        doctest::Approx(sum / (samples * (levels - 1) * bins)).epsilon(1e-5));
}

TEST_CASE("quantile-crossing penalty: gradcheck") {
  const int64_t samples = 3, levels = 3, bins = 4;
  const double step = 1e-3;
  const Tensor pred = random_predictions(samples * levels, bins, 42);
  // A step h in one q̃ moves each difference c by at most h: with every |c| > 2h, no finite
  // difference crosses the hinge's kink at c = 0.
  double closest = 1.0;
  for (int64_t r = 0; r < samples * levels; ++r) {
    if (r % levels == levels - 1) continue;
    double lower = 0.0, upper = 0.0;
    for (int64_t j = 0; j < bins; ++j) {
      lower += pred[r * bins + j];
      upper += pred[(r + 1) * bins + j];
      closest = std::min(closest, std::abs(lower - upper));
    }
  }
  REQUIRE(closest > 2 * step);
  const Tensor tau = sorted_tau(samples, levels);
  const auto r = gradcheck(
      [&](Tape& t, const std::vector<Var>& in) { return quantile_crossing_penalty(t, in[0], tau, levels); }, {pred},
      {.step = step});
  INFO(r.worst);
  CHECK(r.ok);
}

TEST_CASE("quantile-crossing penalty refuses bad input, naming the shapes and values") {
  Tape tape;
  const Tensor pred = random_predictions(6, 4, 43);
  CHECK_THROWS_WITH_AS(quantile_crossing_penalty(tape, Var(pred), sorted_tau(2, 3), 4),
                       doctest::Contains("predicted is [6,4] with levels = 4"), Error);
  CHECK_THROWS_WITH_AS(quantile_crossing_penalty(tape, Var(pred), sorted_tau(1, 3), 3),
                       doctest::Contains("tau is [3,1], predicted is [6,4]"), Error);
  CHECK_THROWS_WITH_AS(quantile_crossing_penalty(tape, Var(pred), sorted_tau(6, 1), 1), doctest::Contains("levels = 1"),
                       Error);
  Tensor unsorted = sorted_tau(2, 3);
  unsorted[4] = 0.05f;  // sample 1's second level below its first (0.1)
  CHECK_THROWS_WITH_AS(quantile_crossing_penalty(tape, Var(pred), unsorted, 3),
                       doctest::Contains("tau[4] = 0.05 is not above tau[3] = 0.1"), Error);
  Tensor nan = pred.clone();
  nan[9] = NAN;
  CHECK_THROWS_WITH_AS(quantile_crossing_penalty(tape, Var(nan), sorted_tau(2, 3), 3),
                       doctest::Contains("predicted[2,1] is nan"), Error);
}

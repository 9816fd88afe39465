// The EMPL: values by hand, gradchecks, and each property the paper states, as its own test.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "tests/losses/random_histograms.hpp"
#include "losses/earth_movers.hpp"
#include "losses/empl.hpp"
#include "losses/metrics.hpp"

using namespace empl;
using empl::testing::random_histograms;

namespace {

Tensor constant_tau(int64_t rows, float tau) { return Tensor::full({rows, 1}, tau); }

float empl_value(const Tensor& u, const Tensor& v, float tau, float alpha = 0.0f) {
  Tape tape;
  return empl_loss(tape, Var(u), v, constant_tau(u.shape()[0], tau), alpha).value.item();
}

}  // namespace

TEST_CASE("EMPL by hand: two bins, tau 0.25") {
  // pred [0.6 0.4] -> Q̃ = [0.6 1]; target [0.2 0.8] -> Q = [0.2 1]; δ = [0.4 0].
  // Terms: (1 − 0.25)·0.4 = 0.3 and (1 − 0.25)·0 = 0; mean over 2 bins = 0.15.
  const Tensor pred = Tensor::from({1, 2}, std::vector<float>{0.6f, 0.4f});
  const Tensor target = Tensor::from({1, 2}, std::vector<float>{0.2f, 0.8f});
  CHECK(empl_value(pred, target, 0.25f) == doctest::Approx(0.15f));
  // Swapped: δ = [−0.4 0]: (0 − 0.25)·(−0.4) = 0.1, and at δ = 0 the term is 0: mean 0.05.
  CHECK(empl_value(target, pred, 0.25f) == doctest::Approx(0.05f));
}

TEST_CASE("EMPL property: tau = 0.5 gives half of EM1") {
  const Tensor u = random_histograms(16, 7, 1), v = random_histograms(16, 7, 2);
  CHECK(empl_value(u, v, 0.5f) == doctest::Approx(0.5 * em1(u, v)).epsilon(1e-5));
}

TEST_CASE("EMPL property: L_tau(u, v) = L_{1-tau}(v, u)") {
  const Tensor u = random_histograms(16, 9, 3), v = random_histograms(16, 9, 4);
  for (float tau : {0.0f, 0.1f, 0.3f, 0.77f, 1.0f})
    CHECK(empl_value(u, v, tau) == doctest::Approx(empl_value(v, u, 1.0f - tau)).epsilon(1e-5));
}

TEST_CASE("EMPL property: eta_minus W1 <= L_tau <= eta_plus W1") {
  for (uint32_t seed = 0; seed < 20; ++seed) {
    // One sample per evaluation: the bounds hold per pair of histograms.
    const Tensor u = random_histograms(1, 6, 100 + seed), v = random_histograms(1, 6, 200 + seed);
    const double w1 = em1(u, v);  // (1/N) Σ |U − V|, the discrete W1 of the paper's eq. 9 scaling
    for (float tau = 0.0f; tau <= 1.0f; tau += 0.125f) {
      const double eta_minus = std::min(tau, 1.0f - tau), eta_plus = std::max(tau, 1.0f - tau);
      const double loss = empl_value(u, v, tau);
      CHECK(loss >= eta_minus * w1 - 1e-6);
      CHECK(loss <= eta_plus * w1 + 1e-6);
    }
  }
}

TEST_CASE("EMPL property: smoothed minus plain is independent of tau and vanishes as alpha -> 0") {
  const Tensor u = random_histograms(8, 5, 5), v = random_histograms(8, 5, 6);
  for (float alpha : {0.05f, 0.01f}) {
    const float reference = empl_value(u, v, 0.1f, alpha) - empl_value(u, v, 0.1f);
    for (float tau : {0.3f, 0.5f, 0.9f})
      CHECK(empl_value(u, v, tau, alpha) - empl_value(u, v, tau) == doctest::Approx(reference).epsilon(1e-3).scale(0));
  }
  // α·softplus(δ/α) − max(δ, 0) ≤ α·log 2, so the gap shrinks linearly with α.
  float previous = 1.0f;
  for (float alpha : {0.1f, 0.01f, 0.001f}) {
    const float gap = empl_value(u, v, 0.4f, alpha) - empl_value(u, v, 0.4f);
    CHECK(gap >= 0.0f);
    CHECK(gap <= alpha * std::log(2.0f) + 1e-6f);
    CHECK(gap < previous);
    previous = gap;
  }
}

TEST_CASE("EMPL property: the subgradient w.r.t. a predicted cumulative value is (1[delta>=0] - tau)/N per sample") {
  // With Q̃ = cumsum(q̃), ∂L/∂Q̃_j = (1[δ_j ≥ 0] − τ)/(B·N); so ∂L/∂q̃_k = Σ_{j≥k} of it, and
  // differences of neighbouring q̃ gradients recover each ∂L/∂Q̃_j.
  const int64_t rows = 3, bins = 6;
  const Tensor u = random_histograms(rows, bins, 7), v = random_histograms(rows, bins, 8);
  Tensor tau = Tensor::from({rows, 1}, std::vector<float>{0.2f, 0.5f, 0.9f});
  Tape tape;
  Var pred = make_leaf(u);
  tape.backward(empl_loss(tape, pred, v, tau));
  for (int64_t r = 0; r < rows; ++r) {
    float cu = 0, cv = 0;
    for (int64_t j = 0; j < bins; ++j) {
      cu += u[r * bins + j];
      cv += v[r * bins + j];
      const float expected = ((cu - cv >= 0 ? 1.0f : 0.0f) - tau[r]) / (rows * bins);
      const float next = j + 1 < bins ? pred.grad[r * bins + j + 1] : 0.0f;
      CHECK(pred.grad[r * bins + j] - next == doctest::Approx(expected).epsilon(1e-4));
    }
  }
}

TEST_CASE("EMPL and smoothed EMPL: gradchecks") {
  // Predictions scaled by 1.1: with both rows normalised the last bin has δ_N = 0 exactly, the
  // kink of the plain loss, where finite differences cannot agree with a subgradient.
  Tensor u = random_histograms(4, 5, 9);
  for (float& value : u.values()) value *= 1.1f;
  const Tensor v = random_histograms(4, 5, 10);
  const Tensor tau = Tensor::from({4, 1}, std::vector<float>{0.1f, 0.4f, 0.6f, 0.95f});
  for (float alpha : {0.0f, 0.05f}) {
    // Step smaller than every |δ|, so that no finite difference crosses the kink of the plain loss.
    const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return empl_loss(t, in[0], v, tau, alpha); },
                             {u}, {.step = 1e-3});
    INFO("alpha ", alpha, ": ", r.worst);
    CHECK(r.ok);
  }
}

TEST_CASE("smoothed EMPL is finite and right at alpha = 0.001 with |delta| = 1") {
  // pred all in bin 1, target all in bin 2: Q̃ = [1 1], Q = [0 1], δ = [1 0].
  const Tensor pred = Tensor::from({1, 2}, std::vector<float>{1.0f, 0.0f});
  const Tensor target = Tensor::from({1, 2}, std::vector<float>{0.0f, 1.0f});
  // Bin 1: −0.3·1 + 0.001·softplus(1000) = −0.3 + 1 = 0.7; bin 2: 0.001·log 2. Mean over 2 bins.
  const float expected = (0.7f + 0.001f * std::log(2.0f)) / 2.0f;
  CHECK(empl_value(pred, target, 0.3f, 0.001f) == doctest::Approx(expected).epsilon(1e-5));
  CHECK(empl_value(target, pred, 0.3f, 0.001f) == doctest::Approx((0.3f + 0.001f * std::log(2.0f)) / 2.0f).epsilon(1e-4));
}

TEST_CASE("EMPL refuses bad input, naming the argument and the value") {
  Tape tape;
  const Tensor u = random_histograms(2, 3, 11);
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(u), Tensor::zeros({2, 4}), constant_tau(2, 0.5f)),
                       doctest::Contains("[2,4]"), Error);
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(u), u, constant_tau(2, 1.5f)), doctest::Contains("1.5"), Error);
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(u), u, constant_tau(3, 0.5f)), doctest::Contains("tau is [3,1]"), Error);
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(u), u, constant_tau(2, 0.5f), -0.1f), doctest::Contains("-0.1"), Error);
  Tensor unnormalised = u.clone();
  unnormalised[0] += 0.5f;
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(u), unnormalised, constant_tau(2, 0.5f)), doctest::Contains("sums to"), Error);
  Tensor nan = u.clone();
  nan[4] = NAN;
  CHECK_THROWS_WITH_AS(empl_loss(tape, Var(nan), u, constant_tau(2, 0.5f)), doctest::Contains("nan"), Error);
}

TEST_CASE("pinball loss of a scalar by hand and by gradcheck") {
  // y = 1, ŷ = 3, τ = 0.1: δ = 2 ≥ 0, loss (1 − 0.1)·2 = 1.8; y = 1, ŷ = 0, τ = 0.1: 0.1·1 = 0.1.
  Tape tape;
  const Tensor pred = Tensor::from({2, 1}, std::vector<float>{3.0f, 0.0f});
  const Tensor target = Tensor::full({2, 1}, 1.0f);
  CHECK(pinball_loss(tape, Var(pred), target, constant_tau(2, 0.1f)).value.item() == doctest::Approx(0.95f));
  const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return pinball_loss(t, in[0], target, constant_tau(2, 0.3f)); },
                           {pred});
  CHECK(r.ok);
}

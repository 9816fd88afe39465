// training/quantiles: a network whose output is known in closed form, evaluated at a list of τ
// levels. The model is one 2 → 2 Linear without bias whose weights pick columns by hand, so each
// expected value below is a formula of the input and τ, not another forward pass.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "layers/activations.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "training/quantiles.hpp"

using namespace empl;

namespace {

// Linear 2 → 2 without bias, W [F_in, F_out] row-major: output k = Σ_i in_i · W[i, k].
Sequential two_by_two(const std::vector<float>& w, bool softmax) {
  Sequential model;
  model.add<Linear>(2, 2, LinearOptions{.bias = false});
  if (softmax) model.add<Softmax>();
  model.pack();
  for (int i = 0; i < 4; ++i) model.flat_values()[i] = w[static_cast<size_t>(i)];
  return model;
}

float feature(float tau) { return (tau - 0.5f) * 12.0f; }  // the paper's (τ − 0.5)·12, written out

}  // namespace

TEST_CASE("evaluate_quantiles: density head, tau last, rows in sample-major order") {
  // Input row (x, τf): logits (x, τf), so the cumulative histogram is (e^x / (e^x + e^τf), 1).
  Sequential model = two_by_two({1, 0, 0, 1}, true);
  const Tensor features = Tensor::from({2, 1}, std::vector<float>{0.3f, -0.7f});
  const std::vector<float> taus = {0.2f, 0.5f, 0.9f};
  const QuantilePrediction p = evaluate_quantiles(model, features, taus);
  REQUIRE(p.samples == 2);
  REQUIRE(p.levels == 3);
  REQUIRE(p.bins == 2);
  for (int s = 0; s < 2; ++s)
    for (int t = 0; t < 3; ++t) {
      const double x = features[s], f = feature(taus[static_cast<size_t>(t)]);
      CHECK(p.at(s, t, 0) == doctest::Approx(1.0 / (1.0 + std::exp(f - x))).epsilon(1e-6));
      CHECK(p.at(s, t, 1) == doctest::Approx(1.0).epsilon(1e-6));
    }
}

TEST_CASE("evaluate_quantiles: tau_column 0 puts tau first, and feed_tau false holds it at 0.5") {
  // Row (τf, x): logits (τf, x), so bin 1 of the cumulative is e^τf / (e^τf + e^x).
  Sequential model = two_by_two({1, 0, 0, 1}, true);
  const Tensor features = Tensor::from({1, 1}, std::vector<float>{0.4f});
  const std::vector<float> taus = {0.1f, 0.75f};
  const QuantilePrediction first = evaluate_quantiles(model, features, taus, {.tau_column = 0});
  const QuantilePrediction fixed = evaluate_quantiles(model, features, taus, {.tau_column = 0, .feed_tau = false});
  for (int t = 0; t < 2; ++t) {
    const double f = feature(taus[static_cast<size_t>(t)]);
    CHECK(first.at(0, t, 0) == doctest::Approx(1.0 / (1.0 + std::exp(0.4 - f))).epsilon(1e-6));
    CHECK(fixed.at(0, t, 0) == doctest::Approx(1.0 / (1.0 + std::exp(0.4))).epsilon(1e-6));  // τf = 0
  }
}

TEST_CASE("evaluate_quantiles: Gaussian head gives mu + sigma * Phi^-1(tau)") {
  // N = 1: outputs (logit, log-variance) = (τf, x); μ = cumsum(softmax(one logit)) = 1 and
  // σ = e^{x/2}. Φ⁻¹(0.975) = 1.959964, Φ⁻¹(0.5) = 0, Φ⁻¹(0.1) = −1.281552 (normal tables).
  Sequential model = two_by_two({0, 1, 1, 0}, false);
  const Tensor features = Tensor::from({1, 1}, std::vector<float>{0.6f});
  const std::vector<float> taus = {0.1f, 0.5f, 0.975f};
  const QuantilePrediction p = evaluate_quantiles(model, features, taus, {.head = QuantileHead::gaussian});
  REQUIRE(p.bins == 1);
  const double sigma = std::exp(0.3), z[] = {-1.2815516, 0.0, 1.9599640};
  for (int t = 0; t < 3; ++t) CHECK(p.at(0, t, 0) == doctest::Approx(1.0 + sigma * z[t]).epsilon(1e-6));
}

TEST_CASE("evaluate_quantiles: bad levels, columns and shapes are refused with their values") {
  Sequential model = two_by_two({1, 0, 0, 1}, true);
  const Tensor features = Tensor::from({1, 1}, std::vector<float>{0.0f});
  const std::vector<float> outside = {1.5f}, zero = {0.0f}, none = {};
  CHECK_THROWS_WITH_AS(evaluate_quantiles(model, features, outside), doctest::Contains("tau 1.5"), Error);
  CHECK_THROWS_WITH_AS(evaluate_quantiles(model, features, zero, {.head = QuantileHead::gaussian}),
                       doctest::Contains("(0, 1)"), Error);
  CHECK_THROWS_WITH_AS(evaluate_quantiles(model, features, none), doctest::Contains("no tau"), Error);
  CHECK_THROWS_WITH_AS(evaluate_quantiles(model, features, zero, {.tau_column = 2}), doctest::Contains("tau_column 2"), Error);
  CHECK_THROWS_WITH_AS(evaluate_quantiles(model, Tensor::from({2}, std::vector<float>{0, 0}), zero),
                       doctest::Contains("[S, F]"), Error);
}

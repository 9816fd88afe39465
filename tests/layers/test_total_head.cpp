// layers/total_head (SoftmaxWithTotal) and evaluate_quantiles' density_with_total head: values by
// hand, a gradcheck, a shape error, and a network whose outputs are formulas of its input and τ.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "layers/total_head.hpp"
#include "training/quantiles.hpp"

using namespace empl;

TEST_CASE("SoftmaxWithTotal: a softmax over the first N columns, the last passed through; gradcheck; shape error") {
  SoftmaxWithTotal head;
  Tape tape;
  const Var out = head.forward(tape, Var(Tensor::from({1, 3}, std::vector<float>{0.0f, std::log(3.0f), -2.5f})));
  REQUIRE(out.shape() == Shape{1, 3});
  CHECK(out.value[0] == doctest::Approx(0.25f));  // e^0 / (e^0 + 3)
  CHECK(out.value[1] == doctest::Approx(0.75f));
  CHECK(out.value[2] == -2.5f);
  const Tensor x = Tensor::from({2, 4}, std::vector<float>{0.3f, -1.2f, 0.8f, 1.5f, -0.4f, 0.1f, 2.0f, -0.7f});
  const GradcheckResult check = gradcheck([&](Tape& t, const std::vector<Var>& in) { return head.forward(t, in[0]); }, {x});
  INFO(check.worst);
  CHECK(check.ok);
  CHECK_THROWS_AS(head.forward(tape, Var(Tensor::zeros({2, 1}))), Error);
}

TEST_CASE("evaluate_quantiles: density_with_total gives the cumulative density and the raw last column per sample and level") {
  // Linear 2 → 3 without bias on the row (x, τf): logits (x, τf) and total x + τf.
  Sequential model;
  model.add<Linear>(2, 3, LinearOptions{.bias = false});
  model.add<SoftmaxWithTotal>();
  model.pack();
  const float w[] = {1, 0, 1, 0, 1, 1};  // W [F_in, F_out] row-major
  for (int i = 0; i < 6; ++i) model.flat_values()[i] = w[i];
  const Tensor features = Tensor::from({2, 1}, std::vector<float>{0.3f, -0.7f});
  const std::vector<float> taus = {0.2f, 0.9f};
  const QuantilePrediction p = evaluate_quantiles(model, features, taus, {.head = QuantileHead::density_with_total});
  REQUIRE(p.bins == 2);
  REQUIRE(p.totals.size() == 4);
  for (int s = 0; s < 2; ++s)
    for (int t = 0; t < 2; ++t) {
      const double x = features[s], tf = (taus[static_cast<size_t>(t)] - 0.5) * 12.0;
      CHECK(p.at(s, t, 0) == doctest::Approx(std::exp(x) / (std::exp(x) + std::exp(tf))).epsilon(1e-6));
      CHECK(p.at(s, t, 1) == doctest::Approx(1.0).epsilon(1e-6));
      CHECK(p.totals[static_cast<size_t>(s * 2 + t)] == doctest::Approx(x + tf).epsilon(1e-6));
    }
}

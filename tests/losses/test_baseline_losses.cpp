// EM1, EM2, MAE, MSE, cross-entropy, the Gaussian NLL and the metrics: values by hand,
// gradchecks, errors.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "losses/cross_entropy.hpp"
#include "losses/earth_movers.hpp"
#include "losses/gaussian_nll.hpp"
#include "losses/metrics.hpp"
#include "losses/regression.hpp"

using namespace empl;

namespace {
Tensor values(Shape shape, std::vector<float> v) { return Tensor::from(shape, v); }
// pred [0.5 0.3 0.2] (Q̃ = [0.5 0.8 1]) and target [0.2 0.2 0.6] (Q = [0.2 0.4 1]).
const Tensor kPred = values({1, 3}, {0.5f, 0.3f, 0.2f});
const Tensor kTarget = values({1, 3}, {0.2f, 0.2f, 0.6f});
}  // namespace

TEST_CASE("EM1, EM2, MAE, MSE by hand") {
  Tape tape;
  // ΔQ = [0.3 0.4 0]: EM1 = 0.7/3; EM2 = sqrt(0.25/3). Δq = [0.3 0.1 −0.4]: MAE 0.8/3, MSE 0.26/3.
  CHECK(em1_loss(tape, Var(kPred), kTarget).value.item() == doctest::Approx(0.7f / 3));
  CHECK(em2_loss(tape, Var(kPred), kTarget).value.item() == doctest::Approx(std::sqrt(0.25f / 3)));
  CHECK(mae_loss(tape, Var(kPred), kTarget).value.item() == doctest::Approx(0.8f / 3));
  CHECK(mse_loss(tape, Var(kPred), kTarget).value.item() == doctest::Approx(0.26f / 3));
  CHECK(em1(kPred, kTarget) == doctest::Approx(0.7 / 3));
  CHECK(em2(kPred, kTarget) == doctest::Approx(std::sqrt(0.25 / 3)));
  CHECK(mae(kPred, kTarget) == doctest::Approx(0.8 / 3));
  CHECK(mse(kPred, kTarget) == doctest::Approx(0.26 / 3));
  CHECK(histogram_intersection(kPred, kTarget) == doctest::Approx(0.2 + 0.2 + 0.2));
}

TEST_CASE("baseline losses: gradchecks") {
  const Tensor pred = values({2, 4}, {0.1f, 0.4f, 0.3f, 0.2f, 0.25f, 0.05f, 0.6f, 0.1f});
  const Tensor target = values({2, 4}, {0.3f, 0.1f, 0.2f, 0.4f, 0.1f, 0.3f, 0.3f, 0.3f});
  using Fn = Var (*)(Tape&, const Var&, const Tensor&);
  for (Fn loss : {em1_loss, em2_loss, mae_loss, mse_loss, cross_entropy, cross_entropy_with_logits}) {
    const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return loss(t, in[0], target); }, {pred},
                             {.step = 1e-3});
    INFO(r.worst);
    CHECK(r.ok);
  }
}

TEST_CASE("cross-entropy by hand, with probabilities and with logits") {
  Tape tape;
  // −(0.2 ln 0.5 + 0.2 ln 0.3 + 0.6 ln 0.2) = 0.1386294 + 0.2407946 + 0.9656627 = 1.3450874
  CHECK(cross_entropy(tape, Var(kPred), kTarget).value.item() == doctest::Approx(1.3450874f));
  // Logits ln(pred) give softmax = pred, so the same value.
  const Tensor logits = values({1, 3}, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  CHECK(cross_entropy_with_logits(tape, Var(logits), kTarget).value.item() == doctest::Approx(1.3450874f));
  // Large logits stay finite.
  const Tensor large = values({1, 3}, {1e4f, -1e4f, 0.0f});
  CHECK(std::isfinite(cross_entropy_with_logits(tape, Var(large), kTarget).value.item()));
}

TEST_CASE("Gaussian NLL by hand, its gradcheck and its clipping") {
  // Logits 0 0 -> μ = [0.5 1]; log-variances 0 and ln 4 -> σ² = 1, 4. Target [1 0] -> M = [1 1].
  // L = ½[(0 + 0.25/1) + (ln 4 + 0/4)]/2 = (0.25 + 1.3862944)/4 = 0.4090736
  Tape tape;
  const Tensor output = values({1, 4}, {0.0f, 0.0f, 0.0f, std::log(4.0f)});
  const Tensor target = values({1, 2}, {1.0f, 0.0f});
  CHECK(gaussian_nll_loss(tape, Var(output), target).value.item() == doctest::Approx(0.4090736f));
  const Tensor out2 = values({2, 6}, {0.3f, -0.2f, 0.5f, 0.1f, -0.4f, 0.2f, -0.1f, 0.6f, 0.2f, 0.3f, 0.5f, -0.2f});
  const Tensor target2 = values({2, 3}, {0.2f, 0.5f, 0.3f, 0.6f, 0.1f, 0.3f});
  const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return gaussian_nll_loss(t, in[0], target2); },
                           {out2}, {.step = 1e-3});
  INFO(r.worst);
  CHECK(r.ok);
  // A log-variance below −15 is clipped: no gradient reaches it.
  Var clipped = make_leaf(values({1, 4}, {0.0f, 0.0f, -20.0f, 0.0f}));
  tape.backward(gaussian_nll_loss(tape, clipped, target));
  CHECK(clipped.grad[2] == 0.0f);
  CHECK(clipped.grad[3] != 0.0f);
  CHECK_THROWS_WITH_AS(gaussian_nll_loss(tape, Var(output), values({1, 3}, {1, 0, 0})), doctest::Contains("[1,4]"), Error);
}

TEST_CASE("normal quantile and the Gaussian mean/std helper") {
  CHECK(normal_quantile(0.5) == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-10));
  CHECK(normal_quantile(0.1) == doctest::Approx(-1.2815515655446004).epsilon(1e-10));
  CHECK(normal_quantile(1e-10) == doctest::Approx(-6.361340902404056).epsilon(1e-9));
  CHECK_THROWS_AS(normal_quantile(1.0), Error);
  Tensor mean = Tensor::empty({1, 2}), std = Tensor::empty({1, 2});
  gaussian_mean_and_std(values({1, 4}, {0.0f, 0.0f, 0.0f, std::log(4.0f)}), mean, std);
  CHECK(mean[0] == doctest::Approx(0.5f));
  CHECK(mean[1] == doctest::Approx(1.0f));
  CHECK(std[1] == doctest::Approx(2.0f));
}

TEST_CASE("coverage and quantile crossings") {
  const Tensor lower = values({1, 4}, {0.0f, 0.2f, 0.5f, 0.9f});
  const Tensor upper = values({1, 4}, {0.1f, 0.4f, 0.6f, 1.0f});
  const Tensor truth = values({1, 4}, {0.05f, 0.5f, 0.55f, 1.0f});
  CHECK(coverage(lower, upper, truth) == doctest::Approx(0.75));  // 3 of 4 inside
  CHECK(coverage(lower, upper, truth, 1e-5, 1 - 1e-5) == doctest::Approx(2.0 / 3));  // truth 1.0 skipped
  const std::vector<Tensor> levels = {values({1, 2}, {0.1f, 0.5f}), values({1, 2}, {0.2f, 0.4f}), values({1, 2}, {0.3f, 0.6f})};
  CHECK(quantile_crossings(levels) == 1);
  CHECK(quantile_crossings(levels, 0.2f) == 0);
}

TEST_CASE("baseline losses refuse bad input") {
  Tape tape;
  CHECK_THROWS_WITH_AS(em1_loss(tape, Var(kPred), Tensor::zeros({1, 2})), doctest::Contains("[1,2]"), Error);
  CHECK_THROWS_AS(cross_entropy(tape, Var(values({1, 3}, {-0.1f, 0.6f, 0.5f})), kTarget), Error);
  CHECK_THROWS_AS(mse_loss(tape, Var(values({1, 3}, {NAN, 0, 0})), kTarget), Error);
}

TEST_CASE("losses refuse zero bins and an empty batch, which have no mean (was a division by zero, SIGFPE)") {
  Tape tape;
  using Fn = Var (*)(Tape&, const Var&, const Tensor&);
  for (Fn loss : {mae_loss, mse_loss, em1_loss, em2_loss}) {
    for (const Shape& shape : {Shape{4, 0}, Shape{0, 3}}) {
      CAPTURE(shape);
      CHECK_THROWS_WITH_AS(loss(tape, Var(Tensor::zeros(shape)), Tensor::zeros(shape)), doctest::Contains("empty"), Error);
    }
  }
}

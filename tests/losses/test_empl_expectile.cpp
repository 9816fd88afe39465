// The expectile EMPL (the paper's L2 variant): values and gradients by hand, the τ-expectile as
// the point where the batch gradient vanishes, its symmetries, a gradcheck and its refusals.
#include <doctest/doctest.h>

#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "losses/empl_expectile.hpp"
#include "losses/metrics.hpp"
#include "random_histograms.hpp"

using namespace empl;
using empl::testing::random_histograms;

namespace {

Tensor row(std::vector<float> values) { return Tensor::from({1, static_cast<int64_t>(values.size())}, values); }

float expectile_value(const Tensor& predicted, const Tensor& target, float tau) {
  Tape tape;
  return expectile_loss(tape, Var(predicted), target, Tensor::full({predicted.shape()[0], 1}, tau)).value.item();
}

}  // namespace

TEST_CASE("expectile EMPL by hand: three bins, tau 0.25, both sides of the truth") {
  // q̃ = [0.5 0.25 0.25] → Q̃ = [0.5 0.75 1]; q = [0.25 0.25 0.5] → Q = [0.25 0.5 1]; δ = [0.25 0.25 0].
  // Prediction above the truth (u = −δ < 0): weight 1 − τ = 0.75; terms 0.75·0.0625 = 0.046875,
  // twice, and 0: mean over 3 bins 0.09375/3 = 0.03125.
  const Tensor pred = row({0.5f, 0.25f, 0.25f}), target = row({0.25f, 0.25f, 0.5f});
  CHECK(expectile_value(pred, target, 0.25f) == doctest::Approx(0.03125).epsilon(1e-6));
  // Swapped, δ = [−0.25 −0.25 0]: weight τ = 0.25; terms 0.015625 twice: 0.03125/3.
  CHECK(expectile_value(target, pred, 0.25f) == doctest::Approx(0.03125 / 3).epsilon(1e-6));

  // ∂L/∂Q̃_j = 2·0.75·δ_j/3 = [0.125 0.125 0]; ∂L/∂q̃ is its reverse cumulative sum [0.25 0.125 0].
  Tape tape;
  Var leaf = make_leaf(pred);
  tape.backward(expectile_loss(tape, leaf, target, Tensor::full({1, 1}, 0.25f)));
  CHECK(leaf.grad[0] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(leaf.grad[1] == doctest::Approx(0.125).epsilon(1e-6));
  CHECK(leaf.grad[2] == 0.0f);
}

TEST_CASE("expectile EMPL: the batch gradient vanishes at the tau-expectile, not at the tau-quantile") {
  // Two bins; three targets put everything in bin 1 (Q_1 = 1), one in bin 2 (Q_1 = 0): Q_1 is 1
  // with p = 0.75. The τ-expectile e solves τ·p·(1 − e) = (1 − τ)·(1 − p)·e; at τ = 0.25,
  // e = 0.1875/(0.1875 + 0.1875) = 0.5 (the 0.25-quantile of Q_1 is 0).
  const Tensor target = Tensor::from({4, 2}, std::vector<float>{1, 0, 1, 0, 1, 0, 0, 1});
  const Tensor tau = Tensor::full({4, 1}, 0.25f);
  const auto summed_gradient = [&](float e) {  // Σ_b ∂L/∂q̃_b1 with every row predicting Q̃_1 = e
    Tape tape;
    Var leaf = make_leaf(Tensor::from({4, 2}, std::vector<float>{e, 1 - e, e, 1 - e, e, 1 - e, e, 1 - e}));
    tape.backward(expectile_loss(tape, leaf, target, tau));
    double sum = 0.0;
    for (int b = 0; b < 4; ++b) sum += leaf.grad[b * 2];
    return sum;
  };
  // Rows with Q_1 = 1: 2·0.25·(−0.5)/8 each, three of them; the row with Q_1 = 0: 2·0.75·0.5/8.
  CHECK(summed_gradient(0.5f) == 0.0);
  CHECK(summed_gradient(0.6f) > 0.0);  // above the expectile the loss rises
  CHECK(summed_gradient(0.4f) < 0.0);
}

TEST_CASE("expectile EMPL property: tau = 0.5 gives half the mean squared cumulative difference (EM2^2 / 2)") {
  const Tensor u = random_histograms(16, 7, 21), v = random_histograms(16, 7, 22);
  const double em2_value = em2(u, v);
  CHECK(expectile_value(u, v, 0.5f) == doctest::Approx(0.5 * em2_value * em2_value).epsilon(1e-5));
}

TEST_CASE("expectile EMPL property: L_tau(u, v) = L_{1-tau}(v, u)") {
  const Tensor u = random_histograms(16, 9, 23), v = random_histograms(16, 9, 24);
  for (float tau : {0.0f, 0.1f, 0.3f, 0.77f, 1.0f})
    CHECK(expectile_value(u, v, tau) == doctest::Approx(expectile_value(v, u, 1.0f - tau)).epsilon(1e-5));
}

TEST_CASE("expectile EMPL: gradcheck") {
  // Predictions scaled by 1.1 so that no δ sits at 0, where the second derivative jumps (τ on
  // one side, 1 − τ on the other) and a central difference is off by (1 − 2τ)·h/2.
  Tensor u = random_histograms(4, 5, 25);
  for (float& value : u.values()) value *= 1.1f;
  const Tensor v = random_histograms(4, 5, 26);
  const Tensor tau = Tensor::from({4, 1}, std::vector<float>{0.1f, 0.4f, 0.6f, 0.95f});
  const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return expectile_loss(t, in[0], v, tau); },
                           {u}, {.step = 1e-3});
  INFO(r.worst);
  CHECK(r.ok);
}

TEST_CASE("expectile EMPL refuses bad input, naming both shapes or the value") {
  Tape tape;
  const Tensor u = random_histograms(2, 3, 27);
  const Tensor tau = Tensor::full({2, 1}, 0.5f);
  CHECK_THROWS_WITH_AS(expectile_loss(tape, Var(u), Tensor::zeros({2, 4}), tau),
                       doctest::Contains("predicted is [2,3], target is [2,4]"), Error);
  CHECK_THROWS_WITH_AS(expectile_loss(tape, Var(u), u, Tensor::full({3, 1}, 0.5f)), doctest::Contains("tau is [3,1]"),
                       Error);
  CHECK_THROWS_WITH_AS(expectile_loss(tape, Var(u), u, Tensor::full({2, 1}, -0.25f)), doctest::Contains("-0.25"), Error);
  Tensor unnormalised = u.clone();
  unnormalised[0] += 0.5f;
  CHECK_THROWS_WITH_AS(expectile_loss(tape, Var(u), unnormalised, tau), doctest::Contains("sums to"), Error);
}

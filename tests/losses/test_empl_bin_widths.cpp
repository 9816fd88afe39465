// The width-weighted EMPL (a ground distance for unequal bins): the EMPL's bits at equal widths,
// unequal widths by hand, independence of the edges' units, gradchecks and refusals.
#include <doctest/doctest.h>

#include <vector>

#include "autograd/gradcheck.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "losses/empl.hpp"
#include "losses/empl_bin_widths.hpp"
#include "random_histograms.hpp"

using namespace empl;
using empl::testing::random_histograms;
using empl::testing::random_tau;
using empl::testing::same_bits;

namespace {

Tensor edges(std::vector<float> values) { return Tensor::from({static_cast<int64_t>(values.size())}, values); }

// Edges first, first + width, … for `bins` bins of one width.
Tensor equal_edges(int64_t bins, float first, float width) {
  Tensor e = Tensor::empty({bins + 1});
  for (int64_t j = 0; j <= bins; ++j) e[j] = first + width * static_cast<float>(j);
  return e;
}

struct LossAndGradient {
  Tensor loss, gradient;
};

// The loss and ∂L/∂q̃ of `f` on a fresh tape.
template <typename F>
LossAndGradient run(const Tensor& predicted, F f) {
  Tape tape;
  Var leaf = make_leaf(predicted);
  Var loss = f(tape, leaf);
  tape.backward(loss);
  return {loss.value.clone(), leaf.grad.clone()};
}

}  // namespace

TEST_CASE("EMPL with bin widths: equal widths of 1 (and of 0.25, and shifted) give the EMPL's bits, loss and gradient") {
  // Widths 1: w_j·ρ = ρ and B·W = B·N, so every operation is the EMPL's. Widths 0.25 scale every
  // intermediate by a power of 2, which rounding commutes with. Both, for the plain and the
  // smoothed loss, on 1 and 2 threads and at a batch large enough to be split into chunks.
  const int threads_before = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (auto [rows, bins] : {std::pair<int64_t, int64_t>{3, 5}, {4096, 18}}) {
      const Tensor u = random_histograms(rows, bins, 31), v = random_histograms(rows, bins, 32);
      const Tensor tau = random_tau(rows, 33);
      for (float alpha : {0.0f, 0.01f}) {
        const LossAndGradient reference =
            run(u, [&](Tape& t, const Var& p) { return empl_loss(t, p, v, tau, alpha); });
        for (const Tensor& e : {equal_edges(bins, 0.0f, 1.0f), equal_edges(bins, 10.0f, 1.0f),
                                equal_edges(bins, -2.0f, 0.25f)}) {
          const LossAndGradient weighted =
              run(u, [&](Tape& t, const Var& p) { return empl_bin_widths_loss(t, p, v, tau, e, alpha); });
          INFO("threads ", threads, ", [", rows, ",", bins, "], alpha ", alpha, ", first edge ", e[0], ", width ",
               e[1] - e[0]);
          CHECK(same_bits(weighted.loss, reference.loss));
          CHECK(same_bits(weighted.gradient, reference.gradient));
        }
      }
    }
  }
  set_num_threads(threads_before);
}

TEST_CASE("EMPL with bin widths by hand: widths 1, 2, 3 change the value and the gradient") {
  // q̃ = [0.5 0.25 0.25] → Q̃ = [0.5 0.75 1]; q = [0.25 0.25 0.5] → Q = [0.25 0.5 1]; δ = [0.25 0.25 0].
  // τ = 0.25: ρ = 0.75·0.25 = 0.1875 in bins 1 and 2, 0 in bin 3.
  const Tensor pred = Tensor::from({1, 3}, std::vector<float>{0.5f, 0.25f, 0.25f});
  const Tensor target = Tensor::from({1, 3}, std::vector<float>{0.25f, 0.25f, 0.5f});
  const Tensor tau = Tensor::full({1, 1}, 0.25f);
  const auto value = [&](const Tensor& e) {
    Tape tape;
    return empl_bin_widths_loss(tape, Var(pred), target, tau, e).value.item();
  };
  // Equal widths: the EMPL, (0.1875 + 0.1875)/3 = 0.125.
  CHECK(value(edges({0, 1, 2, 3})) == doctest::Approx(0.125).epsilon(1e-6));
  // Edges 0, 1, 3, 6 (widths 1, 2, 3, W = 6): (1·0.1875 + 2·0.1875 + 3·0)/6 = 0.09375.
  CHECK(value(edges({0, 1, 3, 6})) == doctest::Approx(0.09375).epsilon(1e-6));
  // Widths 3, 2, 1: the differing bins now weigh more, (3 + 2)·0.1875/6 = 0.15625.
  CHECK(value(edges({0, 3, 5, 6})) == doctest::Approx(0.15625).epsilon(1e-6));
  // Prediction below instead (swapped): ρ = 0.25·0.25 = 0.0625; widths 1, 2, 3: 3·0.0625/6.
  {
    Tape tape;
    CHECK(empl_bin_widths_loss(tape, Var(target), pred, tau, edges({0, 1, 3, 6})).value.item() ==
          doctest::Approx(0.03125).epsilon(1e-6));
  }
  // Gradient, widths 1, 2, 3: ∂L/∂Q̃_j = w_j·(1 − τ)/6 = [0.125 0.25 0.375] (at δ_3 = 0 the
  // subgradient 1 − τ, as the EMPL takes it); ∂L/∂q̃ is its reverse cumsum [0.75 0.625 0.375].
  Tape tape;
  Var leaf = make_leaf(pred);
  tape.backward(empl_bin_widths_loss(tape, leaf, target, tau, edges({0, 1, 3, 6})));
  CHECK(leaf.grad[0] == doctest::Approx(0.75).epsilon(1e-6));
  CHECK(leaf.grad[1] == doctest::Approx(0.625).epsilon(1e-6));
  CHECK(leaf.grad[2] == doctest::Approx(0.375).epsilon(1e-6));
}

TEST_CASE("EMPL with bin widths: only the ratios of the widths matter (units and offset of the edges)") {
  // Log-spaced edges 1, 2, 4, 8, 16, 32 against the same edges in other units (×10) and shifted
  // (−1000): every w_j/W is the same, so the loss is, up to float rounding of the edges.
  const Tensor u = random_histograms(8, 5, 34), v = random_histograms(8, 5, 35);
  const Tensor tau = random_tau(8, 36);
  Tape tape;
  const float reference = empl_bin_widths_loss(tape, Var(u), v, tau, edges({1, 2, 4, 8, 16, 32})).value.item();
  CHECK(empl_bin_widths_loss(tape, Var(u), v, tau, edges({10, 20, 40, 80, 160, 320})).value.item() ==
        doctest::Approx(reference).epsilon(1e-6));
  CHECK(empl_bin_widths_loss(tape, Var(u), v, tau, edges({-999, -998, -996, -992, -984, -968})).value.item() ==
        doctest::Approx(reference).epsilon(1e-6));
}

TEST_CASE("EMPL with bin widths: gradchecks, plain and smoothed") {
  // As for the EMPL: predictions scaled by 1.1 keep δ_N away from the kink at 0.
  Tensor u = random_histograms(4, 5, 37);
  for (float& value : u.values()) value *= 1.1f;
  const Tensor v = random_histograms(4, 5, 38);
  const Tensor tau = Tensor::from({4, 1}, std::vector<float>{0.1f, 0.4f, 0.6f, 0.95f});
  const Tensor e = edges({0.0f, 0.5f, 2.0f, 2.25f, 6.0f, 7.0f});
  for (float alpha : {0.0f, 0.05f}) {
    const auto r = gradcheck(
        [&](Tape& t, const std::vector<Var>& in) { return empl_bin_widths_loss(t, in[0], v, tau, e, alpha); }, {u},
        {.step = 1e-3});
    INFO("alpha ", alpha, ": ", r.worst);
    CHECK(r.ok);
  }
}

TEST_CASE("EMPL with bin widths refuses bad edges and shapes, naming both shapes or the values") {
  Tape tape;
  const Tensor u = random_histograms(2, 5, 39);
  const Tensor tau = Tensor::full({2, 1}, 0.5f);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, edges({0, 1, 2, 3})),
                       doctest::Contains("bin_edges is [4], predicted is [2,5]"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, Tensor::zeros({2, 6})),
                       doctest::Contains("bin_edges is [2,6]"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, edges({0, 1, 3, 2, 4, 5})),
                       doctest::Contains("bin_edges[2] = 3 and bin_edges[3] = 2"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, edges({0, 1, 1, 2, 4, 5})),
                       doctest::Contains("bin_edges[1] = 1 and bin_edges[2] = 1"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, edges({0, 1, NAN, 3, 4, 5})),
                       doctest::Contains("nan"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), Tensor::zeros({2, 4}), tau, edges({0, 1, 2, 3, 4, 5})),
                       doctest::Contains("predicted is [2,5], target is [2,4]"), Error);
  CHECK_THROWS_WITH_AS(empl_bin_widths_loss(tape, Var(u), u, tau, edges({0, 1, 2, 3, 4, 5}), -1.0f),
                       doctest::Contains("alpha = -1"), Error);
}

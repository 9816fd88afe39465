// Quantile recovery (paper, Proposition 1): minimising the pinball loss or the EMPL over draws of
// a known distribution lands on its τ-quantiles. Errors are printed (MESSAGE) for the notes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/rowwise.hpp"
#include "core/random.hpp"
#include "layers/activations.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "losses/empl.hpp"
#include "optim/adam.hpp"

using namespace empl;

namespace {

// A histogram of 4 bins from normalised exponentials (a flat Dirichlet): a continuous law.
void dirichlet_row(Rng& rng, float* row) {
  float total = 0;
  for (int j = 0; j < 4; ++j) total += row[j] = static_cast<float>(-std::log(1.0 - rng.uniform_double()));
  for (int j = 0; j < 4; ++j) row[j] /= total;
}

}  // namespace

TEST_CASE("quantile recovery: a constant fitted by Adam with the pinball loss is the tau-quantile") {
  // Draws from Exp(1): Q(τ) = −ln(1 − τ).
  for (const float tau : {0.1f, 0.5f, 0.9f}) {
    Sequential constant;  // output = w·1: one free number
    constant.add<Linear>(1, 1, LinearOptions{.bias = false, .seed = 1});
    constant.pack();
    Adam adam(constant.flat_values(), constant.flat_gradients());
    Tape tape;
    const Tensor ones = Tensor::full({512, 1}, 1.0f), taus = Tensor::full({512, 1}, tau);
    Tensor draws = Tensor::empty({512, 1});
    for (int step = 0; step < 3000; ++step) {
      Rng rng(2, static_cast<uint64_t>(step));
      for (int i = 0; i < 512; ++i) draws[i] = static_cast<float>(-std::log(1.0 - rng.uniform_double()));
      const Var loss = pinball_loss(tape, constant.forward(tape, Var(ones)), draws, taus);
      constant.zero_grad();
      tape.backward(loss);
      adam.step(step < 2000 ? 0.02f : 0.002f);
      tape.clear();
    }
    const double error = std::abs(constant.flat_values()[0] - (-std::log(1.0 - tau)));
    MESSAGE("pinball, tau ", tau, ": |fitted - quantile| = ", error);
    CHECK(error < 0.03);
  }
}

TEST_CASE("quantile recovery: a constant histogram fitted with the EMPL has the bin-wise quantiles of the cumulative sums") {
  const float tau = 0.3f;
  // Reference: empirical τ-quantiles of the cumulative sums over 100,000 draws.
  std::vector<std::vector<float>> cumulative(3);
  Rng reference(9);
  for (int s = 0; s < 100000; ++s) {
    float row[4];
    dirichlet_row(reference, row);
    float running = 0;
    for (int j = 0; j < 3; ++j) cumulative[j].push_back(running += row[j]);
  }
  Sequential logits;  // softmax of free logits: one histogram for every input
  logits.add<Linear>(1, 4, LinearOptions{.bias = false, .seed = 1});
  logits.add<Softmax>();
  logits.pack();
  Adam adam(logits.flat_values(), logits.flat_gradients());
  Tape tape;
  const Tensor ones = Tensor::full({512, 1}, 1.0f), taus = Tensor::full({512, 1}, tau);
  Tensor labels = Tensor::empty({512, 4});
  for (int step = 0; step < 3000; ++step) {
    for (int i = 0; i < 512; ++i) {
      Rng rng(3, static_cast<uint64_t>(step), static_cast<uint64_t>(i));
      dirichlet_row(rng, labels.data() + i * 4);
    }
    const Var loss = empl_loss(tape, logits.forward(tape, Var(ones)), labels, taus);
    logits.zero_grad();
    tape.backward(loss);
    adam.step(step < 2000 ? 0.02f : 0.002f);
    tape.clear();
  }
  Tape eval;
  const Tensor fitted = cumsum(eval, logits.forward(eval, Var(Tensor::full({1, 1}, 1.0f)))).value;
  for (int j = 0; j < 3; ++j) {
    std::sort(cumulative[j].begin(), cumulative[j].end());
    const float quantile = cumulative[j][static_cast<size_t>(tau * cumulative[j].size())];
    MESSAGE("EMPL, bin ", j + 1, ": fitted ", fitted[j], ", quantile ", quantile);
    CHECK(std::abs(fitted[j] - quantile) < 0.02f);
  }
}

TEST_CASE("quantile recovery: an MLP with the EMPL and tau as input learns a conditional quantile") {
  // Two bins, m_1 ~ U(0, s) for an input s: M_1's τ-quantile is τ·s.
  Sequential mlp;
  mlp.add<Linear>(2, 32, LinearOptions{.seed = 4, .stream = 1});
  mlp.add<ReLU>();
  mlp.add<Linear>(32, 32, LinearOptions{.seed = 4, .stream = 2});
  mlp.add<ReLU>();
  mlp.add<Linear>(32, 2, LinearOptions{.seed = 4, .stream = 3});
  mlp.add<Softmax>();
  mlp.pack();
  Adam adam(mlp.flat_values(), mlp.flat_gradients());
  Tape tape;
  Tensor inputs = Tensor::empty({512, 2}), labels = Tensor::empty({512, 2}), taus = Tensor::empty({512, 1});
  for (int step = 0; step < 4000; ++step) {
    for (int i = 0; i < 512; ++i) {
      Rng rng(5, static_cast<uint64_t>(step), static_cast<uint64_t>(i));
      const float s = rng.uniform(), t = rng.uniform(), m1 = s * rng.uniform();
      inputs[i * 2] = (t - 0.5f) * 12.0f;
      inputs[i * 2 + 1] = (s - 0.5f) * 12.0f;
      labels[i * 2] = m1;
      labels[i * 2 + 1] = 1.0f - m1;
      taus[i] = t;
    }
    const Var loss = empl_loss(tape, mlp.forward(tape, Var(inputs)), labels, taus);
    mlp.zero_grad();
    tape.backward(loss);
    adam.step(step < 3000 ? 3e-3f : 3e-4f);
    tape.clear();
  }
  double worst = 0;
  Tape eval;
  for (const float s : {0.3f, 0.8f})
    for (const float t : {0.2f, 0.5f, 0.8f}) {
      const Tensor x = Tensor::from({1, 2}, std::vector<float>{(t - 0.5f) * 12.0f, (s - 0.5f) * 12.0f});
      worst = std::max(worst, std::abs(double(mlp.forward(eval, Var(x)).value[0]) - t * s));
    }
  MESSAGE("conditional quantile tau*s: worst error ", worst);
  CHECK(worst < 0.03);
}

// Optimizers and schedules against values worked out by hand, and a small MLP that learns.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/elementwise.hpp"
#include "autograd/reduce.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "layers/activations.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "losses/regression.hpp"
#include "optim/adam.hpp"
#include "optim/schedule.hpp"
#include "optim/sgd.hpp"

using namespace empl;

namespace {

// A model with one parameter θ (a 1x1 Linear without bias), loss = θ·x for a chosen x, so the
// gradient is exactly x.
struct OneParameter {
  Sequential model;
  explicit OneParameter(float theta) {
    model.add<Linear>(1, 1, LinearOptions{.bias = false});
    model.pack();
    model.flat_values()[0] = theta;
  }
  void set_gradient(float g) { model.flat_gradients()[0] = g; }
  float theta() { return model.flat_values()[0]; }
};

}  // namespace

TEST_CASE("Adam: two steps by hand") {
  OneParameter p(1.0f);
  Adam adam(p.model.flat_values(), p.model.flat_gradients(), {.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-7f});
  // Step 1, g = 0.5: m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25; θ = 1 − 0.1·0.5/(0.5 + 1e-7) = 0.9000000
  p.set_gradient(0.5f);
  adam.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.9f).epsilon(1e-6));
  // Step 2, g = −1: m = 0.045 − 0.1 = −0.055, v = 0.00024975 + 0.001 = 0.00124975;
  // m̂ = −0.055/0.19 = −0.2894737, v̂ = 0.00124975/0.001999 = 0.6251876, √v̂ = 0.7906881;
  // θ = 0.9 + 0.1·0.2894737/0.7906881 = 0.9366107
  p.set_gradient(-1.0f);
  adam.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.9366107f).epsilon(1e-5));
  CHECK(adam.steps() == 2);
  CHECK(adam.state()[0].name == "adam.m");
}

TEST_CASE("SGD with momentum: two steps by hand") {
  OneParameter p(1.0f);
  Sgd sgd(p.model.flat_values(), p.model.flat_gradients(), {.momentum = 0.9f});
  p.set_gradient(1.0f);
  sgd.step(0.1f);  // b = 1, θ = 0.9
  CHECK(p.theta() == doctest::Approx(0.9f));
  p.set_gradient(1.0f);
  sgd.step(0.1f);  // b = 0.9 + 1 = 1.9, θ = 0.9 − 0.19 = 0.71
  CHECK(p.theta() == doctest::Approx(0.71f));
}

TEST_CASE("exponential decay reaches lr0 * rate after decay_steps") {
  // Relative (.scale(0)): doctest's default Approx allows ±1.2e-5 absolute below 1, which is 12%
  // of 1e-4 and would pass a wrong exponent.
  const ExponentialDecay schedule{1e-3f, 0.1f, 10000};
  CHECK(schedule.at(0) == doctest::Approx(1e-3f).scale(0));
  CHECK(schedule.at(5000) == doctest::Approx(1e-3f / std::sqrt(10.0f)).scale(0));
  CHECK(schedule.at(10000) == doctest::Approx(1e-4f).scale(0));
}

TEST_CASE("AdamW: decoupled weight decay, two steps by hand") {
  // The steps of "Adam: two steps by hand" plus −lr·λ·θ of the θ before each step (λ = 0.01):
  // step 1: θ = 1 − 0.1 − 0.1·0.01·1 = 0.899; step 2: θ = 0.899 + 0.0366107 − 0.001·0.899 = 0.9347117.
  // The decay does not enter m and v (that would be L2 decay, not decoupled).
  OneParameter p(1.0f);
  Adam adam(p.model.flat_values(), p.model.flat_gradients(), {.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-7f, .weight_decay = 0.01f});
  p.set_gradient(0.5f);
  adam.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.899f).epsilon(1e-6));
  p.set_gradient(-1.0f);
  adam.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.9347117f).epsilon(1e-6));
}

TEST_CASE("SGD with momentum and weight decay: two steps by hand") {
  // b ← μ·b + g + λ·θ, θ ← θ − lr·b with μ = 0.9, λ = 0.1, lr = 0.1, g = 1:
  // b = 1 + 0.1 = 1.1, θ = 0.89; b = 0.99 + 1 + 0.089 = 2.079, θ = 0.89 − 0.2079 = 0.6821.
  OneParameter p(1.0f);
  Sgd sgd(p.model.flat_values(), p.model.flat_gradients(), {.momentum = 0.9f, .weight_decay = 0.1f});
  p.set_gradient(1.0f);
  sgd.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.89f).epsilon(1e-6));
  p.set_gradient(1.0f);
  sgd.step(0.1f);
  CHECK(p.theta() == doctest::Approx(0.6821f).epsilon(1e-6));
}

TEST_CASE("a small MLP learns y = sin(3x) with Adam and MSE") {
  Sequential model;
  model.add<Linear>(1, 32, LinearOptions{.seed = 3, .stream = 1});
  model.add<ReLU>();
  model.add<Linear>(32, 1, LinearOptions{.seed = 3, .stream = 2});
  model.pack();
  Adam adam(model.flat_values(), model.flat_gradients());
  Tape tape;
  Tensor x = Tensor::empty({128, 1}), y = Tensor::empty({128, 1});
  float first = 0, last = 0;
  for (int step = 0; step < 600; ++step) {
    Rng rng(11, static_cast<uint64_t>(step));
    for (int i = 0; i < 128; ++i) {
      x[i] = rng.uniform(-1.0f, 1.0f);
      y[i] = std::sin(3.0f * x[i]);
    }
    const Var loss = mse_loss(tape, model.forward(tape, Var(x)), y);
    if (step == 0) first = loss.value.item();
    last = loss.value.item();
    model.zero_grad();
    tape.backward(loss);
    adam.step(1e-2f);
    tape.clear();
  }
  MESSAGE("MSE from ", first, " to ", last);
  CHECK(last < 0.1f * first);
}

TEST_CASE("Adam and SGD take a flat value tensor and a gradient tensor of the same [P] shape") {
  Tensor values = Tensor::zeros({3}), gradients = Tensor::zeros({4}), matrix = Tensor::zeros({3, 1});
  CHECK_THROWS_WITH_AS(Adam(values, gradients), doctest::Contains("values are [3], gradients are [4]"), Error);
  CHECK_THROWS_WITH_AS(Sgd(values, gradients), doctest::Contains("values are [3], gradients are [4]"), Error);
  CHECK_THROWS_WITH_AS(Adam(matrix, matrix), doctest::Contains("two [P] tensors"), Error);
  CHECK_THROWS_WITH_AS(Adam(Tensor(), Tensor()), doctest::Contains("pack() the model"), Error);
}

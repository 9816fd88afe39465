// Golden tests against PyTorch, an implementation independent of empl (as llm.c checks its C
// against a PyTorch dump): one training step of the toy network and the EMPL of hand-made
// histograms, compared with fixtures made by tests/golden/make_golden.py (its docstring says how
// to run it and what each file holds). The fixtures are NumPy-written .npy files, so loading them
// also checks io/npy against NumPy itself.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/tape.hpp"
#include "io/npy.hpp"
#include "layers/activations.hpp"
#include "layers/batch_norm.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "losses/empl.hpp"
#include "optim/adam.hpp"

using namespace empl;

namespace {

Tensor fixture(const std::string& folder, const std::string& name) {
  return load_npy(std::string(EMPL_SOURCE_DIR) + "/tests/golden/" + folder + "/" + name + ".npy");
}

// Every element within `relative` of the largest |expected| of the tensor (float32 sums in another
// order differ by a few ulps of the largest term, not of each element).
void check_close(const std::string& what, const Tensor& actual, const Tensor& expected, double relative) {
  REQUIRE(actual.numel() == expected.numel());
  double largest = 0.0, worst = 0.0;
  int64_t worst_at = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) largest = std::max(largest, double(std::abs(expected[i])));
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double error = std::abs(double(actual[i]) - double(expected[i]));
    if (error > worst) worst = error, worst_at = i;
  }
  INFO(what, ": worst element ", worst_at, ": empl ", actual[worst_at], ", PyTorch ", expected[worst_at], ", largest |value| ",
       largest);
  CHECK(worst <= relative * largest);
}

}  // namespace

TEST_CASE("golden: one toy training step (loss, every gradient, Adam) agrees with PyTorch") {
  // The toy network of apps/toy_urn at hidden = 8, built here from the library's layers.
  Sequential model;
  model.add<Linear>(2, 8);
  model.add<BatchNorm1d>(8, BatchNormOptions{.relu_input = true});
  model.add<Linear>(8, 8);
  model.add<BatchNorm1d>(8, BatchNormOptions{.relu_input = true});
  model.add<Linear>(8, 5);
  model.add<Softmax>();
  model.pack();
  std::vector<NamedTensor> parameters = model.named_parameters();
  REQUIRE(parameters.size() == 10);
  for (NamedTensor& p : parameters) p.tensor.copy_from(fixture("toy_step", "param_" + p.name).reshape(p.tensor.shape()));
  Adam adam(model, {.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-7f});

  model.train();
  Tape tape;
  const Var loss = empl_loss(tape, model.forward(tape, Var(fixture("toy_step", "inputs"))), fixture("toy_step", "labels"),
                             fixture("toy_step", "tau"));
  model.zero_grad();
  tape.backward(loss);
  const float expected_loss = fixture("toy_step", "loss")[0];
  CHECK(loss.value.item() == doctest::Approx(expected_loss).epsilon(1e-5).scale(0));
  model.visit_parameters("", [&](const std::string& name, Var& var) {
    check_close("gradient of " + name, var.grad, fixture("toy_step", "grad_" + name), 1e-4);
  });
  adam.step(1e-3f);
  // The first Adam step is θ − lr·g/(|g| + ε): about lr = 1e-3 for every parameter, compared to
  // 1e-6 (0.1% of the step) plus what the gradient's own allowed error δ (1e-4 of its largest
  // element, as above) can move it: lr·δ/(|g| + ε) bounds the change of g/(|g| + ε). That term
  // matters only where |g| is near ε, e.g. a bias before a batch norm, whose gradient is ~0.
  for (const NamedTensor& p : model.named_parameters()) {
    const Tensor expected = fixture("toy_step", "after_" + p.name), gradient = fixture("toy_step", "grad_" + p.name);
    double largest = 0.0;
    for (int64_t i = 0; i < gradient.numel(); ++i) largest = std::max(largest, double(std::abs(gradient[i])));
    int64_t outside = 0;
    for (int64_t i = 0; i < expected.numel(); ++i) {
      const double allowed = 1e-6 + 1e-3 * 1e-4 * largest / (std::abs(gradient[i]) + 1e-7);
      outside += std::abs(double(p.tensor[i]) - double(expected[i])) > allowed;
    }
    INFO(p.name, " after one Adam step");
    CHECK(outside == 0);
  }
}

TEST_CASE("golden: the EMPL and smoothed EMPL of hand-made histograms and their gradients agree with PyTorch") {
  const Tensor predicted = fixture("empl", "predicted"), target = fixture("empl", "target"), tau = fixture("empl", "tau");
  for (const auto& [alpha, suffix] : {std::pair{0.0f, std::string("plain")}, std::pair{0.05f, std::string("smoothed")}}) {
    CAPTURE(suffix);
    Tape tape;
    Var p = make_leaf(predicted.clone());
    const Var loss = empl_loss(tape, p, target, tau, alpha);
    tape.backward(loss);
    CHECK(loss.value.item() == doctest::Approx(fixture("empl", std::string("loss_") + suffix)[0]).epsilon(1e-6).scale(0));
    check_close(std::string("gradient, ") + suffix, p.grad, fixture("empl", std::string("grad_") + suffix), 1e-6);
  }
}

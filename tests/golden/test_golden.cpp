// Golden tests against PyTorch, an implementation independent of empl (as llm.c checks its C
// against a PyTorch dump): one training step of the toy network (EMPL), one of the bimodal network
// (Gaussian NLL), and the EMPL of hand-made
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
#include "losses/gaussian_nll.hpp"
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

// Compares the model's gradients with grad_<name>.npy, takes one Adam step (lr 1e-3, Keras's
// betas and ε, as the fixtures' torch.optim.Adam) and compares with after_<name>.npy.
void check_gradients_and_adam_step(Sequential& model, const std::string& folder) {
  model.visit_parameters("", [&](const std::string& name, Var& var) {
    check_close("gradient of " + name, var.grad, fixture(folder, "grad_" + name), 1e-4);
  });
  Adam adam(model.flat_values(), model.flat_gradients(), {.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-7f});
  adam.step(1e-3f);
  // The first Adam step is θ − lr·g/(|g| + ε): about lr = 1e-3 for every parameter, compared to
  // 1e-6 (0.1% of the step) plus what the gradient's own allowed error δ (1e-4 of its largest
  // element, as above) can move it: lr·δ/(|g| + ε) bounds the change of g/(|g| + ε). That term
  // matters only where |g| is near ε, e.g. a bias before a batch norm, whose gradient is ~0.
  for (const NamedTensor& p : model.named_parameters()) {
    const Tensor expected = fixture(folder, "after_" + p.name), gradient = fixture(folder, "grad_" + p.name);
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

void load_parameters(Sequential& model, const std::string& folder, size_t count) {
  std::vector<NamedTensor> parameters = model.named_parameters();
  REQUIRE(parameters.size() == count);
  for (NamedTensor& p : parameters) p.tensor.copy_from(fixture(folder, "param_" + p.name).reshape(p.tensor.shape()));
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
  load_parameters(model, "toy_step", 10);
  model.train();
  Tape tape;
  const Var loss = empl_loss(tape, model.forward(tape, Var(fixture("toy_step", "inputs"))), fixture("toy_step", "labels"),
                             fixture("toy_step", "tau"));
  model.zero_grad();
  tape.backward(loss);
  CHECK(loss.value.item() == doctest::Approx(fixture("toy_step", "loss")[0]).epsilon(1e-5).scale(0));
  check_gradients_and_adam_step(model, "toy_step");
}

TEST_CASE("golden: one bimodal training step with the Gaussian NLL (loss, every gradient, Adam) agrees with PyTorch") {
  // The bimodal network of apps/bimodal at hidden = 8 with 2N = 20 outputs, one log-variance below
  // the clip at −15.
  Sequential model;
  model.add<Linear>(4, 8);
  model.add<ReLU>();
  model.add<Linear>(8, 8);
  model.add<ReLU>();
  model.add<Linear>(8, 20);
  model.pack();
  load_parameters(model, "bimodal_gauss", 6);
  Tape tape;
  const Var loss = gaussian_nll_loss(tape, model.forward(tape, Var(fixture("bimodal_gauss", "inputs"))),
                                     fixture("bimodal_gauss", "labels"));
  model.zero_grad();
  tape.backward(loss);
  CHECK(loss.value.item() == doctest::Approx(fixture("bimodal_gauss", "loss")[0]).epsilon(1e-5).scale(0));
  check_gradients_and_adam_step(model, "bimodal_gauss");
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

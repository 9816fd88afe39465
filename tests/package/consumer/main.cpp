// A program outside empl, built by tests/package/run.sh against an installed empl and against
// empl as a subproject. It uses the library the way a user would: a network, the training loop,
// and evaluation at three τ levels. Every label is the histogram (0.25, 0.75), so every quantile
// of its cumulative histogram is (0.25, 1): the program exits 1 unless bin 1 comes out at 0.25.
#include <cmath>
#include <cstdio>

#include <empl/layers/activations.hpp>
#include <empl/layers/linear.hpp>
#include <empl/layers/sequential.hpp>
#include <empl/layers/tau_input.hpp>
#include <empl/losses/empl.hpp>
#include <empl/optim/adam.hpp>
#include <empl/training/loop.hpp>
#include <empl/training/quantiles.hpp>

int main() {
  using namespace empl;
  Sequential model;  // input (x, tau feature) -> 2 bins
  model.add<Linear>(2, 2, LinearOptions{.seed = 1});
  model.add<Softmax>();
  model.pack();

  const int64_t batch = 64;
  Tensor inputs = Tensor::empty({batch, 2}), labels = Tensor::empty({batch, 2}), tau = Tensor::empty({batch, 1});
  for (int64_t i = 0; i < batch; ++i) {
    tau[i] = (static_cast<float>(i) + 0.5f) / static_cast<float>(batch);
    inputs[2 * i] = 0.0f;
    inputs[2 * i + 1] = tau_feature(tau[i]);
    labels[2 * i] = 0.25f;
    labels[2 * i + 1] = 0.75f;
  }
  Adam adam(model.flat_values(), model.flat_gradients());
  Tape tape;
  const TrainingSetup setup{.steps = 400, .schedule = {0.05f, 0.01f, 400}, .quiet = true};
  train(model, adam, tape, setup, [&](Tape& t, int64_t) { return empl_loss(t, model.forward(t, Var(inputs)), labels, tau); });

  const Tensor features = Tensor::from({1, 1}, std::vector<float>{0.0f});
  const float levels[] = {0.1f, 0.5f, 0.9f};
  const QuantilePrediction prediction = evaluate_quantiles(model, features, levels);
  int status = 0;
  for (int t = 0; t < 3; ++t) {
    std::printf("tau %.1f: cumulative (%.4f, %.4f)\n", levels[t], prediction.at(0, t, 0), prediction.at(0, t, 1));
    if (std::abs(prediction.at(0, t, 0) - 0.25) > 0.01) status = 1;
  }
  return status;
}

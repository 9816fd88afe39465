// Whole training runs, in process: the same bits for 1 and 2 threads, the same weights after a
// resume as without the interruption, and a stop with a clear message on a non-finite loss.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "training/loop.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "autograd/elementwise.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "layers/dropout.hpp"
#include "losses/empl.hpp"
#include "../apps/run_binary.hpp"

using namespace empl;
using namespace empl::toy_urn;

namespace {

// Trains the toy model (batch norm included) for `steps` steps and returns its packed weights.
// With `interrupt_at` > 0 the run sends itself SIGINT during that step, as Ctrl-C would.
Tensor train_toy(int threads, int64_t steps, const std::string& save = "", const std::string& resume = "",
                 int64_t interrupt_at = -1, int64_t batch = 256, int64_t hidden = 32, int64_t* first_step = nullptr) {
  const int before = num_threads();
  set_num_threads(threads);
  auto model = build_model(5, hidden);
  Adam adam(model->flat_values(), model->flat_gradients());
  Tape tape;
  Tensor inputs = Tensor::empty({batch, kFeatures}), labels = Tensor::empty({batch, kBins}), tau = Tensor::empty({batch, 1});
  TrainingSetup setup{.steps = steps, .schedule = {1e-2f, 0.1f, steps}, .save_path = save, .save_every = 1000,
                      .resume_path = resume, .metadata = {{"app", "test"}}, .quiet = true};
  train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
    if (first_step && *first_step < 0) *first_step = step;
    if (step == interrupt_at) std::raise(SIGINT);
    make_batch(9, static_cast<uint64_t>(step), inputs, labels, tau);
    return empl_loss(t, model->forward(t, Var(inputs)), labels, tau);
  });
  set_num_threads(before);
  Tensor weights = model->flat_values().clone();
  return weights;
}

bool bit_identical(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a short training run gives bit-identical weights on 1 and 2 threads") {
  // The paper's sizes (batch 2048, 128 hidden), so that every kernel and sgemm really splits.
  const Tensor one = train_toy(1, 10, "", "", -1, 2048, 128), two = train_toy(2, 10, "", "", -1, 2048, 128);
  CHECK(bit_identical(one, two));
}

TEST_CASE("resuming from a checkpoint ends with the same weights as an uninterrupted run") {
  empl::testing::TemporaryFolder folder;
  const Tensor uninterrupted = train_toy(2, 40);
  // Ctrl-C during step 20: the loop finishes the step, saves, and stops with Interrupted.
  CHECK_THROWS_WITH_AS(train_toy(2, 40, folder.file("run.ckpt"), "", 20), doctest::Contains("at step 21"), Interrupted);
  // A run that ignored --resume would start again at step 0 and reach the same bits too: the
  // resumed run must begin at step 21.
  int64_t first_step = -1;
  const Tensor resumed = train_toy(2, 40, folder.file("run.ckpt"), folder.file("run.ckpt"), -1, 256, 32, &first_step);
  CHECK(first_step == 21);
  CHECK(bit_identical(uninterrupted, resumed));
}

TEST_CASE("a non-finite loss stops training, naming the step and the first bad parameter") {
  // Two ways a loss turns non-finite at step 3, both passing every op's input checks: a NaN added
  // to the loss (its gradients stay finite: no parameter is bad), and the loss multiplied by NaN
  // (every gradient becomes NaN: the first parameter, 0.weight, is named).
  for (const bool nan_gradients : {false, true}) {
    CAPTURE(nan_gradients);
    auto model = build_model(5, 16);
    Adam adam(model->flat_values(), model->flat_gradients());
    Tape tape;
    TrainingSetup setup{.steps = 10, .schedule = {1e-3f, 1.0f, 1}, .quiet = true};
    Tensor inputs = Tensor::empty({64, kFeatures}), labels = Tensor::empty({64, kBins}), tau = Tensor::empty({64, 1});
    const Tensor before = model->flat_values().clone();
    std::string message;
    try {
      train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
        make_batch(1, static_cast<uint64_t>(step), inputs, labels, tau);
        const Var loss = empl_loss(t, model->forward(t, Var(inputs)), labels, tau);
        if (step != 3) return loss;
        return nan_gradients ? mul_scalar(t, loss, NAN) : add_scalar(t, loss, NAN);
      });
    } catch (const Error& error) {
      message = error.what();
    }
    INFO(message);
    CHECK(message.find("training stopped at step 3: loss nan") != std::string::npos);
    if (nan_gradients) CHECK(message.find("first bad parameter: 0.weight[0] (value ") != std::string::npos);
    else CHECK(message.find("first bad parameter: none") != std::string::npos);
    // The step that saw the bad loss did not update the parameters: steps 0-2 did.
    const Tensor after = model->flat_values();
    bool finite = true;
    for (int64_t i = 0; i < after.numel(); ++i) finite = finite && std::isfinite(after[i]);
    CHECK(finite);
    CHECK_FALSE(std::equal(before.values().begin(), before.values().end(), after.values().begin()));
  }
}

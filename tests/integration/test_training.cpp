// Whole training runs, in process: the same bits for 1 and 2 threads, the same weights after a
// resume as without the interruption, and a stop with a clear message on a non-finite loss.
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "training/loop.hpp"
#include "apps/toy_urn/toy_model.hpp"
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
                 int64_t interrupt_at = -1, int64_t batch = 256, int64_t hidden = 32) {
  const int before = num_threads();
  set_num_threads(threads);
  auto model = build_model(5, hidden);
  Adam adam(model->flat_values(), model->flat_gradients());
  Tape tape;
  Tensor inputs = Tensor::empty({batch, kFeatures}), labels = Tensor::empty({batch, kBins}), tau = Tensor::empty({batch, 1});
  TrainingSetup setup{.steps = steps, .schedule = {1e-2f, 0.1f, steps}, .save_path = save, .save_every = 1000,
                      .resume_path = resume, .metadata = {{"app", "test"}}, .quiet = true};
  train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
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
  const Tensor resumed = train_toy(2, 40, folder.file("run.ckpt"), folder.file("run.ckpt"));
  CHECK(bit_identical(uninterrupted, resumed));
}

TEST_CASE("a non-finite loss stops training, naming the step and the first bad parameter") {
  auto model = build_model(5, 16);
  Adam adam(model->flat_values(), model->flat_gradients());
  Tape tape;
  TrainingSetup setup{.steps = 10, .schedule = {1e-3f, 1.0f, 1}, .quiet = true};
  Tensor inputs = Tensor::empty({64, kFeatures}), labels = Tensor::empty({64, kBins}), tau = Tensor::empty({64, 1});
  CHECK_THROWS_WITH_AS(train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
                         make_batch(1, static_cast<uint64_t>(step), inputs, labels, tau);
                         if (step == 3) inputs[5] = NAN;  // a corrupted input at step 3
                         return empl_loss(t, model->forward(t, Var(inputs)), labels, tau);
                       }),
                       doctest::Contains("step 3"), Error);
}

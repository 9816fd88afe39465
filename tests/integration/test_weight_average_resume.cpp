// A weight average (optim/weight_average.hpp) hooked into the training loop after each optimizer
// step: a run interrupted and resumed from its checkpoint ends with the same average, bit for bit,
// as an uninterrupted one (the checkpoint carries the average and its count).
#include <doctest/doctest.h>

#include <csignal>
#include <cstring>

#include "training/loop.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "losses/empl.hpp"
#include "optim/weight_average.hpp"
#include "../apps/run_binary.hpp"

using namespace empl;
using namespace empl::toy_urn;

namespace {

// 40 steps of the small toy model, averaging from step 10 on; returns the average.
Tensor train_averaged(const std::string& save = "", const std::string& resume = "", int64_t interrupt_at = -1) {
  const int64_t steps = 40, batch = 128;
  auto model = build_model(3, 16);
  Adam adam(model->flat_values(), model->flat_gradients());
  WeightAverage average(*model, 0.8f);
  Tape tape;
  Tensor inputs = Tensor::empty({batch, kFeatures}), labels = Tensor::empty({batch, kBins}), tau = Tensor::empty({batch, 1});
  TrainingSetup setup{.steps = steps, .schedule = {1e-2f, 0.1f, steps}, .save_path = save, .resume_path = resume,
                      .metadata = {{"app", "test"}}, .quiet = true,
                      .hook = {[&](int64_t step) { if (step >= 10) average.update(); }, average.state()}};
  train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
    if (step == interrupt_at) std::raise(SIGINT);
    make_batch(4, static_cast<uint64_t>(step), inputs, labels, tau);
    return empl_loss(t, model->forward(t, Var(inputs)), labels, tau);
  });
  CHECK(average.count() == 30);
  return average.values().clone();
}

bool bit_identical(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("weight average: a resumed run ends with the same average as an uninterrupted one") {
  empl::testing::TemporaryFolder folder;
  const Tensor uninterrupted = train_averaged();
  // Interrupted during step 25, inside the averaging window: the checkpoint holds 16 updates.
  CHECK_THROWS_AS(train_averaged(folder.file("run.ckpt"), "", 25), Interrupted);
  const Tensor resumed = train_averaged(folder.file("run.ckpt"), folder.file("run.ckpt"));
  CHECK(bit_identical(uninterrupted, resumed));
}

// "In steady state a step allocates nothing new" (DESIGN.md), checked on the real training loop,
// train() of the apps, not only on the benchmark's own loop: every C++ heap allocation of the
// test binary is counted (tests/support/heap_allocations.cpp), and
// the count is read at the start of each step, from inside the step's forward function.
#include <doctest/doctest.h>

#include <vector>

#include "training/loop.hpp"
#include "apps/toy_urn/toy_model.hpp"
#include "apps/toy_urn/urn_data.hpp"
#include "core/parallel.hpp"
#include "tests/support/heap_allocations.hpp"

using namespace empl;
using namespace empl::toy_urn;

TEST_CASE("train(): after the first steps, a whole training step (forward, backward, Adam, the loop) allocates nothing") {
  const int before = num_threads();
  set_num_threads(1);  // the count includes only this thread's steps; TBB's workers would add their own
  auto model = build_model(3, 32);
  Adam adam(model->flat_values(), model->flat_gradients());
  Tape tape;
  Tensor inputs = Tensor::empty({128, kFeatures}), labels = Tensor::empty({128, kBins}), tau = Tensor::empty({128, 1});
  const TrainingSetup setup{.steps = 12, .schedule = {1e-3f, 0.1f, 12}, .quiet = true};
  std::vector<int64_t> at_step;
  at_step.reserve(12);  // so that the test itself allocates nothing during the run
  train(*model, adam, tape, setup, [&](Tape& t, int64_t step) {
    at_step.push_back(heap_allocations());
    make_batch(3, static_cast<uint64_t>(step), inputs, labels, tau);
    return training_loss("empl", t, model->forward(t, Var(inputs)), labels, tau);
  });
  set_num_threads(before);
  REQUIRE(at_step.size() == 12);
  CHECK(at_step[1] > at_step[0]);  // the first step fills the tape's arena: the counter counts
  for (size_t step = 3; step + 1 < at_step.size(); ++step) {
    CAPTURE(step);
    CHECK(at_step[step + 1] - at_step[step] == 0);
  }
}

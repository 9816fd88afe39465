// optim/weight_average: the exponential moving average of the weights against numbers worked out
// by hand, the swap used for evaluation, and the state a checkpoint carries.
#include <doctest/doctest.h>

#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "optim/weight_average.hpp"

using namespace empl;

namespace {

// Two parameters (a 1 -> 2 Linear without bias), set directly.
struct TwoParameters {
  Sequential model;
  TwoParameters() {
    model.add<Linear>(1, 2, LinearOptions{.bias = false});
    model.pack();
  }
  void set(float a, float b) {
    model.flat_values()[0] = a;
    model.flat_values()[1] = b;
  }
  float at(int i) { return model.flat_values()[i]; }
};

}  // namespace

TEST_CASE("WeightAverage: three updates by hand, then a swap there and back") {
  TwoParameters p;
  WeightAverage average(p.model, 0.75f);
  // θ = (4, −8): the first update copies it.
  p.set(4.0f, -8.0f);
  average.update();
  CHECK(average.values()[0] == 4.0f);
  CHECK(average.values()[1] == -8.0f);
  // θ = (8, 0): θ̄ = 0.75·(4, −8) + 0.25·(8, 0) = (5, −6).
  p.set(8.0f, 0.0f);
  average.update();
  CHECK(average.values()[0] == doctest::Approx(5.0f));
  CHECK(average.values()[1] == doctest::Approx(-6.0f));
  // θ = (1, 2): θ̄ = 0.75·(5, −6) + 0.25·(1, 2) = (4, −4).
  p.set(1.0f, 2.0f);
  average.update();
  CHECK(average.values()[0] == doctest::Approx(4.0f));
  CHECK(average.values()[1] == doctest::Approx(-4.0f));
  CHECK(average.count() == 3);
  // Evaluate with θ̄, then swap back to go on training from θ.
  average.swap_into_model();
  CHECK(p.at(0) == doctest::Approx(4.0f));
  CHECK(p.at(1) == doctest::Approx(-4.0f));
  average.swap_into_model();
  CHECK(p.at(0) == 1.0f);
  CHECK(p.at(1) == 2.0f);
}

TEST_CASE("WeightAverage: its state restores into a fresh average, which then goes on identically") {
  TwoParameters p;
  WeightAverage first(p.model, 0.5f);
  p.set(2.0f, 6.0f);
  first.update();
  p.set(4.0f, 2.0f);
  first.update();  // (3, 4)
  const std::vector<NamedTensor> state = first.state();
  REQUIRE(state.size() == 2);
  CHECK(state[0].name == "average.values");
  CHECK(state[1].name == "average.count");

  WeightAverage second(p.model, 0.5f);
  // A checkpoint's tensor list holds the model's and the optimizer's tensors before these.
  std::vector<NamedTensor> checkpoint = p.model.named_parameters();
  for (const NamedTensor& entry : state) checkpoint.push_back({entry.name, entry.tensor.clone()});
  CHECK(second.restore_from(checkpoint));
  CHECK(second.count() == 2);
  // Both go on from the same θ: not a first update (no copy), so θ̄ = 0.5·(3, 4) + 0.5·(1, 0) = (2, 2).
  p.set(1.0f, 0.0f);
  first.update();
  second.update();
  CHECK(second.values()[0] == doctest::Approx(2.0f));
  CHECK(second.values()[1] == doctest::Approx(2.0f));
  CHECK(second.values()[0] == first.values()[0]);
  CHECK(second.values()[1] == first.values()[1]);
  CHECK_FALSE(second.restore_from(p.model.named_parameters()));  // no average in it
}

TEST_CASE("WeightAverage: a decay of 1 or below 0 and a swap before any update throw") {
  TwoParameters p;
  CHECK_THROWS_WITH(WeightAverage(p.model, 1.0f), doctest::Contains("decay 1"));
  CHECK_THROWS_WITH(WeightAverage(p.model, -0.5f), doctest::Contains("decay -0.5"));
  WeightAverage average(p.model, 0.9f);
  CHECK_THROWS_WITH(average.swap_into_model(), doctest::Contains("before any update"));
}

TEST_CASE("WeightAverage: the window is the last steps, at most the second half of the run") {
  CHECK(average_start(10000, 2000) == 8000);  // the default runs: the last 2000 steps
  CHECK(average_start(400, 2000) == 200);     // a short run: never its untrained start
  CHECK(average_start(30, 20) == 15);
  CHECK(average_start(1, 20) == 1);           // one step: nothing to average, the last weights stand
}

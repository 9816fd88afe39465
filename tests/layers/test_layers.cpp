// Layers: Linear, BatchNorm1d, Dropout, activations, Sequential, packing, τ input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/elementwise.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/reduce.hpp"
#include "core/error.hpp"
#include "layers/activations.hpp"
#include "layers/batch_norm.hpp"
#include "layers/dropout.hpp"
#include "layers/linear.hpp"
#include "layers/sequential.hpp"
#include "layers/tau_input.hpp"

using namespace empl;

namespace {
Tensor values(Shape shape, std::vector<float> v) { return Tensor::from(shape, v); }
}  // namespace

TEST_CASE("linear forward by hand, with and without bias") {
  Tape tape;
  const Var x(values({2, 2}, {1, 2, 3, 4}));
  const Var w(values({2, 3}, {1, 0, -1, 0.5f, 1, 2}));
  const Var b(values({1, 3}, {10, 20, 30}));
  // Row 1: [1 2]·W = [2 2 3] + b = [12 22 33]; row 2: [3 4]·W = [5 4 5] + b = [15 24 35]
  const Var y = linear(tape, x, w, b);
  CHECK(y.value[0] == 12.0f);
  CHECK(y.value[5] == 35.0f);
  CHECK(linear(tape, x, w, Var()).value[5] == 5.0f);
  CHECK_THROWS_WITH_AS(linear(tape, Var(Tensor::zeros({2, 3})), w, b), doctest::Contains("[2,3]"), Error);
  // A weight with no output features (was a division by zero, SIGFPE, with a bias).
  CHECK_THROWS_WITH_AS(linear(tape, x, Var(Tensor::zeros({2, 0})), Var(Tensor::zeros({1, 0}))), doctest::Contains("linear: weight is [2,0]"), Error);
  CHECK_THROWS_WITH_AS(linear(tape, x, Var(Tensor::zeros({2, 0})), Var()), doctest::Contains("linear: weight is [2,0]"), Error);
}

TEST_CASE("linear gradcheck: bias, no bias, rank-3 input") {
  const Tensor x = values({3, 2}, {0.5f, -1.0f, 0.3f, 0.8f, -0.6f, 1.2f});
  const Tensor w = values({2, 2}, {0.7f, -0.4f, 0.2f, 0.9f});
  const Tensor b = values({1, 2}, {0.1f, -0.3f});
  auto with_bias = gradcheck([](Tape& t, const std::vector<Var>& in) { return linear(t, in[0], in[1], in[2]); }, {x, w, b});
  CHECK(with_bias.ok);
  auto without = gradcheck([](Tape& t, const std::vector<Var>& in) { return linear(t, in[0], in[1], Var()); }, {x, w});
  CHECK(without.ok);
  const Tensor cube = Tensor::from({2, 2, 2}, std::vector<float>{0.1f, 0.2f, -0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.8f});
  auto rank3 = gradcheck([](Tape& t, const std::vector<Var>& in) { return linear(t, in[0], in[1], in[2]); }, {cube, w, b});
  CHECK(rank3.ok);
}

TEST_CASE("Linear initialisation is seeded and within the Glorot limit") {
  Linear a(64, 32, {.seed = 5}), b(64, 32, {.seed = 5}), c(64, 32, {.seed = 6});
  const float limit = std::sqrt(6.0f / 96.0f);
  for (int64_t i = 0; i < a.weight.value.numel(); ++i) CHECK(std::abs(a.weight.value[i]) <= limit);
  CHECK(a.weight.value[7] == b.weight.value[7]);
  CHECK(a.weight.value[7] != c.weight.value[7]);
  CHECK(a.bias.value[3] == 0.0f);
  CHECK_THROWS_AS(Linear(0, 3), Error);
  // As linear.hpp says: the stream, not the order of construction, tells two layers apart.
  Linear first(64, 32), second(64, 32), streamed(64, 32, {.stream = 1});
  CHECK(first.weight.value[7] == second.weight.value[7]);
  CHECK(first.weight.value[7] != streamed.weight.value[7]);
}

TEST_CASE("batch norm in training normalises each feature, running statistics by hand") {
  BatchNorm1d bn(2, {.momentum = 0.1f, .eps = 0.0001f});
  Tape tape;
  // Feature 0: [1 3] mean 2, biased var 1; feature 1: [2 2] mean 2, var 0.
  const Var x(values({2, 2}, {1, 2, 3, 2}));
  const Var y = bn.forward(tape, x);
  CHECK(y.value[0] == doctest::Approx(-1.0f / std::sqrt(1.0001f)));
  CHECK(y.value[2] == doctest::Approx(1.0f / std::sqrt(1.0001f)));
  CHECK(y.value[1] == 0.0f);
  // running_mean = 0.9·0 + 0.1·2 = 0.2; running_var = 0.9·1 + 0.1·(unbiased var 2) = 1.1 and 0.9.
  CHECK(bn.running_mean[0] == doctest::Approx(0.2f));
  CHECK(bn.running_var[0] == doctest::Approx(1.1f));
  CHECK(bn.running_var[1] == doctest::Approx(0.9f));
  bn.forward(tape, x);  // second step: 0.9·0.2 + 0.1·2 = 0.38; 0.9·1.1 + 0.2 = 1.19
  CHECK(bn.running_mean[0] == doctest::Approx(0.38f));
  CHECK(bn.running_var[0] == doctest::Approx(1.19f));
  bn.eval();
  const Var e = bn.forward(tape, Var(values({1, 2}, {0.38f, 5.0f})));
  CHECK(e.value[0] == doctest::Approx(0.0f));
  CHECK(e.value[1] == doctest::Approx((5.0f - 0.38f) / std::sqrt(bn.running_var[1] + 0.0001f)));
}

TEST_CASE("batch norm gradchecks in training and evaluation, with and without affine and relu_input") {
  // No entry within the step of 0, where relu_input has its kink.
  const Tensor x = values({4, 3}, {0.5f, -1.0f, 2.0f, 1.5f, 0.2f, -0.7f, -0.4f, 0.9f, 0.1f, 1.1f, -0.3f, 0.6f});
  for (bool relu_input : {false, true})
    for (bool affine : {true, false})
      for (bool training : {true, false}) {
        auto r = gradcheck(
            [&](Tape& t, const std::vector<Var>& in) {
              BatchNorm1d bn(3, {.affine = affine, .relu_input = relu_input});
              if (affine) {
                bn.scale = in[1];
                bn.shift = in[2];
              }
              bn.running_mean.fill(0.2f);
              bn.running_var.fill(1.5f);
              bn.set_training(training);
              return bn.forward(t, in[0]);
            },
            affine ? std::vector<Tensor>{x, values({3}, {1.2f, 0.8f, -0.5f}), values({3}, {0.1f, 0.2f, 0.3f})}
                   : std::vector<Tensor>{x},
            {.step = 1e-3});
        INFO("relu_input ", relu_input, " affine ", affine, " training ", training, ": ", r.worst);
        CHECK(r.ok);
      }
}

TEST_CASE("batch norm with relu_input gives the bits of ReLU then BatchNorm, forward and backward") {
  // Negative, zero and positive entries (−0 too), so that the mask and the kink are both seen.
  const Tensor x = values({5, 3}, {0.5f, -1.0f, 2.0f, 1.5f, 0.0f, -0.7f, -0.4f, 0.9f, 0.1f,
                                   1.1f, -0.3f, -0.0f, 0.25f, 0.6f, 3.0f});
  const Tensor weights = values({5, 3}, {0.3f, -1.2f, 0.7f, 2.0f, 0.1f, -0.4f, 0.9f, 0.5f, -0.8f,
                                         1.3f, -0.6f, 0.2f, -1.5f, 0.4f, 1.1f});
  const Tensor ones = Tensor::full({5, 3}, 1.0f);
  for (bool training : {true, false})
    for (bool affine : {true, false})
      for (bool intermediate : {false, true}) {
        // A leaf's gradient is added to; an intermediate's is fresh and assigned (Note [fresh gradients]).
        INFO("training ", training, " affine ", affine, " intermediate ", intermediate);
        BatchNorm1d separate(3, {.affine = affine});
        BatchNorm1d fused(3, {.affine = affine, .relu_input = true});
        for (BatchNorm1d* bn : {&separate, &fused}) {
          if (affine) {
            bn->scale = make_leaf(values({3}, {1.2f, 0.8f, -0.5f}));
            bn->shift = make_leaf(values({3}, {0.1f, 0.2f, 0.3f}));
          }
          bn->running_mean.fill(0.2f);
          bn->running_var.fill(1.5f);
          bn->set_training(training);
        }
        Tape tape;
        Var x_separate = make_leaf(x), x_fused = make_leaf(x);
        const auto input = [&](const Var& leaf) { return intermediate ? mul(tape, leaf, Var(ones)) : leaf; };
        const Var y_separate = separate.forward(tape, relu(tape, input(x_separate)));
        const Var y_fused = fused.forward(tape, input(x_fused));
        const auto bits = [](const Tensor& t) { return std::vector<float>(t.values().begin(), t.values().end()); };
        CHECK(bits(y_fused.value) == bits(y_separate.value));
        CHECK(bits(fused.running_mean) == bits(separate.running_mean));
        CHECK(bits(fused.running_var) == bits(separate.running_var));
        tape.backward(add(tape, sum(tape, mul(tape, y_separate, Var(weights))), sum(tape, mul(tape, y_fused, Var(weights)))));
        CHECK(bits(x_fused.grad) == bits(x_separate.grad));
        if (affine) {
          CHECK(bits(fused.scale.grad) == bits(separate.scale.grad));
          CHECK(bits(fused.shift.grad) == bits(separate.shift.grad));
        }
      }
}

TEST_CASE("dropout: identity in evaluation, in training keeps about 1-p, scaled, gradient through the mask") {
  Dropout dropout(0.5f, 3);
  Tape tape;
  Var x = make_leaf(Tensor::full({200, 50}, 2.0f));
  dropout.eval();
  CHECK(dropout.forward(tape, x).value.same_as(x.value));
  dropout.train();
  const Var y = dropout.forward(tape, x);
  int64_t kept = 0;
  for (int64_t i = 0; i < y.value.numel(); ++i) {
    CHECK((y.value[i] == 0.0f || y.value[i] == 4.0f));
    kept += y.value[i] != 0.0f;
  }
  // 10,000 Bernoulli(0.5): standard deviation 50; allow 5 of them.
  CHECK(std::abs(kept - 5000) < 250);
  tape.backward(y, Tensor::full(y.shape(), 1.0f));
  for (int64_t i = 0; i < 100; ++i) CHECK(x.grad[i] == (y.value[i] != 0.0f ? 2.0f : 0.0f));
  // A second call draws a new mask.
  const Var y2 = dropout.forward(tape, x);
  int64_t same = 0;
  for (int64_t i = 0; i < y.value.numel(); ++i) same += y.value[i] == y2.value[i];
  CHECK(same < 6000);
  CHECK_THROWS_AS(Dropout(1.0f), Error);
}

TEST_CASE("sequential: names, counts, packing into one allocation, zero_grad") {
  Sequential model;
  model.add<Linear>(2, 4, LinearOptions{.seed = 1});
  model.add<BatchNorm1d>(4);
  model.add<ReLU>();
  model.add<Linear>(4, 3, LinearOptions{.seed = 2});
  model.add<Softmax>();
  CHECK(model.parameter_count() == 2 * 4 + 4 + 4 + 4 + 4 * 3 + 3);
  const auto names = model.named_parameters();
  REQUIRE(names.size() == 6);
  CHECK(names[0].name == "0.weight");
  CHECK(names[2].name == "1.weight");
  CHECK(names[5].name == "3.bias");
  CHECK(model.named_buffers()[1].name == "1.running_var");
  const float before = names[0].tensor[3];
  model.pack();
  const auto packed = model.named_parameters();
  CHECK(packed[0].tensor[3] == before);  // values kept
  const float* base = model.flat_values().data();
  int64_t offset = 0;
  for (const auto& p : packed) {
    CHECK(p.tensor.data() == base + offset);  // contiguous, in order
    offset += p.tensor.numel();
  }
  Tape tape;
  const Var out = model.forward(tape, Var(values({3, 2}, {1, 2, 3, 4, 5, 6})));
  CHECK(out.shape() == Shape{3, 3});
  CHECK(out.value[0] + out.value[1] + out.value[2] == doctest::Approx(1.0f));
  // Softmax's outputs sum to 1, so a uniform output gradient would give zero input gradients.
  tape.backward(out, values({3, 3}, {1, 0, 0, 0, 2, 0, 0, 0, 3}));
  int64_t nonzero = 0;
  for (float g : model.flat_gradients().values()) nonzero += g != 0.0f;
  CHECK(nonzero > model.parameter_count() / 2);
  model.zero_grad();
  for (float g : model.flat_gradients().values()) CHECK(g == 0.0f);
}

TEST_CASE("append_tau adds (tau - 0.5) * 12 as the last column") {
  Tape tape;
  const Var x(values({2, 1}, {7, 8}));
  const Var with_tau = append_tau(tape, x, values({2, 1}, {0.25f, 1.0f}));
  CHECK(with_tau.shape() == Shape{2, 2});
  CHECK(with_tau.value[1] == -3.0f);
  CHECK(with_tau.value[3] == 6.0f);
  CHECK_THROWS_AS(append_tau(tape, x, values({3, 1}, {0, 0, 0})), Error);
}

TEST_CASE("Linear, ReLU and BatchNorm chained: gradcheck, and the same gradients on a reused tape") {
  // Inside the chain every activation gradient is fresh (Note [fresh gradients]) and assigned by
  // Linear, ReLU and BatchNorm; a reused tape hands them last step's buffers, so a write that
  // added instead of assigning would show as a different gradient in the second step.
  const Tensor x = values({4, 2}, {0.5f, -1.0f, 2.0f, 1.5f, 0.2f, -0.7f, -0.4f, 0.9f});
  const Tensor w1 = values({2, 3}, {0.3f, -0.6f, 0.8f, 0.5f, 0.4f, -0.2f});
  const Tensor w2 = values({3, 2}, {0.7f, -0.1f, 0.2f, 0.9f, -0.5f, 0.4f});
  const Tensor b1 = values({1, 3}, {0.1f, 0.2f, 0.3f});
  const auto chain = [](Tape& t, const std::vector<Var>& in) {
    BatchNorm1d bn(3, {.affine = false});
    return linear(t, bn.forward(t, relu(t, linear(t, in[0], in[1], in[2]))), in[3], Var());
  };
  auto r = gradcheck(chain, {x, w1, b1, w2}, {.step = 1e-3});
  INFO(r.worst);
  CHECK(r.ok);

  std::vector<Var> leaves = {make_leaf(x), make_leaf(w1), make_leaf(b1), make_leaf(w2)};
  const auto gradients = [&](Tape& tape) {
    for (Var& leaf : leaves) leaf.grad.zero();
    const Var y = chain(tape, leaves);
    tape.backward(sum(tape, mul(tape, y, y)));  // not a plain sum: its gradient through BN is 0
    std::vector<float> all;
    for (const Var& leaf : leaves) all.insert(all.end(), leaf.grad.values().begin(), leaf.grad.values().end());
    tape.clear();
    return all;
  };
  Tape fresh;
  const std::vector<float> reference = gradients(fresh);  // every buffer new
  CHECK(std::count(reference.begin(), reference.end(), 0.0f) == 0);
  Tape reused;
  for (int step = 0; step < 3; ++step) {
    gradients(reused);  // leaves last step's gradients in the reused buffers
    CAPTURE(step);
    CHECK(gradients(reused) == reference);
  }
}

TEST_CASE("a fresh gradient that is two inputs of one op gets both contributions") {
  // y = relu(x) is both the input and the weight of one Linear: y's gradient is fresh when
  // Linear's backward runs, and must be the sum of its two GEMMs, not the last one alone.
  const Tensor x = values({3, 3}, {0.5f, 1.0f, 2.0f, 1.5f, 0.2f, 0.7f, 0.4f, 0.9f, 0.1f});
  auto r = gradcheck(
      [](Tape& t, const std::vector<Var>& in) {
        const Var y = relu(t, in[0]);
        return linear(t, y, y, Var());
      },
      {x}, {.step = 1e-3});
  INFO(r.worst);
  CHECK(r.ok);
}

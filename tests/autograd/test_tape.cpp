// The tape itself: recording, reverse walk, accumulation, no-grad, clear() and its arena.
#include <doctest/doctest.h>

#include <algorithm>

#include <vector>

#include "autograd/elementwise.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/matmul.hpp"
#include "autograd/reduce.hpp"
#include "autograd/tape.hpp"
#include "core/error.hpp"

using namespace empl;

TEST_CASE("matmul forward matches a product worked out by hand") {
  Tape tape;
  const Var a(Tensor::from({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Var b(Tensor::from({3, 2}, std::vector<float>{7, 8, 9, 10, 11, 12}));
  const Var y = matmul(tape, a, b);
  // [1 2 3; 4 5 6] · [7 8; 9 10; 11 12] = [58 64; 139 154]
  CHECK(y.shape() == Shape{2, 2});
  CHECK(y.value[0] == 58.0f);
  CHECK(y.value[1] == 64.0f);
  CHECK(y.value[2] == 139.0f);
  CHECK(y.value[3] == 154.0f);
  // Transposed flags: aᵀ·aᵀᵀ... (a is 2x3): aᵀ · a is [3,3]; its [0,0] is 1·1 + 4·4 = 17.
  const Var ata = matmul(tape, a, a, true, false);
  CHECK(ata.shape() == Shape{3, 3});
  CHECK(ata.value[0] == 17.0f);
}

TEST_CASE("matmul gradcheck for every transpose combination") {
  for (int flags = 0; flags < 4; ++flags) {
    const bool ta = flags & 1, tb = flags & 2;
    const Tensor a = Tensor::from(ta ? Shape{3, 2} : Shape{2, 3}, std::vector<float>{0.5f, -1.f, 2.f, 0.3f, 0.7f, -0.2f});
    const Tensor b = Tensor::from(tb ? Shape{4, 3} : Shape{3, 4},
                                  std::vector<float>{1, 2, 3, 4, -1, -2, -3, -4, 0.5f, 0.25f, 0.1f, 0.2f});
    const GradcheckResult result = gradcheck(
        [&](Tape& tape, const std::vector<Var>& x) { return matmul(tape, x[0], x[1], ta, tb); },
        {a, b});
    INFO("ta=", ta, " tb=", tb, " worst: ", result.worst);
    CHECK(result.ok);
  }
}

TEST_CASE("matmul shape error names the op and both shapes") {
  Tape tape;
  const Var a(Tensor::zeros({32, 128})), b(Tensor::zeros({64, 10}));
  CHECK_THROWS_WITH_AS(matmul(tape, a, b), doctest::Contains("inner dims 128 != 64"), Error);
  CHECK_THROWS_WITH_AS(matmul(tape, a, b), doctest::Contains("[32,128]"), Error);
}

TEST_CASE("a value used twice accumulates both gradients") {
  // y = x·x (as a 1x1 matmul) used again: z = y + y via matmul with a ones vector.
  Tape tape;
  Var x = make_leaf(Tensor::from({1, 1}, std::vector<float>{3.0f}));
  const Var y = matmul(tape, x, x);        // x²
  const Var z = matmul(tape, y, x);        // x³ : x used a third time
  tape.backward(z);
  CHECK(x.grad[0] == doctest::Approx(27.0f));  // d(x³)/dx = 3x² = 27
}

TEST_CASE("no-grad records nothing and backward then refuses") {
  Tape tape;
  Var w = make_leaf(Tensor::from({1, 1}, std::vector<float>{2.0f}));
  Tape::NoGrad no_grad(tape);
  const Var y = matmul(tape, w, w);
  CHECK(tape.node_count() == 0);
  CHECK_FALSE(y.requires_grad());
  CHECK_THROWS_AS(tape.backward(y), Error);
}

TEST_CASE("clear keeps the arena: the second step allocates no new buffer") {
  Tape tape;
  Var w = make_leaf(Tensor::full({4, 4}, 0.5f));
  const Var x(Tensor::full({8, 4}, 1.0f));
  size_t buffers_after_first = 0;
  for (int step = 0; step < 3; ++step) {
    const Var y = matmul(tape, x, w);
    const Var s = matmul(tape, matmul(tape, Var(Tensor::full({1, 8}, 1.0f)), y),
                         Var(Tensor::full({4, 1}, 1.0f)));
    tape.backward(s);
    if (step == 0) buffers_after_first = tape.arena_buffers();
    CHECK(tape.arena_buffers() == buffers_after_first);
    tape.clear();
    CHECK(tape.node_count() == 0);
  }
  // w was used once per step, its gradient accumulated over three steps: 3 · Σ_rows x = 3·8.
  CHECK(w.grad[0] == doctest::Approx(24.0f));
}

TEST_CASE("a reused tape gives the same gradients: each intermediate starts from zero") {
  // The arena hands each step the buffers holding the last step's gradients (Note [fresh
  // gradients]): y is consumed twice, and the reshape inside sum shares a buffer. `unused` is in
  // the loss on step 0 only, so that from step 1 on its gradient buffer holds old non-zero values
  // and must be zeroed although nothing consumes it.
  Tape tape;
  Var w = make_leaf(Tensor::from({2, 2}, std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f}));
  const Var x(Tensor::from({3, 2}, std::vector<float>{1, 2, -3, 4, 5, -6}));
  // The reference: the loss of steps 1-3 on a fresh tape, whose buffers have never held anything.
  std::vector<float> reference;
  {
    Tape fresh;
    const Var y = relu(fresh, matmul(fresh, x, w));
    w.grad.zero();
    fresh.backward(sum(fresh, mul(fresh, y, add(fresh, y, x))));
    reference.assign(w.grad.values().begin(), w.grad.values().end());
  }
  CHECK(std::any_of(reference.begin(), reference.end(), [](float g) { return g != 0.0f; }));
  for (int step = 0; step < 4; ++step) {
    const Var y = relu(tape, matmul(tape, x, w));
    const Var unused = exp(tape, y);
    Var loss = sum(tape, mul(tape, y, add(tape, y, x)));
    if (step == 0) loss = add(tape, loss, sum(tape, unused));
    w.grad.zero();
    tape.backward(loss);
    const std::vector<float> grad(w.grad.values().begin(), w.grad.values().end());
    if (step > 0) CHECK(grad == reference);
    if (step > 0)
      for (float g : unused.grad.values()) CHECK(g == 0.0f);
    tape.clear();
  }
}

TEST_CASE("backward refuses a loss with more than one element") {
  Tape tape;
  Var w = make_leaf(Tensor::full({2, 2}, 1.0f));
  const Var y = matmul(tape, w, w);
  CHECK_THROWS_WITH_AS(tape.backward(y), doctest::Contains("[2,2]"), Error);
}

namespace {

// y = 1e-3·x elementwise, whose backward is 10% too large: the size of error a dropped factor or
// a wrong τ gives in a loss gradient of size 1/(B·N).
void scaled_backward_too_large(Node& node) {
  for (int64_t i = 0; i < node.output.grad.numel(); ++i) node.inputs[0].grad[i] += 1.1e-3f * node.output.grad[i];
}

Var scaled_with_wrong_gradient(Tape& tape, const Var& x) {
  Var y = tape.make_output(x.shape(), {&x});
  for (int64_t i = 0; i < x.value.numel(); ++i) y.value[i] = 1e-3f * x.value[i];
  tape.record("scaled_with_wrong_gradient", scaled_backward_too_large, y, {&x});
  return y;
}

}  // namespace

TEST_CASE("gradcheck catches a 10% error in a gradient of size 1e-3 (its floor scales with the gradient)") {
  const Tensor x = Tensor::from({2, 3}, std::vector<float>{0.5f, -1.0f, 2.0f, 0.3f, 0.8f, -0.2f});
  const auto wrong = gradcheck([](Tape& t, const std::vector<Var>& in) { return scaled_with_wrong_gradient(t, in[0]); }, {x});
  INFO(wrong.worst);
  CHECK_FALSE(wrong.ok);
  // The same op with the right gradient passes: the floor is not so tight that round-off fails it.
  const auto right = gradcheck([](Tape& t, const std::vector<Var>& in) { return mul_scalar(t, in[0], 1e-3f); }, {x});
  INFO(right.worst);
  CHECK(right.ok);
}

// Elementwise ops: values worked out by hand, a gradcheck for each, broadcasting, errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "autograd/elementwise.hpp"
#include "autograd/gradcheck.hpp"
#include "core/elementwise.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

using namespace empl;

namespace {

Tensor values(Shape shape, std::vector<float> v) { return Tensor::from(shape, v); }

using UnaryFn = Var (*)(Tape&, const Var&);
using BinaryFn = Var (*)(Tape&, const Var&, const Var&);

}  // namespace

TEST_CASE("unary ops: forward values by hand") {
  Tape tape;
  const Var x(values({1, 4}, {-2.0f, -0.5f, 0.5f, 4.0f}));
  const Var positive(values({1, 3}, {0.25f, 1.0f, 4.0f}));
  auto at = [](const Var& v, int i) { return v.value[i]; };
  CHECK(at(neg(tape, x), 0) == 2.0f);
  CHECK(at(abs(tape, x), 1) == 0.5f);
  CHECK(at(relu(tape, x), 0) == 0.0f);
  CHECK(at(relu(tape, x), 3) == 4.0f);
  CHECK(at(exp(tape, x), 2) == doctest::Approx(1.6487213f));   // e^0.5
  CHECK(at(log(tape, positive), 2) == doctest::Approx(1.3862944f));  // ln 4
  CHECK(at(sqrt(tape, positive), 0) == 0.5f);
  CHECK(at(sigmoid(tape, x), 0) == doctest::Approx(0.11920292f));  // 1/(1+e²)
  CHECK(at(softplus(tape, x), 3) == doctest::Approx(4.01814993f));  // ln(1+e⁴)
  CHECK(at(step(tape, x), 1) == 0.0f);
  CHECK(at(step(tape, Var(values({1}, {0.0f}))), 0) == 1.0f);  // 1[x ≥ 0] includes 0
  CHECK(at(sign(tape, x), 0) == -1.0f);
  CHECK(at(clamp(tape, x, -1.0f, 1.0f), 0) == -1.0f);
  CHECK(at(clamp(tape, x, -1.0f, 1.0f), 2) == 0.5f);
}

TEST_CASE("softplus and sigmoid stay finite and exact for large |x|") {
  Tape tape;
  const Var x(values({1, 2}, {-100.0f, 100.0f}));
  const Var sp = softplus(tape, x);
  // e^−100 = 3.72e-44 is a float32 denormal, 26.5 steps of 1.4e-45: exact to one step (4%), and
  // relative (.scale(0)): an absolute ±0.01 would pass 0 or any small number.
  CHECK(sp.value[0] > 0.0f);
  CHECK(sp.value[0] == doctest::Approx(3.7200759e-44).epsilon(0.04).scale(0));
  CHECK(sp.value[1] == 100.0f);
  const Var s = sigmoid(tape, x);
  CHECK(s.value[0] >= 0.0f);
  CHECK(s.value[1] == 1.0f);
}

TEST_CASE("unary ops: gradcheck of each") {
  const Tensor x = values({2, 3}, {-1.3f, -0.4f, 0.3f, 0.8f, 1.7f, -2.2f});
  const Tensor positive = values({2, 3}, {0.3f, 0.8f, 1.7f, 2.2f, 0.6f, 1.1f});
  const std::vector<std::pair<const char*, UnaryFn>> ops = {
      {"neg", neg}, {"exp", exp}, {"abs", abs}, {"relu", relu}, {"sigmoid", sigmoid}, {"softplus", softplus}};
  for (const auto& [name, op] : ops) {
    const auto result = gradcheck([op = op](Tape& t, const std::vector<Var>& in) { return op(t, in[0]); }, {x});
    INFO(name, ": ", result.worst);
    CHECK(result.ok);
  }
  for (const auto& [name, op] : std::vector<std::pair<const char*, UnaryFn>>{{"log", log}, {"sqrt", sqrt}}) {
    const auto result = gradcheck([op = op](Tape& t, const std::vector<Var>& in) { return op(t, in[0]); }, {positive},
                                  {.step = 1e-3});
    INFO(name, ": ", result.worst);
    CHECK(result.ok);
  }
  const auto clamped = gradcheck([](Tape& t, const std::vector<Var>& in) { return clamp(t, in[0], -1.0f, 1.0f); }, {x});
  CHECK(clamped.ok);
  for (auto scalar : {add_scalar, sub_scalar, mul_scalar, div_scalar}) {
    const auto result = gradcheck([scalar](Tape& t, const std::vector<Var>& in) { return scalar(t, in[0], 2.5f); }, {x});
    CHECK(result.ok);
  }
}

TEST_CASE("step and sign pass no gradient and record nothing") {
  Tape tape;
  Var x = make_leaf(values({1, 2}, {-1.0f, 2.0f}));
  const Var s = step(tape, x);
  CHECK_FALSE(s.requires_grad());
  CHECK(tape.node_count() == 0);
}

TEST_CASE("binary ops: values with a row and a column broadcast") {
  Tape tape;
  const Var a(values({2, 3}, {1, 2, 3, 4, 5, 6}));
  const Var row(values({1, 3}, {10, 20, 30}));
  const Var column(values({2, 1}, {2, 4}));
  const Var sum = add(tape, a, row);          // [11 22 33; 14 25 36]
  CHECK(sum.value[4] == 25.0f);
  const Var quotient = div(tape, a, column);  // [0.5 1 1.5; 1 1.25 1.5]
  CHECK(quotient.value[4] == 1.25f);
  const Var big = maximum(tape, a, Var(values({3}, {2, 2, 2})));  // [2 2 3; 4 5 6]
  CHECK(big.value[0] == 2.0f);
  CHECK(big.value[5] == 6.0f);
  CHECK(minimum(tape, a, column).value[3] == 4.0f);
  CHECK(sub(tape, a, a).value[2] == 0.0f);
  CHECK(mul(tape, a, row).value[5] == 180.0f);
  // Rank 3 [B, V, F] with a [1, F] row.
  const Var cube(Tensor::full({2, 2, 3}, 1.0f));
  CHECK(add(tape, cube, row).value[11] == 31.0f);
}

TEST_CASE("binary ops: gradcheck for same-shape, row and column operands") {
  const Tensor a = values({2, 3}, {0.5f, -1.2f, 2.0f, 0.7f, 1.4f, -0.3f});
  const Tensor same = values({2, 3}, {1.5f, 0.6f, -0.9f, 1.1f, -1.3f, 0.8f});
  const Tensor row = values({1, 3}, {0.9f, -1.6f, 1.2f});
  const Tensor column = values({2, 1}, {1.3f, -0.7f});
  const std::vector<std::pair<const char*, BinaryFn>> ops = {
      {"add", add}, {"sub", sub}, {"mul", mul}, {"div", div}, {"maximum", maximum}, {"minimum", minimum}};
  for (const auto& [name, op] : ops) {
    for (const Tensor& b : {same, row, column}) {
      const auto result = gradcheck([op = op](Tape& t, const std::vector<Var>& in) { return op(t, in[0], in[1]); },
                                    {a, b}, {.step = 1e-3});
      INFO(name, " with b ", b.shape(), ": ", result.worst);
      CHECK(result.ok);
    }
  }
}

TEST_CASE("binary ops refuse shapes that do not broadcast, naming both") {
  Tape tape;
  const Var a(Tensor::zeros({2, 3})), b(Tensor::zeros({3, 2}));
  CHECK_THROWS_WITH_AS(add(tape, a, b), doctest::Contains("add: a is [2,3], b is [3,2]"), Error);
  CHECK_THROWS_AS(mul(tape, a, Var(Tensor::zeros({1, 2}))), Error);
  CHECK_THROWS_AS(clamp(tape, a, 1.0f, -1.0f), Error);
}

TEST_CASE("reuse: y = x * x + x gives dx = 2x + 1") {
  Tape tape;
  Var x = make_leaf(values({1, 3}, {-1.0f, 0.5f, 3.0f}));
  const Var y = add(tape, mul(tape, x, x), x);
  tape.backward(y, Tensor::full({1, 3}, 1.0f));
  CHECK(x.grad[0] == -1.0f);
  CHECK(x.grad[1] == 2.0f);
  CHECK(x.grad[2] == 7.0f);
}

TEST_CASE("elementwise kernels are bit-identical at 1 and 2 threads") {
  const int before = num_threads();
  Tensor x = Tensor::empty({100000});
  for (int64_t i = 0; i < x.numel(); ++i) x[i] = std::sin(0.001f * i) * 5.0f;
  Tensor one = Tensor::empty({100000}), two = Tensor::empty({100000});
  set_num_threads(1);
  unary(Unary::Softplus, x, one);
  set_num_threads(2);
  unary(Unary::Softplus, x, two);
  set_num_threads(before);
  CHECK(std::equal(one.values().begin(), one.values().end(), two.values().begin()));
}

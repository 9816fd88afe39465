// Reductions, row operations (cumsum, softmax, log-softmax), concat and slices: values by hand,
// gradchecks, edge cases (one column, large logits, rank 3), errors, thread-count invariance.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/concat.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/reduce.hpp"
#include "autograd/rowwise.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reduce.hpp"

using namespace empl;

namespace {
Tensor values(Shape shape, std::vector<float> v) { return Tensor::from(shape, v); }
const Tensor kMatrix = values({2, 3}, {0.5f, -1.2f, 2.0f, 0.7f, 1.4f, -0.3f});
}  // namespace

TEST_CASE("sum, mean and max over all and over an axis, by hand") {
  Tape tape;
  const Var x(values({2, 3}, {1, 2, 3, 4, 5, 6}));
  CHECK(sum(tape, x).value.item() == 21.0f);
  CHECK(mean(tape, x).value.item() == 3.5f);
  CHECK(max(tape, x).value.item() == 6.0f);
  const Var rows = sum(tape, x, 1);  // [6; 15]
  CHECK(rows.shape() == Shape{2, 1});
  CHECK(rows.value[1] == 15.0f);
  const Var cols = mean(tape, x, 0);  // [2.5 3.5 4.5]
  CHECK(cols.shape() == Shape{1, 3});
  CHECK(cols.value[2] == 4.5f);
  CHECK(max(tape, x, -1).value[0] == 3.0f);
  const Var cube(Tensor::full({2, 3, 4}, 1.0f));
  CHECK(sum(tape, cube, 1).shape() == Shape{2, 1, 4});
  CHECK(sum(tape, cube, 1).value[0] == 3.0f);
}

TEST_CASE("reductions: gradcheck over all and every axis") {
  using Fn = Var (*)(Tape&, const Var&, int);
  for (Fn op : {static_cast<Fn>(sum), static_cast<Fn>(mean), static_cast<Fn>(max)})
    for (int axis : {0, 1, -1}) {
      const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return op(t, in[0], axis); }, {kMatrix});
      INFO("axis ", axis, ": ", r.worst);
      CHECK(r.ok);
    }
  using AllFn = Var (*)(Tape&, const Var&);
  for (AllFn op : {static_cast<AllFn>(sum), static_cast<AllFn>(mean), static_cast<AllFn>(max)}) {
    const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return op(t, in[0]); }, {kMatrix});
    CHECK(r.ok);
  }
  const Tensor cube = Tensor::from({2, 2, 2}, std::vector<float>{0.1f, 0.9f, -0.4f, 0.3f, 1.2f, -0.8f, 0.6f, 0.2f});
  const auto r = gradcheck([](Tape& t, const std::vector<Var>& in) { return sum(t, in[0], 1); }, {cube});
  CHECK(r.ok);
}

TEST_CASE("a bad axis is refused with the shape in the message") {
  Tape tape;
  CHECK_THROWS_WITH_AS(sum(tape, Var(kMatrix), 2), doctest::Contains("[2,3]"), Error);
  CHECK_THROWS_AS(mean(tape, Var(kMatrix), -3), Error);
}

TEST_CASE("a sum over a million elements is bit-identical at 1 and 2 threads") {
  const int before = num_threads();
  Tensor x = Tensor::empty({1000000});
  for (int64_t i = 0; i < x.numel(); ++i) x[i] = std::sin(0.37f * i);
  set_num_threads(1);
  const double one = sum_all(x);
  set_num_threads(2);
  const double two = sum_all(x);
  set_num_threads(before);
  CHECK(one == two);
}

TEST_CASE("cumsum, softmax and log-softmax by hand") {
  Tape tape;
  const Var x(values({2, 3}, {1, 2, 3, 0, 0, 0}));
  const Var c = cumsum(tape, x);  // [1 3 6; 0 0 0]
  CHECK(c.value[2] == 6.0f);
  const Var s = softmax(tape, x);  // row 1: e^{1,2,3}/(e+e²+e³) = [0.0900, 0.2447, 0.6652]; row 2: 1/3
  CHECK(s.value[0] == doctest::Approx(0.09003057f));
  CHECK(s.value[2] == doctest::Approx(0.66524096f));
  CHECK(s.value[4] == doctest::Approx(1.0f / 3));
  const Var l = log_softmax(tape, x);
  CHECK(l.value[2] == doctest::Approx(std::log(0.66524096f)));
}

TEST_CASE("row operations: one column, large logits, rank 3") {
  Tape tape;
  const Var column(values({3, 1}, {5.0f, -2.0f, 1e4f}));
  const Var s = softmax(tape, column);
  for (int i = 0; i < 3; ++i) CHECK(s.value[i] == 1.0f);
  CHECK(cumsum(tape, column).value[1] == -2.0f);
  const Var large(values({1, 3}, {1e4f, -1e4f, 1e4f - 1.0f}));
  const Var ls = log_softmax(tape, large);
  const Var ss = softmax(tape, large);
  for (int i = 0; i < 3; ++i) {
    CHECK(std::isfinite(ls.value[i]));
    CHECK(std::isfinite(ss.value[i]));
  }
  CHECK(ss.value[0] == doctest::Approx(0.7310586f));  // 1/(1 + e^−1)
  CHECK(ss.value[1] == 0.0f);
  const Var cube(Tensor::full({2, 2, 4}, 1.0f));
  CHECK(softmax(tape, cube).value[7] == 0.25f);
  CHECK(cumsum(tape, cube).value[7] == 4.0f);
}

TEST_CASE("row operations: gradchecks") {
  for (auto op : {cumsum, softmax, log_softmax}) {
    const auto r = gradcheck([op](Tape& t, const std::vector<Var>& in) { return op(t, in[0]); }, {kMatrix});
    INFO(r.worst);
    CHECK(r.ok);
  }
  // The composition the EMPL uses: logits -> softmax -> cumsum.
  const auto r = gradcheck([](Tape& t, const std::vector<Var>& in) { return cumsum(t, softmax(t, in[0])); }, {kMatrix});
  CHECK(r.ok);
}

TEST_CASE("concat and slice_columns: values, gradients and errors") {
  Tape tape;
  const Var a(values({2, 2}, {1, 2, 3, 4})), b(values({2, 1}, {9, 8}));
  const Var ab = concat(tape, a, b);  // [1 2 9; 3 4 8]
  CHECK(ab.shape() == Shape{2, 3});
  CHECK(ab.value[2] == 9.0f);
  CHECK(ab.value[5] == 8.0f);
  const Var abc = concat(tape, a, b, a);
  CHECK(abc.shape() == Shape{2, 5});
  CHECK(abc.value[9] == 4.0f);
  const Var middle = slice_columns(tape, ab, 1, 3);  // [2 9; 4 8]
  CHECK(middle.value[3] == 8.0f);
  const auto rc = gradcheck([](Tape& t, const std::vector<Var>& in) { return concat(t, in[0], in[1]); },
                            {kMatrix, values({2, 1}, {0.3f, -0.6f})});
  CHECK(rc.ok);
  const auto rs = gradcheck([](Tape& t, const std::vector<Var>& in) { return slice_columns(t, in[0], 1, 3); }, {kMatrix});
  CHECK(rs.ok);
  CHECK_THROWS_WITH_AS(concat(tape, a, Var(Tensor::zeros({3, 1}))), doctest::Contains("[3,1]"), Error);
  CHECK_THROWS_AS(slice_columns(tape, a, 1, 3), Error);
}

// layers/cheb_conv and layers/healpix_pool: values by hand, gradchecks, shape errors, 1 vs 2
// threads; batch norm over batch × nodes on the node-major layout.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "autograd/elementwise.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/reduce.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "graph/laplacian.hpp"
#include "layers/batch_norm.hpp"
#include "layers/cheb_conv.hpp"
#include "layers/healpix_pool.hpp"

using namespace empl;

namespace {

Tensor values(Shape shape, std::vector<float> v) { return Tensor::from(shape, v); }

Tensor random_tensor(const Shape& shape, uint64_t stream, float std = 1.0f) {
  Tensor t = Tensor::empty(shape);
  fill_normal(t, 0.0f, std, 11, stream);
  return t;
}

// A path of 3 nodes with L̃ = [[0 .5 0] [.5 0 .5] [0 .5 0]]: small enough to work by hand.
CsrMatrix<float> path3() {
  CsrMatrix<float> l;
  l.rows = 3;
  l.indptr = {0, 1, 3, 4};
  l.indices = {1, 0, 2, 1};
  l.values = {0.5f, 0.5f, 0.5f, 0.5f};
  return l;
}

int count_differences(const Tensor& a, const Tensor& b) {
  int differ = 0;
  for (int64_t i = 0; i < a.numel(); ++i) differ += a[i] != b[i];
  return differ;
}

}  // namespace

TEST_CASE("cheb_conv forward by hand on a 3-node path") {
  const CsrMatrix<float> l = path3();
  Tape tape;
  // x = [1 2 3] (V = 3, B = 1, F = 1): T0 = [1 2 3], T1 = L̃x = [1 2 1],
  // T2 = 2·L̃·T1 − T0 = 2·[1 1 1] − [1 2 3] = [1 0 −1];  W = [1 10 100], b = 0.5:
  // y = T0 + 10·T1 + 100·T2 + 0.5 = [111.5 22.5 −86.5].
  const Var x(values({3, 1, 1}, {1, 2, 3}));
  const Var w(values({3, 1}, {1, 10, 100}));
  const Var b(values({1, 1}, {0.5f}));
  const Var y = cheb_conv(tape, x, l, w, b);
  CHECK(y.shape() == Shape{3, 1, 1});
  CHECK(y.value[0] == 111.5f);
  CHECK(y.value[1] == 22.5f);
  CHECK(y.value[2] == -86.5f);
  // Two batch entries and two output features: entry 1 is 10·entry 0, feature 1 has W = [0 1 0].
  const Var x2(values({3, 2, 1}, {1, 10, 2, 20, 3, 30}));
  const Var w2(values({3, 2}, {1, 0, 10, 1, 100, 0}));
  const Var y2 = cheb_conv(tape, x2, l, w2, Var());
  CHECK(y2.value[0] == 111.0f);   // node 0, batch 0, feature 0
  CHECK(y2.value[2] == 1110.0f);  // node 0, batch 1, feature 0
  CHECK(y2.value[3] == 10.0f);    // node 0, batch 1, feature 1: (L̃x)_0 = ½·20 = 10
  CHECK(y2.value[10] == -870.0f); // node 2, batch 1, feature 0: 10·(3 + 10 − 100)
}

TEST_CASE("cheb_conv gradchecks: inputs, weights, bias; K = 1, 2, 4; leaf and intermediate input") {
  const GraphLevel level = build_graph_level(2);  // 4 nodes, a real L̃
  const CsrMatrix<float>& l = level.laplacian;
  for (const int64_t order : {1, 2, 4}) {
    const Tensor x = random_tensor({4, 2, 3}, 1), w = random_tensor({order * 3, 2}, 2, 0.5f);
    const Tensor b = random_tensor({1, 2}, 3);
    INFO("K = ", order);
    const auto r = gradcheck([&](Tape& t, const std::vector<Var>& in) { return cheb_conv(t, in[0], l, in[1], in[2]); },
                             {x, w, b});
    CHECK_MESSAGE(r.ok, r.worst);
    // x made on the tape: its gradient arrives fresh and is assigned (Note [fresh gradients]).
    const auto fresh = gradcheck(
        [&](Tape& t, const std::vector<Var>& in) { return cheb_conv(t, mul_scalar(t, in[0], 1.5f), l, in[1], Var()); },
        {x, w});
    CHECK_MESSAGE(fresh.ok, fresh.worst);
  }
}

TEST_CASE("cheb_conv: a shape error names both shapes; ChebConv initialises within 2 sigma") {
  const GraphLevel level = build_graph_level(2);
  Tape tape;
  const Var x(Tensor::zeros({5, 2, 3})), w(Tensor::zeros({9, 2}));
  CHECK_THROWS_WITH_AS(cheb_conv(tape, x, level.laplacian, w, Var()), doctest::Contains("x is [5,2,3], weight is [9,2]"),
                       Error);
  const Var w_bad(Tensor::zeros({8, 2}));
  CHECK_THROWS_WITH_AS(cheb_conv(tape, Var(Tensor::zeros({4, 2, 3})), level.laplacian, w_bad, Var()),
                       doctest::Contains("weight is [8,2]"), Error);
  ChebConv conv(level.laplacian, 5, 32, 16, {.seed = 3});
  CHECK(conv.weight.shape() == Shape{160, 16});
  const double std = 1.0 / std::sqrt(32.0 * 5.5 / 2.0);
  double sum2 = 0.0, largest = 0.0;
  for (const float v : conv.weight.value.values()) {
    sum2 += static_cast<double>(v) * v;
    largest = std::max(largest, std::abs(static_cast<double>(v)));
  }
  CHECK(largest <= 2.0 * std);
  CHECK(largest > 1.9 * std);  // 2560 draws reach near the cut
  // A normal truncated at ±2σ has variance 0.774·σ²; 2560 draws give it to about ±3%.
  CHECK(sum2 / 2560.0 == doctest::Approx(0.774 * std * std).epsilon(0.06));
}

TEST_CASE("cheb_conv: forward and all gradients have the same bits on 1 and 2 threads") {
  const GraphLevel level = build_graph_level(32);  // 1024 nodes: several chunks per product
  const Tensor x = random_tensor({1024, 4, 8}, 4), w = random_tensor({5 * 8, 16}, 5, 0.2f), b = random_tensor({1, 16}, 6);
  const auto run = [&](int threads) {
    set_num_threads(threads);
    Tape tape;
    Var xv = make_leaf(x), wv = make_leaf(w), bv = make_leaf(b);
    const Var y = cheb_conv(tape, xv, level.laplacian, wv, bv);
    tape.backward(sum(tape, mul(tape, y, y)));
    return std::vector<Tensor>{y.value.clone(), xv.grad.clone(), wv.grad.clone(), bv.grad.clone()};
  };
  const int before = num_threads();
  const std::vector<Tensor> one = run(1), two = run(2);
  set_num_threads(before);
  for (size_t i = 0; i < one.size(); ++i) CHECK(count_differences(one[i], two[i]) == 0);
}

TEST_CASE("healpix_pool max and mean by hand") {
  Tape tape;
  // V = 8 (2 coarse nodes), B = 1, F = 2.
  const Var x(values({8, 1, 2}, {1, 8, 4, 5, 2, 6, 3, 7, -1, -5, -4, -6, -2, -7, -3, -8}));
  const Var m = healpix_pool(tape, x, PoolMode::Max);
  CHECK(m.shape() == Shape{2, 1, 2});
  CHECK(m.value[0] == 4.0f);
  CHECK(m.value[1] == 8.0f);
  CHECK(m.value[2] == -1.0f);
  CHECK(m.value[3] == -5.0f);
  const Var a = healpix_pool(tape, x, PoolMode::Mean);
  CHECK(a.value[0] == 2.5f);
  CHECK(a.value[1] == 6.5f);
  CHECK(a.value[2] == -2.5f);
  CHECK(a.value[3] == -6.5f);
}

TEST_CASE("healpix_pool gradchecks, shape error, 1 vs 2 threads") {
  // Distinct values, far apart compared with the step, so no max changes hands.
  std::vector<float> v(16 * 2 * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % v.size()) * 0.1f - 4.0f;
  const Tensor x = values({16, 2, 3}, v);
  for (const PoolMode mode : {PoolMode::Max, PoolMode::Mean}) {
    const auto leaf = gradcheck([&](Tape& t, const std::vector<Var>& in) { return healpix_pool(t, in[0], mode); }, {x});
    CHECK_MESSAGE(leaf.ok, leaf.worst);
    const auto fresh = gradcheck(
        [&](Tape& t, const std::vector<Var>& in) { return healpix_pool(t, mul_scalar(t, in[0], 2.0f), mode); }, {x});
    CHECK_MESSAGE(fresh.ok, fresh.worst);
  }
  Tape tape;
  CHECK_THROWS_WITH_AS(healpix_pool(tape, Var(Tensor::zeros({6, 1, 1})), PoolMode::Max), doctest::Contains("[6,1,1]"),
                       Error);
  const Tensor big = random_tensor({4096, 4, 8}, 7);
  const auto run = [&](int threads, PoolMode mode) {
    set_num_threads(threads);
    Tape t;
    Var xv = make_leaf(big);
    const Var y = healpix_pool(t, xv, mode);
    t.backward(sum(t, mul(t, y, y)));
    return std::vector<Tensor>{y.value.clone(), xv.grad.clone()};
  };
  const int before = num_threads();
  for (const PoolMode mode : {PoolMode::Max, PoolMode::Mean}) {
    const std::vector<Tensor> one = run(1, mode), two = run(2, mode);
    CHECK(count_differences(one[0], two[0]) == 0);
    CHECK(count_differences(one[1], two[1]) == 0);
  }
  set_num_threads(before);
}

TEST_CASE("batch norm over batch x nodes: BatchNorm1d on the node-major [V, B, F] as it stands") {
  // Each feature is normalised over all V·B rows: mean 0 and biased variance 1/(1 + eps/σ²).
  BatchNorm1d bn(3, {.momentum = 0.1f, .eps = 1e-5f, .affine = false});
  Tape tape;
  Tensor x = random_tensor({16, 4, 3}, 8);
  for (int64_t i = 0; i < x.numel(); ++i) x[i] = x[i] * static_cast<float>(1 + i % 3) + static_cast<float>(i % 7);
  const Var y = bn.forward(tape, Var(x));
  for (int64_t f = 0; f < 3; ++f) {
    double mean = 0.0, square = 0.0;
    for (int64_t r = 0; r < 64; ++r) mean += y.value[r * 3 + f];
    mean /= 64.0;
    for (int64_t r = 0; r < 64; ++r) square += (y.value[r * 3 + f] - mean) * (y.value[r * 3 + f] - mean);
    CHECK(std::abs(mean) < 1e-6);
    CHECK(square / 64.0 == doctest::Approx(1.0).epsilon(1e-4));
  }
  const auto r = gradcheck(
      [](Tape& t, const std::vector<Var>& in) {
        BatchNorm1d norm(3, {.affine = false});
        return norm.forward(t, in[0]);
      },
      {random_tensor({8, 2, 3}, 9)});
  CHECK_MESSAGE(r.ok, r.worst);
}

TEST_CASE("cheb_conv and healpix_pool: fresh gradients assigned, reused arena, and a second use accumulated") {
  const GraphLevel level = build_graph_level(4);  // 16 nodes
  const Tensor x = random_tensor({16, 2, 3}, 10), w = random_tensor({3 * 3, 3}, 11, 0.5f);
  // x2 is used twice: the later op's backward assigns its (fresh) gradient, the earlier one must add.
  const auto twice = gradcheck(
      [&](Tape& t, const std::vector<Var>& in) {
        const Var x2 = mul_scalar(t, in[0], 1.5f);
        return add(t, cheb_conv(t, x2, level.laplacian, in[1], Var()), x2);
      },
      {x, w});
  CHECK_MESSAGE(twice.ok, twice.worst);
  const auto pools = gradcheck(
      [&](Tape& t, const std::vector<Var>& in) {
        const Var x2 = mul_scalar(t, in[0], 1.5f);
        return add(t, healpix_pool(t, x2, PoolMode::Max), healpix_pool(t, x2, PoolMode::Mean));
      },
      {x});
  CHECK_MESSAGE(pools.ok, pools.worst);
  // The same step twice on one tape: the second finds last step's numbers in its arena buffers,
  // and a fresh gradient that were added to instead of assigned would show them.
  Tape tape;
  std::vector<Tensor> grads;
  for (int step = 0; step < 2; ++step) {
    Var xv = make_leaf(x), wv = make_leaf(w);
    const Var x2 = mul_scalar(tape, xv, 1.5f);
    const Var y = healpix_pool(tape, cheb_conv(tape, x2, level.laplacian, wv, Var()), PoolMode::Max);
    const Var z = healpix_pool(tape, mul_scalar(tape, x2, 1.0f), PoolMode::Mean);
    tape.backward(add(tape, sum(tape, mul(tape, y, y)), sum(tape, z)));
    grads.push_back(xv.grad.clone());
    tape.clear();
  }
  CHECK(count_differences(grads[0], grads[1]) == 0);
}

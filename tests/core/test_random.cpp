// The random-number engine: addressing by (seed, stream, index), exactness of each distribution
// (moments and chi-square goodness of fit with fixed seeds), thread-count independence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"

using namespace empl;

namespace {

struct Moments {
  double mean = 0, variance = 0;
};

template <typename Draw>
Moments moments(int64_t samples, Draw&& draw) {
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < samples; ++i) {
    const double x = draw(i);
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / samples;
  return {mean, sum_sq / samples - mean * mean};
}

// Pearson's chi-square of observed counts against expected probabilities (cells with expected
// count < 5 are pooled into their neighbour).
double chi_square(const std::vector<int64_t>& observed, const std::vector<double>& probability,
                  int64_t samples, int* degrees) {
  double statistic = 0, pooled_observed = 0, pooled_expected = 0;
  *degrees = -1;
  for (size_t k = 0; k < observed.size(); ++k) {
    pooled_observed += observed[k];
    pooled_expected += probability[k] * samples;
    if (pooled_expected >= 5 || k + 1 == observed.size()) {
      statistic += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
      pooled_observed = pooled_expected = 0;
      ++*degrees;
    }
  }
  return statistic;
}

double binomial_pmf(int64_t k, int64_t n, double p) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                  k * std::log(p) + (n - k) * std::log1p(-p));
}

}  // namespace

TEST_CASE("the same (seed, stream, index) gives the same numbers, any change gives others") {
  Rng a(7, 3, 11), b(7, 3, 11), other_stream(7, 4, 11), other_index(7, 3, 12), other_seed(8, 3, 11);
  const uint64_t first = a.next_u64();
  CHECK(first == b.next_u64());
  CHECK(first != other_stream.next_u64());
  CHECK(first != other_index.next_u64());
  CHECK(first != other_seed.next_u64());
}

TEST_CASE("uniform and normal have the right moments") {
  // 200,000 samples: the standard error of a U(0,1) mean is 0.29/447 = 6.5e-4; tolerances are
  // about 5 standard errors, so a fixed seed passes by a wide margin. doctest's Approx(x).epsilon(e)
  // allows e·(1 + |x|), an absolute ±e for |x| < 1: relative checks below say .scale(0).
  Rng rng(1);
  const Moments u = moments(200000, [&](int64_t) { return rng.uniform(); });
  CHECK(std::abs(u.mean - 0.5) < 0.0035);
  // The variance's standard error: sqrt((1/80 − 1/144)/200000) = 1.7e-4, 0.2% of 1/12.
  CHECK(u.variance == doctest::Approx(1.0 / 12).epsilon(0.01).scale(0));
  const Moments z = moments(200000, [&](int64_t) { return rng.normal_double(); });
  CHECK(std::abs(z.mean) < 0.011);
  CHECK(z.variance == doctest::Approx(1.0).epsilon(0.02).scale(0));  // standard error sqrt(2/200000) = 0.3%
  // Tails: P(|Z| > 2) = 0.0455; with 200,000 draws the standard error is 4.7e-4: 5 of them.
  Rng tails(2);
  int64_t beyond = 0;
  for (int i = 0; i < 200000; ++i) beyond += std::abs(tails.normal_double()) > 2.0;
  CHECK(std::abs(beyond / 200000.0 - 0.0455) < 0.0024);
  for (int i = 0; i < 1000; ++i) {
    const float x = rng.uniform(-2.0f, 3.0f);
    CHECK((x >= -2.0f && x < 3.0f));
  }
}

TEST_CASE("uniform_int is unbiased over a range that does not divide 2^64") {
  Rng rng(3);
  std::vector<int64_t> counts(7, 0);
  for (int i = 0; i < 70000; ++i) ++counts[rng.uniform_int(7)];
  int degrees = 0;
  const double statistic = chi_square(counts, std::vector<double>(7, 1.0 / 7), 70000, &degrees);
  CHECK(degrees == 6);
  CHECK(statistic < 22.5);  // the 0.999 quantile of chi-square with 6 degrees of freedom
  CHECK_THROWS_AS(rng.uniform_int(0), Error);
}

TEST_CASE("Poisson: moments at small and large means, and a chi-square fit") {
  for (const double mean : {0.5, 5.0, 50.0, 5000.0}) {
    Rng rng(4, static_cast<uint64_t>(mean));
    const Moments m = moments(100000, [&](int64_t) { return static_cast<double>(rng.poisson(mean)); });
    // Standard error of the mean: sqrt(mean / 1e5); allow 5 of them (and 3% on the variance).
    CHECK(std::abs(m.mean - mean) < 5 * std::sqrt(mean / 1e5));
    CHECK(m.variance == doctest::Approx(mean).epsilon(0.03).scale(0));
  }
  // Goodness of fit at mean 30 (the PTRS branch): cells 0..80.
  Rng rng(5);
  std::vector<int64_t> counts(81, 0);
  for (int i = 0; i < 100000; ++i) ++counts[std::min<int64_t>(80, rng.poisson(30.0))];
  std::vector<double> probability(81);
  for (int k = 0; k <= 80; ++k) probability[k] = std::exp(-30.0 + k * std::log(30.0) - std::lgamma(k + 1.0));
  int degrees = 0;
  const double statistic = chi_square(counts, probability, 100000, &degrees);
  // Mean of chi-square is its degrees of freedom, sd sqrt(2·dof): allow dof + 5 sd.
  CHECK(statistic < degrees + 5 * std::sqrt(2.0 * degrees));
  CHECK_THROWS_WITH_AS(rng.poisson(-1.0), doctest::Contains("-1"), Error);
}

TEST_CASE("binomial: moments in both regimes and chi-square fits of the pmf") {
  struct Case {
    int64_t n;
    double p;
  };
  for (const Case c : {Case{10, 0.3}, Case{1000, 0.2}, Case{5000, 0.6}, Case{100000, 0.001}}) {
    Rng rng(6, static_cast<uint64_t>(c.n));
    const Moments m = moments(100000, [&](int64_t) { return static_cast<double>(rng.binomial(c.n, c.p)); });
    const double mean = c.n * c.p, variance = c.n * c.p * (1 - c.p);
    CHECK(std::abs(m.mean - mean) < 5 * std::sqrt(variance / 1e5));
    CHECK(m.variance == doctest::Approx(variance).epsilon(0.03).scale(0));
  }
  // Inversion branch (20, 0.3) and BTRD branch (1000, 0.2) against the exact pmf.
  for (const Case c : {Case{20, 0.3}, Case{1000, 0.2}, Case{1000, 0.7}}) {
    Rng rng(7, static_cast<uint64_t>(c.n));
    std::vector<int64_t> counts(static_cast<size_t>(c.n + 1), 0);
    for (int i = 0; i < 200000; ++i) ++counts[static_cast<size_t>(rng.binomial(c.n, c.p))];
    std::vector<double> probability(static_cast<size_t>(c.n + 1));
    for (int64_t k = 0; k <= c.n; ++k) probability[static_cast<size_t>(k)] = binomial_pmf(k, c.n, c.p);
    int degrees = 0;
    const double statistic = chi_square(counts, probability, 200000, &degrees);
    INFO("n=", c.n, " p=", c.p, " chi2=", statistic, " dof=", degrees);
    CHECK(statistic < degrees + 5 * std::sqrt(2.0 * degrees));
  }
  Rng rng(8);
  CHECK(rng.binomial(0, 0.5) == 0);
  CHECK(rng.binomial(17, 1.0) == 17);
  CHECK_THROWS_WITH_AS(rng.binomial(10, 1.5), doctest::Contains("1.5"), Error);
  CHECK_THROWS_AS(rng.binomial(-1, 0.5), Error);
}

TEST_CASE("multinomial counts sum to the trials and have the right means") {
  Rng rng(9);
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
  std::vector<int64_t> counts(4);
  std::vector<double> totals(4, 0.0);
  for (int i = 0; i < 20000; ++i) {
    rng.multinomial(1000, p, counts);
    int64_t sum = 0;
    for (size_t j = 0; j < 4; ++j) sum += counts[j], totals[j] += counts[j];
    REQUIRE(sum == 1000);
  }
  for (size_t j = 0; j < 4; ++j) {
    // Mean count 1000·p_j; standard error sqrt(1000 p (1−p) / 20000) < 0.11.
    CHECK(std::abs(totals[j] / 20000 - 1000 * p[j]) < 0.6);
  }
  CHECK_THROWS_AS(rng.multinomial(10, std::vector<double>{0.5, 0.6}, counts), Error);
  CHECK_THROWS_AS(rng.multinomial(10, std::vector<double>{0.5, 0.5}, counts), Error);  // sizes differ
}

TEST_CASE("permutation is a permutation, with a uniform first element") {
  Rng rng(10);
  std::vector<int64_t> first(5, 0);
  for (int i = 0; i < 50000; ++i) {
    std::vector<int> perm = rng.permutation(5);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(sorted == std::vector<int>{0, 1, 2, 3, 4});
    ++first[static_cast<size_t>(perm[0])];
  }
  int degrees = 0;
  CHECK(chi_square(first, std::vector<double>(5, 0.2), 50000, &degrees) < 18.5);  // 0.999 quantile, 4 dof
}

TEST_CASE("fill_uniform and fill_normal are bit-identical for 1 and 2 threads") {
  const int before = num_threads();
  Tensor one = Tensor::empty({100000}), two = Tensor::empty({100000});
  Tensor normal_one = Tensor::empty({1000, 100}), normal_two = Tensor::empty({1000, 100});
  set_num_threads(1);
  fill_uniform(one, -1.0f, 1.0f, 42, 5);
  fill_normal(normal_one, 0.0f, 2.0f, 42, 6);
  set_num_threads(2);
  fill_uniform(two, -1.0f, 1.0f, 42, 5);
  fill_normal(normal_two, 0.0f, 2.0f, 42, 6);
  set_num_threads(before);
  CHECK(std::equal(one.values().begin(), one.values().end(), two.values().begin()));
  CHECK(std::equal(normal_one.values().begin(), normal_one.values().end(), normal_two.values().begin()));
  CHECK_THROWS_AS(fill_uniform(one, 1.0f, 1.0f, 1, 1), Error);
}

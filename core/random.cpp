// core/random: splitmix64 turns (seed, stream, index) into the state of a xoshiro256** generator;
// uniform, normal (Marsaglia polar), Poisson (PTRS), binomial (BTRD) and multinomial draws on top.
// Read core/random.hpp first: it cites each algorithm.
#include "core/random.hpp"

#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace empl {
namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// log(k!) : exact sum for small k, Stirling's series beyond (error < 1e-10 for k ≥ 10).
double log_factorial(int64_t k) {
  static const double table[10] = {0.0, 0.0, 0.6931471805599453, 1.791759469228055,
                                   3.1780538303479458, 4.787491742782046, 6.579251212010101,
                                   8.525161361065415, 10.60460290274525, 12.801827480081469};
  if (k < 10) return table[k];
  const double n = static_cast<double>(k) + 1.0;
  return (n - 0.5) * std::log(n) - n + 0.9189385332046728 + 1.0 / (12.0 * n) - 1.0 / (360.0 * n * n * n);
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream, uint64_t index) {
  // Mix the triple so that neighbouring seeds, streams and indices give unrelated states.
  uint64_t mix = seed;
  splitmix64(mix);
  mix ^= stream * 0xd1342543de82ef95ULL;
  splitmix64(mix);
  mix ^= index * 0xaf251af3b0f025b5ULL;
  for (uint64_t& word : state_) word = splitmix64(mix);
}

uint64_t Rng::next_u64() {
  // xoshiro256** (Blackman & Vigna)
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

float Rng::uniform() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

double Rng::uniform_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

uint64_t Rng::uniform_int(uint64_t n) {
  if (n == 0) fail("Rng::uniform_int: n must be positive, got 0");
  // Lemire's multiply-and-reject: unbiased, one multiplication in the common case.
  __uint128_t product = static_cast<__uint128_t>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < n) {
    const uint64_t threshold = -n % n;
    while (low < threshold) {
      product = static_cast<__uint128_t>(next_u64()) * n;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

double Rng::normal_double() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  // Marsaglia's polar method: two exact normals from a point uniform in the unit disc.
  double u, v, s;
  do {
    u = 2.0 * uniform_double() - 1.0;
    v = 2.0 * uniform_double() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

int64_t Rng::poisson(double mean) {
  if (!(mean >= 0.0) || !std::isfinite(mean)) fail("Rng::poisson: mean = ", mean, " must be finite and >= 0");
  if (mean == 0.0) return 0;
  if (mean < 10.0) {
    // Multiply uniforms until the product drops below e^−mean: expected mean + 1 uniforms.
    const double limit = std::exp(-mean);
    int64_t count = 0;
    double product = uniform_double();
    while (product > limit) {
      ++count;
      product *= uniform_double();
    }
    return count;
  }
  // PTRS, Hörmann (1993), "The transformed rejection method for generating Poisson random
  // variables": a hat built from a transformed uniform, acceptance about 90% for large means.
  const double slam = std::sqrt(mean), loglam = std::log(mean);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2.0);
  while (true) {
    const double u = uniform_double() - 0.5, v = uniform_double();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= v_r) return static_cast<int64_t>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -mean + k * loglam - log_factorial(static_cast<int64_t>(k)))
      return static_cast<int64_t>(k);
  }
}

int64_t Rng::binomial(int64_t trials, double p) {
  if (trials < 0) fail("Rng::binomial: trials = ", trials, " must be >= 0");
  if (!(p >= 0.0 && p <= 1.0)) fail("Rng::binomial: p = ", p, " is outside [0, 1]");
  if (trials == 0 || p == 0.0) return 0;
  if (p == 1.0) return trials;
  // Draw for min(p, 1 − p) and mirror: both methods are fastest for small p.
  const bool mirrored = p > 0.5;
  const double q = mirrored ? 1.0 - p : p;
  const int64_t k = trials * q < 10.0 ? binomial_inversion(trials, q) : binomial_btrd(trials, q);
  return mirrored ? trials - k : k;
}

int64_t Rng::binomial_inversion(int64_t trials, double p) {
  // Walk up the CDF from k = 0 with the pmf recurrence; expected n·p + 1 steps.
  const double q = 1.0 - p, ratio = p / q;
  while (true) {
    double pmf = std::pow(q, static_cast<double>(trials));
    double u = uniform_double();
    int64_t k = 0;
    while (u > pmf) {
      u -= pmf;
      if (k >= trials) break;  // rounding left u above the total mass: draw again
      pmf *= ratio * static_cast<double>(trials - k) / static_cast<double>(k + 1);
      ++k;
    }
    if (u <= pmf) return k;
  }
}

int64_t Rng::binomial_btrd(int64_t trials, double p) {
  // BTRD, Hörmann (1993), "The generation of binomial random variates": transformed rejection
  // with a decomposition; exact, O(1) expected time for n·p ≥ 10, p ≤ 0.5.
  const double n = static_cast<double>(trials), q = 1.0 - p;
  const double spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5, alpha = (2.83 + 5.1 / b) * spq;
  const double v_r = 0.92 - 4.2 / b, ur_vr = 0.86 * v_r;
  const double m = std::floor((n + 1.0) * p), r = p / q, nr = (n + 1.0) * r;
  while (true) {
    double v = uniform_double();
    double u;
    if (v <= ur_vr) {
      u = v / v_r - 0.43;
      return static_cast<int64_t>(std::floor((2.0 * a / (0.5 - std::abs(u)) + b) * u + c));
    }
    if (v >= v_r) {
      u = uniform_double() - 0.5;
    } else {
      u = v / v_r - 0.93;
      u = (u < 0 ? -0.5 : 0.5) - u;
      v = uniform_double() * v_r;
    }
    const double us = 0.5 - std::abs(u);
    const double kd = std::floor((2.0 * a / us + b) * u + c);
    if (kd < 0.0 || kd > n) continue;
    v = v * alpha / (a / (us * us) + b);
    const double km = std::abs(kd - m);
    if (km <= 15.0) {
      // Recursive evaluation of f(k)/f(m) from the mode.
      double f = 1.0;
      if (m < kd) {
        for (double i = m + 1.0; i <= kd; ++i) f *= nr / i - r;
      } else if (m > kd) {
        for (double i = kd + 1.0; i <= m; ++i) v *= nr / i - r;
      }
      if (v <= f) return static_cast<int64_t>(kd);
      continue;
    }
    // Squeeze on log v, then the exact log ratio with Stirling corrections.
    v = std::log(v);
    const double rho = (km / (n * p * q)) * (((km / 3.0 + 0.625) * km + 1.0 / 6.0) / (n * p * q) + 0.5);
    const double t = -km * km / (2.0 * n * p * q);
    if (v < t - rho) return static_cast<int64_t>(kd);
    if (v > t + rho) continue;
    const double log_ratio = log_factorial(static_cast<int64_t>(m)) +
                             log_factorial(static_cast<int64_t>(n - m)) -
                             log_factorial(static_cast<int64_t>(kd)) -
                             log_factorial(static_cast<int64_t>(n - kd)) + (kd - m) * std::log(r);
    if (v <= log_ratio) return static_cast<int64_t>(kd);
  }
}

void Rng::multinomial(int64_t trials, std::span<const double> probabilities, std::span<int64_t> counts) {
  if (trials < 0) fail("Rng::multinomial: trials = ", trials, " must be >= 0");
  if (counts.size() != probabilities.size())
    fail("Rng::multinomial: ", probabilities.size(), " probabilities but ", counts.size(), " counts");
  double total = 0.0;
  for (double p : probabilities) {
    if (!(p >= 0.0) || !std::isfinite(p)) fail("Rng::multinomial: probability ", p, " is not in [0, 1]");
    total += p;
  }
  if (std::abs(total - 1.0) > 1e-6) fail("Rng::multinomial: probabilities sum to ", total, ", not 1");
  // Conditional binomials: category j takes Bin(remaining trials, p_j / remaining mass).
  int64_t remaining = trials;
  double mass = 1.0;
  for (size_t j = 0; j + 1 < probabilities.size(); ++j) {
    const double p = mass > 0.0 ? std::min(1.0, probabilities[j] / mass) : 0.0;
    counts[j] = binomial(remaining, p);
    remaining -= counts[j];
    mass -= probabilities[j];
  }
  if (!counts.empty()) counts.back() = remaining;
}

void Rng::permutation(std::span<int> out) {
  std::iota(out.begin(), out.end(), 0);
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[uniform_int(i)]);
}

std::vector<int> Rng::permutation(int n) {
  if (n < 0) fail("Rng::permutation: n = ", n, " must be >= 0");
  std::vector<int> out(static_cast<size_t>(n));
  permutation(std::span<int>(out));
  return out;
}

namespace {
constexpr int64_t kBlock = 256;  // elements that share one generator in fill_*

template <typename Draw>
void fill_blocks(Tensor& tensor, uint64_t seed, uint64_t stream, Draw&& draw) {
  const int64_t n = tensor.numel();
  float* data = tensor.data();
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  parallel_for(blocks, 16, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      Rng rng(seed, stream, static_cast<uint64_t>(block));
      for (int64_t i = block * kBlock; i < std::min(n, (block + 1) * kBlock); ++i) data[i] = draw(rng);
    }
  });
}
}  // namespace

void fill_uniform(Tensor& tensor, float lo, float hi, uint64_t seed, uint64_t stream) {
  if (!(lo < hi)) fail("fill_uniform: need lo < hi, got [", lo, ", ", hi, ")");
  fill_blocks(tensor, seed, stream, [&](Rng& rng) { return rng.uniform(lo, hi); });
}

void fill_normal(Tensor& tensor, float mean, float std, uint64_t seed, uint64_t stream) {
  if (!(std >= 0.0f) || !std::isfinite(mean)) fail("fill_normal: mean ", mean, ", std ", std);
  fill_blocks(tensor, seed, stream, [&](Rng& rng) { return mean + std * rng.normal(); });
}

}  // namespace empl

// The gamma-ray simulator (apps/gamma_ray/psf, source_counts, simulate) against what it must
// reproduce: the PSF's radial distribution against a CDF integrated here from the King formula
// (a Kolmogorov–Smirnov statistic), the source-count sampler against dN/dS integrated here, and
// the maps' bookkeeping (labels, counts, cuts, thread-count independence).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "apps/gamma_ray/psf.hpp"
#include "core/random.hpp"

using namespace empl;
using namespace empl::gamma_ray;

namespace {

// The Kolmogorov–Smirnov statistic sup |F_n − F| of samples against a CDF.
double ks_statistic(std::vector<double> samples, const std::function<double(double)>& cdf) {
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double d = 0.0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double f = cdf(samples[i]);
    d = std::max({d, std::abs(static_cast<double>(i + 1) / n - f), std::abs(f - static_cast<double>(i) / n)});
  }
  return d;
}

// The 99.9% point of the KS statistic for n samples (asymptotic, 1.949/√n): a correct sampler
// exceeds it once in a thousand seeds; the seeds below are fixed.
double ks_bound(size_t n) { return 1.949 / std::sqrt(static_cast<double>(n)); }

// The radial CDF of the King PSF, integrated numerically here from GAMMA_RAY.md's formula
// (trapezoid in x, density 2πx·PSF(x)), independent of psf.cpp's closed form.
struct NumericKingCdf {
  double scale, step = 1e-3;
  std::vector<double> cdf;  // at x = 0, step, 2·step, ...
  explicit NumericKingCdf(const KingPsf& k) : scale(k.scale_rad) {
    const auto king = [](double x, double s, double g) {
      return (1.0 / (2.0 * std::numbers::pi * s * s)) * (1.0 - 1.0 / g) * std::pow(1.0 + x * x / (2.0 * g * s * s), -g);
    };
    const auto density = [&](double x) {
      return 2.0 * std::numbers::pi * x *
             (k.core_fraction * king(x, k.sigma_core, k.gamma_core) + (1.0 - k.core_fraction) * king(x, k.sigma_tail, k.gamma_tail));
    };
    const int steps = 400000;  // x up to 400: the tail beyond is < 1e-10
    cdf.resize(steps + 1);
    cdf[0] = 0.0;
    for (int i = 1; i <= steps; ++i) cdf[i] = cdf[i - 1] + 0.5 * step * (density((i - 1) * step) + density(i * step));
  }
  double operator()(double r) const {
    const double x = r / scale / step;
    const size_t i = static_cast<size_t>(x);
    if (i + 1 >= cdf.size()) return cdf.back();
    return cdf[i] + (x - static_cast<double>(i)) * (cdf[i + 1] - cdf[i]);
  }
};

std::vector<double> psf_samples(const Psf& psf, size_t n, uint64_t seed) {
  Rng rng(seed, 1, 0);
  std::vector<double> r(n);
  for (double& v : r) v = sample_psf_radius(psf, rng);
  return r;
}

}  // namespace

TEST_CASE("gamma_ray psf: King radii follow the CDF integrated from the King formula; a wrong sigma fails") {
  const Psf psf;  // King, GAMMA_RAY.md's parameters
  const NumericKingCdf reference(psf.king);
  CHECK(reference.cdf.back() == doctest::Approx(1.0).epsilon(1e-6));  // the formula is normalised
  const size_t n = 20000;
  const std::vector<double> r = psf_samples(psf, n, 7);
  const double d = ks_statistic(r, reference);
  MESSAGE("King KS D = " << d << ", bound " << ks_bound(n));
  CHECK(d < ks_bound(n));
  // The same samples against a core σ 5% too large: the bound must catch it.
  KingPsf wrong = psf.king;
  wrong.sigma_core *= 1.05;
  const double d_wrong = ks_statistic(r, NumericKingCdf(wrong));
  MESSAGE("King KS D against sigma_core x 1.05 = " << d_wrong);
  CHECK(d_wrong > ks_bound(n));
  // The closed-form CDF of psf.cpp agrees with the integral.
  for (const double deg : {0.01, 0.1, 0.3, 1.0, 3.0})
    CHECK(psf_radius_cdf(psf, deg * std::numbers::pi / 180.0) == doctest::Approx(reference(deg * std::numbers::pi / 180.0)).epsilon(1e-6));
}

TEST_CASE("gamma_ray psf: Gaussian radii are Rayleigh with sigma 0.1812 deg; 0.19 deg fails") {
  Psf psf;
  psf.kind = PsfKind::gaussian;
  const size_t n = 20000;
  const std::vector<double> r = psf_samples(psf, n, 11);
  const auto rayleigh = [](double sigma_deg) {
    const double s = sigma_deg * std::numbers::pi / 180.0;
    return [s](double x) { return 1.0 - std::exp(-x * x / (2.0 * s * s)); };
  };
  const double d = ks_statistic(r, rayleigh(0.1812)), d_wrong = ks_statistic(r, rayleigh(0.19));
  MESSAGE("Gaussian KS D = " << d << ", against 0.19 deg " << d_wrong << ", bound " << ks_bound(n));
  CHECK(d < ks_bound(n));
  CHECK(d_wrong > ks_bound(n));
}

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
#include "run_binary.hpp"
#include "apps/gamma_ray/simulate.hpp"
#include "apps/gamma_ray/source_counts.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "io/npy.hpp"
#include <cstdio>
#include <filesystem>
#include <sstream>
#include "graph/healpix.hpp"

using namespace empl;
using namespace empl::gamma_ray;
using namespace empl::testing;

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

namespace {

// dN/dS written out again from GAMMA_RAY.md (not source_counts.cpp's segments), per pixel.
double reference_dnds(const SourceCountParams& p, double s) {
  const double a = std::pow(10.0, p.log10_a);
  if (s >= p.s1) return a * std::pow(s / p.s1, -p.n1);
  if (s >= p.s2) return a * std::pow(s / p.s1, -p.n2);
  return a * std::pow(p.s2 / p.s1, -p.n2) * std::pow(s / p.s2, -p.n3);
}

// ∫ dN/dS numerically on a log grid, S = e^u from 1e-9 to 1e7 (the tails beyond are < 1e-10 of
// the total for the parameters below): cumulative values at the grid points.
struct NumericFluxCdf {
  double u0 = std::log(1e-9), h;
  std::vector<double> cum;
  explicit NumericFluxCdf(const SourceCountParams& p) {
    const int steps = 400000;
    h = (std::log(1e7) - u0) / steps;
    cum.resize(steps + 1);
    const auto f = [&](int i) { const double s = std::exp(u0 + i * h); return reference_dnds(p, s) * s; };
    cum[0] = 0.0;
    for (int i = 1; i <= steps; ++i) cum[i] = cum[i - 1] + 0.5 * h * (f(i - 1) + f(i));
  }
  double total() const { return cum.back(); }
  double operator()(double s) const {
    if (s <= 0.0) return 0.0;
    const double x = (std::log(s) - u0) / h;
    if (x <= 0.0) return 0.0;
    const size_t i = static_cast<size_t>(x);
    if (i + 1 >= cum.size()) return 1.0;
    return (cum[i] + (x - static_cast<double>(i)) * (cum[i + 1] - cum[i])) / total();
  }
};

}  // namespace

TEST_CASE("gamma_ray source counts: S follows dN/dS integrated numerically; the source number is Poisson(A·pixels·∫dN/dS)") {
  // Generic indices, and n2 = 1 (the logarithmic segment); n3 ≤ 0 keeps the numeric integral's
  // lower tail negligible.
  for (const SourceCountParams p : {SourceCountParams{-3.0, 3.0, 1.7, -0.5, 25.0, 2.0},
                                    SourceCountParams{-2.0, 2.5, 1.0, 0.0, 10.0, 0.5}}) {
    const NumericFluxCdf reference(p);
    CHECK(dnds_integral(p) == doctest::Approx(reference.total()).epsilon(1e-6));
    for (const double s : {0.1, 1.0, 5.0, 30.0}) CHECK(dnds(p, s) == doctest::Approx(reference_dnds(p, s)).epsilon(1e-12));
    Rng rng(3, 2, 0);
    const size_t n = 20000;
    std::vector<double> fluxes(n);
    for (double& s : fluxes) s = sample_source_flux(p, rng);
    const double d = ks_statistic(fluxes, reference);
    MESSAGE("n2 " << p.n2 << ": S KS D = " << d << ", bound " << ks_bound(n));
    CHECK(d < ks_bound(n));
    // A wrong index (n2 + 0.1) is rejected by the same bound.
    SourceCountParams wrong = p;
    wrong.n2 += 0.1;
    CHECK(ks_statistic(fluxes, NumericFluxCdf(wrong)) > ks_bound(n));

    // The number of sources: mean over 2000 maps of Poisson(λ), λ = pixels·∫dN/dS = 40 here; the
    // mean's standard deviation is √(40/2000) = 0.14, the tolerance 4 of those.
    const double pixels = 40.0 / reference.total();
    double sum = 0.0;
    for (int m = 0; m < 2000; ++m) {
      Rng map_rng(5, 3, static_cast<uint64_t>(m));
      sum += static_cast<double>(sample_source_fluxes(p, pixels, map_rng).size());
    }
    CHECK(std::abs(sum / 2000.0 - 40.0) < 4.0 * std::sqrt(40.0 / 2000.0));
  }
}

TEST_CASE("gamma_ray source counts: priors in range, breaks sorted, expected total capped at 25,000") {
  const double pixels = 4000.0;
  int lowered = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    Rng rng(9, 4, i);
    const SourceCountParams p = sample_source_count_params(rng, pixels, 25000.0);
    CHECK(p.log10_a < -1.0);
    CHECK(p.n1 >= 2.05);
    CHECK(p.n1 < 5.0);
    CHECK(p.n2 >= 0.5);
    CHECK(p.n2 < 4.5);
    CHECK(p.n3 >= -1.95);
    CHECK(p.n3 < 0.95);
    CHECK(p.s1 > p.s2);
    CHECK(p.s1 >= 1.0);
    CHECK(p.s2 >= 0.05);
    CHECK(p.s1 < 40.0);
    CHECK(pixels * dnds_flux_integral(p) <= 25000.0);
    if (p.log10_a < -6.0) ++lowered;
    // The cap lowers A by whole decades and only as far as needed: one decade more would exceed it.
    if (p.log10_a < -6.0) CHECK(pixels * dnds_flux_integral({p.log10_a + 1.0, p.n1, p.n2, p.n3, p.s1, p.s2}) > 25000.0);
  }
  MESSAGE(lowered << " of 2000 draws had A lowered below the prior");
}

TEST_CASE("gamma_ray simulate: label bins at the edges -0.5, 2.5, ..., 59.5") {
  CHECK(label_bin(0) == 0);
  CHECK(label_bin(2) == 0);
  CHECK(label_bin(3) == 1);
  CHECK(label_bin(5) == 1);
  CHECK(label_bin(6) == 2);
  CHECK(label_bin(59) == 19);
  CHECK(label_bin(60) == 20);
  CHECK(label_bin(1000) == 20);
}

TEST_CASE("gamma_ray simulate: labels sum to 1, map counts equal source counts, cuts, same maps on 1 and 2 threads") {
  SimulationConfig config;
  config.nside = 16;
  const SimulationSetup setup(config);
  const int64_t count = 48;
  set_num_threads(1);
  const std::vector<SimulatedMap> one = simulate_maps(setup, 21, 0, count);
  set_num_threads(2);
  const std::vector<SimulatedMap> two = simulate_maps(setup, 21, 0, count);
  int with_counts = 0, passing = 0;
  for (int64_t m = 0; m < count; ++m) {
    const SimulatedMap& map = one[static_cast<size_t>(m)];
    CHECK(map.counts == two[static_cast<size_t>(m)].counts);
    CHECK(map.label == two[static_cast<size_t>(m)].label);
    int64_t in_map = 0, in_sources = 0, brightest = 0;
    for (const int64_t c : map.counts) in_map += c;
    std::array<double, kLabelBins> label{};
    for (const Source& s : map.sources) {
      in_sources += s.counts;
      brightest = std::max(brightest, s.counts);
      int b = 0;  // the bin whose edges -0.5 + 3b, 2.5 + 3b hold the count (the last: 59.5, inf)
      while (b < 20 && !(static_cast<double>(s.counts) < 2.5 + 3.0 * b)) ++b;
      label[static_cast<size_t>(b)] += static_cast<double>(s.counts);
      // Sources lie in the 20 deg disc around (theta 90 deg, phi 0).
      CHECK(std::sin(s.theta) * std::cos(s.phi) >= std::cos(20.0 * std::numbers::pi / 180.0) - 1e-12);
    }
    CHECK(in_map == in_sources);
    CHECK(in_map == map.total_counts);
    if (in_map > 0) {
      ++with_counts;
      double sum = 0.0;
      for (int b = 0; b < kLabelBins; ++b) {
        sum += map.label[static_cast<size_t>(b)];
        CHECK(map.label[static_cast<size_t>(b)] == doctest::Approx(label[static_cast<size_t>(b)] / static_cast<double>(in_map)).epsilon(1e-12));
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    }
    CHECK(map.passes_cuts == (in_map >= 1000 && brightest <= 60));
    passing += map.passes_cuts;
  }
  MESSAGE(with_counts << " of " << count << " maps have counts, " << passing << " pass the cuts");
  CHECK(with_counts > count / 2);  // the checks above ran on real maps
}

TEST_CASE("healpix vec2pix: every pixel centre at nside 1, 4, 16 maps back to its pixel") {
  for (const int64_t nside : {1, 4, 16}) {
    std::vector<int64_t> pixels(static_cast<size_t>(healpix::pixel_count(nside)));
    for (size_t p = 0; p < pixels.size(); ++p) pixels[p] = static_cast<int64_t>(p);
    CHECK(healpix::vec2pix(nside, healpix::pixel_centres(nside, pixels)) == pixels);
  }
  CHECK(healpix::vec2pix(1, healpix::Vec3{1.0, 0.0, 0.0}) == 4);  // the Galactic centre is in base pixel 4
}

TEST_CASE("gamma_ray simulate (binary): same files on 1 and 2 threads; map sums equal sources.csv; bad input exits 2, writes nothing") {
  TemporaryFolder folder;
  const std::string common = " simulate --maps 12 --seed 5 --nside 8 --quiet --out ";
  const RunResult one = run_app_binary("gamma_ray", common + folder.file("t1") + " --threads 1");
  const RunResult two = run_app_binary("gamma_ray", common + folder.file("t2") + " --threads 2");
  REQUIRE(one.status == 0);
  REQUIRE(two.status == 0);
  for (const char* name : {"maps.npy", "labels.npy", "sources.csv"})
    CHECK(slurp(folder.file(std::string("t1/") + name)) == slurp(folder.file(std::string("t2/") + name)));
  const Tensor maps = load_npy(folder.file("t1/maps.npy")), labels = load_npy(folder.file("t1/labels.npy"));
  REQUIRE(maps.shape() == Shape{12, 64});
  REQUIRE(labels.shape() == Shape{12, 21});
  std::vector<double> from_csv(12, 0.0);
  std::istringstream csv(slurp(folder.file("t1/sources.csv")));
  std::string row;
  std::getline(csv, row);
  CHECK(row == "map,source,counts,theta,phi");
  while (std::getline(csv, row)) {
    int64_t map = 0, source = 0, counts = 0;
    REQUIRE(std::sscanf(row.c_str(), "%lld,%lld,%lld", reinterpret_cast<long long*>(&map), reinterpret_cast<long long*>(&source),
                        reinterpret_cast<long long*>(&counts)) == 3);
    from_csv[static_cast<size_t>(map)] += static_cast<double>(counts);
  }
  for (int64_t m = 0; m < 12; ++m) {
    double total = 0.0, label_sum = 0.0;
    for (int64_t v = 0; v < 64; ++v) total += maps.data()[m * 64 + v];
    for (int64_t b = 0; b < 21; ++b) label_sum += labels.data()[m * 21 + b];
    CHECK(total == from_csv[static_cast<size_t>(m)]);
    CHECK(total >= 1000.0);
    CHECK(label_sum == doctest::Approx(1.0).epsilon(1e-5));  // float32 labels
  }
  for (const char* bad : {" simulate --maps 0", " simulate --roi-deg 30", " simulate --nside 3", " simulate --psf airy"}) {
    const RunResult r = run_app_binary("gamma_ray", std::string(bad) + " --out " + folder.file("bad"));
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(!std::filesystem::exists(folder.file("bad")));
  }
}

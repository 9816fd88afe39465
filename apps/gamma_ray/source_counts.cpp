// The broken power law's integrals and exact inverse CDF (equations in source_counts.hpp). Each
// segment is c·S^−n on [lo, hi), whose integral is c(hi^(1−n) − lo^(1−n))/(1 − n), or c·ln(hi/lo)
// at n = 1, and whose inverse is the same expression solved for hi.
#include "apps/gamma_ray/source_counts.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace empl::gamma_ray {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Segment {
  double c, n, lo, hi;  // dN/dS = c·S^−n on [lo, hi)
};

void check_params(const SourceCountParams& p) {
  if (!(p.s1 > p.s2 && p.s2 > 0.0) || !(p.n1 > 2.0) || !(p.n3 < 1.0) || !std::isfinite(p.log10_a) || !std::isfinite(p.n2))
    fail("gamma_ray source counts: parameters (log10 A ", p.log10_a, ", n1 ", p.n1, ", n2 ", p.n2, ", n3 ", p.n3, ", S1 ", p.s1,
         ", S2 ", p.s2, ") need S1 > S2 > 0, n1 > 2, n3 < 1");
}

// The three segments, from S = 0 upwards.
std::array<Segment, 3> segments(const SourceCountParams& p) {
  check_params(p);
  const double a = std::pow(10.0, p.log10_a);
  const double below = a * std::pow(p.s2 / p.s1, -p.n2);  // dN/dS at S2, the lowest segment's scale
  return {{{below * std::pow(p.s2, p.n3), p.n3, 0.0, p.s2},
           {a * std::pow(p.s1, p.n2), p.n2, p.s2, p.s1},
           {a * std::pow(p.s1, p.n1), p.n1, p.s1, kInf}}};
}

bool is_one(double n) { return std::abs(n - 1.0) < 1e-12; }

// ∫lo^hi c·S^(−n+k) dS for k = 0 (number) or 1 (flux).
double segment_integral(const Segment& g, double hi, int k) {
  const double e = 1.0 - g.n + k;  // exponent after integration
  if (std::abs(e) < 1e-12) return g.c * std::log(hi / g.lo);
  const double top = std::isinf(hi) ? 0.0 : std::pow(hi, e);  // e < 0 whenever hi = ∞ (n1 > 2)
  const double bottom = g.lo == 0.0 ? 0.0 : std::pow(g.lo, e);  // e > 0 whenever lo = 0 (n3 < 1)
  return g.c * (top - bottom) / e;
}

double total(const SourceCountParams& p, int k) {
  double sum = 0.0;
  for (const Segment& g : segments(p)) sum += segment_integral(g, g.hi, k);
  return sum;
}

}  // namespace

double dnds(const SourceCountParams& p, double s) {
  for (const Segment& g : segments(p))
    if (s < g.hi) return g.c * std::pow(s, -g.n);
  return 0.0;
}

double dnds_integral(const SourceCountParams& p) { return total(p, 0); }
double dnds_flux_integral(const SourceCountParams& p) { return total(p, 1); }

double source_flux_cdf(const SourceCountParams& p, double s) {
  if (s <= 0.0) return 0.0;
  double below = 0.0;
  for (const Segment& g : segments(p)) {
    if (s < g.hi) return (below + segment_integral(g, s, 0)) / dnds_integral(p);
    below += segment_integral(g, g.hi, 0);
  }
  return 1.0;
}

double sample_source_flux(const SourceCountParams& p, Rng& rng) {
  const std::array<Segment, 3> parts = segments(p);
  double remaining = rng.uniform_double() * dnds_integral(p);  // the mass to walk up from S = 0
  for (size_t i = 0; i < parts.size(); ++i) {
    const Segment& g = parts[i];
    const double mass = segment_integral(g, g.hi, 0);
    if (remaining >= mass && i + 1 < parts.size()) {
      remaining -= mass;
      continue;
    }
    // Solve ∫lo^s c·S^−n dS = remaining for s.
    if (is_one(g.n)) return g.lo * std::exp(remaining / g.c);
    const double e = 1.0 - g.n;
    const double base = (g.lo == 0.0 ? 0.0 : std::pow(g.lo, e)) + remaining * e / g.c;
    return base > 0.0 ? std::pow(base, 1.0 / e) : g.lo;  // base ≤ 0 only by rounding at the far end
  }
  return parts.back().lo;  // not reached
}

SourceCountParams sample_source_count_params(Rng& rng, double roi_pixels, double max_expected_total) {
  SourceCountParams p;
  p.log10_a = rng.uniform_double() * 5.0 - 6.0;
  p.n1 = 2.05 + rng.uniform_double() * (5.0 - 2.05);
  p.n2 = 0.5 + rng.uniform_double() * 4.0;
  p.n3 = -1.95 + rng.uniform_double() * (0.95 + 1.95);
  const double b1 = 1.0 + rng.uniform_double() * 39.0, b2 = 0.05 + rng.uniform_double() * 39.95;
  p.s1 = std::max(b1, b2);
  p.s2 = std::min(b1, b2);
  if (p.s1 == p.s2) p.s1 = std::nextafter(p.s1, kInf);  // equal draws: measure zero, kept valid
  // ∫S dN/dS is linear in A: lowering log10 A by 1 divides the expected total by 10.
  while (std::pow(10.0, p.log10_a) > 0.0 && roi_pixels * dnds_flux_integral(p) > max_expected_total) p.log10_a -= 1.0;
  return p;
}

std::vector<double> sample_source_fluxes(const SourceCountParams& p, double roi_pixels, Rng& rng) {
  const int64_t count = rng.poisson(roi_pixels * dnds_integral(p));
  std::vector<double> fluxes(static_cast<size_t>(count));
  for (double& s : fluxes) s = sample_source_flux(p, rng);
  return fluxes;
}

}  // namespace empl::gamma_ray

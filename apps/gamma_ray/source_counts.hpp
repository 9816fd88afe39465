// The source-count distribution of GAMMA_RAY.md: a broken power law in S (a source's expected
// counts) with breaks S1 > S2, continuous at both, normalisation A per ROI pixel:
//   dN/dS = A (S/S1)^−n1                  S ≥ S1
//         = A (S/S1)^−n2                  S2 ≤ S < S1
//         = A (S2/S1)^−n2 (S/S2)^−n3      S < S2
// Priors: log10 A ~ U[−6, −1], n1 ~ U[2.05, 5], n2 ~ U[0.5, 4.5], n3 ~ U[−1.95, 0.95], breaks
// U[1, 40] and U[0.05, 40] sorted descending. n1 > 1 and n3 < 1 make ∫dN/dS finite; n1 > 2 and
// n3 < 2 make ∫S dN/dS finite. A map draws T ~ Poisson(A · pixels · ∫dN/dS) sources, each S by
// inverse CDF of dN/dS (exact: each segment is a power law), and its counts ~ Poisson(S).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/random.hpp"

namespace empl::gamma_ray {

struct SourceCountParams {
  double log10_a = -3.0;  // A: sources per ROI pixel per unit S at S1
  double n1 = 3.0, n2 = 1.5, n3 = 0.0;
  double s1 = 20.0, s2 = 1.0;  // S1 > S2 > 0
};

// dN/dS at S > 0 (per pixel).
double dnds(const SourceCountParams& p, double s);
// ∫0^∞ dN/dS dS and ∫0^∞ S·dN/dS dS (per pixel); throw if either diverges.
double dnds_integral(const SourceCountParams& p);
double dnds_flux_integral(const SourceCountParams& p);
// P(S ≤ s) for one source: ∫0^s dN/dS / ∫0^∞ dN/dS.
double source_flux_cdf(const SourceCountParams& p, double s);
// One S by exact inversion of source_flux_cdf.
double sample_source_flux(const SourceCountParams& p, Rng& rng);

// Draws from the priors. If A · pixels · ∫S dN/dS exceeds max_expected_total, log10 A is lowered
// by 1 until it does not (GAMMA_RAY.md).
SourceCountParams sample_source_count_params(Rng& rng, double roi_pixels, double max_expected_total);

// T ~ Poisson(A · roi_pixels · ∫dN/dS), then T expected counts S_t.
std::vector<double> sample_source_fluxes(const SourceCountParams& p, double roi_pixels, Rng& rng);

}  // namespace empl::gamma_ray

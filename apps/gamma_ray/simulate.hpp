// One simulated gamma-ray map (GAMMA_RAY.md "Simulated maps"): draw the source-count parameters
// and sources (source_counts.hpp), place each source uniformly in the disc of radius roi around
// the Galactic centre (θ = 90°, φ = 0), displace each of its photons by the PSF (psf.hpp), drop
// the photons outside the disc from the map and from the source's count, bin the counts on the
// graph's nodes (the nside² NESTED descendants of base pixel 4, graph/laplacian.hpp), and label
// the map with the count-weighted histogram of source counts (edges −0.5, 2.5, …, 59.5, ∞).
// Map i of seed s draws only from Rng(s, kMapStream, i): any thread count gives the same maps.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "apps/gamma_ray/psf.hpp"
#include "apps/gamma_ray/source_counts.hpp"

namespace empl::gamma_ray {

inline constexpr int kLabelBins = 21;
inline constexpr uint64_t kMapStream = 0x6d617073;  // "maps"

struct SimulationConfig {
  int64_t nside = 64;
  double roi_deg = 20.0;
  Psf psf;
  // A is per pixel at this nside (the paper's maps), so the sky's sources do not depend on `nside`.
  int64_t source_density_nside = 256;
  double max_expected_total = 25000.0;
  int64_t min_total_counts = 1000;   // cuts (paper): keep ≥ 1000 counts ...
  int64_t max_source_counts = 60;    // ... and no source above 60 counts
  // Stop a map at its first source above max_source_counts (it fails the cuts whatever follows):
  // the maps that pass are the same bits, the failing ones are cut short (their counts, sources
  // and label incomplete). The dataset sets it: such maps are a large share of the simulation's time.
  bool stop_at_failed_cut = false;
};

struct Source {
  int64_t counts = 0;        // photons inside the disc
  double theta = 0.0, phi = 0.0;  // position, radians
};

struct SimulatedMap {
  SourceCountParams params;
  std::vector<int64_t> counts;          // [nside²] in node order
  std::vector<Source> sources;
  std::array<double, kLabelBins> label{};  // sums to 1 (all zero for a map without counts)
  int64_t total_counts = 0;
  bool passes_cuts = false;
};

// Checks the config (nside a power of two ≤ 256, roi in (0°, 25°] so the disc lies inside base
// pixel 4) and precomputes what every map shares.
struct SimulationSetup {
  SimulationConfig config;
  double roi_pixels = 0.0;  // pixels of the disc at source_density_nside
  explicit SimulationSetup(const SimulationConfig& config);
};

// The label bin of a source with `counts` photons: ⌊(counts + 0.5) / 3⌋ = ⌊counts / 3⌋ capped at 20.
int label_bin(int64_t counts);

SimulatedMap simulate_map(const SimulationSetup& setup, uint64_t seed, uint64_t index);

// Maps first .. first + count − 1, in parallel over maps (oneTBB), in index order.
std::vector<SimulatedMap> simulate_maps(const SimulationSetup& setup, uint64_t seed, uint64_t first, int64_t count);

}  // namespace empl::gamma_ray

// The map simulator (see simulate.hpp). Directions are unit vectors; the disc's centre is
// c = (1, 0, 0) (θ = 90°, φ = 0). A point at angle a from a direction d, azimuth β, is
// cos a · d + sin a · (cos β · e1 + sin β · e2) with e1, e2 orthonormal and ⟂ d.
#include "apps/gamma_ray/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "graph/healpix.hpp"

namespace empl::gamma_ray {
namespace {

using healpix::Vec3;

// e_θ and e_φ at d (d is never a pole here: the disc stays within 25° of the equator).
void tangent_basis(const Vec3& d, Vec3& e1, Vec3& e2) {
  const double rho = std::sqrt(d.x * d.x + d.y * d.y);
  const double cp = d.x / rho, sp = d.y / rho;
  e1 = {d.z * cp, d.z * sp, -rho};
  e2 = {-sp, cp, 0.0};
}

Vec3 displace(const Vec3& d, double angle, double azimuth) {
  Vec3 e1, e2;
  tangent_basis(d, e1, e2);
  const double ca = std::cos(angle), sa = std::sin(angle), cb = std::cos(azimuth), sb = std::sin(azimuth);
  return {ca * d.x + sa * (cb * e1.x + sb * e2.x), ca * d.y + sa * (cb * e1.y + sb * e2.y),
          ca * d.z + sa * (cb * e1.z + sb * e2.z)};
}

}  // namespace

int label_bin(int64_t counts) {
  if (counts < 0) fail("gamma_ray label_bin: negative count ", counts);
  return static_cast<int>(std::min<int64_t>(counts / 3, kLabelBins - 1));  // edges −0.5, 2.5, 5.5, …: 0–2, 3–5, …
}

SimulationSetup::SimulationSetup(const SimulationConfig& c) : config(c) {
  healpix::check_nside("gamma_ray simulate", c.nside);
  if (c.nside > 256) fail("gamma_ray simulate: nside ", c.nside, " is above 256");
  if (!(c.roi_deg > 0.0 && c.roi_deg <= 25.0))
    fail("gamma_ray simulate: roi ", c.roi_deg, " deg is outside (0, 25] (the disc must lie inside base pixel 4)");
  if (!(c.max_expected_total > 0.0)) fail("gamma_ray simulate: max expected total ", c.max_expected_total, " is not positive");
  roi_pixels = static_cast<double>(
      healpix::query_disc(c.source_density_nside, std::numbers::pi / 2, 0.0, c.roi_deg * std::numbers::pi / 180.0).size());
}

SimulatedMap simulate_map(const SimulationSetup& setup, uint64_t seed, uint64_t index) {
  const SimulationConfig& c = setup.config;
  Rng rng(seed, kMapStream, index);
  SimulatedMap map;
  map.params = sample_source_count_params(rng, setup.roi_pixels, c.max_expected_total);
  const std::vector<double> fluxes = sample_source_fluxes(map.params, setup.roi_pixels, rng);
  const double roi = c.roi_deg * std::numbers::pi / 180.0, cos_roi = std::cos(roi);
  const Vec3 centre{1.0, 0.0, 0.0};
  const int64_t first_node = 4 * c.nside * c.nside;
  map.counts.assign(static_cast<size_t>(c.nside * c.nside), 0);
  std::vector<Vec3> photons;
  for (const double flux : fluxes) {
    // Uniform on the cap: cos a uniform in [cos roi, 1], azimuth uniform.
    const double cos_a = cos_roi + (1.0 - cos_roi) * rng.uniform_double();
    const Vec3 position = displace(centre, std::acos(std::min(1.0, cos_a)), 2.0 * std::numbers::pi * rng.uniform_double());
    const int64_t emitted = rng.poisson(flux);
    photons.clear();
    for (int64_t k = 0; k < emitted; ++k) {
      const Vec3 p = displace(position, sample_psf_radius(c.psf, rng), 2.0 * std::numbers::pi * rng.uniform_double());
      if (p.x < cos_roi * std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z)) continue;  // outside the disc
      photons.push_back(p);
    }
    for (const int64_t pixel : healpix::vec2pix(c.nside, photons)) {
      const int64_t node = pixel - first_node;
      if (node < 0 || node >= c.nside * c.nside)
        fail("gamma_ray simulate: a photon in the disc fell in pixel ", pixel, ", outside base pixel 4 at nside ", c.nside);
      ++map.counts[static_cast<size_t>(node)];
    }
    Source& s = map.sources.emplace_back();
    s.counts = static_cast<int64_t>(photons.size());
    s.theta = std::acos(std::clamp(position.z, -1.0, 1.0));
    s.phi = std::atan2(position.y, position.x);
    map.total_counts += s.counts;
    if (c.stop_at_failed_cut && s.counts > c.max_source_counts) return map;  // passes_cuts stays false
  }
  int64_t brightest = 0;
  for (const Source& s : map.sources) {
    map.label[static_cast<size_t>(label_bin(s.counts))] += static_cast<double>(s.counts);
    brightest = std::max(brightest, s.counts);
  }
  if (map.total_counts > 0)
    for (double& v : map.label) v /= static_cast<double>(map.total_counts);
  map.passes_cuts = map.total_counts >= c.min_total_counts && brightest <= c.max_source_counts;
  return map;
}

std::vector<SimulatedMap> simulate_maps(const SimulationSetup& setup, uint64_t seed, uint64_t first, int64_t count) {
  if (count < 0) fail("gamma_ray simulate_maps: negative count ", count);
  std::vector<SimulatedMap> maps(static_cast<size_t>(count));
  parallel_for(count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) maps[static_cast<size_t>(i)] = simulate_map(setup, seed, first + static_cast<uint64_t>(i));
  });
  return maps;
}

}  // namespace empl::gamma_ray

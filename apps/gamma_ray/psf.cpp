// The PSF sampler: exact inversion of each King component's radial CDF (see psf.hpp for the
// equations). Inversion rather than a grid: no grid error, and one uniform per photon.
#include "apps/gamma_ray/psf.hpp"

#include <cmath>

#include "core/error.hpp"

namespace empl::gamma_ray {
namespace {

void check_psf(const Psf& psf) {
  if (psf.kind == PsfKind::gaussian) {
    if (!(psf.gaussian_sigma_rad > 0.0)) fail("gamma_ray psf: Gaussian sigma ", psf.gaussian_sigma_rad, " rad is not positive");
    return;
  }
  const KingPsf& k = psf.king;
  if (!(k.scale_rad > 0.0) || !(k.sigma_core > 0.0) || !(k.sigma_tail > 0.0) || !(k.gamma_core > 1.0) ||
      !(k.gamma_tail > 1.0) || !(k.core_fraction >= 0.0 && k.core_fraction <= 1.0))
    fail("gamma_ray psf: King parameters (scale ", k.scale_rad, ", f ", k.core_fraction, ", sigma ", k.sigma_core, "/",
         k.sigma_tail, ", gamma ", k.gamma_core, "/", k.gamma_tail, ") are not a distribution (need > 0, gamma > 1, f in [0, 1])");
}

// 1 − (1 + x²/(2γσ²))^(1−γ): the probability that one King component puts a photon within x.
double king_cdf(double x, double sigma, double gamma) {
  return -std::expm1((1.0 - gamma) * std::log1p(x * x / (2.0 * gamma * sigma * sigma)));
}

// Its inverse at probability u in [0, 1): u = 1 − (1 + t)^(1−γ)  ⇒  t = (1 − u)^(1/(1−γ)) − 1, x = σ√(2γt).
double king_inverse(double u, double sigma, double gamma) {
  const double t = std::expm1(std::log1p(-u) / (1.0 - gamma));
  return sigma * std::sqrt(2.0 * gamma * t);
}

}  // namespace

double sample_psf_radius(const Psf& psf, Rng& rng) {
  check_psf(psf);
  if (psf.kind == PsfKind::gaussian) {
    // Rayleigh: 1 − exp(−r²/2σ²) = u  ⇒  r = σ√(−2 ln(1 − u)).
    return psf.gaussian_sigma_rad * std::sqrt(-2.0 * std::log1p(-rng.uniform_double()));
  }
  const KingPsf& k = psf.king;
  const bool core = rng.uniform_double() < k.core_fraction;
  const double u = rng.uniform_double();
  const double x = core ? king_inverse(u, k.sigma_core, k.gamma_core) : king_inverse(u, k.sigma_tail, k.gamma_tail);
  return x * k.scale_rad;
}

double psf_radius_cdf(const Psf& psf, double r) {
  check_psf(psf);
  if (r <= 0.0) return 0.0;
  if (psf.kind == PsfKind::gaussian) {
    const double s = psf.gaussian_sigma_rad;
    return -std::expm1(-r * r / (2.0 * s * s));
  }
  const KingPsf& k = psf.king;
  const double x = r / k.scale_rad;
  return k.core_fraction * king_cdf(x, k.sigma_core, k.gamma_core) +
         (1.0 - k.core_fraction) * king_cdf(x, k.sigma_tail, k.gamma_tail);
}

}  // namespace empl::gamma_ray

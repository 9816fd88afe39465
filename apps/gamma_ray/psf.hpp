// The Fermi-LAT point spread function of GAMMA_RAY.md, as a sampler of the angle r (radians)
// between a photon and its source. The density of r is ∝ r·PSF(r) (small angles: the sphere is
// flat at the PSF's scale), with x = r / 0.00456544262478 rad and
//   PSF = f·King(x; σc, γc) + (1 − f)·King(x; σt, γt),
//   King(x; σ, γ) = (1/(2πσ²))(1 − 1/γ)(1 + x²/(2γσ²))^−γ.
// Each King term times 2πx integrates in closed form: CDF_King(x) = 1 − (1 + x²/(2γσ²))^(1−γ),
// so r is drawn exactly: pick a component (probability f), invert its CDF. The Gaussian option
// (σ = 0.1812°) is a Rayleigh radius: CDF = 1 − exp(−r²/(2σ²)). Azimuths are the caller's.
#pragma once

#include "core/random.hpp"

namespace empl::gamma_ray {

struct KingPsf {
  double scale_rad = 0.00456544262478;  // r = x · scale
  double core_fraction = 0.748988248179;
  double sigma_core = 0.428653790656, gamma_core = 7.82363229341;
  double sigma_tail = 0.715962650769, gamma_tail = 3.61883748683;
};

enum class PsfKind { king, gaussian };

inline constexpr double kGaussianPsfSigmaDeg = 0.1812;

struct Psf {
  PsfKind kind = PsfKind::king;
  KingPsf king;
  double gaussian_sigma_rad = kGaussianPsfSigmaDeg * 3.14159265358979323846 / 180.0;
};

// One angle r ≥ 0 in radians, from the density ∝ r·PSF(r). Throws if the parameters are not a
// distribution (σ ≤ 0, γ ≤ 1, fraction outside [0, 1]).
double sample_psf_radius(const Psf& psf, Rng& rng);

// The CDF of r (for tests and checks): P(angle ≤ r).
double psf_radius_cdf(const Psf& psf, double r);

}  // namespace empl::gamma_ray

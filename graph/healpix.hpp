// The HEALPix sphere, as the rest of empl sees it: pixel centres, neighbours, discs, children,
// always in NESTED ordering (a pixel p at nside has children 4p .. 4p+3 at 2·nside, which is what
// makes pooling "4 consecutive nodes"). Read first: Górski et al. 2005, ApJ 622, 759, section 4.
//
// The geometry comes from Debian's HEALPix C++ library (libhealpix-cxx-dev), the field's reference
// implementation. It is included by healpix.cpp alone: its headers put RING, NEST, vec3 and arr
// in the global namespace, and none of that should leak into the code that includes this file.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace empl::healpix {

struct Vec3 {
  double x = 0.0, y = 0.0, z = 0.0;
};

// nside must be a power of two in [1, 2^29] (the NESTED scheme needs a power of two).
bool is_valid_nside(int64_t nside);
// Throws "<who>: nside 3 is not a power of two in [1, 536870912]".
void check_nside(const char* who, int64_t nside);
inline int64_t pixel_count(int64_t nside) { return 12 * nside * nside; }

// Unit vectors of the centres of `pixels` (NESTED indices at `nside`), in that order.
std::vector<Vec3> pixel_centres(int64_t nside, std::span<const int64_t> pixels);

// The 8 neighbours of each pixel, in HEALPix's order SW, W, NW, N, NE, E, SE, S; −1 where a
// pixel has only 7 (the W, N, E or S neighbour is missing at 8 corners of the base pixels).
std::vector<std::array<int64_t, 8>> neighbours(int64_t nside, std::span<const int64_t> pixels);

// NESTED indices, ascending, of the pixels whose centre lies within `radius` radians of the
// direction (theta colatitude, phi longitude, radians).
std::vector<int64_t> query_disc(int64_t nside, double theta, double phi, double radius);

// The 4 pixels at 2·nside that subdivide NESTED pixel `pixel` at nside: 4p, 4p+1, 4p+2, 4p+3.
std::array<int64_t, 4> children(int64_t nside, int64_t pixel);

}  // namespace empl::healpix

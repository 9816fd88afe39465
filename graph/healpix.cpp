// graph/healpix: thin wrappers over Healpix_Base2 (64-bit indices, NESTED). The only file of
// empl that includes HEALPix's headers (see healpix.hpp). Calls are serial: HEALPix's OpenMP is
// kept out of our build (CMakeLists.txt), and these loops are milliseconds even at nside 256.
// Read graph/healpix.hpp first.
#include "graph/healpix.hpp"

#include <numbers>

#include <healpix_base.h>

#include "core/error.hpp"

namespace empl::healpix {
namespace {

constexpr int64_t kMaxNside = int64_t{1} << 29;

Healpix_Base2 nested_base(const char* who, int64_t nside) {
  check_nside(who, nside);
  return Healpix_Base2(nside, NEST, SET_NSIDE);
}

void check_pixel(const char* who, int64_t nside, int64_t pixel) {
  if (pixel < 0 || pixel >= pixel_count(nside))
    fail(who, ": pixel ", pixel, " is outside [0, ", pixel_count(nside), ") at nside ", nside);
}

}  // namespace

bool is_valid_nside(int64_t nside) { return nside >= 1 && nside <= kMaxNside && (nside & (nside - 1)) == 0; }

void check_nside(const char* who, int64_t nside) {
  if (!is_valid_nside(nside)) fail(who, ": nside ", nside, " is not a power of two in [1, ", kMaxNside, "]");
}

std::vector<Vec3> pixel_centres(int64_t nside, std::span<const int64_t> pixels) {
  const Healpix_Base2 base = nested_base("healpix::pixel_centres", nside);
  std::vector<Vec3> centres;
  centres.reserve(pixels.size());
  for (const int64_t p : pixels) {
    check_pixel("healpix::pixel_centres", nside, p);
    const vec3 v = base.pix2vec(p);
    centres.push_back({v.x, v.y, v.z});
  }
  return centres;
}

int64_t vec2pix(int64_t nside, const Vec3& v) {
  const Vec3 one[1] = {v};
  return vec2pix(nside, std::span<const Vec3>(one)).front();
}

std::vector<int64_t> vec2pix(int64_t nside, std::span<const Vec3> directions) {
  const Healpix_Base2 base = nested_base("healpix::vec2pix", nside);
  std::vector<int64_t> pixels;
  pixels.reserve(directions.size());
  for (const Vec3& v : directions) {
    if (!(v.x * v.x + v.y * v.y + v.z * v.z > 0.0))  // also refuses NaN
      fail("healpix::vec2pix: direction (", v.x, ", ", v.y, ", ", v.z, ") has no length");
    pixels.push_back(base.vec2pix(vec3(v.x, v.y, v.z)));
  }
  return pixels;
}

std::vector<std::array<int64_t, 8>> neighbours(int64_t nside, std::span<const int64_t> pixels) {
  const Healpix_Base2 base = nested_base("healpix::neighbours", nside);
  std::vector<std::array<int64_t, 8>> result;
  result.reserve(pixels.size());
  fix_arr<int64, 8> found;
  for (const int64_t p : pixels) {
    check_pixel("healpix::neighbours", nside, p);
    base.neighbors(p, found);
    std::array<int64_t, 8>& row = result.emplace_back();
    for (int k = 0; k < 8; ++k) row[k] = found[k];
  }
  return result;
}

std::vector<int64_t> query_disc(int64_t nside, double theta, double phi, double radius) {
  const Healpix_Base2 base = nested_base("healpix::query_disc", nside);
  if (!(theta >= 0.0 && theta <= std::numbers::pi) || !(radius >= 0.0))
    fail("healpix::query_disc: theta ", theta, " must be in [0, pi] and radius ", radius, " >= 0");
  const rangeset<int64> ranges = base.query_disc(pointing(theta, phi), radius);
  std::vector<int64_t> pixels;
  for (tsize r = 0; r < ranges.nranges(); ++r)
    for (int64 p = ranges.ivbegin(r); p < ranges.ivend(r); ++p) pixels.push_back(p);
  return pixels;
}

std::array<int64_t, 4> children(int64_t nside, int64_t pixel) {
  check_nside("healpix::children", nside);
  check_pixel("healpix::children", nside, pixel);
  if (nside * 2 > kMaxNside) fail("healpix::children: nside ", nside, " has no finer level");
  return {4 * pixel, 4 * pixel + 1, 4 * pixel + 2, 4 * pixel + 3};
}

}  // namespace empl::healpix

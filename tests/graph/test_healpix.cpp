// graph/healpix against an independent source: pixel centres, neighbours and discs at nside 1, 2,
// 4, 8 from Debian's python3-healpy (healpix_fixture.txt, made by make_healpix_fixture.py beside it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph/healpix.hpp"

using namespace empl;

TEST_CASE("healpix: centres, neighbours and discs match healpy at nside 1, 2, 4, 8") {
  std::ifstream file(std::string(EMPL_SOURCE_DIR) + "/tests/graph/healpix_fixture.txt");
  REQUIRE(file.good());
  int pixels_checked = 0, discs_checked = 0;
  double worst_centre_error = 0.0;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    std::string kind;
    int64_t nside = 0;
    in >> kind >> nside;
    if (kind == "pixel") {
      int64_t p = 0;
      healpix::Vec3 expected;
      std::array<int64_t, 8> expected_neighbours{};
      in >> p >> expected.x >> expected.y >> expected.z;
      for (int64_t& n : expected_neighbours) in >> n;
      REQUIRE(in);
      const int64_t one[] = {p};
      const healpix::Vec3 c = healpix::pixel_centres(nside, one)[0];
      worst_centre_error = std::max({worst_centre_error, std::abs(c.x - expected.x), std::abs(c.y - expected.y),
                                     std::abs(c.z - expected.z)});
      CHECK_MESSAGE(healpix::neighbours(nside, one)[0] == expected_neighbours, "nside ", nside, " pixel ", p);
      ++pixels_checked;
    } else if (kind == "disc") {
      double theta = 0, phi = 0, radius = 0;
      size_t count = 0;
      in >> theta >> phi >> radius >> count;
      std::vector<int64_t> expected(count);
      for (int64_t& p : expected) in >> p;
      REQUIRE(in);
      CHECK(healpix::query_disc(nside, theta, phi, radius) == expected);
      ++discs_checked;
    }
  }
  CHECK(pixels_checked == 12 * (1 + 4 + 16 + 64));
  CHECK(discs_checked == 8);
  CHECK(worst_centre_error < 1e-15);  // both are the same double formulas: agreement to rounding
}

TEST_CASE("healpix: children are the 4 consecutive NESTED indices, and their centres surround the parent") {
  CHECK(healpix::children(2, 5) == std::array<int64_t, 4>{20, 21, 22, 23});
  // The parent's centre is closer to its own children than to any other pixel of the finer level.
  const int64_t parent[] = {37};
  const healpix::Vec3 c = healpix::pixel_centres(4, parent)[0];
  std::vector<int64_t> fine(healpix::pixel_count(8));
  std::iota(fine.begin(), fine.end(), 0);
  const std::vector<healpix::Vec3> centres = healpix::pixel_centres(8, fine);
  std::vector<int64_t> order(fine);
  const auto dist = [&](int64_t p) {
    return std::hypot(centres[p].x - c.x, centres[p].y - c.y, centres[p].z - c.z);
  };
  std::partial_sort(order.begin(), order.begin() + 4, order.end(), [&](int64_t a, int64_t b) { return dist(a) < dist(b); });
  std::sort(order.begin(), order.begin() + 4);
  const std::array<int64_t, 4> nearest{order[0], order[1], order[2], order[3]};
  CHECK(nearest == healpix::children(4, 37));
}

TEST_CASE("healpix: bad nside and pixels name the value") {
  CHECK_THROWS_WITH_AS(healpix::check_nside("graph", 12), doctest::Contains("nside 12"), Error);
  CHECK_THROWS_WITH_AS(healpix::check_nside("graph", 0), doctest::Contains("nside 0"), Error);
  const int64_t bad[] = {48};
  CHECK_THROWS_WITH_AS(healpix::pixel_centres(2, bad), doctest::Contains("pixel 48"), Error);
  CHECK_THROWS_WITH_AS(healpix::children(2, -1), doctest::Contains("pixel -1"), Error);
}

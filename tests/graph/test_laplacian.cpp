// graph/laplacian: W symmetric, L's null vector, the spectrum of L̃ (by LAPACK's dsyev, an
// independent eigen solver), the one-node level at nside 1, and the hierarchy's levels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "graph/laplacian.hpp"

using namespace empl;

extern "C" void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
                       double* work, const int* lwork, int* info);  // LAPACK, in Debian's OpenBLAS

namespace {

template <typename T>
std::vector<double> dense(const CsrMatrix<T>& m) {
  std::vector<double> a(static_cast<size_t>(m.rows * m.rows), 0.0);
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) a[r * m.rows + m.indices[e]] = m.values[e];
  return a;
}

std::vector<double> eigenvalues(std::vector<double> a, int n) {
  std::vector<double> w(static_cast<size_t>(n)), work(static_cast<size_t>(8 * n + 8));
  const int lwork = static_cast<int>(work.size());
  int info = 0;
  dsyev_("N", "U", &n, a.data(), &n, w.data(), work.data(), &lwork, &info);
  REQUIRE(info == 0);
  return w;  // ascending
}

}  // namespace

TEST_CASE("laplacian: W is symmetric, has HEALPix's neighbour counts and the kernel's weights") {
  const CsrMatrix<double> w = weight_matrix(8);
  REQUIRE(w.rows == 64);
  const std::vector<double> a = dense(w);
  int asymmetric = 0, eight = 0, seven = 0;
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 64; ++j) asymmetric += a[i * 64 + j] != a[j * 64 + i];
    const int64_t degree = w.indptr[i + 1] - w.indptr[i];
    eight += degree == 8;
    seven += degree == 7;
  }
  CHECK(asymmetric == 0);
  // An 8×8 patch of base pixel 4: 36 inner nodes with 8 neighbours inside the patch, the rest
  // fewer (edges: 5, corners: 3); base pixel 4 is an equatorial one, no 7-neighbour corner inside.
  CHECK(eight == 36);
  CHECK(seven == 0);
  CHECK(w.nonzeros() == 36 * 8 + 24 * 5 + 4 * 3);
  // kw(2) = exp(−1.00258726·ln 2 − 0.22340667) = 0.39918... (python3: math.exp(-1.00258726*math.log(2)-0.22340667))
  CHECK(kernel_width(2) == doctest::Approx(0.3991783).epsilon(1e-6));
  CHECK(kernel_width(128) == 0.00614);
  // Every weight is in (0, 1): an edge of nside 8 has d ≈ 0.15 rad ≈ 1.4 kw(8).
  for (const double v : w.values) CHECK((v > 0.0 && v < 1.0));
}

TEST_CASE("laplacian: L annihilates D^1/2·1 (its rows weighted by sqrt(degree) sum to 0)") {
  // For L = I − D^−½WD^−½, Σ_j L_ij √d_j = √d_i − Σ_j w_ij/√d_i = 0: the normalised Laplacian's
  // rows themselves do not sum to 0 (unequal degrees), this weighted sum does.
  const CsrMatrix<double> w = weight_matrix(8);
  const CsrMatrix<double> l = normalized_laplacian(w);
  std::vector<double> sqrt_degree(64);
  for (int64_t r = 0; r < 64; ++r) {
    double d = 0.0;
    for (int64_t e = w.indptr[r]; e < w.indptr[r + 1]; ++e) d += w.values[e];
    sqrt_degree[r] = std::sqrt(d);
  }
  double worst = 0.0;
  for (int64_t r = 0; r < 64; ++r) {
    double sum = 0.0;
    for (int64_t e = l.indptr[r]; e < l.indptr[r + 1]; ++e) sum += l.values[e] * sqrt_degree[l.indices[e]];
    worst = std::max(worst, std::abs(sum));
  }
  CHECK(worst < 1e-14);
  CHECK(l.nonzeros() == w.nonzeros() + 64);  // the diagonal, stored once per row
}

TEST_CASE("laplacian: the spectrum of L~ lies in [-1, 0.5] and reaches 1.5/1.02 - 1 at the top") {
  for (const int64_t nside : {2, 4, 8, 16}) {
    const GraphLevel level = build_graph_level(nside);
    const int n = static_cast<int>(level.laplacian.rows);
    const std::vector<double> a = dense(level.laplacian);
    const std::vector<double> lambda = eigenvalues(a, n);
    INFO("nside ", nside, ": min ", lambda.front(), " max ", lambda.back());
    // L's smallest eigenvalue is 0 (connected graph) → L̃'s is −1, to float32 rounding.
    CHECK(std::abs(lambda.front() + 1.0) < 1e-6);
    // Lanczos approaches λmax from below, so L̃'s top is 1.5/1.02 − 1 = 0.4706 when the estimate
    // is exact, and above it by the estimate's error (1e-8 relative here): the check allows 1e-6.
    CHECK(lambda.back() <= 0.5);
    CHECK(lambda.back() >= 1.5 / 1.02 - 1.0 - 1e-6);
    CHECK(lambda.back() < (1.5 / 1.02) * (1.0 + 1e-6) - 1.0);
    int asymmetric = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) asymmetric += a[i * n + j] != a[j * n + i];
    CHECK(asymmetric == 0);
  }
}

TEST_CASE("laplacian: nside 1 is one node with L~ = [1.5/1.02 - 1]; the hierarchy runs nside -> 1") {
  const GraphLevel one = build_graph_level(1);
  CHECK(one.nodes == std::vector<int64_t>{4});
  CHECK(one.laplacian.indptr == std::vector<int64_t>{0, 1});
  CHECK(one.laplacian.indices == std::vector<int32_t>{0});
  CHECK(one.laplacian.values[0] == static_cast<float>(1.5 / 1.02 - 1.0));
  const std::vector<GraphLevel> levels = build_graph_hierarchy(8);
  REQUIRE(levels.size() == 4);
  CHECK(levels[0].nside == 8);
  CHECK(levels[3].nside == 1);
  CHECK(levels[1].nodes.front() == 64);  // 4·nside² at nside 4
  CHECK(levels[1].nodes.back() == 79);  // 5·nside² − 1
  CHECK_THROWS_WITH_AS(build_graph_hierarchy(6), doctest::Contains("nside 6"), Error);
}

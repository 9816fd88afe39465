// graph/laplacian: W from HEALPix neighbours, L, λmax by Lanczos, L̃ in CSR float32.
// Everything before the final cast runs in double: L̃ is built once per level, and float32
// rounding of the degrees would break W's exact symmetry (w_ij and w_ji are the same double
// expression of the same two centres, so they are bit-identical here).
// Read graph/laplacian.hpp first.
#include "graph/laplacian.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "graph/healpix.hpp"

namespace empl {
namespace {

// y = m·x (rows in order: deterministic).
void csr_times(const CsrMatrix<double>& m, const std::vector<double>& x, std::vector<double>& y) {
  for (int64_t r = 0; r < m.rows; ++r) {
    double sum = 0.0;
    for (int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) sum += m.values[e] * x[m.indices[e]];
    y[r] = sum;
  }
}

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal alpha and off-diagonal
// beta, by bisection on the Sturm count (the number of eigenvalues below x is the number of
// negative pivots of T − x·I): exact to the last few bits, and T is at most 1000 × 1000.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const size_t n = alpha.size();
  double lo = alpha[0], hi = alpha[0];  // Gershgorin bounds
  for (size_t i = 0; i < n; ++i) {
    const double radius = (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i + 1 < n ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - radius);
    hi = std::max(hi, alpha[i] + radius);
  }
  const auto below = [&](double x) {
    size_t count = 0;
    double pivot = 1.0;
    for (size_t i = 0; i < n; ++i) {
      pivot = alpha[i] - x - (i > 0 ? beta[i - 1] * beta[i - 1] / pivot : 0.0);
      if (pivot == 0.0) pivot = -1e-300;
      count += pivot < 0.0;
    }
    return count;
  };
  for (int iteration = 0; iteration < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++iteration) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) == n ? hi : lo) = mid;  // all n below mid: the largest is below it
  }
  return hi;
}

}  // namespace

double kernel_width(int64_t nside) {
  healpix::check_nside("kernel_width", nside);
  switch (nside) {
    case 32: return 0.02500;
    case 64: return 0.01228;
    case 128: return 0.00614;
    case 256: return 0.00307;
    default: return std::exp(-1.00258726 * std::log(static_cast<double>(nside)) - 0.22340667);
  }
}

std::vector<int64_t> graph_nodes(int64_t nside) {
  healpix::check_nside("graph_nodes", nside);
  if (nside > 32768) fail("graph_nodes: nside ", nside, " has more nodes than 32-bit CSR indices hold");
  std::vector<int64_t> nodes(static_cast<size_t>(nside * nside));
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = 4 * nside * nside + static_cast<int64_t>(i);
  return nodes;
}

CsrMatrix<double> weight_matrix(int64_t nside) {
  const std::vector<int64_t> nodes = graph_nodes(nside);
  const std::vector<healpix::Vec3> centres = healpix::pixel_centres(nside, nodes);
  const std::vector<std::array<int64_t, 8>> neighbours = healpix::neighbours(nside, nodes);
  const int64_t first = nodes.front(), count = static_cast<int64_t>(nodes.size());
  const double kw = kernel_width(nside);
  CsrMatrix<double> w;
  w.rows = count;
  w.indptr.reserve(static_cast<size_t>(count) + 1);
  for (int64_t i = 0; i < count; ++i) {
    std::array<int64_t, 8> row = neighbours[i];
    std::sort(row.begin(), row.end());  // CSR columns ascending; −1 (missing) sorts first
    for (const int64_t pixel : row) {
      const int64_t j = pixel - first;
      if (pixel < 0 || j < 0 || j >= count) continue;  // missing, or outside base pixel 4
      const healpix::Vec3& a = centres[i];
      const healpix::Vec3& b = centres[j];
      const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
      const double d2 = dx * dx + dy * dy + dz * dz;  // squared chord distance
      w.indices.push_back(static_cast<int32_t>(j));
      w.values.push_back(std::exp(-std::numbers::ln2 * d2 / (kw * kw)));
    }
    w.indptr.push_back(static_cast<int64_t>(w.values.size()));
  }
  return w;
}

CsrMatrix<double> normalized_laplacian(const CsrMatrix<double>& w) {
  std::vector<double> inv_sqrt_degree(static_cast<size_t>(w.rows));
  for (int64_t r = 0; r < w.rows; ++r) {
    double degree = 0.0;
    for (int64_t e = w.indptr[r]; e < w.indptr[r + 1]; ++e) degree += w.values[e];
    inv_sqrt_degree[r] = degree > 0.0 ? 1.0 / std::sqrt(degree) : 0.0;
  }
  CsrMatrix<double> l;
  l.rows = w.rows;
  l.indptr.reserve(static_cast<size_t>(w.rows) + 1);
  for (int64_t r = 0; r < w.rows; ++r) {
    bool diagonal_done = false;
    const auto add_diagonal = [&] {
      l.indices.push_back(static_cast<int32_t>(r));
      l.values.push_back(1.0);
      diagonal_done = true;
    };
    for (int64_t e = w.indptr[r]; e < w.indptr[r + 1]; ++e) {
      const int32_t c = w.indices[e];
      if (!diagonal_done && c > r) add_diagonal();
      if (c == r) fail("normalized_laplacian: W has a self-loop at row ", r);
      l.indices.push_back(c);
      // (d_r^−½ · d_c^−½) as one product: it is the same double for (r, c) and (c, r), so L, and
      // L̃ after it, are exactly symmetric, which the backward of cheb_conv relies on.
      l.values.push_back(-w.values[e] * (inv_sqrt_degree[r] * inv_sqrt_degree[c]));
    }
    if (!diagonal_done) add_diagonal();
    l.indptr.push_back(static_cast<int64_t>(l.values.size()));
  }
  return l;
}

double largest_eigenvalue(const CsrMatrix<double>& m) {
  if (m.rows == 0) fail("largest_eigenvalue: the matrix has no rows");
  // Lanczos: after j steps the tridiagonal T_j (alpha on its diagonal, beta beside it) holds M
  // restricted to the Krylov space of the start vector, and T_j's largest eigenvalue (its top
  // Ritz value) rises towards λmax from below as j grows. Plain power iteration converges too
  // slowly here: the top of a grid graph's spectrum is dense, and after 5000 iterations it was
  // still 0.04% low at nside 256; Lanczos converges with the square root of that gap. Without
  // reorthogonalisation, rounding can make T_j repeat eigenvalues, which does not move the top one.
  const size_t n = static_cast<size_t>(m.rows);
  std::vector<double> v(n), previous(n, 0.0), w(n), alpha, beta;
  // A start vector with no special structure, so it is not orthogonal to the top eigenvector.
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(1.0 + 12.9898 * static_cast<double>(i)) + 1.5;
  const auto norm = [](const std::vector<double>& x) {
    double sum = 0.0;
    for (const double value : x) sum += value * value;
    return std::sqrt(sum);
  };
  const double v_norm = norm(v);
  for (double& value : v) value /= v_norm;
  std::vector<double> ritz;  // top Ritz value after each step
  for (size_t step = 0; step < std::min<size_t>(n, 1000); ++step) {
    csr_times(m, v, w);
    double a = 0.0;
    for (size_t i = 0; i < n; ++i) a += w[i] * v[i];
    for (size_t i = 0; i < n; ++i) w[i] -= a * v[i] + (beta.empty() ? 0.0 : beta.back()) * previous[i];
    alpha.push_back(a);
    ritz.push_back(largest_tridiagonal_eigenvalue(alpha, beta));
    const double b = norm(w);
    // An invariant subspace (b ≈ 0: T_j is exact), or the top Ritz value settled over 10 steps.
    if (b <= 1e-12 * std::abs(a) + 1e-300) break;
    if (ritz.size() > 10 && ritz.back() - ritz[ritz.size() - 11] <= 1e-12 * ritz.back()) break;
    beta.push_back(b);
    previous.swap(v);
    for (size_t i = 0; i < n; ++i) v[i] = w[i] / b;
  }
  return ritz.back();
}

GraphLevel build_graph_level(int64_t nside) {
  GraphLevel level;
  level.nside = nside;
  level.nodes = graph_nodes(nside);
  const CsrMatrix<double> l = normalized_laplacian(weight_matrix(nside));
  level.lambda_max = 1.02 * largest_eigenvalue(l);
  const double scale = 2.0 * 0.75 / level.lambda_max;
  CsrMatrix<float>& out = level.laplacian;
  out.rows = l.rows;
  out.indptr = l.indptr;
  out.indices = l.indices;
  out.values.resize(l.values.size());
  for (int64_t r = 0; r < l.rows; ++r)
    for (int64_t e = l.indptr[r]; e < l.indptr[r + 1]; ++e)
      out.values[e] = static_cast<float>(l.values[e] * scale - (l.indices[e] == r ? 1.0 : 0.0));
  return level;
}

std::vector<GraphLevel> build_graph_hierarchy(int64_t nside) {
  healpix::check_nside("build_graph_hierarchy", nside);
  std::vector<GraphLevel> levels;
  for (int64_t n = nside; n >= 1; n /= 2) levels.push_back(build_graph_level(n));
  return levels;
}

}  // namespace empl

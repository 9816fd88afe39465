// The graph of one HEALPix level and its rescaled Laplacian, the operator of the Chebyshev
// convolution (Defferrard et al. 2016; DeepSphere, Perraudin et al. 2019). Read graph/healpix.hpp
// first. At nside the nodes are the descendants of NESTED base pixel 4, [4·nside², 5·nside²) in
// that order; edges join HEALPix neighbours inside that set, with weights
//   w_ij = exp(−ln2 · d_ij² / kw²)   (d: chord distance of the pixel centres; kw: kernel_width)
//   L = I − D^−½ W D^−½,   L̃ = L · (2 · 0.75 / λmax) − I,   λmax = 1.02 × Lanczos's estimate,
// so L̃'s spectrum lies in [−1, 1.5/1.02 − 1] ⊂ [−1, 0.5]. L̃ is symmetric (W is, D is diagonal).
// An isolated node (nside 1 has one node and no edge) has degree 0: its row of D^−½WD^−½ is 0, so
// L = [1], λmax = 1.02 and L̃ = [1.5/1.02 − 1] = [0.4706].
#pragma once

#include <cstdint>
#include <vector>

namespace empl {

// Compressed sparse rows: row r's entries are values[indptr[r] .. indptr[r+1]) in columns
// indices[...] (ascending). Indices are 32-bit: the product streams them, and 4 bytes per entry
// less is bandwidth (nside 256 has 65,536 rows, far below 2^31).
template <typename T>
struct CsrMatrix {
  int64_t rows = 0;
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  std::vector<T> values;

  int64_t nonzeros() const { return static_cast<int64_t>(values.size()); }
};

// kw(nside): GAMMA_RAY.md's table at nside 32, 64, 128, 256, exp(−1.00258726·ln nside − 0.22340667) otherwise.
double kernel_width(int64_t nside);

// NESTED indices of the node set at nside: 4·nside² .. 5·nside² − 1.
std::vector<int64_t> graph_nodes(int64_t nside);

// W of the level (double, no diagonal), rows and columns in node order.
CsrMatrix<double> weight_matrix(int64_t nside);

// L = I − D^−½ W D^−½ (the diagonal stored in every row), with 0 for D^−½ of an isolated node.
CsrMatrix<double> normalized_laplacian(const CsrMatrix<double>& w);

// The largest eigenvalue of a symmetric matrix by Lanczos iteration from a fixed start vector (no
// randomness: the same graph gives the same bits), approached from below; without the 1.02.
// (GAMMA_RAY.md says power iteration; the issue allows Lanczos, which converges where power
// iteration stalls: see laplacian.cpp.)
double largest_eigenvalue(const CsrMatrix<double>& m);

struct GraphLevel {
  int64_t nside = 0;
  std::vector<int64_t> nodes;      // NESTED indices, node order
  double lambda_max = 0.0;         // 1.02 × the estimate: what the rescaling divided by
  CsrMatrix<float> laplacian;      // L̃
};

// One level: nodes, L̃ in float32.
GraphLevel build_graph_level(int64_t nside);

// The pooling hierarchy: levels nside, nside/2, ..., 1 (log2(nside) + 1 of them).
std::vector<GraphLevel> build_graph_hierarchy(int64_t nside);

}  // namespace empl

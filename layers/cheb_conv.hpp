// Chebyshev graph convolution of order K (Defferrard et al. 2016, as DeepSphere uses it on the
// HEALPix sphere): with L̃ the rescaled Laplacian of graph/laplacian.hpp,
//   T0 = x,  T1 = L̃x,  Tk = 2L̃T(k−1) − T(k−2),     y = Σ_k Tk·Wk + b  = [T0 … T(K−1)]·W + b
// Read graph/sparse_matmul.hpp and layers/linear.hpp first.
//
// Layout: activations are node-major [V, B, F]. The sparse products then act on [V, B·F] rows
// with no transpose, the 4 NESTED children of a node are 4 consecutive rows (layers/healpix_pool),
// and batch norm over batch × nodes is BatchNorm1d on the V·B rows as they stand.
#pragma once

#include <cstdint>

#include "graph/laplacian.hpp"
#include "layers/module.hpp"

namespace empl {

// Forward and backward, shapes: x [V, B, F_in], w [K·F_in, F_out] (row k·F_in + f is Wk's row f),
// b [1, F_out] or undefined, y [V, B, F_out]; the basis [V, B, K·F_in] and the terms
// [K, V, B, F_in] are saved.
//   forward:   T1 … T(K−1) by the recurrence on the terms, each a contiguous [V, B·F_in] (where the
//              sparse product streams whole rows), then copied with T0 = x into the basis
//              [T0 … T(K−1)], y = basis·W + b                        (one GEMM)
//   backward:  dW += basisᵀ·dy,  db += Σ_rows dy,  G = dy·Wᵀ          (two GEMMs; G takes the
//              spent basis's memory), G's blocks copied into the terms, then the recurrence in
//              reverse (Clenshaw's), in place on them, k = K−2 … 1:
//                U(k) = G(k) + 2·L̃ᵀ·U(k+1) − U(k+2)     (U(K−1) = G(K−1), U(K) = 0)
//              dx += G(0) + L̃ᵀ·U(1) − U(2)             (one sparse product per term)
//              L̃ is symmetric (graph/laplacian.cpp builds it exactly so), so L̃ᵀ·g is the forward's
//              own sparse product L̃·g.
// `laplacian` must outlive the tape's backward (the node keeps its address).
Var cheb_conv(Tape& tape, const Var& x, const CsrMatrix<float>& laplacian, const Var& w, const Var& b);

struct ChebConvOptions {
  bool bias = true;
  uint64_t seed = 1;
  uint64_t stream = 0;
};

// The layer: W initialised from a normal truncated at 2σ, σ = 1/sqrt(F_in·(K + 0.5)/2) (the
// DeepSphere authors' TensorFlow code), bias 0. The graph is borrowed, not owned.
class ChebConv : public Module {
 public:
  ChebConv(const CsrMatrix<float>& laplacian, int64_t order, int64_t in_features, int64_t out_features,
           const ChebConvOptions& options = {});
  Var forward(Tape& tape, const Var& x) override;
  const char* type_name() const override { return "ChebConv"; }
  void visit_parameters(const std::string& prefix, const ParameterVisitor& visit) override;

  Var weight;  // [K·F_in, F_out]
  Var bias;    // [1, F_out], undefined without bias

 private:
  const CsrMatrix<float>* laplacian_;
};

}  // namespace empl

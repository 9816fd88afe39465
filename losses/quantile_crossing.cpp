// The quantile-crossing penalty's forward and backward (the equation is in quantile_crossing.hpp):
//
//   forward   Q̃_{t,j} = Σ_{k≤j} q̃_{t,k} per row;  c_{t,j} = Q̃_{t,j} − Q̃_{t+1,j} (> 0: a crossing)
//             P = (1/(B·(T−1)·N)) Σ_b Σ_{t<T} Σ_j max(0, c_{b,t,j})
//   backward  a crossing c > 0 pulls Q̃_{t,j} down and pushes Q̃_{t+1,j} up, each by 1/(B·(T−1)·N):
//             ∂P/∂Q̃_{t,j} = s·(1[c_{t,j} > 0] − 1[c_{t−1,j} > 0]),  ∂P/∂q̃_k = Σ_{j≥k} ∂P/∂Q̃_j
//
// At c = 0 exactly (no crossing) the subgradient 0 is taken: predictions that tie are not pushed.
// Read quantile_crossing.hpp first, then losses/empl.cpp (the same reverse cumulative sum).
#include "losses/quantile_crossing.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reduce.hpp"
#include "losses/empl.hpp"

namespace empl {
namespace {

void check_inputs(const Var& predicted, const Tensor& tau, int64_t levels) {
  const char* name = "quantile_crossing_penalty";
  if (predicted.value.rank() != 2 || predicted.shape()[0] == 0 || predicted.shape()[1] == 0)
    fail(name, ": predicted is ", predicted.shape(), ": expected [B·T, N] histograms with B·T, N > 0");
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1];
  if (levels < 2) fail(name, ": levels = ", levels, ": a crossing needs at least 2 quantile levels per sample");
  if (rows % levels != 0)
    fail(name, ": predicted is ", predicted.shape(), " with levels = ", levels, ": ", rows,
         " rows are not a whole number of samples at ", levels, " levels each");
  if (tau.shape() != Shape{rows, 1})
    fail(name, ": tau is ", tau.shape(), ", predicted is ", predicted.shape(), ": expected tau [", rows, ",1]");
  for (int64_t i = 0; i < rows * bins; ++i)
    if (!std::isfinite(predicted.value[i]))
      fail(name, ": predicted[", i / bins, ",", i % bins, "] is ", predicted.value[i],
           "\nHINT: the network diverged; lower the learning rate or check its inputs");
  for (int64_t r = 0; r < rows; ++r) {
    if (!(tau[r] >= 0.0f && tau[r] <= 1.0f)) fail(name, ": tau[", r, "] = ", tau[r], " is outside [0, 1]");
    if (r % levels != 0 && !(tau[r] > tau[r - 1]))
      fail(name, ": tau[", r, "] = ", tau[r], " is not above tau[", r - 1, "] = ", tau[r - 1], " (levels ",
           r % levels - 1, " and ", r % levels, " of sample ", r / levels,
           "): each sample's rows must come in increasing tau");
  }
}

}  // namespace

// Forward. Shapes: predicted q̃ [B·T, N], tau [B·T, 1] → P []; saves slopes [B·T, N] = ∂P/∂Q̃,
// computed in the same pass (as Note [fused slope] in losses/empl.cpp).
Var quantile_crossing_penalty(Tape& tape, const Var& predicted, const Tensor& tau, int64_t levels) {
  check_inputs(predicted, tau, levels);
  const int64_t rows = predicted.shape()[0], bins = predicted.shape()[1], samples = rows / levels;
  const float scale = 1.0f / static_cast<float>(samples * (levels - 1) * bins);
  Var penalty = tape.make_output(Shape{}, {&predicted});
  Tensor cumulative = tape.alloc({rows, bins});
  Tensor sample_sums = tape.alloc({samples});
  Tensor slopes = penalty.requires_grad() ? tape.alloc({rows, bins}) : Tensor();
  const float* q = predicted.value.data();
  float* Q = cumulative.data();
  float* sums = sample_sums.data();
  float* dQ = slopes.defined() ? slopes.data() : nullptr;
  const int64_t group = levels * bins;  // one sample's T rows
  parallel_for(samples, std::max<int64_t>(1, kDefaultGrain / group), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t first = b * group;
      for (int64_t t = 0; t < levels; ++t) {  // the cumulative histogram of each level
        float running = 0.0f;
        for (int64_t j = 0; j < bins; ++j) Q[first + t * bins + j] = (running += q[first + t * bins + j]);
      }
      if (dQ) std::fill(dQ + first, dQ + first + group, 0.0f);
      float sum = 0.0f;
      for (int64_t t = 0; t + 1 < levels; ++t) {
        for (int64_t j = 0; j < bins; ++j) {
          const int64_t lower = first + t * bins + j, upper = lower + bins;  // level t, level t + 1
          const float fall = Q[lower] - Q[upper];
          if (fall > 0.0f) {
            sum += fall;
            if (dQ) {
              dQ[lower] += scale;
              dQ[upper] -= scale;
            }
          }
        }
      }
      sums[b] = sum;
    }
  });
  // core/reduce's sum_all adds in a fixed order: the same bits for any thread count.
  penalty.value[0] = static_cast<float>(sum_all(sample_sums) * scale);
  if (Node* node = tape.record("quantile_crossing", cumulative_slopes_backward, penalty, {&predicted}))
    node->saved[0] = slopes;
  return penalty;
}

}  // namespace empl

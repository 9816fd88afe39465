// Batch shards' fixed-order sums, the code of autograd/shards.hpp: a shard sum over rows
// [lo, lo+n) is sum(first n/2) + sum(the other n − n/2), added in place along one fixed binary
// tree (local_sum), then combined across ranks in the same tree order (global_sum), so the bits do
// not depend on the number of ranks or threads. Read autograd/shards.hpp first.
#include "autograd/shards.hpp"

#include <algorithm>

#include "core/parallel.hpp"

namespace empl {
namespace {

// Leaves rows[0] = sum of rows [0, count): left half into rows[0], right half into rows[half],
// then rows[0] = left + right. Elementwise adds, so splitting them over threads changes nothing.
void tree_in_place(float* rows, int64_t count, int64_t n) {
  if (count <= 1) return;
  const int64_t half = count / 2;
  tree_in_place(rows, half, n);
  float* right = rows + half * n;
  tree_in_place(right, count - half, n);
  parallel_for(n, kDefaultGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) rows[i] = rows[i] + right[i];
  });
}

}  // namespace

void tree_sum(float* rows, int64_t count, int64_t n, float* out) {
  tree_in_place(rows, count, n);
  if (out != rows) std::copy_n(rows, n, out);
}

void Shards::local_sum(float* partials, int64_t n, float* out) const { tree_sum(partials, local, n, out); }

void Shards::global_sum(float* partials, int64_t n, float* out) const {
  local_sum(partials, n, out);
  if (ranks != nullptr) ranks->sum_subtrees(out, n);
}

}  // namespace empl

// Batch shards: the same bits on any number of processes (issue 14, training/loop.hpp).
//
// A sharded batch of B rows is G shards of B/G consecutive rows. Every sum over the batch (weight
// gradients, batch-norm statistics) is taken per shard, then the G shard sums are added along one
// fixed binary tree: sum(shards [lo, lo+n)) = sum(first n/2) + sum(the other n − n/2), left + right.
// A process (rank) holds G/R consecutive shards, which are a whole subtree of that tree when R is
// a power of two dividing G; it adds them here (local_sum), and the ranks combine their subtree
// sums in the same tree order (RankSum, e.g. MPI recursive doubling in training/communicator.hpp).
// So the result does not depend on R, nor on the thread count. Read after autograd/tape.hpp.
#pragma once

#include <cstdint>

namespace empl {

// Combines the ranks' subtree sums into the whole tree's sum, on every rank (in place). Rank r's
// data is the sum of shards [r·G/R, (r+1)·G/R); implemented by training/communicator.hpp.
class RankSum {
 public:
  virtual ~RankSum() = default;
  virtual void sum_subtrees(float* data, int64_t n) = 0;
};

struct Shards {
  int64_t total = 1;           // G, over all ranks
  int64_t local = 1;           // G/R, the consecutive shards of this rank
  RankSum* ranks = nullptr;    // null: one process

  // The rows of the global batch, from this rank's share of them.
  int64_t global_rows(int64_t local_rows) const { return local_rows / local * total; }
  // partials [local, n] (one row per shard, in order, overwritten) → out [n]: this rank's subtree.
  void local_sum(float* partials, int64_t n, float* out) const;
  // The same, then combined over the ranks: the whole tree's sum (the same bits on every rank).
  void global_sum(float* partials, int64_t n, float* out) const;
};

// rows [count, n] (overwritten) → out [n]: the fixed pairwise tree above over the count rows.
void tree_sum(float* rows, int64_t count, int64_t n, float* out);

}  // namespace empl

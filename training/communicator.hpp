// The processes of a data-parallel run (issue 14) behind one small interface: rank, size, the
// shards' tree sum across ranks, broadcast from rank 0, and abort. world() is MPI when empl was
// built with EMPL_MPI and the process was started by mpirun (training/mpi/communicator_mpi.cpp);
// otherwise, and always in a build without MPI, it is one process (size 1, every call a no-op).
//
// Why a fixed tree and not exact fixed-point sums: the tree keeps float32 gradients (4 bytes per
// parameter on the wire, as a plain allreduce), costs one add per element per stage, and loses
// nothing to a fixed-point scale; exact sums would need ~280-bit accumulators to cover float32's
// range, or a scale agreed on first (one more exchange). The tree's price is that R must be a
// power of two dividing G. Read after autograd/shards.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "autograd/shards.hpp"

namespace empl {

class Communicator : public RankSum {
 public:
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // In place, on every rank: rank r's data is its subtree sum of shards; the result is the tree's
  // sum. Recursive doubling: at stage k = 1, 2, 4, … rank r exchanges with r XOR k and both add
  // lower rank's + higher rank's, which is the tree order (and the same bits on both sides,
  // float addition being commutative).
  void sum_subtrees(float* data, int64_t n) override = 0;
  // Rank 0's n floats (or bytes) to every rank.
  virtual void broadcast(float* data, int64_t n) = 0;
  virtual void broadcast_bytes(void* data, int64_t n) = 0;
  // Ends every rank of the run with `status` (after an error on this one).
  [[noreturn]] virtual void abort(int status) = 0;
};

// The run's communicator (made on first use; MPI is finalised at exit).
Communicator& world();

// "rank 1 of 4" under MPI, "" for one process: a prefix for messages.
std::string rank_label();

}  // namespace empl

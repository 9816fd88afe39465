// The MPI communicator (built with EMPL_MPI; read training/communicator.hpp first). Only the main
// thread calls MPI (MPI_THREAD_FUNNELED): oneTBB's workers compute, they never communicate.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "training/communicator.hpp"

namespace empl {
namespace {

// Launched by mpirun (Open MPI, or a PMI launcher such as MPICH's hydra or Slurm's srun)? A
// binary started by hand stays one process and never initialises MPI: Open MPI's singleton
// start spawns a daemon, which a plain run (and the test suite) does not need.
bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override { MPI_Finalize(); }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void sum_subtrees(float* data, int64_t n) override {
    if ((size_ & (size_ - 1)) != 0) fail("sum over ranks: ", size_, " ranks is not a power of two");
    if (n > INT_MAX) fail("sum over ranks: ", n, " floats in one message, at most ", INT_MAX);
    received_.resize(static_cast<size_t>(n));
    for (int k = 1; k < size_; k <<= 1) {
      const int partner = rank_ ^ k;
      MPI_Sendrecv(data, static_cast<int>(n), MPI_FLOAT, partner, k, received_.data(), static_cast<int>(n), MPI_FLOAT,
                   partner, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      // Lower rank's subtree + higher rank's: the tree's order. Both partners get these bits.
      const float* other = received_.data();
      if (rank_ & k)
        for (int64_t i = 0; i < n; ++i) data[i] = other[i] + data[i];
      else
        for (int64_t i = 0; i < n; ++i) data[i] = data[i] + other[i];
    }
  }

  void broadcast(float* data, int64_t n) override { broadcast_bytes(data, n * static_cast<int64_t>(sizeof(float))); }

  void broadcast_bytes(void* data, int64_t n) override {
    char* bytes = static_cast<char*>(data);
    for (int64_t done = 0; done < n; done += INT_MAX) {
      const int count = static_cast<int>(std::min<int64_t>(INT_MAX, n - done));
      MPI_Bcast(bytes + done, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
  }

  [[noreturn]] void abort(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::exit(status);  // not reached: MPI_Abort ends the run
  }

 private:
  int rank_ = 0, size_ = 1;
  std::vector<float> received_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  if (!launched_by_mpirun()) return nullptr;
  return std::make_unique<MpiCommunicator>();
}

}  // namespace empl

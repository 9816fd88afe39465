// One process, and the choice of communicator (read training/communicator.hpp first). The MPI
// implementation lives in training/mpi/ and is compiled only with EMPL_MPI; without it the stub
// there returns no communicator and every run is one process.
#include "training/communicator.hpp"

#include <cstdlib>
#include <memory>

namespace empl {

// Defined by training/mpi/communicator_mpi.cpp (EMPL_MPI) or communicator_none.cpp: an MPI
// communicator when this process was launched by mpirun, otherwise null.
std::unique_ptr<Communicator> make_mpi_communicator();

namespace {

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum_subtrees(float*, int64_t) override {}
  void broadcast(float*, int64_t) override {}
  void broadcast_bytes(void*, int64_t) override {}
  [[noreturn]] void abort(int status) override { std::exit(status); }
};

}  // namespace

Communicator& world() {
  static const std::unique_ptr<Communicator> communicator = [] {
    std::unique_ptr<Communicator> mpi = make_mpi_communicator();
    return mpi ? std::move(mpi) : std::unique_ptr<Communicator>(std::make_unique<SingleProcess>());
  }();
  return *communicator;
}

std::string rank_label() {
  const Communicator& w = world();
  return w.size() > 1 ? "rank " + std::to_string(w.rank()) + " of " + std::to_string(w.size()) : std::string();
}

}  // namespace empl

// A build without EMPL_MPI: no MPI communicator, every run is one process (training/communicator.hpp).
#include <memory>

#include "training/communicator.hpp"

namespace empl {

std::unique_ptr<Communicator> make_mpi_communicator() { return nullptr; }

}  // namespace empl

// The cost of summing a packed gradient buffer over the ranks (issue 14): the communicator's
// recursive-doubling tree sum (training/communicator.hpp) of P floats, timed over many calls.
//
//   mpirun -np 2 --bind-to none build/rank_sum_bench [P ...]   (default: the toy, bimodal and
//   gamma-ray paper models' parameter counts)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "training/communicator.hpp"

int main(int argc, char** argv) {
  empl::Communicator& ranks = empl::world();
  // toy_urn 2→128→128→5 with batch norm; bimodal 4→256→256→10; gamma-ray paper model (GAMMA_RAY.md)
  std::vector<long long> sizes = {18053, 69642, 3117696};
  if (argc > 1) sizes.clear();
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  for (const long long p : sizes) {
    std::vector<float> data(static_cast<size_t>(p), 1.0f);
    const int calls = p > 1000000 ? 20 : 200;
    ranks.sum_subtrees(data.data(), p);  // warm up
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) ranks.sum_subtrees(data.data(), p);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
    if (ranks.rank() == 0)
      std::printf("ranks %d  P %lld  bytes %lld  per sum %.3f ms  (%.2f GB/s sent per rank)\n", ranks.size(), p, p * 4,
                  seconds * 1e3, ranks.size() > 1 ? p * 4.0 * __builtin_ctz(static_cast<unsigned>(ranks.size())) / seconds / 1e9 : 0.0);
  }
  return 0;
}

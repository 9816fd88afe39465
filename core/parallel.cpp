// core/parallel: the one thread setting (oneTBB's arena and OpenBLAS kept at one thread) and the
// fixed-chunk loops, whose chunking depends only on the size, never on the thread count, so a
// parallel sum gives the same bits on 1 and 2 threads. Read core/parallel.hpp first.
#include "core/parallel.hpp"

#include <cblas.h>

#include <memory>
#include <thread>

#include <tbb/global_control.h>

namespace empl {
namespace {

// The one process-wide setting of the library (DESIGN.md): TBB's limit lives in a
// global_control object, which must stay alive for as long as the limit should hold.
struct ThreadSetting {
  int count = 0;
  std::unique_ptr<tbb::global_control> tbb_limit;
};

ThreadSetting& thread_setting() {
  static ThreadSetting setting;
  return setting;
}

int all_cores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace

void set_num_threads(int n) {
  ThreadSetting& setting = thread_setting();
  setting.count = n <= 0 ? all_cores() : n;
  setting.tbb_limit.reset();  // a new limit replaces the old one, never stacks on it
  setting.tbb_limit = std::make_unique<tbb::global_control>(
      tbb::global_control::max_allowed_parallelism, static_cast<size_t>(setting.count));
  openblas_set_num_threads(1);  // TBB threads call BLAS (core/parallel.hpp)
}

int num_threads() {
  ThreadSetting& setting = thread_setting();
  if (setting.count == 0) set_num_threads(0);
  return setting.count;
}

}  // namespace empl

// Threads: one setting for both thread pools, and the loop helpers every kernel uses.
//
// One thread pool: oneTBB runs every parallel kernel, GEMMs included (core/matmul.cpp splits a
// product into row tiles, one single-threaded cblas_sgemm each). OpenBLAS is kept at one thread
// so that its own pool never competes with TBB's for the cores.
//
// Determinism: parallel_for splits work into fixed chunks whatever the thread count, and
// parallel_chunk_reduce combines per-chunk partial results in chunk order, so a sum over a tensor
// gives the same bits on 1 thread as on 2.
// Read after core/tensor.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

// ThreadSanitizer sees only instrumented code, and Debian's oneTBB is not: TSan cannot see the
// fork and join inside tbb::parallel_for (nor the reuse of TBB's task objects), and reports
// them as races. In a TSan build, parallel_for therefore runs its chunks on plain std::threads,
// whose start and join TSan understands: the check then covers what is ours (that the chunks of
// every kernel touch disjoint memory), and TBB's scheduler is left to TBB's own tests.
#if defined(__SANITIZE_THREAD__)
#define EMPL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMPL_TSAN 1
#endif
#endif
#ifdef EMPL_TSAN
#include <algorithm>
#include <thread>
#endif

namespace empl {

// Sets oneTBB's thread count (and OpenBLAS's to one). n <= 0 means all cores. Call from the main
// thread. Until it is called, the first num_threads() applies the default, all cores.
void set_num_threads(int n);
int num_threads();

// Below this many elements a kernel runs serially: spawning tasks costs more than it saves.
inline constexpr int64_t kDefaultGrain = 16384;

// Calls body(begin, end) over [0, n) in chunks of `grain`, in parallel when n > grain.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, Body&& body) {
  if (n <= 0) return;
  if (n <= grain || num_threads() == 1) {
    body(int64_t{0}, n);
    return;
  }
#ifdef EMPL_TSAN
  // Thread w runs chunks w, w + threads, ...; the caller is thread 0 (see the top of the file).
  const int64_t chunks = (n + grain - 1) / grain;
  const int64_t threads = std::min<int64_t>(num_threads(), chunks);
  const auto run_chunks = [&](int64_t first) {
    for (int64_t c = first; c < chunks; c += threads) body(c * grain, std::min(n, (c + 1) * grain));
  };
  std::vector<std::thread> workers;
  for (int64_t w = 1; w < threads; ++w) workers.emplace_back(run_chunks, w);
  run_chunks(0);
  for (std::thread& worker : workers) worker.join();
#else
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<int64_t>& range) { body(range.begin(), range.end()); },
                    tbb::simple_partitioner());
#endif
}

// Deterministic reduction: splits [0, n) into chunks of `grain` (independent of the thread
// count), computes chunk(begin, end) -> double for each, possibly in parallel, and adds the
// partials in chunk order.
template <typename Chunk>
double parallel_chunk_reduce(int64_t n, int64_t grain, Chunk&& chunk) {
  if (n <= grain) return n > 0 ? chunk(int64_t{0}, n) : 0.0;
  const int64_t chunk_count = (n + grain - 1) / grain;
  double partial_stack[64];
  std::vector<double> partial_heap;  // only for very large tensors
  double* partial = partial_stack;
  if (chunk_count > 64) {
    partial_heap.resize(static_cast<size_t>(chunk_count));
    partial = partial_heap.data();
  }
  parallel_for(chunk_count, 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c)
      partial[c] = chunk(c * grain, c + 1 == chunk_count ? n : (c + 1) * grain);
  });
  double total = 0.0;
  for (int64_t c = 0; c < chunk_count; ++c) total += partial[c];
  return total;
}

}  // namespace empl

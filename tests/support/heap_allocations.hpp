// Counts every C++ heap allocation of the process that links heap_allocations.cpp: it replaces the
// global operator new (plain and aligned, which Tensor buffers use) with versions that count, then
// call malloc/aligned_alloc. The design says a steady-state training step allocates nothing new;
// tests/integration/test_allocations.cpp checks that on the real loop and bench/empl_bench.cpp
// reports it per case. Linked into those two executables only, never into the library.
#pragma once

#include <cstdint>

namespace empl {

// Allocations made so far by every thread of the process.
int64_t heap_allocations();

}  // namespace empl

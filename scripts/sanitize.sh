#!/usr/bin/env bash
# The whole test suite twice more: under AddressSanitizer + UndefinedBehaviorSanitizer, and under
# ThreadSanitizer (which sees every parallel kernel, since the suite runs them on 2 threads; in
# a TSan build parallel_for uses plain threads, see core/parallel.hpp). Each in its own build
# folder, at -O1 so that the suites stay fast. GCC 12 reports false -Wmaybe-uninitialized in
# libstdc++'s regex (used by cxxopts) under instrumentation; silenced here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh build >/dev/null  # the packages (and a normal build) first

sanitized_build() {  # folder, sanitizer flags
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-O1 $2 -fno-omit-frame-pointer -Wno-maybe-uninitialized" >/dev/null
  cmake --build "$1" -j"$(nproc)" >/dev/null
}

echo "sanitize: ASan+UBSan, whole suite"
start=$SECONDS
sanitized_build build-asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# allocator_may_return_null: an impossible allocation must throw std::bad_alloc, as without ASan.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --output-on-failure -j"$(nproc)" -LE mpi | tail -n 8)
# The MPI tests run our sanitized apps under mpirun, with leak detection off: Open MPI's own
# plugins leave their allocations at exit (LeakSanitizer reports them in libmpi and in unloaded
# plugins, which no suppression can name); address and undefined-behaviour checks stay on.
(cd build-asan && ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 ctest --output-on-failure -j"$(nproc)" -L mpi | tail -n 8)
echo "sanitize: ASan+UBSan build and run took $((SECONDS - start)) s"

echo "sanitize: TSan, whole suite"
start=$SECONDS
sanitized_build build-tsan "-fsanitize=thread"
# halt_on_error: the first race fails its test (TSan alone would only change the exit code).
# Without the MPI tests: Open MPI is not built with TSan, and its shared-memory transport
# synchronises ranks' threads in ways TSan cannot see; our threads are all checked by the rest.
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --output-on-failure -j"$(nproc)" -LE mpi | tail -n 8)
echo "sanitize: TSan build and run took $((SECONDS - start)) s"

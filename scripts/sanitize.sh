#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# ThreadSanitizer is not run: Debian's oneTBB is not built with it, so TSan cannot see the join at
# the end of tbb::parallel_for and reports every worker's write read after it as a race (tried:
# 7 of 7 parallel tests flagged, all at that join). It needs an instrumented oneTBB.
# In its own build folder, at -O1 so that the suites stay fast. GCC 12 reports false
# -Wmaybe-uninitialized in libstdc++'s regex (used by cxxopts) under instrumentation; silenced here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh build >/dev/null  # the packages (and a normal build) first

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-maybe-uninitialized" >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
echo "sanitize: ASan+UBSan, whole suite"
# allocator_may_return_null: an impossible allocation must throw std::bad_alloc, as without ASan.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --output-on-failure -j"$(nproc)" | tail -n 3)


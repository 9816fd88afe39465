#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, and the parallel
# tests (every test that compares 1 and 2 threads, or trains on 2) under ThreadSanitizer.
# Each in its own build folder, at -O1 so that the suites stay fast. GCC 12 reports false
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

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-O1 -fsanitize=thread -fno-omit-frame-pointer -Wno-maybe-uninitialized" >/dev/null
cmake --build build-tsan -j"$(nproc)" --target empl_tests >/dev/null
echo "sanitize: TSan, the parallel tests"
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/../tests/tsan.supp" \
  ctest --output-on-failure -R "thread|1 and 2|bit-identical|resum" | tail -n 3)

#!/usr/bin/env bash
# Sets everything up (scripts/bootstrap.sh) and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh build
cd build
ctest --output-on-failure -j"$(nproc)"

#!/bin/sh
# The library boundary, as ctest's test "package": builds empl alone (no apps, tests or
# benchmarks), installs it into a temporary prefix, then configures, builds and runs a small
# outside project (consumer/) against the installed package, and the same program with empl as a
# subproject (subproject/), where it must build without the apps and without -march=native.
#   run.sh EMPL_SOURCE_DIR WORK_DIR [CMAKE]
# -O0: the library is compiled twice here, and the program trains a 2x2 network for a moment.
set -eu
src=$1
work=$2
cmake=${3:-cmake}
rm -rf "$work"
mkdir -p "$work"
quick="-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0"

echo "== empl alone, installed into $work/prefix"
"$cmake" -S "$src" -B "$work/empl-build" $quick -DEMPL_BUILD_APPS=OFF -DEMPL_BUILD_TESTS=OFF -DEMPL_BUILD_BENCH=OFF \
  -DEMPL_NATIVE=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" > "$work/empl-configure.log"
"$cmake" --build "$work/empl-build" -j2 > "$work/empl-build.log"
"$cmake" --install "$work/empl-build" > "$work/empl-install.log"

echo "== consumer: find_package(empl CONFIG REQUIRED)"
"$cmake" -S "$src/tests/package/consumer" -B "$work/consumer-build" $quick -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/consumer-configure.log"
"$cmake" --build "$work/consumer-build" -j2
"$work/consumer-build/empl_consumer"

echo "== subproject: add_subdirectory(empl)"
"$cmake" -S "$src/tests/package/subproject" -B "$work/subproject-build" $quick -DEMPL_SOURCE_DIR="$src" \
  > "$work/subproject-configure.log"
"$cmake" --build "$work/subproject-build" -j2 > "$work/subproject-build.log"
"$work/subproject-build/empl_consumer"
# A parent project gets the library alone, for the CPU baseline.
for target in toy_urn empl_tests empl_apps_common; do
  if "$cmake" --build "$work/subproject-build" --target "$target" > /dev/null 2>&1; then
    echo "subproject: target $target exists, but a subproject must build the library alone" >&2
    exit 1
  fi
done
if grep -rq -- "-march=native" "$work/subproject-build/empl/CMakeFiles"; then
  echo "subproject: empl is compiled with -march=native, which only the top level may ask for" >&2
  exit 1
fi
echo "package test passed"

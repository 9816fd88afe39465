#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer (Debian's clang), each for a bounded time,
# starting from the seed corpus in tests/fuzz/corpus (copied, so that the repository's corpus only
# grows by hand). A crash, a leak, undefined behaviour or a timeout fails the run and leaves the
# input in build-fuzz/; every such input then becomes a seed and a regression test.
#   scripts/fuzz.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
packages=(clang libclang-rt-14-dev libopenblas-dev libtbb-dev libcxxopts-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

out=build-fuzz
mkdir -p "$out"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.
       -I/usr/include/x86_64-linux-gnu/openblas-pthread)
libraries=(-ltbb -lopenblas)
core=(core/shape.cpp core/tensor.cpp core/parallel.cpp)
declare -A sources=(
  [checkpoint]="io/checkpoint.cpp io/atomic_file.cpp"
  [npy]="io/npy.cpp io/atomic_file.cpp"
  [results_csv]="apps/bundesliga/results_csv.cpp apps/bundesliga/league.cpp io/atomic_file.cpp"
  [command_line]="apps/common/app_options.cpp"
)
for target in checkpoint npy results_csv command_line; do
  # shellcheck disable=SC2086
  clang++ "${flags[@]}" "tests/fuzz/fuzz_$target.cpp" "${core[@]}" ${sources[$target]} "${libraries[@]}" -o "$out/fuzz_$target"
  rm -rf "$out/corpus_$target" && cp -r "tests/fuzz/corpus/$target" "$out/corpus_$target"
  echo "fuzz_$target: ${seconds} s from $(ls "tests/fuzz/corpus/$target" | wc -l) seeds"
  (cd "$out" && "./fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
     "corpus_$target" 2>&1 | grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|INFO: Seed|Done)" || true)
  # libFuzzer writes crash-*, leak-*, timeout-* or oom-* files for every failing input.
  if ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* >/dev/null 2>&1; then
    echo "fuzz_$target found a failing input: $(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null)" >&2
    exit 1
  fi
done
echo "fuzzing: 4 targets, no crash"

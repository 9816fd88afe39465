#!/bin/sh
# Data-parallel training on MPI (issue 14), end to end: registered with ctest only when empl is
# built with EMPL_MPI. Usage: run.sh CASE BUILD_DIR MPIEXEC, CASE one of
#   same_bits APP   1 process (1 and 2 threads), mpirun -np 2 and -np 4 with --shards 4: the same
#                   checkpoint bytes
#   resume APP      12 steps on 4 ranks, --resume to 24 on 2 ranks = 24 steps on 1 process
#   killed          a rank killed mid-run: non-zero status, mpirun names the rank, --out holds
#                   nothing and the last checkpoint is intact
#   refused         a batch that does not split, ranks that do not divide the shards: refused
#                   before training, naming the numbers; an error on one rank ends every rank
set -eu
case_name=$1; build=$2; mpiexec=$3; app=${4:-toy_urn}
# CI containers run as root; more ranks than cores; ranks with threads of their own.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun="$mpiexec --oversubscribe --bind-to none"
dir=$(mktemp -d "${TMPDIR:-/tmp}/empl_mpi_XXXXXX")
trap 'rm -rf "$dir"' EXIT
bin="$build/$app"
common="--steps 24 --batch 128 --shards 4 --average-steps 12 --quiet"

fail() { echo "FAIL: $*" >&2; exit 1; }
same() { cmp "$1" "$2" || fail "$1 and $2 differ"; }

case $case_name in
  same_bits)
    "$bin" $common --threads 1 --save "$dir/p1t1.ckpt" --out "$dir/o1" > /dev/null
    "$bin" $common --threads 2 --save "$dir/p1t2.ckpt" --out "$dir/o2" > /dev/null
    $mpirun -np 2 "$bin" $common --threads 1 --save "$dir/p2.ckpt" --out "$dir/o3" > /dev/null
    $mpirun -np 2 "$bin" $common --threads 2 --save "$dir/p2t2.ckpt" --out "$dir/o4" > /dev/null
    $mpirun -np 4 "$bin" $common --threads 1 --save "$dir/p4.ckpt" --out "$dir/o5" > /dev/null
    for run in p1t2 p2 p2t2 p4; do same "$dir/p1t1.ckpt" "$dir/$run.ckpt"; done
    # rank 0 alone wrote the results, the same ones
    for name in $(ls "$dir/o1"); do same "$dir/o1/$name" "$dir/o5/$name"; done
    ;;
  resume)
    $mpirun -np 4 "$bin" $common --threads 1 --stop-at 12 --save "$dir/part.ckpt" --out "$dir/o1" > /dev/null
    $mpirun -np 2 "$bin" $common --threads 1 --resume "$dir/part.ckpt" --save "$dir/resumed.ckpt" --out "$dir/o2" > /dev/null
    "$bin" $common --threads 1 --save "$dir/whole.ckpt" --out "$dir/o3" > /dev/null
    same "$dir/whole.ckpt" "$dir/resumed.ckpt"
    ;;
  killed)
    # A finished run's checkpoint, then a long run saving to the same file every 1000 steps, with
    # a batch large enough that its rank 2, killed a second in, dies long before the first save.
    $mpirun -np 4 "$bin" $common --threads 1 --stop-at 12 --save "$dir/run.ckpt" --out "$dir/first" > /dev/null
    cp "$dir/run.ckpt" "$dir/before.ckpt"
    set +e
    $mpirun -np 4 "$bin" --steps 1000000 --batch 8192 --shards 4 --threads 1 --quiet --out "$dir/out" \
      --save "$dir/run.ckpt" > "$dir/log" 2>&1 &
    launcher=$!
    rank2=""
    for _ in $(seq 100); do
      sleep 0.1
      for pid in $(pgrep -P $launcher); do
        tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2 && rank2=$pid
      done
      [ -n "$rank2" ] && break
    done
    [ -n "$rank2" ] || { kill $launcher; fail "no rank 2 found"; }
    sleep 1
    kill -9 "$rank2"
    wait $launcher
    status=$?
    set -e
    [ $status -ne 0 ] || fail "status 0 after a rank was killed"
    grep -q "rank 2" "$dir/log" || { cat "$dir/log"; fail "no message naming rank 2"; }
    [ ! -e "$dir/out" ] || [ -z "$(ls -A "$dir/out")" ] || fail "--out holds $(ls -A "$dir/out")"
    same "$dir/before.ckpt" "$dir/run.ckpt"
    [ "$(ls -A "$dir" | grep -c tmp)" -eq 0 ] || fail "a temporary file was left: $(ls -A "$dir")"
    ;;
  refused)
    set +e
    "$bin" --steps 2 --batch 130 --shards 4 --quiet --out "$dir/o" > "$dir/log" 2>&1
    [ $? -eq 2 ] && grep -q "batch 130.*4" "$dir/log" || { cat "$dir/log"; fail "--batch 130 --shards 4 not refused"; }
    $mpirun -np 2 "$bin" --steps 2 --batch 132 --shards 3 --quiet --out "$dir/o" > "$dir/log" 2>&1
    [ $? -ne 0 ] && grep -q "shards 3 on 2 ranks" "$dir/log" || { cat "$dir/log"; fail "--shards 3 on 2 ranks not refused"; }
    $mpirun -np 3 "$bin" --steps 2 --batch 132 --shards 6 --quiet --out "$dir/o" > "$dir/log" 2>&1
    [ $? -ne 0 ] && grep -q "shards 6 on 3 ranks" "$dir/log" || { cat "$dir/log"; fail "3 ranks not refused"; }
    [ ! -e "$dir/o" ] || fail "a refused run made --out"
    # An error on rank 0 alone (it alone reads the checkpoint) must end rank 1 too, not leave it
    # waiting for rank 0's parameters.
    timeout -s KILL 60 $mpirun -np 2 "$bin" --steps 2 --batch 128 --shards 2 --quiet --resume "$dir/none.ckpt" --out "$dir/o" > "$dir/log" 2>&1
    status=$?
    [ $status -ne 0 ] && [ $status -ne 137 ] && grep -q "rank 0 of 2.*none.ckpt" "$dir/log" || { cat "$dir/log"; fail "status $status: an error on rank 0 did not end the run with its message"; }
    set -e
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name $app"

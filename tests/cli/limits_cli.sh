#!/usr/bin/env bash
# --memory-limit and --time-limit: the memory limit is on resident memory
# (not address space), checked after MPI and HDF5 have started, so a history
# that fits runs (one process, --dist, mpiexec, HDF5) and one that does not
# ends with exit 3 naming the stage; nonsense values are usage errors (exit 2);
# a failed MPI start-up is exit 3, not the violation code.
set -u
bin="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0; passes=0
check() {  # name expected_rc command...
  local name="$1" want="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then echo "FAIL $name: exit $rc, wanted $want"; cat "$tmp/out" "$tmp/err"; fails=$((fails+1)); else passes=$((passes+1)); fi
}
expect_err() {  # name pattern: stderr of the last check must match, in one isocheck line
  local n; n=$(grep -c '^isocheck' "$tmp/err")
  if ! grep -qE -- "$2" "$tmp/err" || [ "$n" -ne 1 ]; then
    echo "FAIL $1: stderr lacks /$2/ in exactly one line:"; cat "$tmp/err"; fails=$((fails+1)); else passes=$((passes+1)); fi
}

"$bin" generate -q --workload rmw --txns 20000 --out small.jsonl
"$bin" convert small.jsonl small.h5
"$bin" generate -q --workload rmw --txns 100000 --out h100k.jsonl

# A 100k-transaction history holds about 40 MiB resident: it runs within 64M
# (an address-space cap of 64M refused it), and 16M is certainly too small
# (reported as "cannot read the file", exit 2, under the address-space cap).
check fits64M 0 "$bin" verify -q h100k.jsonl --memory-limit 64M
check tight16M 3 "$bin" verify -q h100k.jsonl --memory-limit 16M
expect_err tight16M 'memory limit of 16 MiB reached during stage "read" \([0-9.]+ MiB resident\); raise --memory-limit'
if grep -qE "holds|VIOLATED" out; then echo "FAIL tight16M: a verdict"; fails=$((fails+1)); fi
# HDF5 under a 30M limit (a segmentation fault inside HDF5 under the cap).
check h5_30M 0 "$bin" verify -q small.h5 --memory-limit 30M
check h5info_30M 0 "$bin" info small.h5 --memory-limit 30M
# Already past at the start: exit 3 before any work.
check start1M 3 "$bin" verify -q small.jsonl --memory-limit 1M
expect_err start1M 'memory limit of 1 MiB reached during stage "start"'

# Nonsense sizes: exit 2 naming the option.
check mem0 2 "$bin" verify -q small.jsonl --memory-limit 0
expect_err mem0 '^isocheck: --memory-limit: must be positive'
check memneg 2 "$bin" verify -q small.jsonl --memory-limit -5M
expect_err memneg '^isocheck: --memory-limit: expected a positive size'
check memwrap 2 "$bin" verify -q small.jsonl --memory-limit 16777216T
expect_err memwrap '^isocheck: --memory-limit: too large'
check memdigits 2 "$bin" verify -q small.jsonl --memory-limit 99999999999999999999
expect_err memdigits '^isocheck: --memory-limit: too large'
check memgarbage 2 "$bin" audit -q small.jsonl --memory-limit lots
expect_err memgarbage '^isocheck: --memory-limit: expected a positive size'

# Durations: non-positive or non-finite are usage errors; a huge one is no limit.
for t in 0 -0 -5 nan inf -inf 0s; do
  check "time_$t" 2 "$bin" verify -q small.jsonl --time-limit "$t"
  expect_err "time_$t" '^isocheck: --time-limit: (must be positive|expected a positive duration)'
done
for t in 1e300 99999999999999999999h 1e999 100000000000h; do
  check "time_$t" 0 "$bin" verify -q small.jsonl --time-limit "$t"
done
check time_tiny 3 "$bin" verify -q small.jsonl --time-limit 1e-12
expect_err time_tiny 'time limit of 1e-12s reached during stage "start"; raise --time-limit'

# MPI: the limit is on each rank's resident memory once MPI runs.
mpiexec=$(command -v mpiexec || command -v mpirun) || { echo "no mpiexec"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
check dist50M 0 "$bin" verify -q --dist small.jsonl --memory-limit 50M
check mpi200M 0 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.jsonl --memory-limit 200M
check mpi_h5_100M 0 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.h5 --memory-limit 100M
# Every rank agrees on a limit past at the first step: rank 0 says it once.
check mpi1M 3 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.jsonl --memory-limit 1M
expect_err mpi1M 'memory limit of 1 MiB reached during stage "start"'
# An MPI start-up that fails (here: a transport that does not exist) is exit 3.
OMPI_MCA_pml=no_such_component check mpistart 3 "$bin" verify -q --dist small.jsonl
expect_err mpistart '^isocheck: MPI could not start in this process( \(.*\))?; run under mpiexec'

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

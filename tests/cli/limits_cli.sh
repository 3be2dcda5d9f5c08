#!/usr/bin/env bash
# --memory-limit and --time-limit: the memory limit is on resident memory
# (not address space), checked after MPI and HDF5 have started, so a history
# that fits runs (one process, --dist, mpiexec, HDF5) and one that does not
# ends with exit 3 naming the stage; nonsense values are usage errors (exit 2);
# a failed MPI start-up is exit 3, not the violation code.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
cd "$tmp" || exit 1

"$bin" generate -q --workload rmw --txns 20000 --out small.jsonl
"$bin" convert small.jsonl small.h5
"$bin" generate -q --workload rmw --txns 100000 --out h100k.jsonl

# A 100k-transaction history holds about 40 MiB resident: it runs within 64M
# (an address-space cap of 64M refused it), and 16M is certainly too small
# (reported as "cannot read the file", exit 2, under the address-space cap).
check fits64M 0 "$bin" verify -q h100k.jsonl --memory-limit 64M
check tight16M 3 "$bin" verify -q h100k.jsonl --memory-limit 16M
expect_one_err tight16M 'memory limit of 16 MiB reached during stage "read" \([0-9.]+ MiB resident\); raise --memory-limit'
if grep -qE "holds|VIOLATED" out; then fail "tight16M: a verdict"; fi
# HDF5 under a 30M limit (a segmentation fault inside HDF5 under the cap).
check h5_30M 0 "$bin" verify -q small.h5 --memory-limit 30M
check h5info_30M 0 "$bin" info small.h5 --memory-limit 30M
# Already past at the start: exit 3 before any work.
check start1M 3 "$bin" verify -q small.jsonl --memory-limit 1M
expect_one_err start1M 'memory limit of 1 MiB reached during stage "start"'

# Without --memory-limit the limit is 90% of the machine's memory shared by
# the job's processes on it (the launcher's count): a run the kernel would
# kill exits 3 instead. A count of a million processes makes the share a few
# KiB, past at the start.
check default_share 3 env OMPI_COMM_WORLD_LOCAL_SIZE=1000000 "$bin" verify -q small.jsonl
expect_one_err default_share 'memory limit of [0-9.]+ KiB \(the default: 90% of this machine.s [0-9.]+ MiB shared by the processes of this job on it\) reached during stage "start" \([0-9.]+ MiB resident\); run on a machine with more memory, or on more machines'
check default_fits 0 env OMPI_COMM_WORLD_LOCAL_SIZE=2 "$bin" verify -q small.jsonl

# Nonsense sizes: exit 2 naming the option.
check mem0 2 "$bin" verify -q small.jsonl --memory-limit 0
expect_one_err mem0 '^isocheck: --memory-limit: must be positive'
check memneg 2 "$bin" verify -q small.jsonl --memory-limit -5M
expect_one_err memneg '^isocheck: --memory-limit: expected a positive size'
check memwrap 2 "$bin" verify -q small.jsonl --memory-limit 16777216T
expect_one_err memwrap '^isocheck: --memory-limit: too large'
check memdigits 2 "$bin" verify -q small.jsonl --memory-limit 99999999999999999999
expect_one_err memdigits '^isocheck: --memory-limit: too large'
check memgarbage 2 "$bin" audit -q small.jsonl --memory-limit lots
expect_one_err memgarbage '^isocheck: --memory-limit: expected a positive size'

# Durations: non-positive or non-finite are usage errors; a huge one is no limit.
for t in 0 -0 -5 nan inf -inf 0s; do
  check "time_$t" 2 "$bin" verify -q small.jsonl --time-limit "$t"
  expect_one_err "time_$t" '^isocheck: --time-limit: (must be positive|expected a positive duration)'
done
for t in 1e300 99999999999999999999h 1e999 100000000000h; do
  check "time_$t" 0 "$bin" verify -q small.jsonl --time-limit "$t"
done
check time_tiny 3 "$bin" verify -q small.jsonl --time-limit 1e-12
expect_one_err time_tiny 'time limit of 1e-12s reached during stage "start"; raise --time-limit'

# MPI: the limit is on each rank's resident memory once MPI runs.
find_mpiexec
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
check dist50M 0 "$bin" verify -q --dist small.jsonl --memory-limit 50M
check mpi200M 0 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.jsonl --memory-limit 200M
check mpi_h5_100M 0 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.h5 --memory-limit 100M
# Every rank agrees on a limit past at the first step: rank 0 says it once.
check mpi1M 3 "$mpiexec" --oversubscribe -n 4 "$bin" verify -q small.jsonl --memory-limit 1M
expect_one_err mpi1M 'memory limit of 1 MiB reached during stage "start"'
# An MPI start-up that fails (here: a transport that does not exist) is exit 3.
OMPI_MCA_pml=no_such_component check mpistart 3 "$bin" verify -q --dist small.jsonl
expect_one_err mpistart '^isocheck: MPI could not start in this process( \(.*\))?; run under mpiexec'

summary

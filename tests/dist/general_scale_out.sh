#!/usr/bin/env bash
# Scale-out of the general engine (src/mpi/dist_prune.cpp): a BlindW-RW
# history whose one-process run exits 3 under --memory-limit M is decided by
# `mpiexec -n 4 verify --key-shards` with the same limit on every rank.
#
# The history: 8000 transactions of 64 operations (half read-only, half blind
# writes) on 10^5 keys, 512,000 operations, one component; its version orders
# are unknown (280,000 chain pairs), so the general engine decides it. The
# serial witness is off in both runs: its replay would settle this valid
# history without any graph.
#
# M = 50 MiB. Measured on the 2-core VM (resident private memory, what
# --memory-limit watches, with jemalloc: src/core/allocator.cpp), bisecting
# the limit on this history: the one-process run needs 56-58 MiB (the whole
# history's operations, the index of every written value, the dependency
# graph, the chain pairs' reachability index and the polygraph); the busiest
# of the 4 ranks needs 40-42 MiB (about 13 MiB of MPI runtime, its range's
# records and shard, operations in flight, and the replicated known graph of
# ~125,000 edges with its path index). 50 MiB leaves 6-8 MiB on either
# side. (With glibc's malloc the needs were 60-66 and 44-47 MiB, and M was 54.)
# usage: general_scale_out.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
M=50M
"$BIN" generate --workload blindw-rw --txns 8000 --ops 64 --keys 100000 --sessions 16 --out "$tmp/h.h5" -q \
  || fail "generate"

check "one process exits 3 under --memory-limit $M" 3 "$BIN" verify "$tmp/h.h5" --no-serial-witness --memory-limit $M
expect_err "one process names the limit to raise" 'raise --memory-limit'

$mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/h.h5" --key-shards --no-serial-witness --memory-limit $M --json \
  --stage-times "$tmp/st.json" > "$tmp/r.json" 2> "$tmp/r.err"; rc=$?
[ "$rc" = 0 ] && pass || fail "4 ranks under --memory-limit $M: exit $rc, want 0: $(cat "$tmp/r.err")"
has "the 4-rank report holds" "$tmp/r.json" '"holds":true,"exit_code":0'
has "decided by the general engine (unknown orders)" "$tmp/r.json" '"unordered_write_pairs":281498'
python3 - "$tmp/st.json" <<'PY' && pass || fail "stage times: $(cat "$tmp/st.json")"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["ranks"] == 4 and t["key_shards"] is True, t
assert t["gathered"] is False, t          # settled on the shards, nothing gathered to rank 0
assert "solve" in t["stages"], t
assert all(x < t["ops"] for x in t["ops_held"]), t   # no rank held the whole history's operations
PY
summary

#!/usr/bin/env bash
# --stage-times at 4 ranks reports, per rank, its peak RSS and the most
# operations it held at once (ops_held). Replicated path (every rank holds the
# whole history): every rank held at least the history's operations. Key
# shards from per-rank HDF5 reads of a valid history: no rank, rank 0
# included, held the whole history's operations (each its range, the records
# in flight and its keys' share).
# usage: dist_stage_times.sh ISOCHECK SOURCE_DIR DIST_GEN
set -u
BIN=$1; GEN=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
fail_fast=1

"$BIN" generate --workload rmw --txns 20000 --sessions 8 --out "$tmp/rmw.h5" -q || fail "generate rmw"
"$GEN" many "$tmp/many.h5" --components 40 --txns 4000 --sessions-per 3 > /dev/null || fail "dist_gen many"

# check FILE MODE: the per-rank arrays are there, four positive numbers each;
# MODE replicated: every rank held >= ops; sharded: every rank held < ops,
# and at most 2.4 times its share ops/4.
check() {
  python3 - "$1" "$2" <<'PY' || fail "$2 stage times: $(cat "$1")"
import json, sys
t = json.load(open(sys.argv[1]))
mode = sys.argv[2]
assert t["ranks"] == 4, t
for f in ("peak_rss_kib", "ops_held"):
    assert len(t[f]) == 4 and all(isinstance(x, int) and x > 0 for x in t[f]), (f, t[f])
ops = t["ops"]
if mode == "replicated":
    assert all(x >= ops for x in t["ops_held"]), (ops, t["ops_held"])
else:
    assert t["key_shards"] is True, t
    assert all(x < ops for x in t["ops_held"]), (ops, t["ops_held"])
    # At the exchange a rank holds the records it sends and those it
    # receives (its range freed once packed): about 2 x ops/4 each.
    share = -(-ops // 4)
    assert all(x <= 2.4 * share for x in t["ops_held"]), (share, t["ops_held"])
PY
}

mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/rmw.h5" -q --stage-times "$tmp/a.json" > /dev/null || fail "rmw run"
check "$tmp/a.json" replicated
mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/many.h5" -q --stage-times "$tmp/b.json" > /dev/null || fail "many run"
check "$tmp/b.json" replicated
mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/rmw.h5" -q --key-shards --no-serial-witness --stage-times "$tmp/c.json" \
  > /dev/null || fail "rmw key shards run"
check "$tmp/c.json" sharded
echo "dist_stage_times: ok"

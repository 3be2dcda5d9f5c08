#!/usr/bin/env bash
# --stage-times at 4 ranks reports, per rank, its peak RSS and the most
# operations it held at once (ops_held).
# Components on owned data (without --key-shards): every rank reads its own
# range in chunks and receives only the pieces it solves, so on a history of
# many components every rank held at most ceil(ops/4) * 1.2 plus the largest
# piece's operations, and none held the whole history — rank 0 included —
# while the report is the one-process report. One block (rmw): the rank
# solving it holds that piece, the others a small share.
# Key shards from per-rank HDF5 reads of a valid history: no rank, rank 0
# included, held the whole history's operations.
# --history-budget is a per-rank ceiling: a budget below one rank's pieces
# exits 3 naming it; a normal run never reaches a generous one.
# usage: dist_stage_times.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
fail_fast=1
strip() { report_without "$1" stats seconds; }

"$BIN" generate --workload rmw --txns 20000 --sessions 8 --out "$tmp/rmw.h5" -q || fail "generate rmw"
"$GEN" many "$tmp/many.h5" --components 40 --txns 20000 --sessions-per 3 > /dev/null || fail "dist_gen many"
"$GEN" many "$tmp/many.jsonl" --components 40 --txns 20000 --sessions-per 3 > /dev/null || fail "dist_gen many jsonl"

# check FILE MODE: the per-rank arrays are there, four positive numbers each;
# MODE owned: every rank held <= ceil(ops/4)*1.2 + the largest piece, and
# less than the whole history; one-block: the same bound (the largest piece
# is the history), the ranks not solving it < ops; sharded: every rank held
# < ops, and at most 2.4 times its share ops/4.
check() {
  python3 - "$1" "$2" <<'PY' || fail "$2 stage times: $(cat "$1")"
import json, sys
t = json.load(open(sys.argv[1]))
mode = sys.argv[2]
assert t["ranks"] == 4, t
for f in ("peak_rss_kib", "ops_held"):
    assert len(t[f]) == 4 and all(isinstance(x, int) and x > 0 for x in t[f]), (f, t[f])
ops = t["ops"]
share = -(-ops // 4)
held = t["ops_held"]
if mode in ("owned", "one-block"):
    assert t["key_shards"] is False, t
    bound = share * 1.2 + t["largest_piece_ops"]
    assert all(x <= bound for x in held), (bound, held)
    if mode == "owned":
        assert t["components"] > 4 and t["largest_piece_ops"] < share, t
        assert all(x < ops for x in held), (ops, held)
        # Each rank timed its own parts: every rank read its chunks twice,
        # and pieces were solved (by some rank: a rank's pieces may be stolen).
        steps = t["rank_steps"]
        for k in ("partition.read", "distribute.read"):
            assert len(steps[k]) == 4 and all(x > 0 for x in steps[k]), (k, steps)
        assert len(steps["solve.pieces"]) == 4 and max(steps["solve.pieces"]) > 0, steps
    else:
        assert t["largest_piece_ops"] == ops, t
        assert sorted(held)[2] < ops, (ops, held)  # only the rank solving the block held it all
else:
    assert t["key_shards"] is True, t
    assert all(x < ops for x in held), (ops, held)
    # At the exchange a rank holds the records it sends and those it
    # receives (its range freed once packed): about 2 x ops/4 each.
    assert all(x <= 2.4 * share for x in held), (share, held)
PY
}

"$BIN" verify "$tmp/many.h5" -q --json > "$tmp/one.json"; rc1=$?
$MPI "$BIN" verify "$tmp/many.h5" -q --json --stage-times "$tmp/b.json" > "$tmp/four.json"; rc4=$?
[ "$rc1" = 0 ] && [ "$rc4" = 0 ] || fail "many: exit codes $rc1 (one process) $rc4 (4 ranks), want 0"
check "$tmp/b.json" owned
[ "$(strip "$tmp/one.json")" = "$(strip "$tmp/four.json")" ] || fail "many: report differs from one process"

# JSONL: read on rank 0 and scattered; the other ranks never held it whole.
$MPI "$BIN" verify "$tmp/many.jsonl" -q --json --stage-times "$tmp/j.json" > "$tmp/fourj.json" || fail "many jsonl run"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); h=t["ops_held"]; assert all(x < t["ops"] for x in h[1:]), h' \
  "$tmp/j.json" || fail "jsonl: a rank other than 0 held the whole history: $(cat "$tmp/j.json")"
[ "$(strip "$tmp/one.json" | sed 's/many\.h5/X/')" = "$(strip "$tmp/fourj.json" | sed 's/many\.jsonl/X/')" ] || fail "many jsonl: report differs"

$MPI "$BIN" verify "$tmp/rmw.h5" -q --stage-times "$tmp/a.json" > /dev/null || fail "rmw run"
check "$tmp/a.json" one-block

# --history-budget: a per-rank ceiling on the pieces a rank holds.
$MPI "$BIN" verify "$tmp/many.h5" -q --history-budget 64K > /dev/null 2> "$tmp/budget.err"; rc=$?
[ "$rc" = 3 ] && grep -q -- "--history-budget" "$tmp/budget.err" || fail "tiny budget: exit $rc $(cat "$tmp/budget.err")"
$MPI "$BIN" verify "$tmp/many.h5" -q --history-budget 64M > /dev/null || fail "generous budget refused"

$MPI "$BIN" verify "$tmp/rmw.h5" -q --key-shards --no-serial-witness --stage-times "$tmp/c.json" \
  > /dev/null || fail "rmw key shards run"
check "$tmp/c.json" sharded
echo "dist_stage_times: ok"

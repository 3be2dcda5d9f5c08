#!/usr/bin/env bash
# verify --key-shards from the command line: on 1, 2 and 4 ranks (and on one
# process without mpiexec) the JSON report up to "stats" equals the plain
# one-process report, for a valid read-modify-write history and one with
# planted cycles (JSONL and HDF5), and blind-write histories valid and with
# planted cycles: with the serial witness off their unknown version orders are
# decided on the shards' gathered graph by the general engine (stage "solve"),
# with it on the valid one is settled by the sharded serial witness.
# usage: key_shards_cli.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
fail_fast=1
upto_stats() { sed -e 's/"file":"[^"]*"//' -e 's/"stats".*//' "$1"; }

"$BIN" generate --workload rmw --txns 6000 --sessions 16 --out "$tmp/ok.jsonl" -q || fail gen
"$BIN" generate --workload rmw --txns 6000 --sessions 16 --plant g-single --plant write-skew --plant stale-read \
  --seed 3 --out "$tmp/bad.jsonl" -q || fail gen
"$BIN" convert "$tmp/bad.jsonl" "$tmp/bad.h5" || fail convert
"$BIN" generate --workload blindw-rw --txns 500 --sessions 8 --out "$tmp/blind.jsonl" -q || fail gen
"$BIN" generate --workload blindw-rw --txns 2000 --sessions 8 --plant write-skew --plant g-single --seed 5 \
  --out "$tmp/blindbad.jsonl" -q || fail gen
for f in ok.jsonl bad.jsonl bad.h5 blind.jsonl blindbad.jsonl; do
  # (the whole-graph path: key shards give its witnesses)
  "$BIN" verify "$tmp/$f" -l ser,si,sser --json -q --no-local-search > "$tmp/plain.$f.json"; prc=$?
  [ "$f" != bad.jsonl -a "$f" != blindbad.jsonl ] || [ "$prc" = 1 ] || fail "plain run on $f: exit $prc, want 1"
  grep -q '"cycle"' "$tmp/plain.$f.json" || [ "$f" != bad.jsonl ] || fail "no witness cycle in the planted history"
  "$BIN" verify "$tmp/$f" -l ser,si,sser --json --key-shards > "$tmp/s0.$f.json" 2> "$tmp/s0.$f.err"; rc=$?
  [ "$rc" = "$prc" ] || fail "--key-shards on one process, $f: exit $rc, want $prc"
  diff <(upto_stats "$tmp/plain.$f.json") <(upto_stats "$tmp/s0.$f.json") > /dev/null || fail "--key-shards on one process differs on $f"
  for p in 1 2 4; do
    # Blind writes: the sharded graph path and the general engine on rank 0
    # (serial witness off); by default the sharded replay settles the valid one.
    nw=""; case $f in blind*) nw="--no-serial-witness --stage-times $tmp/st$p.$f.json";; esac
    mpiexec --oversubscribe -n $p "$BIN" verify "$tmp/$f" -l ser,si,sser --json --key-shards $nw \
      > "$tmp/s$p.$f.json" 2> "$tmp/s$p.$f.err"; rc=$?
    [ "$rc" = "$prc" ] || fail "mpiexec -n $p --key-shards $f: exit $rc, want $prc"
    diff <(upto_stats "$tmp/plain.$f.json") <(upto_stats "$tmp/s$p.$f.json") > /dev/null || fail "-n $p --key-shards differs on $f"
    ! grep -q "key shards not used" "$tmp/s$p.$f.err" || fail "key shards refused on $f: $(cat "$tmp/s$p.$f.err")"
    case $f in blind*) grep -q '"solve":' "$tmp/st$p.$f.json" || fail "no general-engine stage on $f: $(cat "$tmp/st$p.$f.json")";; esac
  done
done
# By default the sharded serial witness decides the blind-write history: no fallback.
mpiexec --oversubscribe -n 2 "$BIN" verify "$tmp/blind.jsonl" -l ser,si,sser --json --key-shards \
  > "$tmp/w.json" 2> "$tmp/w.err" || fail "sharded witness run on blind.jsonl"
grep -q '"serial_witness":"begin-time order"' "$tmp/w.json" || fail "no sharded serial witness: $(cat "$tmp/w.json")"
! grep -q "key shards not used" "$tmp/w.err" || fail "key shards refused with the witness on: $(cat "$tmp/w.err")"
diff <(upto_stats "$tmp/plain.blind.jsonl.json") <(upto_stats "$tmp/w.json") > /dev/null || fail "sharded witness verdict differs"
# List-append in HDF5: the per-rank-read shards refuse lists, the shards on the
# whole history take it; the same report either way.
"$BIN" generate --workload append --txns 3000 --sessions 8 --out "$tmp/app.h5" -q || fail gen append
"$BIN" verify "$tmp/app.h5" -l ser,si --json -q > "$tmp/app.plain.json"; prc=$?
mpiexec --oversubscribe -n 2 "$BIN" verify "$tmp/app.h5" -l ser,si --json --key-shards > "$tmp/app.s2.json" 2> "$tmp/app.err"; rc=$?
[ "$rc" = "$prc" ] || fail "append.h5 with --key-shards: exit $rc, want $prc"
diff <(upto_stats "$tmp/app.plain.json") <(upto_stats "$tmp/app.s2.json") > /dev/null || fail "append.h5 with --key-shards differs"
# Stage times name the key-shard stages.
mpiexec --oversubscribe -n 2 "$BIN" verify "$tmp/ok.jsonl" -q --key-shards --stage-times "$tmp/t.json" || fail "stage times run"
grep -q '"key_shards":true' "$tmp/t.json" && grep -q '"shard":' "$tmp/t.json" && grep -q '"acyclic":' "$tmp/t.json" \
  || fail "stage times: $(cat "$tmp/t.json")"
# Per-rank step times: HDF5 read in slices on both ranks, and the acyclicity
# proved from the file order (a generated serial history has no backward pair).
"$BIN" generate --workload rmw --txns 4000 --sessions 8 --out "$tmp/rmw.h5" -q || fail gen rmw
mpiexec --oversubscribe -n 2 "$BIN" verify "$tmp/rmw.h5" -l ser -q --key-shards --no-serial-witness \
  --stage-times "$tmp/steps.json" || fail "rank steps run"
python3 - "$tmp/steps.json" <<'PY' || fail "rank steps: $(cat "$tmp/steps.json")"
import json, sys
d = json.load(open(sys.argv[1])); s = d["rank_steps"]
assert len(s["shard.read"]) == 2 and all(x > 0 for x in s["shard.read"]), s
assert "acyclic.by_order" in s and d["peel_supersteps"] == 1 and d["cross_edges"] == 0, d
PY
# same_error FILE WHAT: exit 2 on one process (the message says WHAT), and on
# 2 and 4 ranks with key shards exit 2 with one process's message.
same_error() {
  "$BIN" verify "$1" -q > /dev/null 2> "$tmp/one.err"; local rc=$?
  [ "$rc" = 2 ] && grep -q "$2" "$tmp/one.err" || fail "$1: one process exit $rc: $(cat "$tmp/one.err")"
  for p in 2 4; do
    mpiexec --oversubscribe -n $p "$BIN" verify "$1" -q --key-shards > /dev/null 2> "$tmp/r.err"; rc=$?
    [ "$rc" = 2 ] && grep -qxF -- "$(cat "$tmp/one.err")" "$tmp/r.err" || fail "$1, $p ranks: exit $rc, $(cat "$tmp/r.err")"
  done
}
# A malformed operation in some rank's slice (HDF5 read by range): exit 2
# with one process's message, whichever rank and slice it falls in (8,000
# transactions, 2 operations each here: row 100 is rank 0's first slice,
# 9,000 rank 1's first at 2 ranks, 31,000 the last rank's last slice).
# Regression: the other ranks waited in the next round's exchange forever,
# or took the failing rank's next collective for this one's (MPI_ERR_TRUNCATE).
for row in 100 9000 31000; do
  "$GEN" many "$tmp/badkind$row.h5" --components 20 --txns 8000 --bad-kind $row > /dev/null || fail "dist_gen --bad-kind"
  same_error "$tmp/badkind$row.h5" "row $row: kind 99 is out of range"
done
# A transaction id repeated in another rank's range, or in another slice of
# the same rank's range: exit 2 and one process's message (each slice's
# reader checks only itself). Regression: the shards said "holds", exit 0.
for dup in 10:7000 10:3000; do
  "$GEN" many "$tmp/dup${dup#*:}.h5" --components 20 --txns 8000 --dup-id $dup > /dev/null || fail "dist_gen --dup-id"
  same_error "$tmp/dup${dup#*:}.h5" "duplicate transaction id"
done
# JSONL read by byte ranges, one rank's lines each: a malformed line in a
# later rank's range, an id repeated across ranges, give one process's
# message (exit 2); string keys (numbered by first appearance in the whole
# file, which the ranks work out together: mpi/range_names.h, the step
# shard.names in --stage-times) and list operations (the replicated path)
# give one process's report, with no note.
awk 'NR == 4500 { print "{\"id\": 4500, \"session\": 1, \"ops\": [[\"r\", 1"; next } { print }' "$tmp/ok.jsonl" > "$tmp/badline.jsonl"
awk 'NR == 5000 { sub(/"id":[0-9]+/, "\"id\":7") } { print }' "$tmp/ok.jsonl" > "$tmp/dupline.jsonl"
same_error "$tmp/badline.jsonl" "badline.jsonl:4500: invalid JSON"
same_error "$tmp/dupline.jsonl" "dupline.jsonl:5000: duplicate transaction id 7"
sed -E 's/\["(r|w)",([0-9]+),/["\1","k\2",/g' "$tmp/bad.jsonl" > "$tmp/named.jsonl"
# String keys with a malformed line, or a repeated id, in a later rank's
# range: the ranks' numbering reads it first, and gives one process's message.
sed -E 's/\["(r|w)",([0-9]+),/["\1","k\2",/g' "$tmp/ok.jsonl" > "$tmp/okn.jsonl"
awk 'NR == 4500 { print substr($0, 1, length($0) - 3); next } { print }' "$tmp/okn.jsonl" > "$tmp/namedbad.jsonl"
awk 'NR == 5000 { sub(/"id":[0-9]+/, "\"id\":7") } { print }' "$tmp/okn.jsonl" > "$tmp/nameddup.jsonl"
same_error "$tmp/namedbad.jsonl" "namedbad.jsonl:4500: invalid JSON"
same_error "$tmp/nameddup.jsonl" "nameddup.jsonl:5000: duplicate transaction id 7"
"$BIN" generate --workload append --txns 1500 --sessions 6 --plant g-single --out "$tmp/lists.jsonl" -q || fail gen lists
for f in named lists; do
  "$BIN" verify "$tmp/$f.jsonl" -l ser,si,sser --json -q --no-local-search > "$tmp/one.json"; prc=$?
  mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/$f.jsonl" -l ser,si,sser --json --key-shards --stage-times "$tmp/st.json" \
    > "$tmp/r.json" 2> "$tmp/r.err"; rc=$?
  [ "$rc" = "$prc" ] && [ "$prc" = 1 ] || fail "$f: 4 ranks exit $rc, one process $prc"
  diff <(upto_stats "$tmp/one.json") <(upto_stats "$tmp/r.json") > /dev/null || fail "$f: 4 ranks' report differs"
  ! grep -q "key shards not used" "$tmp/r.err" || fail "$f: a note: $(cat "$tmp/r.err")"
  # (--stage-times gives the history's size after the file was read again:
  # regression, it said 0 transactions)
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["transactions"] == b["txns"] > 0, (a["transactions"], b["txns"])' \
    "$tmp/one.json" "$tmp/st.json" || fail "$f: --stage-times size"
  # String keys numbered by the ranks (not read on rank 0); lists not.
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["rank_steps"]; assert ("shard.names" in s) == (sys.argv[2] == "named"), sorted(s)' \
    "$tmp/st.json" "$f" || fail "$f: the names were not numbered by the ranks (or lists were)"
done
echo "key_shards_cli: ok"

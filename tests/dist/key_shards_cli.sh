#!/usr/bin/env bash
# verify --key-shards from the command line: on 1, 2 and 4 ranks (and on one
# process without mpiexec) the JSON report up to "stats" equals the plain
# one-process report, for a valid read-modify-write history and one with
# planted cycles (JSONL and HDF5), and blind-write histories valid and with
# planted cycles: with the serial witness off their unknown version orders are
# decided on the shards' gathered graph by the general engine (stage "solve"),
# with it on the valid one is settled by the sharded serial witness.
# usage: key_shards_cli.sh ISOCHECK SOURCE_DIR DIST_GEN
set -u
BIN=$1; SRC=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
fail_fast=1
T=$tmp
upto_stats() { sed -e 's/"file":"[^"]*"//' -e 's/"stats".*//' "$1"; }

"$BIN" generate --workload rmw --txns 6000 --sessions 16 --out "$T/ok.jsonl" -q || fail gen
"$BIN" generate --workload rmw --txns 6000 --sessions 16 --plant g-single --plant write-skew --plant stale-read \
  --seed 3 --out "$T/bad.jsonl" -q || fail gen
"$BIN" convert "$T/bad.jsonl" "$T/bad.h5" || fail convert
"$BIN" generate --workload blindw-rw --txns 500 --sessions 8 --out "$T/blind.jsonl" -q || fail gen
"$BIN" generate --workload blindw-rw --txns 2000 --sessions 8 --plant write-skew --plant g-single --seed 5 \
  --out "$T/blindbad.jsonl" -q || fail gen
for f in ok.jsonl bad.jsonl bad.h5 blind.jsonl blindbad.jsonl; do
  "$BIN" verify "$T/$f" -l ser,si,sser --json -q > "$T/plain.$f.json"; prc=$?
  [ "$f" != bad.jsonl -a "$f" != blindbad.jsonl ] || [ "$prc" = 1 ] || fail "plain run on $f: exit $prc, want 1"
  grep -q '"cycle"' "$T/plain.$f.json" || [ "$f" != bad.jsonl ] || fail "no witness cycle in the planted history"
  "$BIN" verify "$T/$f" -l ser,si,sser --json --key-shards > "$T/s0.$f.json" 2> "$T/s0.$f.err"; rc=$?
  [ "$rc" = "$prc" ] || fail "--key-shards on one process, $f: exit $rc, want $prc"
  diff <(upto_stats "$T/plain.$f.json") <(upto_stats "$T/s0.$f.json") > /dev/null || fail "--key-shards on one process differs on $f"
  for p in 1 2 4; do
    # Blind writes: the sharded graph path and the general engine on rank 0
    # (serial witness off); by default the sharded replay settles the valid one.
    nw=""; case $f in blind*) nw="--no-serial-witness --stage-times $T/st$p.$f.json";; esac
    mpiexec --oversubscribe -n $p "$BIN" verify "$T/$f" -l ser,si,sser --json --key-shards $nw \
      > "$T/s$p.$f.json" 2> "$T/s$p.$f.err"; rc=$?
    [ "$rc" = "$prc" ] || fail "mpiexec -n $p --key-shards $f: exit $rc, want $prc"
    diff <(upto_stats "$T/plain.$f.json") <(upto_stats "$T/s$p.$f.json") > /dev/null || fail "-n $p --key-shards differs on $f"
    ! grep -q "key shards not used" "$T/s$p.$f.err" || fail "key shards refused on $f: $(cat "$T/s$p.$f.err")"
    case $f in blind*) grep -q '"solve":' "$T/st$p.$f.json" || fail "no general-engine stage on $f: $(cat "$T/st$p.$f.json")";; esac
  done
done
# By default the sharded serial witness decides the blind-write history: no fallback.
mpiexec --oversubscribe -n 2 "$BIN" verify "$T/blind.jsonl" -l ser,si,sser --json --key-shards \
  > "$T/w.json" 2> "$T/w.err" || fail "sharded witness run on blind.jsonl"
grep -q '"serial_witness":"begin-time order"' "$T/w.json" || fail "no sharded serial witness: $(cat "$T/w.json")"
! grep -q "key shards not used" "$T/w.err" || fail "key shards refused with the witness on: $(cat "$T/w.err")"
diff <(upto_stats "$T/plain.blind.jsonl.json") <(upto_stats "$T/w.json") > /dev/null || fail "sharded witness verdict differs"
# List-append in HDF5: the per-rank-read shards refuse lists, the shards on the
# whole history take it; the same report either way.
"$BIN" generate --workload append --txns 3000 --sessions 8 --out "$T/app.h5" -q || fail gen append
"$BIN" verify "$T/app.h5" -l ser,si --json -q > "$T/app.plain.json"; prc=$?
mpiexec --oversubscribe -n 2 "$BIN" verify "$T/app.h5" -l ser,si --json --key-shards > "$T/app.s2.json" 2> "$T/app.err"; rc=$?
[ "$rc" = "$prc" ] || fail "append.h5 with --key-shards: exit $rc, want $prc"
diff <(upto_stats "$T/app.plain.json") <(upto_stats "$T/app.s2.json") > /dev/null || fail "append.h5 with --key-shards differs"
# Stage times name the key-shard stages.
mpiexec --oversubscribe -n 2 "$BIN" verify "$T/ok.jsonl" -q --key-shards --stage-times "$T/t.json" || fail "stage times run"
grep -q '"key_shards":true' "$T/t.json" && grep -q '"shard":' "$T/t.json" && grep -q '"acyclic":' "$T/t.json" \
  || fail "stage times: $(cat "$T/t.json")"
echo "key_shards_cli: ok"

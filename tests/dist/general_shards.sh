#!/usr/bin/env bash
# The general engine on key shards (src/mpi/dist_prune.cpp), from the command
# line: BlindW-RW histories (unknown version orders) with the serial witness
# off, decided by `verify --key-shards` on 1, 2 and 4 ranks for SER+SI and
# for SER alone, from HDF5 (per-rank reads) and JSONL (scattered from rank 0):
#  - the JSON report up to "stats" and the exit code equal the plain
#    one-process run's;
#  - a valid history is settled on the shards: nothing gathered to rank 0
#    ("gathered":false in --stage-times), and from HDF5 on 4 ranks no rank, rank 0
#    included, held the whole history's operations (ops_held below the total);
#  - a history with planted anomalies is gathered for the one-process
#    witness (the same cycle, edges and names).
# usage: general_shards.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
upto_stats() { sed -e 's/"file":"[^"]*"//' -e 's/"stats".*//' "$1"; }

"$BIN" generate --workload blindw-rw --txns 4000 --sessions 8 --out "$tmp/ok.h5" -q || fail gen ok
"$BIN" generate --workload blindw-rw --txns 3000 --sessions 12 --keys 400 --seed 4 --out "$tmp/ok2.jsonl" -q || fail gen ok2
"$BIN" generate --workload blindw-rw --txns 3000 --sessions 8 --plant write-skew --plant g-single --seed 5 \
  --out "$tmp/bad.h5" -q || fail gen bad
for f in ok.h5 ok2.jsonl bad.h5; do
  for levels in ser,si ser; do
    "$BIN" verify "$tmp/$f" -l $levels --json -q --no-serial-witness > "$tmp/plain.json"; prc=$?
    case $f in bad*) want=1;; *) want=0;; esac
    [ "$prc" = "$want" ] && pass || fail "plain run on $f -l $levels: exit $prc, want $want"
    for p in 1 2 4; do
      $mpiexec --oversubscribe -n $p "$BIN" verify "$tmp/$f" -l $levels --json --key-shards --no-serial-witness \
        --stage-times "$tmp/st.json" > "$tmp/s.json" 2> "$tmp/s.err"; rc=$?
      [ "$rc" = "$prc" ] && pass || fail "-n $p $f -l $levels: exit $rc, want $prc: $(cat "$tmp/s.err")"
      diff <(upto_stats "$tmp/plain.json") <(upto_stats "$tmp/s.json") > /dev/null && pass \
        || fail "-n $p $f -l $levels: report differs"
      ! grep -q "key shards not used" "$tmp/s.err" && pass || fail "-n $p $f: key shards refused: $(cat "$tmp/s.err")"
      python3 - "$tmp/st.json" "$want" "$f" <<'PY' && pass || fail "-n $p $f -l $levels stage times: $(cat "$tmp/st.json")"
import json, sys
t = json.load(open(sys.argv[1]))
valid = sys.argv[2] == "0"
assert t["key_shards"] is True, t
# valid: decided on the shards, nothing gathered; violated: gathered for the witness
assert t["gathered"] is (not valid), t
if valid:
    assert "solve" in t["stages"], t
    if t["ranks"] == 4 and sys.argv[3].endswith(".h5"):  # per-rank reads: no rank held the whole history's operations
        assert all(x < t["ops"] for x in t["ops_held"]), t
PY
    done
  done
done
summary

#!/usr/bin/env bash
# The report's replay lines ("serial witness: …", "SI replay: …" and JSON's
# stats.serial_witness / stats.si_replay) on many ranks equal one process's:
# text and JSON compared whole (JSON without the counting stats and seconds)
# under mpiexec on 2 and 3 ranks, owned data (and --dist) and --key-shards:
# - ok: a valid read-modify-write history (the serial witness settles it);
# - skew: a serial execution with a planted write skew: SER fails, the SI
#   replay (an order replay: commits in begin-time order) settles SI; on key
#   shards each shard bounds the snapshots of its keys' readers and the
#   bounds meet at the transactions' range owners;
# - si: a simulated SI database (aborted attempts recorded): SER fails, the
#   SI time replay settles SI;
# - blind: blind writes (blindw-rw), settled by the serial witness;
# - glued: three blocks glued (dist_gen many: 20 components), one process's
#   serial witness in file order, put together from the blocks.
# usage: replay_lines.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"

check gen_ok 0 "$BIN" generate -q --workload rmw --txns 1500 --sessions 6 --keys 150 --seed 1 --out "$tmp/ok.h5"
check gen_skew 0 "$BIN" generate -q --workload rmw --isolation ser --txns 1500 --sessions 6 --keys 150 --seed 1 \
  --plant write-skew --out "$tmp/skew.h5"
check gen_si 0 "$BIN" generate -q --workload rmw --isolation si --txns 1500 --sessions 6 --keys 150 --seed 1 --out "$tmp/si.h5"
check gen_blind 0 "$BIN" generate -q --workload blindw-rw --txns 1500 --sessions 6 --keys 150 --seed 1 --out "$tmp/blind.h5"
check gen_many 0 "$GEN" many "$tmp/glued.h5" --components 20 --txns 2000
check convert_ok 0 "$BIN" convert "$tmp/ok.h5" "$tmp/ok.jsonl"

# The JSON report without the figures that count work (they differ by design).
json_core() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["stats"] = {k: d["stats"].get(k) for k in ("serial_witness", "si_replay")}
print(json.dumps(d, sort_keys=True))' "$1"
}

# compare NAME FILE LEVELS RANKS MODE: one process and RANKS ranks, text and JSON.
compare() {
  local name=$1 f=$2 levels=$3 n=$4 mode=$5 args=()
  [ "$mode" = owned ] || args=("$mode")
  "$BIN" verify "$tmp/$f" -q -l "$levels" > "$tmp/one.txt"; local want=$?
  "$BIN" verify "$tmp/$f" -q -l "$levels" --json > "$tmp/one.json"
  $mpiexec --oversubscribe -n "$n" "$BIN" verify "$tmp/$f" -q -l "$levels" "${args[@]}" > "$tmp/many.txt" 2> "$tmp/many.err"; local rc=$?
  $mpiexec --oversubscribe -n "$n" "$BIN" verify "$tmp/$f" -q -l "$levels" "${args[@]}" --json > "$tmp/many.json" 2>> "$tmp/many.err"
  if [ "$rc" != "$want" ]; then fail "$name ($f -l $levels, $n ranks, $mode): exit $rc, one process $want"; return; fi
  if ! diff "$tmp/one.txt" "$tmp/many.txt" > /dev/null; then
    fail "$name ($f -l $levels, $n ranks, $mode): text differs: $(diff "$tmp/one.txt" "$tmp/many.txt" | head -4)"; return
  fi
  if [ "$(json_core "$tmp/one.json")" != "$(json_core "$tmp/many.json")" ]; then
    fail "$name ($f -l $levels, $n ranks, $mode): JSON differs: $(diff <(json_core "$tmp/one.json") <(json_core "$tmp/many.json") | head -4)"; return
  fi
  pass
}

# The one-process reports say what each history tests.
"$BIN" verify "$tmp/ok.h5" -q -l ser,si > "$tmp/ok.txt"
has ok_by_witness "$tmp/ok.txt" "serial witness: replaying the committed transactions in begin-time order"
"$BIN" verify "$tmp/skew.h5" -q -l ser,si > "$tmp/skew.txt"
has skew_by_order_replay "$tmp/skew.txt" "SI replay: commits in begin-time order"
has skew_ser_fails "$tmp/skew.txt" "serializable: VIOLATED: G2-item (write skew)"
"$BIN" verify "$tmp/si.h5" -q -l ser,si > "$tmp/si.txt"
has si_by_time_replay "$tmp/si.txt" "SI replay: begin and commit events in time order"
has si_ser_fails "$tmp/si.txt" "serializable: VIOLATED"
"$BIN" verify "$tmp/blind.h5" -q -l ser,si > "$tmp/blind.txt"
has blind_by_witness "$tmp/blind.txt" "serial witness: replaying"
"$BIN" verify "$tmp/glued.h5" -q -l ser,si > "$tmp/glued.txt"
has glued_by_witness "$tmp/glued.txt" "serial witness: replaying the committed transactions in file order"

for mode in owned --key-shards; do
  compare ok ok.h5 ser,si 2 $mode
  compare skew skew.h5 ser,si 2 $mode
  compare si si.h5 ser,si 2 $mode
  compare blind blind.h5 ser,si 2 $mode
done
# 3 ranks cut the ranges and the key shards elsewhere.
compare skew skew.h5 ser,si 3 --key-shards
compare si si.h5 ser,si 3 --key-shards
compare glued glued.h5 ser,si 3 owned
# SSER too: its piece 0 is the whole history (owned data), its serial witness
# needs times (key shards).
compare ok_sser ok.h5 ser,si,sser 2 owned
compare skew_sser skew.h5 ser,si,sser 3 --key-shards
compare ok_dist ok.h5 ser,si 2 --dist
compare ok_jsonl ok.jsonl ser,si 2 owned
summary

#!/usr/bin/env bash
# Key shards hold owned data only: at 4 ranks (--key-shards, HDF5 read by
# range, and JSONL read by line-aligned byte ranges) no rank held more
# operations at once (ops_held in --stage-times)
# than ceil(ops/4) * 1.2 plus the operations of the transactions the report
# names (its witness or anomalies: rank 0 fetches them for the report), for a
# valid read-modify-write history, one on 12 keys only, and for ones with a
# planted cycle and a planted lost update; and the report (text and JSON, stats and times apart)
# is the one-process report.
# usage: key_shards_owned.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"

# HISTORY PLANT: the history as HDF5 and, for counting operations, JSONL.
make() {
  "$BIN" generate --workload rmw --txns 20000 --sessions 8 --seed 5 ${2:+--plant $2} ${3:-} --out "$tmp/$1.h5" -q 2>/dev/null ||
    fail "generate $1"
  "$BIN" convert "$tmp/$1.h5" "$tmp/$1.jsonl" > /dev/null || fail "convert $1"
}

# run NAME EXIT [ARGS]: 4 ranks with key shards, then one process, from the
# HDF5 file and from the JSONL file; the
# reports must agree and the per-rank holdings stay within the bound.
run() {
  local name=$1 want=$2; shift 2
  for ext in h5 jsonl; do
    local out=$tmp/$name.$ext
    $mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/$name.$ext" -q --key-shards --level ser,si,sser \
      --stage-times "$out.times" --json "$@" > "$out.4.json" 2> "$out.err"
    local rc=$?
    [ "$rc" = "$want" ] && pass || fail "$name.$ext: 4 ranks exit $rc, want $want: $(head -3 "$out.err")"
    "$BIN" verify "$tmp/$name.$ext" -q --level ser,si,sser --json "$@" > "$out.1.json"
    python3 - "$out" "$tmp/$name.jsonl" <<'PY' && pass || fail "$name.$ext: $(cat "$out.times")"
import json, math, sys
base = sys.argv[1]
t = json.load(open(base + ".times"))
four, one = json.load(open(base + ".4.json")), json.load(open(base + ".1.json"))
for d in (four, one):
    for k in ("stats", "seconds", "file"):
        d.pop(k, None)
assert four == one, ("reports differ", four, one)
assert t["ranks"] == 4 and t["key_shards"] is True, t
named = set()
for lv in four["levels"]:
    for e in lv.get("cycle", []):
        named |= {e["from"], e["to"]}
for a in four.get("anomalies", []):
    named |= {a["txn"], a.get("other", a["txn"])}
witness_ops = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    if "id" in r and r["id"] in named:
        witness_ops += len(r["ops"])
bound = math.ceil(t["ops"] / 4) * 1.2 + witness_ops
assert max(t["ops_held"]) <= bound, ("ops_held", t["ops_held"], "bound", bound, "ops", t["ops"], "witness ops", witness_ops)
PY
  done
}

make valid
make cycle g-single
# 12 keys: one hash bucket per rank would leave some rank a third of them or
# more (the key shards balance buckets by a sample's operations instead).
make few "" "--keys 12"
make lost lost-update
run valid 0 --no-serial-witness
run valid 0
run cycle 1 --no-serial-witness
run lost 1
run few 0 --no-serial-witness
summary

#!/bin/bash
# isocheck audit preempted by SIGTERM mid-log and requeued (--requeue): the
# interrupted run finishes its round, writes the checkpoint and exits 75; the
# rerun resumes at the next round. Same verdict as an uninterrupted run, every
# round run exactly once with the same kept/forgotten counts, kept bounded.
#   bash tests/cli/audit_preempt.sh <isocheck-binary> <source-dir>
set -u
BIN=$(readlink -f "$1")
T=$(mktemp -d /tmp/isocheck-preempt.XXXXXX)
pid=0
cleanup() { [ "$pid" -ne 0 ] && kill "$pid" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

for plant in none lost-update; do
  args=()
  [ "$plant" = none ] || args=(--plant "$plant")
  "$BIN" generate --workload rmw --txns 60000 --sessions 8 --seed 11 "${args[@]}" --out "$T/raw.jsonl" -q
  "$BIN" audit "$T/raw.jsonl" --write-fenced "$T/day.jsonl" --fence-every 10 -q
  rm -f "$T/raw.jsonl"
  lv=ser,si,sser
  "$BIN" audit "$T/day.jsonl" --level $lv --round 2000 --json -q > "$T/straight.json"
  straight_rc=$?

  rm -rf "$T/ckpt"
  if [ "$plant" != none ]; then
    # The violation may end the run before any signal could land: stop it
    # deterministically after 1 round instead (the same code path as SIGTERM).
    rc=0
    "$BIN" audit "$T/day.jsonl" --level $lv --round 2000 --checkpoint-dir "$T/ckpt" --requeue --json -q \
      --stop-after-rounds 1 > "$T/first.json" || rc=$?
  else
  # Preempt: SIGTERM once round 3 has been reported. Its stderr is read line
  # by line from a pipe (no polling); the rest is drained after the signal.
  coproc AUD { exec "$BIN" audit "$T/day.jsonl" --level $lv --round 2000 --checkpoint-dir "$T/ckpt" --requeue --json \
    2>&1 > "$T/first.json"; }
  pid=$AUD_PID
  exec 5<&"${AUD[0]}"
  seen=0
  : > "$T/first.err"
  while IFS= read -r line <&5; do
    printf '%s\n' "$line" >> "$T/first.err"
    case $line in "isocheck audit: round 3:"*) seen=1; break;; esac
  done
  [ $seen = 1 ] || fail "audit did not reach round 3 ($(tail -2 "$T/first.err"))"
  kill -TERM $pid
  cat <&5 >> "$T/first.err"
  exec 5<&-
  rc=0
  wait $pid || rc=$?
  pid=0
  fi
  if [ "$plant" = none ]; then
    [ $rc = 75 ] || fail "interrupted run exited $rc, expected 75: $(tail -3 "$T/first.err")"
    grep -q "stopping after round" "$T/first.err" || fail "no stop message"
    [ -f "$T/ckpt/day.jsonl.ckpt" ] || fail "no checkpoint"
  fi
  # Requeue until complete (a violated log may already be final).
  for _ in 1 2 3; do
    [ $rc = 75 ] || break
    rc=0
    "$BIN" audit "$T/day.jsonl" --level $lv --round 2000 --checkpoint-dir "$T/ckpt" --requeue --json -q \
      > "$T/second.json" || rc=$?
  done
  [ -s "$T/second.json" ] || cp "$T/first.json" "$T/second.json"
  [ $rc = $straight_rc ] || fail "[$plant] resumed exit $rc, uninterrupted $straight_rc"
  python3 - "$T/straight.json" "$T/second.json" "$plant" << 'EOF' || fail "[$plant] reports differ"
import json, sys
a, b, plant = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
va = {k: v["verdict"] for k, v in a["levels"].items()}
vb = {k: v["verdict"] for k, v in b["levels"].items()}
assert va == vb, (va, vb)
assert b["complete"] and b["rounds"] == a["rounds"] and b["transactions"] == a["transactions"], (a["rounds"], b["rounds"])
rounds = [s["round"] for s in b["round_stats"]]
assert rounds == list(range(len(rounds))), rounds          # each round once, in order
for x, y in zip(a["round_stats"], b["round_stats"]):
    assert (x["kept"], x["forgotten"], x["txns"]) == (y["kept"], y["forgotten"], y["txns"]), (x, y)
if plant == "none":
    assert all(v == "holds" for v in va.values()), va
    assert b["resumptions"] == 1, b["resumptions"]
    assert {s["run"] for s in b["round_stats"]} == {0, 1}
    assert b["max_kept"] < 2000, b["max_kept"]                # bounded by the round, not the log
    assert b["transactions"] > 60000
else:
    assert all(v == "violated" for v in va.values()), va
print(plant, "ok:", vb, "rounds", b["rounds"], "resumptions", b["resumptions"], "max kept", b["max_kept"])
EOF
done
echo "PASS: audit_preempt"

#!/usr/bin/env bash
# --time-order end to end: writes nobody read are ordered by their writers'
# times for SER and SI, in verify (every engine path) and in audit (and the
# fence rule, which cannot see that order across rounds, is not used with it).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

# T2's write of y ended before T1's began: T2 precedes T1; T1 read x's initial
# state, so T1 precedes T2. Nobody read y.
cat > "$tmp/blind.jsonl" <<'J'
{"id":2,"session":2,"status":"committed","begin":0,"end":1,"ops":[["w","x",3],["w","y",4]]}
{"id":1,"session":1,"status":"committed","begin":2,"end":3,"ops":[["r","x",null],["w","y",2]]}
J
check free 0 "$bin" verify "$tmp/blind.jsonl" --level ser,si
for extra in "" --no-serial-witness "--engine linear" "--solver cadical"; do
  check "time-order $extra" 1 "$bin" verify "$tmp/blind.jsonl" --level ser,si --time-order $extra
  expect_out "time-order $extra" "serializable: VIOLATED: G-single"
done
# Key shards' own acyclicity test has no time-order edges: they step aside.
check "time-order key shards" 1 "$bin" verify "$tmp/blind.jsonl" --level ser --time-order --key-shards
expect_err "time-order key shards" "key shards not used: --time-order"
check "time-order si" 1 "$bin" verify "$tmp/blind.jsonl" --level si --time-order
expect_out "time-order si" "snapshot-isolation: VIOLATED: G-single"
check "time-order explained" 1 "$bin" verify "$tmp/blind.jsonl" --level ser --time-order
expect_out "time-order explained" "T2 wrote y=4, T1 later overwrote it with y=2 \(version order of y; T2 ended before T1 began\)"
for round in 1 2 10; do
  check "audit round $round" 1 "$bin" audit -q "$tmp/blind.jsonl" --level ser,si --time-order --round "$round"
  expect_out "audit round $round" "serializable: VIOLATED"
done

# A fenced log: T3's write of k is frozen two fences back, T8 (a later
# session) wrote k and ended before T3 began. The fence rule keeps T3 (a
# later writer ended before it began).
cat > "$tmp/fenced.jsonl" <<'J'
{"id":1,"session":1,"status":"committed","ops":[["r","__fence",null],["w","__fence",1]]}
{"id":2,"session":1,"status":"committed","begin":0,"end":200,"ops":[["w","j",5]]}
{"id":3,"session":1,"status":"committed","begin":100,"end":101,"ops":[["w","k",10]]}
{"id":4,"session":1,"status":"committed","ops":[["r","__fence",1],["w","__fence",2]]}
{"id":5,"session":1,"status":"committed","ops":[["r","__fence",2],["w","__fence",3]]}
{"id":6,"session":1,"status":"committed","ops":[["r","__fence",3],["w","__fence",4]]}
{"id":7,"session":2,"status":"committed","ops":[["r","__fence",4],["w","__fence",5]]}
{"id":8,"session":2,"status":"committed","begin":0,"end":1,"ops":[["w","k",20]]}
{"id":9,"session":2,"status":"committed","ops":[["r","__fence",5],["w","__fence",6]]}
J
check "fenced verify" 1 "$bin" verify "$tmp/fenced.jsonl" --level ser --time-order
check "fenced verify free" 0 "$bin" verify "$tmp/fenced.jsonl" --level ser
for round in 1 2 3 4 5; do
  check "fenced audit round $round" 1 "$bin" audit "$tmp/fenced.jsonl" --level ser --time-order --round "$round"
  expect_out "fenced audit round $round" "forgetting rule: fence"
  check "fenced audit si round $round" 1 "$bin" audit -q "$tmp/fenced.jsonl" --level si,sser --time-order --round "$round"
done
check "fenced audit free" 0 "$bin" audit -q "$tmp/fenced.jsonl" --level ser --round 1

summary

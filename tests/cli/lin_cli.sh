#!/usr/bin/env bash
# verify --level lin end to end: a stale read (exit 1, the witness in words),
# a valid concurrent history (exit 0), and histories that are not
# lightweight transactions (exit 2 naming the file and the transaction).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

cat > "$tmp/stale.jsonl" <<'J'
{"id":1,"session":1,"status":"committed","begin":0,"end":10,"ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","begin":20,"end":30,"ops":[["r","x",1],["w","x",2]]}
{"id":3,"session":3,"status":"committed","begin":40,"end":50,"ops":[["r","x",1]]}
J
check stale 1 "$bin" verify "$tmp/stale.jsonl" --level lin
expect_out stale "linearizable: VIOLATED: stale read"
expect_out stale "T2 \(wrote x=2\) ended at 30, before T3 \(read x=1\) began at 40"
check "stale json" 1 "$bin" verify "$tmp/stale.jsonl" --level linearizable --json
expect_out "stale json" '"level":"linearizable","decided":true,"holds":false'
check "stale skew" 0 "$bin" verify "$tmp/stale.jsonl" --level lin --clock-skew 10

cat > "$tmp/ok.jsonl" <<'J'
{"id":1,"session":1,"status":"committed","begin":0,"end":10,"ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","begin":5,"end":30,"ops":[["r","x",1],["w","x",2]]}
{"id":3,"session":3,"status":"committed","begin":6,"end":25,"ops":[["r","x",1]]}
J
check ok 0 "$bin" verify "$tmp/ok.jsonl" --level lin,sser
expect_out ok "linearizable: holds"

cat > "$tmp/two_keys.jsonl" <<'J'
{"id":7,"session":1,"status":"committed","begin":0,"end":10,"ops":[["r","x",null],["w","y",1]]}
J
check "two keys" 2 "$bin" verify "$tmp/two_keys.jsonl" --level lin
expect_err "two keys" "two_keys.jsonl: transaction T7: touches two keys"
cat > "$tmp/untimed.jsonl" <<'J'
{"id":8,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
J
check untimed 2 "$bin" verify "$tmp/untimed.jsonl" --level lin
expect_err untimed "transaction T8: has no begin time"
check "audit lin" 2 "$bin" audit -q "$tmp/ok.jsonl" --level lin
expect_err "audit lin" "audit does not check --level lin"
summary

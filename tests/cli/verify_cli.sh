#!/usr/bin/env bash
# End-to-end tests of the CLI: exit codes, one-line error messages naming the
# file and line, JSON report fields, DOT output, convert/info round trips.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

ok='{"id":1,"session":1,"status":"committed","begin":0,"end":1,"ops":[["r","x",null],["w","x",1]]}'
printf '%s\n' "$ok" '{"id":2,"session":2,"status":"committed","begin":2,"end":3,"ops":[["r","x",1],["w","x",2]]}' > "$tmp/good.jsonl"
check good 0 "$bin" verify -q "$tmp/good.jsonl" --level ser,si,sser
expect_out good "strict-serializable: holds"

bad() {  # name line2 pattern
  printf '%s\n%s\n' "$ok" "$2" > "$tmp/$1.jsonl"
  check "$1" 2 "$bin" verify -q "$tmp/$1.jsonl"
  expect_err "$1" "$tmp/$1.jsonl:2: .*$3"
  no_verdict "$1"
}
bad badjson '{"id":2,"session":1,' 'invalid JSON'
bad missing '{"id":2,"session":1,"ops":[]}' 'missing field "status"'
bad wrongtype '{"id":"two","session":1,"status":"committed","ops":[]}' '"id" must be an integer'
bad opkind '{"id":2,"session":1,"status":"committed","ops":[["x","k",1]]}' 'unknown operation kind "x"'
bad dupid '{"id":1,"session":1,"status":"committed","ops":[]}' 'duplicate transaction id 1'
bad beginend '{"id":2,"session":1,"status":"committed","begin":9,"end":3,"ops":[]}' '"begin" \(9\) is after "end" \(3\)'
bad status '{"id":2,"session":1,"status":"maybe","ops":[]}' 'unknown status "maybe"'
bad extra '{"id":2,"session":1,"status":"committed","ops":[],"sesion":3}' 'unknown field "sesion"'
bad oparity '{"id":2,"session":1,"status":"committed","ops":[["r","x"]]}' '3 elements'
bad writenull '{"id":2,"session":1,"status":"committed","ops":[["w","x",null]]}' 'cannot write null'
printf '{"isocheck":2}\n' > "$tmp/ver.jsonl"
check version 2 "$bin" verify -q "$tmp/ver.jsonl"
expect_err version 'unsupported format version 2'
printf 'not hdf5 at all' > "$tmp/bad.h5"
check badh5 2 "$bin" verify -q "$tmp/bad.h5"
expect_err badh5 'bad.h5'
check nofile 2 "$bin" verify -q "$tmp/none.jsonl"
check badlevel 2 "$bin" verify -q "$tmp/good.jsonl" --level rcx
expect_err badlevel 'unknown level "rcx"'
# --format is checked while the command line is parsed, the same way by each command.
for cmd in verify info convert; do
  out=(); [ "$cmd" = convert ] && out=("$tmp/fmt-out.jsonl")
  check "badformat-$cmd" 2 "$bin" "$cmd" "$tmp/good.jsonl" "${out[@]}" --format nope
  expect_err "badformat-$cmd" 'unknown format "nope" \(expected auto, jsonl, hdf5, '
  check "format-$cmd" 0 "$bin" "$cmd" "$tmp/good.jsonl" "${out[@]}" --format jsonl
done

# A violation: exit 1, witness, JSON fields, DOT.
printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["r","x",null],["r","y",null],["w","y",1]]}' \
  '{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["r","y",null],["w","x",2]]}' > "$tmp/ws.jsonl"
check skew 1 "$bin" verify -q "$tmp/ws.jsonl" --level ser,si --json --dot "$tmp/ws.dot"
expect_out skew '"level":"serializable","decided":true,"holds":false'
expect_out skew '"anomaly":"G2-item \(write skew\)"'
expect_out skew '"level":"snapshot-isolation","decided":true,"holds":true'
expect_out skew '"exit_code":1'
if grep -q 'T1 -> T2' "$tmp/ws.dot"; then pass; else fail "dot"; fi

# Blind writes that somebody read: the order is unknown, never guessed (exit 3)
# until the general engine decides them.
printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["w","x",1]]}' \
  '{"id":2,"session":2,"status":"committed","ops":[["w","x",2]]}' \
  '{"id":3,"session":3,"status":"committed","ops":[["r","x",1]]}' > "$tmp/blind.jsonl"
"$bin" verify -q "$tmp/blind.jsonl" --engine linear >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 3 ] && grep -q "1 unordered write pairs" "$tmp/out"; then pass; else fail "blind: rc=$rc"; cat "$tmp/out" "$tmp/err"; fi

# convert round trip JSONL -> HDF5 -> JSONL is lossless; info reports counts.
check conv1 0 "$bin" convert "$tmp/ws.jsonl" "$tmp/ws.h5"
check conv2 0 "$bin" convert "$tmp/ws.h5" "$tmp/back.jsonl"
check conv3 0 "$bin" convert "$tmp/back.jsonl" "$tmp/back2.jsonl"
if cmp -s "$tmp/back.jsonl" "$tmp/back2.jsonl"; then pass; else fail "roundtrip"; fi
check skewh5 1 "$bin" verify -q "$tmp/ws.h5" --level ser
check info 0 "$bin" info "$tmp/ws.h5"
expect_out info 'transactions: +2 \(committed 2'
expect_out info 'write kinds: +2 read-modify-write, 0 blind'

# Budgets: exhaustion is exit 3 with what to raise (a 300k-transaction
# history holds about 110 MiB resident, and cannot be checked in 1e-12 s);
# a zero time limit is a usage error (tests/cli/limits_cli.sh has the rest).
"$bin" generate -q --workload rmw --txns 300000 --out "$tmp/big.jsonl"
check memlimit 3 "$bin" verify -q "$tmp/big.jsonl" --memory-limit 40M
expect_err memlimit 'memory limit of 40 MiB reached during stage .*raise --memory-limit'
no_verdict memlimit
check timelimit 3 "$bin" verify -q "$tmp/big.jsonl" --time-limit 1e-12
expect_err timelimit 'time limit of 1e-12s reached .*raise --time-limit'
check timezero 2 "$bin" verify -q "$tmp/big.jsonl" --time-limit 0
expect_err timezero 'time-limit: must be positive'
check badlimit 2 "$bin" verify -q "$tmp/big.jsonl" --memory-limit 12Q
expect_err badlimit 'unknown size suffix'

# --level takes one value (commas for several, or the option repeated): the
# history file after it is the file, options after the file still count.
check level_then_file 0 "$bin" verify --level ser "$tmp/good.jsonl" --dot "$tmp/lf.dot"
expect_out level_then_file "serializable: holds"
if [ ! -s "$tmp/lf.dot" ]; then fail "level_then_file: no DOT file"; fi
check levels_repeated 0 "$bin" verify -l ser -l si "$tmp/good.jsonl" -q
check audit_level_then_log 0 "$bin" audit --level sser "$tmp/good.jsonl" --round 1 -q
# A negative count for an unsigned option is refused, not read as 2^64 - 1
# (a round of every transaction there is; a spill threshold never reached).
check negative_round 2 "$bin" audit --round -1 "$tmp/good.jsonl" -q
expect_err negative_round_msg "--round: must not be negative"
check negative_spill 2 "$bin" audit --spill-above -1 "$tmp/good.jsonl" -q
expect_err negative_spill_msg "--spill-above must not be negative"
check negative_txns 2 "$bin" generate --workload rmw --txns -5 --out "$tmp/neg.jsonl"
expect_err negative_txns_msg "--txns: must not be negative"
check negative_cases 2 "$bin" verify --open-read-cases -1 "$tmp/good.jsonl" -q
expect_err negative_cases_msg "--open-read-cases must be at least 1"

summary

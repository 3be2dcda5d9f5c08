#!/usr/bin/env bash
# List reads against whole append runs, end to end: a read that shows a
# writer's appends cut, split, reordered or repeated violates every level in
# verify (both engines), audit, verify --dist and under mpiexec; the report
# names the anomaly and the appends the read breaks.
# usage: list_runs_cli.sh ISOCHECK SOURCE_DIR
set -u
bin="$1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

txn() { printf '{"id":%s,"session":%s,"status":"committed","ops":[%s]}\n' "$1" "$2" "$3"; }
w12=$(txn 1 1 '["append","l",1],["append","l",2]')
w3=$(txn 3 3 '["append","l",3]')
# name, then the history; the anomaly expected; words of its explanation.
cases=(
  "cut|$w12|$(txn 2 2 '["r","l",[2]]')|incompatible order|this read has 2 without 1 right before it"
  "cut_interleaved|$w12|$(txn 2 2 '["r","l",[1,3]]')|$w3|G1b \(intermediate read\)|not T1's next append, 2, right after it"
  "reordered|$w12|$(txn 2 2 '["r","l",[2,1,3]]')|$w3|incompatible order|this read has 2 before 1"
  "repeated|$(txn 1 1 '["append","l",1]')|$(txn 2 2 '["r","l",[1,1]]')|duplicate elements|it holds 1 more than once"
)
have_mpi=0
command -v mpiexec >/dev/null && have_mpi=1
for c in "${cases[@]}"; do
  IFS='|' read -r -a f <<<"$c"
  n=${#f[@]}; name=${f[0]}; kind=${f[$((n-2))]}; words=${f[$((n-1))]}
  : > "$tmp/$name.jsonl"
  for ((i = 1; i < n - 2; i++)); do printf '%s\n' "${f[$i]}" >> "$tmp/$name.jsonl"; done
  for engine in auto linear; do
    check "$name verify --engine $engine" 1 "$bin" verify "$tmp/$name.jsonl" --level ser,si,sser --engine "$engine"
    expect_out "$name verify" "^  $kind: T2 read l="
    expect_out "$name verify" "$words"
    expect_out "$name verify" "strict-serializable: VIOLATED"
  done
  check "$name verify --json" 1 "$bin" verify "$tmp/$name.jsonl" --level ser --json -q
  expect_out "$name json" "\"anomalies\":\[\{\"kind\":\"$kind\""
  for round in 1 2; do
    check "$name audit --round $round" 1 "$bin" audit "$tmp/$name.jsonl" --level ser --round "$round"
    expect_out "$name audit" "serializable: VIOLATED \(round [0-9]+, $kind\)"
  done
  check "$name verify --dist" 1 "$bin" verify "$tmp/$name.jsonl" --level ser,si,sser --dist
  expect_out "$name --dist" "^  $kind: T2 read l="
  if [ "$have_mpi" = 1 ]; then
    check "$name mpiexec -n 2" 1 mpiexec --oversubscribe -n 2 "$bin" verify "$tmp/$name.jsonl" --level ser,si,sser
    expect_out "$name mpiexec" "^  $kind: T2 read l="
  fi
done
# The whole runs, in order, and a transaction reading its own partial run: holds.
{ txn 1 1 '["append","l",1],["r","l",[1]],["append","l",2]'; txn 2 2 '["r","l",[1,2]],["append","l",3]'
  txn 3 3 '["r","l",[1,2,3]]'; } > "$tmp/ok.jsonl"
check "whole runs verify" 0 "$bin" verify "$tmp/ok.jsonl" --level ser,si,sser
check "whole runs audit" 0 "$bin" audit "$tmp/ok.jsonl" --level ser --round 1
check "whole runs --dist" 0 "$bin" verify "$tmp/ok.jsonl" --level ser,si,sser --dist
summary

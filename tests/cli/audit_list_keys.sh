#!/usr/bin/env bash
# A key used both as a list (appended to, read as a list) and as a register
# (written with w, read as one value): verify refuses the log (exit 2) at the
# first such operation in the file. The audit must too, with the same
# message, whichever rounds hold the two uses: the write rounds before the
# append, in an aborted transaction, after rounds that already violated
# every level, or after the writer was forgotten (time rule). JSONL with
# integer and string keys, and HDF5.
# Regression: the audit checked each round on its own and said "VIOLATED"
# (exit 1) or "HOLDS" (exit 0) of such logs, or named the operation by its
# position in the round's carry, without the file.
set -u
bin="$1"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

line() { printf '{"id":%s,"session":%s,"status":"%s","begin":%s,"end":%s,"ops":[%s]}\n' "$@"; }
# Plain read-modify-write transactions on keys of their own, timed after $1.
pad() { for i in $(seq "$1" $(($1 + 9))); do line "$i" $((20 + i % 3)) committed $((10 * i)) $((10 * i + 5)) "[\"r\",$((1000 + i)),null],[\"w\",$((1000 + i)),$i]"; done; }

{ line 1 1 committed 1 2 '["r",7,null],["w",7,2]'; pad 10; line 2 2 committed 500 501 '["append",7,1]'; } > "$tmp/write_first.jsonl"
{ line 1 1 committed 1 2 '["append",7,1]'; pad 10; line 2 2 committed 500 501 '["r",8,null],["r",7,1]'; } > "$tmp/read_later.jsonl"
{ line 1 1 aborted 1 2 '["w",7,2]'; pad 10; line 2 2 committed 500 501 '["append",7,1]'; } > "$tmp/aborted.jsonl"
# a lost update in the first rounds violates every level; the misuse comes later
{ line 1 1 committed 1 2 '["r",50,null],["w",50,1]'; line 2 2 committed 3 4 '["r",50,null],["w",50,2]'
  pad 10; line 3 1 committed 500 501 '["append",7,1]'; line 4 2 committed 502 503 '["w",7,3]'; } > "$tmp/after_violation.jsonl"
sed -E 's/\["(append|w|r)",([0-9]+),/["\1","k\2",/g' "$tmp/write_first.jsonl" > "$tmp/named.jsonl"
"$bin" convert "$tmp/write_first.jsonl" "$tmp/write_first.h5" > /dev/null || fail convert
"$bin" convert "$tmp/named.jsonl" "$tmp/named.h5" > /dev/null || fail convert_named

for f in "$tmp"/*.jsonl "$tmp"/*.h5; do
  name=$(basename "$f")
  "$bin" verify -q "$f" > /dev/null 2> "$tmp/v.err"; vrc=$?
  if [ "$vrc" != 2 ] || ! grep -q "input error: $f: transaction [0-9]*, operation [0-9]*: key k*7 is" "$tmp/v.err"; then
    fail "$name: verify exit $vrc"; cat "$tmp/v.err"; continue
  fi
  for rule in "" "--rule time --level sser"; do
    # shellcheck disable=SC2086
    check "${name}_audit${rule:+_time}" 2 "$bin" audit -q --round 3 $rule "$f"
    if diff <(grep '^isocheck' "$tmp/v.err") <(grep '^isocheck' "$tmp/err" | grep -v '^isocheck audit:') > "$tmp/d"; then
      pass
    else
      fail "$name $rule: messages differ:"; cat "$tmp/d"
    fi
  done
done
# The same logs without the misuse (the register uses taken out) are audited.
grep -v '"append"' "$tmp/after_violation.jsonl" > "$tmp/violation.jsonl"
check violation_alone 1 "$bin" audit -q --round 3 "$tmp/violation.jsonl"
# A list-append log (lists only) and a register log (registers only): no misuse.
{ line 1 1 committed 1 2 '["append",7,1]'; line 2 2 committed 3 4 '["r",7,[1]],["append",7,2]'; } > "$tmp/lists.jsonl"
check lists_only 0 "$bin" audit -q --round 1 "$tmp/lists.jsonl"
summary

#!/bin/bash
# isocheck audit --write-fenced from the command line: JSONL and HDF5 in and
# out, the count it reports, the fence rule then applying to the output, and
# bad input or arguments as exit 2 with a message naming the problem.
#   bash tests/cli/audit_fenced_cli.sh <isocheck-binary> <source-dir>
set -u
BIN=$(readlink -f "$1")
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
fail_fast=1
T=$tmp

"$BIN" generate --workload rmw --txns 3000 --sessions 6 --seed 3 --out "$T/raw.jsonl" -q || fail generate
"$BIN" convert "$T/raw.jsonl" "$T/raw.h5" || fail convert
for in in raw.jsonl raw.h5; do
  for out in f.jsonl f.h5; do
    rm -f "$T/$out"
    "$BIN" audit "$T/$in" --write-fenced "$T/$out" --fence-every 10 2> "$T/err" || fail "$in -> $out: exit $?"
    # 3000 transactions of 6 sessions, a fence before each session's first and
    # then after every 10 of its transactions.
    grep -q "wrote $T/$out: [0-9]* transactions ([0-9]* fences)" "$T/err" || fail "$in -> $out: $(cat "$T/err")"
    fences=$(sed -n 's/.*(\([0-9]*\) fences).*/\1/p' "$T/err")
    [ "$fences" -ge 300 ] && [ "$fences" -le 306 ] || fail "$in -> $out: $fences fences"
    "$BIN" audit "$T/$out" --level ser,si,sser --rule fence --round 500 --json -q > "$T/a.json" || fail "audit $out: exit $?"
    grep -q '"rule":"fence"' "$T/a.json" || fail "audit $out: the fence rule did not apply"
  done
  # The same fenced log whatever the input format (compared as JSONL).
  "$BIN" convert "$T/f.h5" "$T/f2.jsonl" || fail convert back
  cmp -s "$T/f.jsonl" "$T/f2.jsonl" || fail "$in: JSONL and HDF5 outputs differ"
done

expect2() {  # expect2 WHAT PATTERN CMD...: exit 2 and PATTERN on stderr
  local what=$1 pat=$2; shift 2
  "$@" > /dev/null 2> "$T/err"; local rc=$?
  [ "$rc" = 2 ] || fail "$what: exit $rc, want 2"
  grep -q -- "$pat" "$T/err" || fail "$what: message: $(cat "$T/err")"
}
expect2 "output extension" "use a .jsonl or .h5" "$BIN" audit "$T/raw.jsonl" --write-fenced "$T/f.txt"
expect2 "--fence-every 0" "at least 1" "$BIN" audit "$T/raw.jsonl" --write-fenced "$T/g.jsonl" --fence-every 0
head -c 100 "$T/raw.jsonl" > "$T/bad.jsonl"
printf '\n' >> "$T/bad.jsonl"
expect2 "cut input" "bad.jsonl" "$BIN" audit "$T/bad.jsonl" --write-fenced "$T/g.jsonl"
echo "audit_fenced_cli: ok"

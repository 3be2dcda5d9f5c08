#!/bin/bash
# isocheck audit --write-fenced from the command line: JSONL and HDF5 in and
# out, the count it reports, the fence rule then applying to the output, and
# bad input or arguments as exit 2 with a message naming the problem.
#   bash tests/cli/audit_fenced_cli.sh <isocheck-binary> <source-dir>
set -u
BIN=$(readlink -f "$1")
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
fail_fast=1

"$BIN" generate --workload rmw --txns 3000 --sessions 6 --seed 3 --out "$tmp/raw.jsonl" -q || fail generate
"$BIN" convert "$tmp/raw.jsonl" "$tmp/raw.h5" || fail convert
for in in raw.jsonl raw.h5; do
  for out in f.jsonl f.h5; do
    rm -f "$tmp/$out"
    "$BIN" audit "$tmp/$in" --write-fenced "$tmp/$out" --fence-every 10 2> "$tmp/err" || fail "$in -> $out: exit $?"
    # 3000 transactions of 6 sessions, a fence before each session's first and
    # then after every 10 of its transactions.
    grep -q "wrote $tmp/$out: [0-9]* transactions ([0-9]* fences)" "$tmp/err" || fail "$in -> $out: $(cat "$tmp/err")"
    fences=$(sed -n 's/.*(\([0-9]*\) fences).*/\1/p' "$tmp/err")
    [ "$fences" -ge 300 ] && [ "$fences" -le 306 ] || fail "$in -> $out: $fences fences"
    "$BIN" audit "$tmp/$out" --level ser,si,sser --rule fence --round 500 --json -q > "$tmp/a.json" || fail "audit $out: exit $?"
    grep -q '"rule":"fence"' "$tmp/a.json" || fail "audit $out: the fence rule did not apply"
  done
  # The same fenced log whatever the input format (compared as JSONL).
  "$BIN" convert "$tmp/f.h5" "$tmp/f2.jsonl" || fail convert back
  cmp -s "$tmp/f.jsonl" "$tmp/f2.jsonl" || fail "$in: JSONL and HDF5 outputs differ"
done

# The hidden --debug-timing (docs/testing.md): stage times on stderr, the
# report unchanged (less its time line), nothing of it without the flag.
"$BIN" audit "$tmp/f.jsonl" --round 500 -q --debug-timing > "$tmp/dt.txt" 2> "$tmp/dt.err" || fail "--debug-timing: exit $?"
"$BIN" audit "$tmp/f.jsonl" --round 500 -q > "$tmp/nodt.txt" 2> "$tmp/nodt.err" || fail "audit: exit $?"
grep -q "^round 0: read .* s, forget .* s$" "$tmp/dt.err" || fail "--debug-timing: no round times: $(cat "$tmp/dt.err")"
grep -q "^forget phases (cumulative s):" "$tmp/dt.err" || fail "--debug-timing: no forget phases"
grep -q "^pass 1: .* s$" "$tmp/dt.err" || fail "--debug-timing: no pass 1 time"
[ -s "$tmp/nodt.err" ] && fail "without --debug-timing: stderr: $(cat "$tmp/nodt.err")"
cmp -s <(grep -v "^  time:" "$tmp/dt.txt") <(grep -v "^  time:" "$tmp/nodt.txt") || fail "--debug-timing changed the report"

expect2() {  # expect2 WHAT PATTERN CMD...: exit 2 and PATTERN on stderr
  local what=$1 pat=$2; shift 2
  "$@" > /dev/null 2> "$tmp/err"; local rc=$?
  [ "$rc" = 2 ] || fail "$what: exit $rc, want 2"
  grep -q -- "$pat" "$tmp/err" || fail "$what: message: $(cat "$tmp/err")"
}
expect2 "output extension" "use a .jsonl or .h5" "$BIN" audit "$tmp/raw.jsonl" --write-fenced "$tmp/f.txt"
expect2 "--fence-every 0" "at least 1" "$BIN" audit "$tmp/raw.jsonl" --write-fenced "$tmp/g.jsonl" --fence-every 0
head -c 100 "$tmp/raw.jsonl" > "$tmp/bad.jsonl"
printf '\n' >> "$tmp/bad.jsonl"
expect2 "cut input" "bad.jsonl" "$BIN" audit "$tmp/bad.jsonl" --write-fenced "$tmp/g.jsonl"
echo "audit_fenced_cli: ok"

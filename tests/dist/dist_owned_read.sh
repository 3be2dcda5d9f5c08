#!/usr/bin/env bash
# The read stage on owned data, at 4 ranks: JSONL is read in parallel by
# line-aligned byte ranges (each rank parses only the lines starting in its
# share of the bytes) with the file's line numbers and header, so that
#  - a valid history of many components gives the one-process report, and no
#    rank (rank 0 included) held more than ceil(ops/4)*1.2 + the largest piece;
#  - string keys and values (symbols numbered by first appearance in the
#    whole file, which the ranks work out together: mpi/range_names.h) give
#    the one-process report, no rank holding half the history, also when
#    integer keys come before the first string; a malformed line or a
#    repeated id in such a file gives the one-process message;
#  - a malformed line in another rank's range, the first of two malformed
#    lines read in different rounds, and a transaction id repeated across
#    ranges (JSONL and HDF5), give the one-process message and exit 2;
#  - the report of a violation is the one-process report, while no rank
#    (rank 0 included) held half the history;
#  - blank lines and the header line change nothing;
#  - pieces stolen by another rank (their data moved there) change nothing.
# usage: dist_owned_read.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
fail_fast=1
strip() { report_without "$1" stats seconds file; }

# same FILE: exit code and report of 4 ranks equal one process's.
same() {
  "$BIN" verify "$1" -q --json > "$tmp/one.json" 2> /dev/null; local rc1=$?
  $MPI "$BIN" verify "$1" -q --json --stage-times "$tmp/st.json" > "$tmp/four.json" 2> /dev/null; local rc4=$?
  [ "$rc1" = "$rc4" ] || fail "$1: exit $rc4 at 4 ranks, $rc1 on one process"
  [ "$(strip "$tmp/one.json")" = "$(strip "$tmp/four.json")" ] || fail "$1: report differs from one process"
}
# error FILE: exit 2 and the one-process message.
error() {
  "$BIN" verify "$1" -q > /dev/null 2> "$tmp/one.err"; local rc1=$?
  $MPI "$BIN" verify "$1" -q > /dev/null 2> "$tmp/four.err"; local rc4=$?
  [ "$rc1" = 2 ] && [ "$rc4" = 2 ] || fail "$1: exit $rc4 at 4 ranks, $rc1 on one process, want 2"
  local want; want=$(grep '^isocheck: ' "$tmp/one.err")
  grep -qxF -- "$want" "$tmp/four.err" || fail "$1: message differs: want '$want', got '$(cat "$tmp/four.err")'"
}

"$GEN" many "$tmp/many.jsonl" --components 40 --txns 20000 --sessions-per 3 > /dev/null || fail "dist_gen many"
same "$tmp/many.jsonl"
python3 - "$tmp/st.json" <<'PY' || fail "jsonl stage times: $(cat "$tmp/st.json")"
import json, sys
t = json.load(open(sys.argv[1]))
share = -(-t["ops"] // 4)
assert t["components"] == 40 and t["largest_piece_ops"] < share, t
assert all(x <= share * 1.2 + t["largest_piece_ops"] for x in t["ops_held"]), t
PY

"$GEN" many "$tmp/v.jsonl" --components 40 --txns 8000 --violate > /dev/null || fail "dist_gen violate"
same "$tmp/v.jsonl"
# The report of the violation is built from the transactions it names, read
# again by the ranks holding them: rank 0 never held the history either.
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert all(x < t["ops"] // 2 for x in t["ops_held"]), t' "$tmp/st.json" \
  || fail "a rank held half the violating history or more: $(cat "$tmp/st.json")"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$tmp/four.json")" = 1 ] || fail "planted lost update not found"
# Stolen pieces (test hook: steal before taking one's own; how many depends
# on the ranks' timing, at least one always): their data moves
# to the thief, the report is unchanged.
ISOCHECK_TEST_STEAL_FIRST=1 $MPI -x ISOCHECK_TEST_STEAL_FIRST "$BIN" verify "$tmp/v.jsonl" -q --json \
  --stage-times "$tmp/steal.json" > "$tmp/steal.out" 2> /dev/null
[ "$(strip "$tmp/one.json")" = "$(strip "$tmp/steal.out")" ] || fail "stolen pieces: report differs"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["stolen_pieces"] >= 1, t' "$tmp/steal.json" \
  || fail "no pieces stolen: $(cat "$tmp/steal.json")"

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
lines = open(d + "/v.jsonl").read().splitlines()
# String keys: every key named.
out = [lines[0]]
for l in lines[1:]:
    t = json.loads(l)
    for op in t["ops"]:
        op[1] = "key-" + str(op[1])
    out.append(json.dumps(t))
open(d + "/named.jsonl", "w").write("\n".join(out) + "\n")
# The earlier half of the keys (by first use) stay integers, the later half
# become strings, and so does every third value ("v6" for 6 everywhere): in
# both tables integers come before the first string, and move up one.
first = {}
for i, l in enumerate(lines[1:]):
    for op in json.loads(l)["ops"]:
        first.setdefault(op[1], len(first))
out = [lines[0]]
for l in lines[1:]:
    t = json.loads(l)
    for op in t["ops"]:
        if first[op[1]] >= len(first) // 2:
            op[1] = "key-" + str(op[1])
        if isinstance(op[2], int) and op[2] % 3 == 0:
            op[2] = "v" + str(op[2])
    out.append(json.dumps(t))
assert out[1].find('"key-') < 0 and any('"key-' in l for l in out), "not integers before strings"

open(d + "/mixed.jsonl", "w").write("\n".join(out) + "\n")
# Those with a malformed line, and with an id repeated, in a later rank's range.
bad = list(out)
bad[len(bad) * 3 // 4] = bad[len(bad) * 3 // 4][:-2]
open(d + "/mixed_bad.jsonl", "w").write("\n".join(bad) + "\n")
dup = list(out)
t = json.loads(dup[-100]); t["id"] = json.loads(dup[20])["id"]; dup[-100] = json.dumps(t)
open(d + "/mixed_dup.jsonl", "w").write("\n".join(dup) + "\n")
# String keys from the middle on (the third rank's first chunk names one, so
# the first pass stops there), a malformed line late in the second rank's
# range, in a chunk that pass did not reach, and another early in the fourth
# rank's, which it did: the second rank's, first in the file, is reported.
late = [lines[0]]
for i, l in enumerate(lines[1:]):
    t = json.loads(l)
    if i >= len(lines) // 2:
        for op in t["ops"]:
            op[1] = "key-" + str(op[1])
    late.append(json.dumps(t))
late[len(late) * 45 // 100] = late[len(late) * 45 // 100][:-2]
late[len(late) * 76 // 100] = late[len(late) * 76 // 100][:-2]
open(d + "/late_bad.jsonl", "w").write("\n".join(late) + "\n")
# Blank lines (and trailing spaces) here and there, and no header.
out = []
for i, l in enumerate(lines[1:]):
    out.append(l + ("  " if i % 7 == 0 else ""))
    if i % 500 == 3:
        out.append("")
open(d + "/blank.jsonl", "w").write("\n".join(out) + "\n")
# A malformed line three quarters in (another rank's range), after blank lines.
bad = list(lines)
bad.insert(50, "")
bad[len(bad) * 3 // 4] = bad[len(bad) * 3 // 4][:-2]
open(d + "/bad.jsonl", "w").write("\n".join(bad) + "\n")
# Two malformed lines: one early in the last rank's range, one late in the
# first rank's (read in a later round): the first in the file is reported.
two = list(lines)
n = len(two)
two[n * 7 // 8] = two[n * 7 // 8][:-1]
two[n // 5] = two[n // 5].replace('"ops"', '"opz"')
open(d + "/two.jsonl", "w").write("\n".join(two) + "\n")
# A transaction id repeated far from its first use.
dup = list(lines)
t = json.loads(dup[-100]); t["id"] = json.loads(dup[20])["id"]; dup[-100] = json.dumps(t)
open(d + "/dup.jsonl", "w").write("\n".join(dup) + "\n")
# A header of another format version, after a blank line.
open(d + "/version.jsonl", "w").write("\n" + '{"isocheck":2}' + "\n" + "\n".join(lines[1:]) + "\n")
PY
# (names: the ranks numbered them, and no rank held half the history)
names() {
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert "partition.names" in t["rank_steps"] and all(x < t["ops"] // 2 for x in t["ops_held"]), t' \
    "$tmp/st.json" || fail "$1: not numbered by the ranks, or a rank held half the history: $(cat "$tmp/st.json")"
}
same "$tmp/named.jsonl"
names named.jsonl
same "$tmp/mixed.jsonl"
names mixed.jsonl
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$tmp/four.json")" = 1 ] || fail "mixed: planted lost update not found"
error "$tmp/mixed_bad.jsonl"
error "$tmp/mixed_dup.jsonl"
error "$tmp/late_bad.jsonl"
same "$tmp/blank.jsonl"
error "$tmp/bad.jsonl"
error "$tmp/two.jsonl"
error "$tmp/dup.jsonl"
error "$tmp/version.jsonl"
"$GEN" many "$tmp/dup.h5" --components 40 --txns 8000 --dup-id 30:7000 > /dev/null || fail "dist_gen dup"
error "$tmp/dup.h5"
echo "dist_owned_read: ok"

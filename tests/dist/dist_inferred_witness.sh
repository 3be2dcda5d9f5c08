#!/usr/bin/env bash
# A violating piece whose witness cycle has an edge of a version order the
# general engine inferred (its `why` carries the inferred-order marker): the
# distributed driver maps the cycle back to the whole history (positions in
# the piece's projection -> positions in the history) and must give the
# one-process report, under --dist and mpiexec -n 2. The history splits into
# two blocks (an empty transaction in a session of its own).
# usage: dist_inferred_witness.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
fail_fast=1
strip() { sed -e 's/"stats":{[^}]*}//' "$1"; }  # stats are per piece (docs/dist.md)

cat > "$tmp/h.jsonl" <<'H'
{"id":5,"session":0,"status":"committed","ops":[["r","k2",6]]}
{"id":6,"session":0,"status":"committed","ops":[["w","k2",8]]}
{"id":8,"session":2,"status":"committed","ops":[["w","k2",6]]}
{"id":10,"session":1,"status":"committed","ops":[]}
{"id":12,"session":0,"status":"committed","ops":[["r","k2",6]]}
H
# A second shape: two blocks, the larger one (piece 0) valid, the second
# violating through an inferred write order of x (either order of T4's and
# T5's writes closes a cycle; the witness shows the one the engine inferred).
cat > "$tmp/g.jsonl" <<'H'
{"id":1,"session":1,"status":"committed","ops":[["w","a",1]]}
{"id":2,"session":1,"status":"committed","ops":[["r","a",1],["w","a",2],["r","a",2],["w","a",3],["r","a",3]]}
{"id":3,"session":2,"status":"committed","ops":[["r","x",6]]}
{"id":4,"session":2,"status":"committed","ops":[["w","x",8]]}
{"id":5,"session":3,"status":"committed","ops":[["w","x",6]]}
{"id":6,"session":2,"status":"committed","ops":[["r","x",6]]}
H
for f in h g; do
  "$BIN" verify "$tmp/$f.jsonl" -l ser,si --json -q > "$tmp/$f.one.json"; want=$?
  [ "$want" = 1 ] || fail "$f: one process exit $want, want 1 (a violation)"
  grep -q 'the checker inferred' "$tmp/$f.one.json" || fail "$f: the one-process witness has no inferred edge: $(cat "$tmp/$f.one.json")"
  "$BIN" verify "$tmp/$f.jsonl" -l ser,si > "$tmp/$f.one.txt"
  "$BIN" verify "$tmp/$f.jsonl" -l ser,si --dist --json -q > "$tmp/$f.d1.json"; rc=$?
  [ "$rc" = "$want" ] || fail "$f: --dist exit $rc, want $want"
  diff <(strip "$tmp/$f.one.json") <(strip "$tmp/$f.d1.json") || fail "$f: --dist report differs from one process"
  "$BIN" verify "$tmp/$f.jsonl" -l ser,si --dist > "$tmp/$f.d1.txt"
  # (the ranks say which blocks they skipped after the violation: h's second
  # block, one empty transaction, is not checked)
  diff "$tmp/$f.one.txt" <(grep -v '^not checked: ' "$tmp/$f.d1.txt") || fail "$f: --dist text differs from one process"
  mpiexec --oversubscribe -n 2 "$BIN" verify "$tmp/$f.jsonl" -l ser,si --json -q > "$tmp/$f.d2.json"; rc=$?
  [ "$rc" = "$want" ] || fail "$f: mpiexec -n 2 exit $rc, want $want"
  diff <(strip "$tmp/$f.one.json") <(strip "$tmp/$f.d2.json") || fail "$f: mpiexec -n 2 report differs from one process"
done
echo "dist_inferred_witness: ok"

#!/usr/bin/env bash
# JSONL -> HDF5 -> JSONL through `isocheck convert` is lossless, and the HDF5
# file is plain HDF5 that h5dump reads (layout: docs/hdf5-format.md).
# Usage: hdf5_h5dump.sh <isocheck-binary> <source-dir>
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Canonical JSONL (as `convert` writes it): integer and string keys and values,
# 1 vs "1", list reads, null reads, missing times, every status, unicode.
cat > "$tmp/in.jsonl" <<'JSONL'
{"isocheck":1,"time_unit":"ns"}
{"id":1,"session":0,"status":"committed","begin":10,"end":20,"ops":[["r",1,null],["w",1,5],["w","x","a"]]}
{"id":2,"session":7,"status":"aborted","ops":[["w","1","5"],["append","l",5],["append","l","b"]]}
{"id":3,"session":0,"status":"unknown","begin":30,"end":30,"ops":[]}
{"id":-4,"session":4000000000,"status":"committed","ops":[["r","l",[5,"b"]],["r","x","a"],["r",1,5],["r","ü\n",null]]}
JSONL

"$bin" convert "$tmp/in.jsonl" "$tmp/out.h5"
"$bin" convert "$tmp/out.h5" "$tmp/back.jsonl"
if ! cmp -s "$tmp/in.jsonl" "$tmp/back.jsonl"; then
  echo "FAIL: JSONL -> HDF5 -> JSONL changed the history" >&2
  diff "$tmp/in.jsonl" "$tmp/back.jsonl" >&2 || true
  exit 1
fi

if ! command -v h5dump > /dev/null; then
  echo "h5dump not installed: round trip checked, h5dump part skipped"
  exit 0
fi
h5dump -H "$tmp/out.h5" > "$tmp/header.txt"  # fails on anything it cannot parse
for ds in /txn/id /txn/session /txn/status /txn/begin /txn/end /txn/op_offset \
          /op/kind /op/key /op/value /op/list_offset /list/value \
          /key_names /key_name_is_int /value_names /value_name_is_int; do
  name=${ds##*/}
  grep -q "DATASET \"$name\"" "$tmp/header.txt" || { echo "FAIL: h5dump shows no $ds" >&2; exit 1; }
done
# (Output is captured first: grep -q closing a pipe early would trip pipefail.)
expect() {  # expect WHAT PATTERN h5dump-args...
  local what=$1 pattern=$2; shift 2
  local out
  out=$(h5dump "$@" "$tmp/out.h5")
  grep -qF -- "$pattern" <<< "$out" || { echo "FAIL: $what: no \"$pattern\" in:" >&2; echo "$out" >&2; exit 1; }
}
expect format_version "(0): 1" -a /format_version
expect time_unit '"ns"' -a /time_unit
# The columns hold what the JSONL said.
expect /txn/id "1, 2, 3, -4" -d /txn/id -y -w 0
expect /txn/session "0, 7, 0, 4000000000" -d /txn/session -y -w 0
expect /txn/op_offset "0, 3, 6, 6, 10" -d /txn/op_offset -y -w 0
expect /txn/begin "10, -9223372036854775808, 30, -9223372036854775808" -d /txn/begin -y -w 0
expect /key_names '"x"' -d /key_names
expect filters "DEFLATE" -p -d /op/key
echo "ok"

#!/usr/bin/env bash
# The smallest 64-bit integer stands for "no time" inside a history (and in the
# HDF5 columns). As a JSONL begin or end it is refused with exit 2 and a
# message naming the file, line and field — by every command that reads
# JSONL — never taken as "no time". One above it is a time like any other.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

min=-9223372036854775808
reader='{"id":2,"session":2,"status":"committed","begin":0,"end":0,"ops":[["r","x",null]]}'
# name, begin, end, the field named in the message
while read -r name b e field; do
  printf '%s\n%s\n' "{\"id\":1,\"session\":1,\"status\":\"committed\",\"begin\":$b,\"end\":$e,\"ops\":[[\"w\",\"x\",1]]}" \
    "$reader" > "$tmp/$name.jsonl"
  for cmd in "verify --level sser" "verify --level ser,si,sser --time-order" "info" "audit -q --level sser --round 1" \
             "convert"; do
    out=""
    [ "$cmd" = convert ] && out="$tmp/$name.h5"
    check "$name $cmd" 2 "$bin" $cmd "$tmp/$name.jsonl" $out
    no_verdict "$name $cmd"
    expect_err "$name $cmd" "$name\.jsonl:1: \"$field\" is -9223372036854775808, the smallest 64-bit integer, which isocheck reserves for \"no time\""
  done
  [ ! -e "$tmp/$name.h5" ] && pass || { fail "$name: convert wrote an output"; }
done <<LIST
both $min $min begin
end-5 $min 5 begin
end-only 0 $min end
LIST

# One above the marker is a time: T1 ended before T2 began, and T2 read the
# initial state — a stale read for SSER, kept through HDF5 and back.
lowest=-9223372036854775807
printf '%s\n%s\n' "{\"id\":1,\"session\":1,\"status\":\"committed\",\"begin\":$lowest,\"end\":$lowest,\"ops\":[[\"w\",\"x\",1]]}" \
  "$reader" > "$tmp/lowest.jsonl"
check "lowest sser" 1 "$bin" verify "$tmp/lowest.jsonl" --level sser
expect_out "lowest sser" "strict-serializable: VIOLATED: G-single-realtime \(stale read\)"
check "lowest ser" 0 "$bin" verify -q "$tmp/lowest.jsonl" --level ser
check "lowest to hdf5" 0 "$bin" convert "$tmp/lowest.jsonl" "$tmp/lowest.h5"
check "lowest hdf5 sser" 1 "$bin" verify -q "$tmp/lowest.h5" --level sser
check "lowest back" 0 "$bin" convert "$tmp/lowest.h5" "$tmp/back.jsonl"
grep -q "\"begin\":$lowest,\"end\":$lowest" "$tmp/back.jsonl" && pass \
  || { fail "lowest back: times lost"; cat "$tmp/back.jsonl"; }
check "lowest audit" 1 "$bin" audit -q "$tmp/lowest.jsonl" --level sser --round 1

# Transactions without times stay without them through HDF5 (the column's
# marker) and back.
printf '%s\n%s\n' '{"id":1,"session":1,"status":"committed","ops":[["w","x",1]]}' "$reader" > "$tmp/untimed.jsonl"
check "untimed to hdf5" 0 "$bin" convert "$tmp/untimed.jsonl" "$tmp/untimed.h5"
check "untimed back" 0 "$bin" convert "$tmp/untimed.h5" "$tmp/untimed-back.jsonl"
head -1 "$tmp/untimed-back.jsonl" | grep -q '"begin"' && { fail "untimed back: times appeared"; } || pass
check "untimed sser" 0 "$bin" verify -q "$tmp/untimed.h5" --level sser

summary

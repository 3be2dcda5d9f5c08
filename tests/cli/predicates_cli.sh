#!/usr/bin/env bash
# Range scans, inserts and deletes through the CLI: malformed scans exit 2
# naming file, line and operation; an absence placed by the engine, and one
# that cannot be placed (exit 3, "not decided"); convert writes the expanded
# history, which keeps the verdicts; audit decides them as verify does
# (tests/cli/audit_predicates_cli.sh) except open absences, which it refuses;
# the distributed driver reads them on one rank.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
check_messages=1
hdr='{"isocheck":1}'
t() { printf '{"id":%s,"session":%s,"status":"committed","ops":[%s]}\n' "$1" "$2" "$3"; }

{ echo "$hdr"; t 1 1 '["w",1,1]'; t 2 1 '["scan",3,1,[]]'; } > "$tmp/lohi.jsonl"
check lo_above_hi 2 "$bin" verify "$tmp/lohi.jsonl"
expect_one_err lo_above_hi_msg "lohi.jsonl:3: operation 0: the scan's lo 3 is above its hi 1"

{ echo "$hdr"; t 1 1 '["scan",1,5,[[2,1],[9,1]]]'; } > "$tmp/outside.jsonl"
check outside 2 "$bin" verify "$tmp/outside.jsonl"
expect_one_err outside_msg "outside.jsonl:2: operation 0: row 1: key 9 is outside the scanned range \[1, 5\]"

{ echo "$hdr"; t 1 1 '["scan",1,5,[[3,1],[2,1]]]'; } > "$tmp/unsorted.jsonl"
check unsorted 2 "$bin" verify "$tmp/unsorted.jsonl"
expect_one_err unsorted_msg "unsorted.jsonl:2: .*comes after a larger key"

# A scan that saw absent a row another transaction deleted saw the initial
# state or the tombstone: placed by the engine where the row's version order is
# known, not decided (exit 3) where a blind write or a blind delete hides it.
{ echo "$hdr"; t 1 1 '["w",4,1]'; t 2 1 '["delete",4,2]'; t 3 2 '["scan",1,9,[]]'; } > "$tmp/absent.jsonl"
# (The replay settles it in file order: the scan's absence is T2's tombstone.)
check absent_replayed 0 "$bin" verify "$tmp/absent.jsonl"
check absent_not_decided 3 "$bin" verify --no-serial-witness "$tmp/absent.jsonl"
expect_one_err absent_msg "not decided: transaction 3, operation 0: a range scan saw key 4 absent, .*version order is not known"
{ echo "$hdr"; t 1 1 '["insert",4,1]'; t 2 2 '["r",4,1],["delete",4,2]'; t 3 1 '["scan",1,9,[]]'; } > "$tmp/placed.jsonl"
check absent_placed 0 "$bin" verify --level ser,si,sser "$tmp/placed.jsonl"
check absent_placed_engine 0 "$bin" verify --level ser,si,sser --no-serial-witness --no-si-replay "$tmp/placed.jsonl"
check absent_phantom 1 "$bin" verify --level ser,si,sser "$src/examples/phantom_after_delete.jsonl"
expect_out absent_phantom_named "serializable: VIOLATED: G-single-process \(phantom\)"
expect_out absent_phantom_seen "T2's range scan saw job-1 absent \(the initial state or a deleted version\)"
expect_out absent_phantom_other "T2's range scan saw job-1 absent after T3's delete of it \(tombstone \"job-1 done\"\)"
expect_out absent_phantom_core "whether T2's range scan, which saw job-1 absent, ran before T1 made it present or after it was deleted again"
# HDF5 keeps the open absence (mark 4 in /op/scan): the same report.
check absent_h5 0 "$bin" convert "$src/examples/phantom_after_delete.jsonl" "$tmp/pad.h5"
"$bin" verify --level ser,si,sser "$src/examples/phantom_after_delete.jsonl" | sed 1d > "$tmp/pad_one.txt"
check absent_h5_verify 1 "$bin" verify --level ser,si,sser "$tmp/pad.h5"
sed -i 1d "$tmp/out"
same absent_h5_report "$tmp/out" "$tmp/pad_one.txt"
check absent_info 0 "$bin" info "$tmp/pad.h5"
expect_out absent_info_counts "range scans: +2 reads \(0 of rows returned, 2 of keys seen absent, 1 of them open: a deleted key, the initial state or a tombstone\), 1 deletes"
# The distributed driver carries the open absences to the pieces (mark 4 in
# the records and the collectives), which place them as one process does: the
# same report (tests/dist/scan_marks.sh on many ranks); the key shards refuse
# them and say so, and the usual path decides.
"$bin" verify --level ser,si,sser -q "$src/examples/phantom_after_delete.jsonl" > "$tmp/pad_q.txt"
check absent_dist 1 "$bin" verify --dist --level ser,si,sser -q "$src/examples/phantom_after_delete.jsonl"
same absent_dist_report "$tmp/out" "$tmp/pad_q.txt"
"$bin" verify --level ser,si,sser -q "$tmp/pad.h5" > "$tmp/pad_q_h5.txt"
check absent_dist_h5 1 "$bin" verify --dist --level ser,si,sser -q "$tmp/pad.h5"
same absent_dist_h5_report "$tmp/out" "$tmp/pad_q_h5.txt"
check absent_key_shards 1 "$bin" verify --key-shards --level ser,si,sser "$tmp/pad.h5"
expect_err absent_key_shards_note "key shards not used: range scans that saw absent a row another transaction deletes"

check phantom 1 "$bin" verify --level ser,si "$src/examples/phantom.jsonl"
expect_out phantom_named "serializable: VIOLATED: G-single \(phantom\)"
expect_out phantom_words "T2's range scan saw key 5 absent \(the initial state\)"

check skew 1 "$bin" verify --level ser,si "$src/examples/predicate_write_skew.jsonl"
expect_out skew_named "serializable: VIOLATED: G2-item \(predicate write skew\)"
expect_out skew_si "snapshot-isolation: holds"

for ext in jsonl h5; do
  check "convert_$ext" 0 "$bin" convert "$src/examples/predicate_write_skew.jsonl" "$tmp/conv.$ext"
  check "converted_$ext" 1 "$bin" verify --level ser,si "$tmp/conv.$ext"
  expect_out "converted_${ext}_si" "snapshot-isolation: holds"
done

check_messages=0
check audit_decides 1 "$bin" audit -q --round 1 "$src/examples/phantom.jsonl"
expect_out audit_named "serializable: VIOLATED \\(round [0-9]+, G-single \\(phantom\\)\\)"
# The distributed driver reads such a file on one rank (expanded whole) and
# scatters it: the one-process report (tests/dist/scan_marks.sh on many ranks).
"$bin" verify -q "$src/examples/phantom.jsonl" > "$tmp/one.txt"
check dist_decides 1 "$bin" verify --dist -q "$src/examples/phantom.jsonl"
same dist_report "$tmp/out" "$tmp/one.txt"
# Deletes are worded as deletes (the write of a tombstone underneath), from
# JSONL and from its HDF5 conversion (mark 3 in /op/scan).
check skew_words 1 "$bin" verify -q "$src/examples/predicate_write_skew.jsonl"
expect_out skew_delete_words "T3's delete of bob \(tombstone \"bob off\"\) is a later version of bob"
check skew_h5 0 "$bin" convert "$src/examples/predicate_write_skew.jsonl" "$tmp/skew.h5"
check skew_h5_words 1 "$bin" verify -q "$tmp/skew.h5"
expect_out skew_h5_delete_words "T3's delete of bob \(tombstone \"bob off\"\)"
# The predicate lost update: both transactions saw the row absent in a scan
# and both inserted it; the anomaly says so.
check plu_generate 0 "$bin" generate --workload rows --txns 200 --plant predicate-lost-update --out "$tmp/plu.jsonl"
check plu 1 "$bin" verify --level ser "$tmp/plu.jsonl"
expect_out plu_words "both saw key [0-9]+ absent in a range scan \(the initial state\) and both wrote key [0-9]+: one update is lost \(a predicate lost update\)"
summary

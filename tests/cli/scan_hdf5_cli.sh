#!/usr/bin/env bash
# A JSONL history with range scans converted to HDF5 keeps which reads stand
# for a scan (/op/scan): `verify` of the .h5 prints the report of the .jsonl
# word for word, naming the planted phantom a phantom (not, as before the
# marks were kept, a fractured read).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

check generate 0 "$bin" generate -q --workload rmw --txns 3000 --seed 5 --plant phantom --scans 20 --out "$tmp/p.jsonl"
check verify_jsonl 1 "$bin" verify --level ser,si "$tmp/p.jsonl"
expect_out jsonl_phantom "serializable: VIOLATED: G-single \(phantom\)"
sed "s#$tmp/p.jsonl#FILE#g; s#p.jsonl#FILE#g" "$tmp/out" > "$tmp/report_jsonl"

check convert 0 "$bin" convert "$tmp/p.jsonl" "$tmp/p.h5"
check verify_h5 1 "$bin" verify --level ser,si "$tmp/p.h5"
expect_out h5_phantom "serializable: VIOLATED: G-single \(phantom\)"
if grep -q "fractured read" "$tmp/out"; then fail "h5_no_fractured_read: the phantom is named a fractured read"; else pass; fi
sed "s#$tmp/p.h5#FILE#g; s#p.h5#FILE#g" "$tmp/out" > "$tmp/report_h5"
same same_report "$tmp/report_h5" "$tmp/report_jsonl"

# The example phantom, converted: the scan words of its report survive.
check convert_example 0 "$bin" convert "$src/examples/phantom.jsonl" "$tmp/ex.h5"
check verify_example 1 "$bin" verify --level ser,si "$tmp/ex.h5"
expect_out example_words "T2's range scan saw key 5 absent \(the initial state\)"
# HDF5 to HDF5 keeps them too.
check convert_h5_h5 0 "$bin" convert "$tmp/ex.h5" "$tmp/ex2.h5"
check verify_h5_h5 1 "$bin" verify --level ser "$tmp/ex2.h5"
expect_out h5_h5_phantom "serializable: VIOLATED: G-single \(phantom\)"
# A scan with a value predicate whose range holds no key that changes reads
# nothing: its predicate stands for no operation. Regression: convert wrote
# /op/predicate without /op/scan for it, and every reader refused the file.
{ printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["r",3,null],["r",2,null]]}' \
    '{"id":2,"session":2,"status":"committed","ops":[["scan",4,6,[],["<",1]]]}'; } > "$tmp/idle.jsonl"
check convert_idle_predicate 0 "$bin" convert "$tmp/idle.jsonl" "$tmp/idle.h5"
check verify_idle_predicate 0 "$bin" verify -q --level all "$tmp/idle.h5"
check audit_idle_predicate 0 "$bin" audit -q --round 1 "$tmp/idle.h5"
# ... and beside it a scan whose predicate does stand for a read (key 5 was
# 1 or absent, neither > 1): the table keeps both, the read names its own.
{ cat "$tmp/idle.jsonl"
  printf '%s\n' '{"id":3,"session":1,"status":"committed","ops":[["r",5,null],["w",5,1]]}' \
    '{"id":5,"session":1,"status":"committed","ops":[["r",5,1],["w",5,3]]}' \
    '{"id":4,"session":3,"status":"committed","ops":[["scan",5,5,[],[">",1]]]}'; } > "$tmp/two_preds.jsonl"
check convert_two_predicates 0 "$bin" convert "$tmp/two_preds.jsonl" "$tmp/two_preds.h5"
check two_predicates_kept 0 h5dump -d /predicate/cmp "$tmp/two_preds.h5"
expect_out two_predicates_table "\(0\): [0-9], [0-9]"
check verify_two_predicates_jsonl 0 "$bin" verify --level ser,si "$tmp/two_preds.jsonl"
sed "s#$tmp/two_preds.jsonl#FILE#g" "$tmp/out" > "$tmp/two_jsonl"
check verify_two_predicates_h5 0 "$bin" verify --level ser,si "$tmp/two_preds.h5"
sed "s#$tmp/two_preds.h5#FILE#g" "$tmp/out" > "$tmp/two_h5"
same two_predicates_same_report "$tmp/two_h5" "$tmp/two_jsonl"
summary

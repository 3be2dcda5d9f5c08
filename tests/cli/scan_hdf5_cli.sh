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
summary

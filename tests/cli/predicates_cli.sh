#!/usr/bin/env bash
# Range scans, inserts and deletes through the CLI: malformed scans exit 2
# naming file, line and operation; an absence placed by the engine, and one
# that cannot be placed (exit 3, "not decided"); convert writes the expanded
# history, which keeps the verdicts; audit decides them as verify does
# (tests/cli/audit_predicates_cli.sh) except open absences, which it refuses;
# the distributed driver reads them on one rank and carries them (value
# predicates too) with the operations.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
check_messages=1
hdr='{"isocheck":1}'
t() { printf '{"id":%s,"session":%s,"status":"committed","ops":[%s]}\n' "$1" "$2" "$3"; }
# same_as_h5 NAME JSONL H5 WANT: converted to H5, the file is reported as the
# JSONL (exit WANT at SER, SI, SSER; the first line names the file).
same_as_h5() {
  local name=$1 jsonl=$2 h5=$3 want=$4
  check "${name}_h5" 0 "$bin" convert "$jsonl" "$h5"
  "$bin" verify --level ser,si,sser "$jsonl" | sed 1d > "$tmp/${name}_one.txt"
  check "${name}_h5_verify" "$want" "$bin" verify --level ser,si,sser "$h5"
  sed -i 1d "$tmp/out"
  same "${name}_h5_report" "$tmp/out" "$tmp/${name}_one.txt"
}

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
# known, decided by cases where a blind write or a blind delete hides it (each
# absent version tried; past --open-read-cases: not decided, exit 3).
{ echo "$hdr"; t 1 1 '["w",4,1]'; t 2 1 '["delete",4,2]'; t 3 2 '["scan",1,9,[]]'; } > "$tmp/absent.jsonl"
# (The replay settles it in file order: the scan's absence is T2's tombstone.)
check absent_replayed 0 "$bin" verify "$tmp/absent.jsonl"
check absent_by_cases 0 "$bin" verify --level all --no-serial-witness "$tmp/absent.jsonl"
expect_out absent_by_cases_line "open reads decided by cases: [0-9]+ checks"
check absent_cases_capped 3 "$bin" verify --no-serial-witness --open-read-cases 1 "$tmp/absent.jsonl"
expect_one_err absent_capped_msg "not decided: the open reads .* need more than 1 checks by cases: raise --open-read-cases \(not decided: transaction 3, operation 0: a range scan saw key 4 absent, .*version order is not known"
check absent_cases_zero 2 "$bin" verify --open-read-cases 0 "$tmp/absent.jsonl"
expect_one_err absent_cases_zero_msg "--open-read-cases must be at least 1"
check absent_cases_negative 2 "$bin" verify --open-read-cases -1 "$tmp/absent.jsonl"
expect_one_err absent_cases_negative_msg "--open-read-cases must be at least 1"
{ echo "$hdr"; t 1 1 '["insert",4,1]'; t 2 2 '["r",4,1],["delete",4,2]'; t 3 1 '["scan",1,9,[]]'; } > "$tmp/placed.jsonl"
check absent_placed 0 "$bin" verify --level ser,si,sser "$tmp/placed.jsonl"
check absent_placed_engine 0 "$bin" verify --level ser,si,sser --no-serial-witness --no-si-replay "$tmp/placed.jsonl"
check absent_phantom 1 "$bin" verify --level ser,si,sser "$src/examples/phantom_after_delete.jsonl"
expect_out absent_phantom_named "serializable: VIOLATED: G-single-process \(phantom\)"
expect_out absent_phantom_seen "T2's range scan saw job-1 absent \(the initial state or a deleted version\)"
expect_out absent_phantom_other "T2's range scan saw job-1 absent after T3's delete of it \(tombstone \"job-1 done\"\)"
expect_out absent_phantom_core "whether T2's range scan, which saw job-1 absent, ran before T1 made it present or after it was deleted again"
# HDF5 keeps the open absence (mark 4 in /op/scan): the same report.
same_as_h5 absent "$src/examples/phantom_after_delete.jsonl" "$tmp/pad.h5" 1
check absent_info 0 "$bin" info "$tmp/pad.h5"
expect_out absent_info_counts "range scans: +2 reads \(0 of rows returned, 2 of keys seen absent, 1 of them open: a deleted key, the initial state or a tombstone\), 1 deletes"
# An insert of a key another transaction deletes: the absence it required is
# open too (the initial one or the tombstone), decided by cases and worded as
# an insert; HDF5 keeps it (mark 6), info counts it.
{ echo '{"id":0,"session":0,"status":"committed","ops":[["insert","k",1]]}'
  echo '{"id":1,"session":1,"status":"committed","ops":[["r","k",1],["delete","k",2]]}'
  echo '{"id":2,"session":2,"status":"committed","ops":[["insert","k",3],["w","x",1]]}'
  echo '{"id":3,"session":3,"status":"committed","ops":[["r","x",1],["r","k",1]]}'; } > "$tmp/insert_open.jsonl"
check insert_open 1 "$bin" verify --level ser,rc "$tmp/insert_open.jsonl"
expect_out insert_open_case "transaction 2 inserted k, so it saw one of k's versions that are absent \(its initial absence or transaction 1's delete \(tombstone 2\)\); with either SER is violated"
expect_out insert_open_rc "read-committed: holds"
same_as_h5 insert_open "$tmp/insert_open.jsonl" "$tmp/insert_open.h5" 1
check insert_open_info 0 "$bin" info "$tmp/insert_open.h5"
expect_out insert_open_info_line "inserts: +2 of a key another transaction deletes \(open: the initial state or a tombstone\)"
check insert_open_to_jsonl 2 "$bin" convert "$tmp/insert_open.h5" "$tmp/insert_open_back.jsonl"
expect_err insert_open_to_jsonl_msg "inserts required absent a row another transaction deletes"
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
expect_err absent_key_shards_note "key shards not used: range scans that saw absent, or inserts that required absent, a row another transaction deletes"

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

# Value predicates (["scan", lo, hi, rows, ["<", c]]): a returned row must
# satisfy it (exit 2); a key not returned saw a version that does not match,
# placed by the engine among them where the key's order is known
# (examples/value_predicate_phantom.jsonl), decided by cases where blind
# writes hide it (Vbox's Figure 1: violated from RA up, RC holds); the paths
# that cannot carry them refuse.
# The example: T4's scan (v < 0) after T2 overdrew acct-a (through T3, whose
# write T4 read) did not return it: a phantom. With T5's deposit (acct-a back
# to 10) after T4 in T4's session, T4 saw 100 (before T2) or 10 (after T5),
# and either place closes a cycle: the engine's choice and the other place.
check vp_example 1 "$bin" verify --level ser,si,sser "$src/examples/value_predicate_phantom.jsonl"
expect_out vp_example_named "serializable: VIOLATED: G-single-process \(phantom\)"
vpp="$tmp/vp.jsonl"
{ cat "$src/examples/value_predicate_phantom.jsonl"; t 5 3 '["r","acct-a",-20],["w","acct-a",10]'; } > "$vpp"
check vp_phantom 1 "$bin" verify --level ser,si,sser "$vpp"
expect_out vp_words "T4's range scan \(v < 0\) did not return acct-a \(it saw a version that does not match: absent, deleted, or another value\), but T2's write acct-a=-20 is a later version of acct-a: T4 did not see the version that made the row match \(anti-dependency: a phantom\)"
expect_out vp_other_place "T4's range scan \(v < 0\) did not return acct-a: it saw T5's version acct-a=10, which does not match"
expect_out vp_si "snapshot-isolation: VIOLATED: G-single-process \(phantom\)"
check vp_engine 1 "$bin" verify --level ser --no-serial-witness --no-si-replay "$vpp"
expect_out vp_engine_constraint "general engine: .* 1 constraints"
# Without T5's deposit after the scan (T5 in another session), the scan may
# have run after it: holds.
{ cat "$src/examples/value_predicate_phantom.jsonl"; t 5 4 '["r","acct-a",-20],["w","acct-a",10]'; } > "$tmp/vp_holds.jsonl"
check vp_holds 0 "$bin" verify --level ser,si,sser "$tmp/vp_holds.jsonl"
check vp_info 0 "$bin" info "$vpp"
expect_out vp_info_line "value predicates: 1 scans with one; 1 reads of keys they did not return \(1 of them open"
{ echo "$hdr"; t 1 1 '["w",3,7]'; t 2 2 '["scan",1,5,[[3,7]],[">",7]]'; } > "$tmp/vp_row.jsonl"
check vp_row 2 "$bin" verify "$tmp/vp_row.jsonl"
expect_one_err vp_row_msg "vp_row.jsonl: transaction 2, operation 0: the scan returns row 3 = 7, which does not satisfy its predicate v > 7"
{ echo "$hdr"; t 1 1 '["w",3,7]'; t 2 2 '["scan",1,5,[[3,7]],["~",7]]'; } > "$tmp/vp_op.jsonl"
check vp_op 2 "$bin" verify "$tmp/vp_op.jsonl"
expect_one_err vp_op_msg "vp_op.jsonl:3: operation 0: unknown predicate operator \"~\""
{ echo "$hdr"; t 0 0 '["insert","x",0],["insert","y",0]'; t 1 1 '["w","x",1],["w","y",1]'; t 2 2 '["w","x",2],["w","y",2]'
  t 3 3 '["scan","x","y",[["x",1]],["=",1]]'; } > "$tmp/vbox1.jsonl"
check vbox_figure_1 1 "$bin" verify --level all "$tmp/vbox1.jsonl"
expect_out vbox_figure_1_lattice "lattice: RU=holds RC=holds RA=VIOLATED CC=VIOLATED PC=VIOLATED SI=VIOLATED SER=VIOLATED SSER=VIOLATED"
expect_out vbox_figure_1_ser "serializable: VIOLATED: G-single \(phantom\)"
expect_out vbox_figure_1_cases "transaction 3's range scan \(v = 1\) did not return y, so it saw one of y's versions that do not match \(its initial absence, 0 \(transaction 0\) or 2 \(transaction 2\)\); with each of them SER is violated"
check vbox_figure_1_json 1 "$bin" verify --level ser --json "$tmp/vbox1.jsonl"
expect_out vbox_figure_1_json_stats '"open_read_checks":4'
expect_out vbox_figure_1_json_rules '"rules_out":\["serializable","strict-serializable"\]'
# With y's version order known (t1 and t2 read the rows first), the engine
# places the read: no cases.
{ echo "$hdr"; t 0 0 '["insert","x",0],["insert","y",0]'; t 1 1 '["r","x",0],["w","x",1],["r","y",0],["w","y",1]'
  t 2 2 '["r","x",1],["w","x",2],["r","y",1],["w","y",2]'; t 3 3 '["scan","x","y",[["x",1]],["=",1]]'; } > "$tmp/vbox1k.jsonl"
check vbox_figure_1_known 1 "$bin" verify --level ser "$tmp/vbox1k.jsonl"
lacks vbox_figure_1_known_no_cases "$tmp/out" "open reads decided by cases"
# HDF5 keeps them (/op/predicate and /predicate/{cmp,a,b}): the same report,
# on the ranks too (they used to refuse such a file, exit 3).
same_as_h5 vp "$vpp" "$tmp/vp.h5" 1
check vp_h5_info 0 "$bin" info "$tmp/vp.h5"
expect_out vp_h5_info_line "value predicates: 1 scans with one; 1 reads of keys they did not return \(1 of them open"
check vp_h5_one 1 "$bin" verify --level ser "$tmp/vp.h5"
cp "$tmp/out" "$tmp/vp_h5_one.txt"
check vp_h5_dist 1 "$bin" verify --dist --level ser "$tmp/vp.h5"
same vp_h5_dist_report "$tmp/vp_h5_one.txt" "$tmp/out"
check vp_h5_dist_key_shards 1 "$bin" verify --dist --key-shards --level ser "$tmp/vp.h5"
same vp_h5_dist_key_shards_report "$tmp/vp_h5_one.txt" "$tmp/out"
check vp_to_jsonl 2 "$bin" convert "$vpp" "$tmp/vp_out.jsonl"
expect_one_err vp_to_jsonl_msg "JSONL's point reads cannot state that"
# (An open absence too: its read would become one of the initial state.)
check pad_to_jsonl 2 "$bin" convert "$src/examples/phantom_after_delete.jsonl" "$tmp/pad_out.jsonl"
# The ranks carry JSONL's value predicates with the operations (read on one
# rank, scattered, in the pieces' records): one process's report. (They
# used to refuse such a file, exit 3.)
check vp_one 1 "$bin" verify --level ser,si "$vpp"
cp "$tmp/out" "$tmp/vp_one.txt"
check vp_dist 1 "$bin" verify --dist --level ser,si "$vpp"
same vp_dist_report "$tmp/vp_one.txt" "$tmp/out"
check vp_dist_key_shards 1 "$bin" verify --dist --key-shards --level ser,si "$vpp"
same vp_dist_key_shards_report "$tmp/vp_one.txt" "$tmp/out"
check vp_audit 3 "$bin" audit -q --round 2 "$vpp"
expect_one_err vp_audit_msg "a range scan with a value predicate; the audit's rounds do not decide those"

# Scans of a declared key set (["scan", [k, ...], rows]): T5's scan of {b, c}
# after T4 inserted b in its session misses b, a phantom; the audit (its
# facts gathered over the set's covering range) says what verify says.
{ echo "$hdr"; t 1 1 '["insert","a",1],["insert","c",1]'; t 2 2 '["r","c",1],["w","c",2]'
  t 3 1 '["scan",["c","a","z"],[["a",1],["c",1]]]'; t 4 3 '["scan",["b","z"],[]],["insert","b",2]'
  t 5 3 '["scan",["b","c"],[["c",2]]]'; } > "$tmp/keyset.jsonl"
check keyset 1 "$bin" verify -q "$tmp/keyset.jsonl"
expect_out keyset_words "T5's range scan saw b absent \(the initial state\), but T4's write b=2 is a later version of b"
check keyset_audit 1 "$bin" audit -q --round 2 "$tmp/keyset.jsonl"
expect_out keyset_audit_named "serializable: VIOLATED \(round 2, G-single-process \(phantom\)\)"
{ echo "$hdr"; t 1 1 '["scan",["b","c"],[["a",1]]]'; } > "$tmp/keyset_bad.jsonl"
check keyset_row_outside 2 "$bin" verify "$tmp/keyset_bad.jsonl"
expect_one_err keyset_row_outside_msg "keyset_bad.jsonl:2: operation 0: row 0: key a is not in the scan's key set"

check_messages=0
# The weak levels' engines resolve every read to one version: the open read
# is decided by cases. T4 saw acct-a's initial absence (but it read T3's
# acct-b, after T1 inserted both), 100 (T1) or 10 (T5, after T4 in its
# session): read atomic allows the first, causal none.
check vp_weak 1 "$bin" verify --level rc,ra,cc "$vpp"
expect_out vp_weak_lattice "lattice: RC=holds RA=holds CC=VIOLATED"
expect_out vp_weak_cases "transaction 4's range scan \(v < 0\) did not return acct-a, so it saw one of acct-a's versions that do not match \(its initial absence, 100 \(transaction 1\) or 10 \(transaction 5\)\); with each of them CC is violated"
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

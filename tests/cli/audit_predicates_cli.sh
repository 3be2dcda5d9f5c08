#!/usr/bin/env bash
# `audit` of histories with range scans, inserts and deletes decides as
# `verify` does: `generate --workload rows` (valid) and its plants phantom,
# predicate-write-skew and predicate-lost-update, from JSONL (pass 1 gathers
# the keys whose state changes, each round is expanded with them) and from
# the HDF5 conversion (predicate marks), in rounds of 7 transactions so that
# a scan and the writes it depends on fall in different rounds. Per level:
# the same exit code, verdict and anomaly name, and the same witness in
# words ("T2's range scan saw key 5 absent", "T3's delete of bob"). The
# histories verify does not decide (exit 3) or refuses (exit 2) are not
# decided or refused by the audit either, with the same message, also when
# the round that holds the problem comes after every level was violated.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"

# "level verdict anomaly" lines of a verify report / of an audit report.
verify_levels() {
  sed -nE 's/^(serializable|snapshot-isolation|strict-serializable): (holds|VIOLATED: .*)$/\1 \2/p' "$1" |
    sed -E 's/ VIOLATED: / VIOLATED /'
}
audit_levels() {
  sed -nE 's/^(serializable|snapshot-isolation|strict-serializable): (HOLDS|VIOLATED \(round [0-9]+, .*\))$/\1 \2/p' "$1" |
    sed -E 's/ HOLDS$/ holds/; s/ VIOLATED \(round [0-9]+, (.*)\)$/ VIOLATED \1/'
}
# The witness lines in words, each once (verify prefixes a cycle's edges
# with "T1 -rw-> T2: "; the audit prints each level's witness).
verify_words() { sed -nE 's/^  (T[0-9]+ -[a-z]+-> T[0-9]+: )?(T[0-9]+.*)$/\2/p' "$1" | sort -u; }
audit_words() { sed -nE 's/^    (T[0-9]+.*)$/\1/p' "$1" | sort -u; }

# same_as_verify NAME LEVELS FILE [AUDIT OPTIONS...]: verify FILE and audit
# it (rounds of $round, default 7); equal exit codes, verdicts, names and words.
same_as_verify() {
  local name="$1" lv="$2" f="$3"; shift 3
  "$bin" verify -q --level "$lv" "$f" > "$tmp/v.out" 2> "$tmp/v.err"
  local vrc=$?
  "$bin" audit -q --round "${round:-7}" --level "$lv" "$@" "$f" > "$tmp/a.out" 2> "$tmp/a.err"
  local arc=$?
  cp "$tmp/a.out" "$tmp/out"; cp "$tmp/a.err" "$tmp/err"  # (for expect_out / expect_one_err)
  if [ "$vrc" -ne "$arc" ]; then
    fail "$name: verify exit $vrc, audit exit $arc"; cat "$tmp/a.err"; return
  fi
  if [ "$vrc" -ge 2 ]; then
    if diff <(grep '^isocheck' "$tmp/v.err") <(grep '^isocheck' "$tmp/a.err" | grep -v '^isocheck audit:') > "$tmp/d"; then
      pass
    else
      fail "$name: messages differ:"; cat "$tmp/d"
    fi
    return
  fi
  verify_levels "$tmp/v.out" > "$tmp/v.lv"; audit_levels "$tmp/a.out" > "$tmp/a.lv"
  if [ -s "$tmp/v.lv" ] && diff "$tmp/v.lv" "$tmp/a.lv" > "$tmp/d"; then pass; else fail "$name: verdicts differ:"; cat "$tmp/d"; fi
  verify_words "$tmp/v.out" > "$tmp/v.w"; audit_words "$tmp/a.out" > "$tmp/a.w"
  if diff "$tmp/v.w" "$tmp/a.w" > "$tmp/d"; then pass; else fail "$name: witnesses differ:"; cat "$tmp/d"; fi
}

# Expected verdicts of the generated histories (src/gen/PLANTS.md), so that a
# test that compares two equal wrong answers still fails.
declare -A want=(
  [valid]="serializable holds|snapshot-isolation holds|strict-serializable holds"
  [phantom]="serializable VIOLATED G-single (phantom)|snapshot-isolation VIOLATED G-single (phantom)|strict-serializable VIOLATED G-single (phantom)"
  [predicate-write-skew]="serializable VIOLATED G2-item (predicate write skew)|snapshot-isolation holds|strict-serializable VIOLATED G2-item (predicate write skew)"
  [predicate-lost-update]="serializable VIOLATED lost update|snapshot-isolation VIOLATED lost update|strict-serializable VIOLATED lost update"
)
for plant in valid phantom predicate-write-skew predicate-lost-update; do
  f="$tmp/$plant.jsonl"
  opt=(); [ "$plant" != valid ] && opt=(--plant "$plant")
  check "gen_$plant" 0 "$bin" generate -q --workload rows --txns 700 --keys 40 --scan-width 2:20 --seed 11 "${opt[@]}" --out "$f"
  has "scans_$plant" "$f" '["scan",'
  has "deletes_$plant" "$f" '["delete",'
  check "convert_$plant" 0 "$bin" convert "$f" "$tmp/$plant.h5"
  # the audit's own verdicts, as expected
  check "audit_$plant" $([ "$plant" = valid ] && echo 0 || echo 1) "$bin" audit -q --round 7 --level ser,si,sser "$f"
  expect_out "rounds_$plant" "in 10[0-9] round\(s\)"
  audit_levels "$tmp/out" | tr '\n' '|' | sed 's/|$//' > "$tmp/got"
  if [ "$(cat "$tmp/got")" = "${want[$plant]}" ]; then pass; else fail "want_$plant: got $(cat "$tmp/got")"; fi
  for ext in jsonl h5; do
    # every transaction kept (no forgetting rule), then the time rule (sser
    # alone: transactions forgotten as the audit goes)
    same_as_verify "${plant}_${ext}_all" ser,si,sser "$tmp/$plant.$ext"
    same_as_verify "${plant}_${ext}_sser_time" sser "$tmp/$plant.$ext" --rule time
  done
  # Fences added (HDF5 keeps the scans' and deletes' marks), the fence rule.
  check "fenced_$plant" 0 "$bin" audit -q "$f" --write-fenced "$tmp/$plant.fenced.h5" --fence-every 3
  same_as_verify "${plant}_fenced" ser,si,sser "$tmp/$plant.fenced.h5" --rule fence
done
# Forgotten transactions under the time rule, and scans read in other rounds.
check forgets 0 "$bin" audit --round 7 --level sser --rule time "$tmp/valid.jsonl"
expect_out forgets_some "forgotten: [1-9][0-9]*"

# The examples: the phantom, and deletes worded as deletes.
for ex in phantom predicate_write_skew; do
  cp "$src/examples/$ex.jsonl" "$tmp/$ex.jsonl"
  check "convert_$ex" 0 "$bin" convert "$tmp/$ex.jsonl" "$tmp/$ex.h5"
  for ext in jsonl h5; do round=1 same_as_verify "${ex}_$ext" ser,si "$tmp/$ex.$ext"; done
done
# Pass 1 learns that a log states scans from its lines: here the first scan
# comes after 40 plain transactions (six rounds of 7), and pass 1 starts
# again with the keys interned; a key named "scan" is only a key.
{ for i in $(seq 1 40); do
    printf '{"id":%d,"session":%d,"status":"committed","ops":[["r",%d,null],["w",%d,%d]]}\n' \
      $((1000 + i)) $((7 + i % 3)) $((100 + i)) $((100 + i)) "$i"
  done
  grep -v '"isocheck"' "$tmp/phantom.jsonl"; } > "$tmp/late_scan.jsonl"
check late_scan 1 "$bin" audit -q --round 7 --level ser "$tmp/late_scan.jsonl"
expect_out late_scan_named "serializable: VIOLATED \(round [0-9]+, G-single \(phantom\)\)"
same_as_verify late_scan_same ser,si,sser "$tmp/late_scan.jsonl"
{ printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["r","scan",null],["w","scan","insert"]]}' \
    '{"id":2,"session":2,"status":"committed","ops":[["r","scan","insert"],["w","delete",1]]}' \
    '{"id":3,"session":1,"status":"committed","ops":[["r","delete",null]]}'; } > "$tmp/words.jsonl"
check words_as_keys 0 "$bin" audit -q --round 1 --level ser "$tmp/words.jsonl"
round=1 same_as_verify words_as_keys_same ser,si "$tmp/words.jsonl"
check phantom_words 1 "$bin" audit -q --round 1 "$tmp/phantom.h5"
expect_out phantom_named "serializable: VIOLATED \(round [0-9]+, G-single \(phantom\)\)"
expect_out phantom_absent "T2's range scan saw key 5 absent \(the initial state\)"
check skew_words 1 "$bin" audit -q --round 1 "$tmp/predicate_write_skew.jsonl"
expect_out skew_delete "T3's delete of bob \(tombstone \"bob off\"\) is a later version of bob"

# Not decided and refused, as verify has them (rounds of 1: the problem is
# in another round than the writes it depends on).
line() { printf '{"id":%s,"session":%s,"status":"committed","ops":[%s]}\n' "$@"; }
# A scan that saw absent a row another transaction deletes: verify places it
# (here its replay: the scan follows the delete in file order); the audit's
# rounds do not, and say so (exit 3), from JSONL and from HDF5 (mark 4).
{ line 1 1 '["w",4,1]'; line 2 1 '["delete",4,2]'; line 3 2 '["scan",1,9,[]]'; } > "$tmp/undecided.jsonl"
check undecided_verify 0 "$bin" verify -q --level ser,si "$tmp/undecided.jsonl"
check undecided 3 "$bin" audit -q --round 1 --level ser,si "$tmp/undecided.jsonl"
expect_one_err undecided_msg "not decided: .*transaction 3, operation 0: scans, seeing key 4 absent, and another transaction deletes 4: .*this reader does not place such a scan \(isocheck verify on one process does\)"
check undecided_convert 0 "$bin" convert "$tmp/undecided.jsonl" "$tmp/undecided.h5"
check undecided_h5 3 "$bin" audit -q --round 1 --level ser,si "$tmp/undecided.h5"
expect_one_err undecided_h5_msg "not decided by audit: .*undecided.h5, transactions .*mark 4 in /op/scan"
# A lost update violates every level in the first rounds; the undecided
# scan comes later: the audit reads and expands the whole log first (exit 3),
# as verify expands the whole log before deciding.
{ line 1 1 '["r",50,null],["w",50,1]'; line 2 2 '["r",50,null],["w",50,2]'; line 3 1 '["r",60,null]'
  line 4 1 '["w",4,1]'; line 5 1 '["delete",4,2]'; line 6 2 '["scan",1,9,[]]'; } > "$tmp/late.jsonl"
check late_undecided 3 "$bin" audit -q --round 1 --level ser,si,sser "$tmp/late.jsonl"
expect_one_err late_undecided_msg "not decided: .*transaction 6, operation 0"
# A scan row naming the tombstone of an earlier round's delete: refused.
{ line 1 1 '["w",4,1]'; line 2 1 '["r",4,1],["delete",4,2]'; line 3 2 '["scan",1,9,[[4,2]]]'; } > "$tmp/tomb.jsonl"
round=1 same_as_verify tombstone_row ser "$tmp/tomb.jsonl"
expect_one_err tombstone_row_msg "the scan returns row 4 = 2, the version a delete of it left"
# An insert of a key deleted later: decided when every delete observed a
# present value first (T2 read 7=1), not when the value it read turns out,
# rounds later, to be a tombstone of the key (T3 deletes 7 leaving 5).
{ line 1 1 '["insert",7,1]'; line 2 2 '["r",7,1],["delete",7,2]'; line 3 1 '["r",8,null]'; } > "$tmp/observed.jsonl"
round=1 same_as_verify observed_delete ser "$tmp/observed.jsonl"
# Its absence is then open (the initial one or T3's tombstone): verify
# decides it (it holds: T1 first), the audit's rounds say they do not (exit 3),
# from JSONL and from HDF5 (mark 6).
{ line 1 1 '["insert",7,1]'; line 2 2 '["r",7,5],["delete",7,2]'; line 3 1 '["delete",7,5]'; } > "$tmp/tomb_read.jsonl"
check tombstone_read_verify 0 "$bin" verify -q --level ser,si,rc "$tmp/tomb_read.jsonl"
check tombstone_read 3 "$bin" audit -q --round 1 --level ser "$tmp/tomb_read.jsonl"
expect_one_err tombstone_read_msg "not decided: .*transaction 1, operation 0: inserts, requiring key 7 absent"
check tombstone_read_convert 0 "$bin" convert "$tmp/tomb_read.jsonl" "$tmp/tomb_read.h5"
check tombstone_read_h5_verify 0 "$bin" verify -q --level ser,si,rc "$tmp/tomb_read.h5"
check tombstone_read_h5 3 "$bin" audit -q --round 1 --level ser "$tmp/tomb_read.h5"
expect_one_err tombstone_read_h5_msg "not decided by audit: .*tomb_read.h5, transactions .*an insert required absent a key .*mark 6 in /op/scan"
# Mixed keys (plain reads and writes): a later round's string key switches
# the audit's key table to named symbols after the first round was
# forgotten (time rule); the read of a forgotten version stays resolved.
{ printf '%s\n' '{"id":1,"session":1,"status":"committed","begin":0,"end":5,"ops":[["r",5,null],["w",5,"a"]]}' \
    '{"id":2,"session":2,"status":"committed","begin":10,"end":15,"ops":[["r",5,"a"],["r",1,null],["w",1,2]]}' \
    '{"id":3,"session":2,"status":"committed","begin":20,"end":25,"ops":[["r",2,null]]}' \
    '{"id":4,"session":3,"status":"committed","begin":30,"end":35,"ops":[["r",1,2],["r",2,null],["r",5,"a"]]}' \
    '{"id":5,"session":1,"status":"committed","begin":50,"end":55,"ops":[["r","x",null],["w","x",4],["r",2,null],["w",2,"b"]]}'; } > "$tmp/mixed.jsonl"
round=3 same_as_verify mixed_keys sser "$tmp/mixed.jsonl" --rule time
check mixed_holds 0 "$bin" audit -q --round 3 --level sser --rule time "$tmp/mixed.jsonl"
expect_out mixed_forgot "forgotten: [1-9]"

# A requeued audit gathers the keys again and resumes in the same rounds.
check stopped 75 "$bin" audit -q --round 7 --level ser "$tmp/predicate-write-skew.jsonl" --checkpoint-dir "$tmp/ck" --stop-after-rounds 3
check requeued 1 "$bin" audit -q --round 7 --level ser "$tmp/predicate-write-skew.jsonl" --checkpoint-dir "$tmp/ck" --requeue
expect_out requeued_named "serializable: VIOLATED \(round [0-9]+, G2-item \(predicate write skew\)\)"
expect_out requeued_resumed "resumed 1 time\(s\)"
summary

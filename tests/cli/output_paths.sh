#!/usr/bin/env bash
# Outputs and checkpoints on their failure paths: an output that is the input
# is refused before anything is written (by identity: a symlink or hard link
# too) and the input is left as it was; unwritable outputs are refused before
# the run (exit 2), a full disk is exit 3, and neither prints a verdict; a
# checkpoint dir or --out that is a file is exit 2 (not an abort); a damaged
# or truncated checkpoint is refused (exit 2, one line) instead of being used.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
check_messages=1  # an exit of 2 or 3 also needs one message line and no verdict
ex="$src/examples/g2_item_write_skew.jsonl"

# ---- an output that is the input
printf '%s\n' '{:type :invoke, :f :txn, :value [[:append 1 10] [:r 2 nil]], :process 0, :time 5, :index 0}' \
  '{:type :ok, :f :txn, :value [[:append 1 10] [:r 2 [7 8]]], :process 0, :time 6, :index 1}' \
  '{:type :info, :f :start-partition, :process :nemesis, :index 2}' > "$tmp/e.edn"
cp "$tmp/e.edn" "$tmp/e.orig"
check convert_self 2 "$bin" convert "$tmp/e.edn" "$tmp/e.edn" --to jsonl
expect_err convert_self "is the input"
same convert_self "$tmp/e.edn" "$tmp/e.orig"
ln -s e.edn "$tmp/sym.jsonl"; ln "$tmp/e.edn" "$tmp/hard.jsonl"
check convert_symlink 2 "$bin" convert "$tmp/e.edn" "$tmp/sym.jsonl"
check convert_hardlink 2 "$bin" convert "$tmp/e.edn" "$tmp/hard.jsonl"
same convert_links "$tmp/e.edn" "$tmp/e.orig"
check convert_other 0 "$bin" convert "$tmp/e.edn" "$tmp/e.jsonl"
check convert_other_reads 0 "$bin" info "$tmp/e.jsonl"
cp "$ex" "$tmp/self.jsonl"
check fenced_self 2 "$bin" audit "$tmp/self.jsonl" --write-fenced "$tmp/self.jsonl" -q
expect_err fenced_self "--write-fenced: .* is the input"
same fenced_self "$tmp/self.jsonl" "$ex"
mkdir "$tmp/rep"; ln -s ../self.jsonl "$tmp/rep/self.jsonl.audit.txt"
check audit_out_is_input 2 "$bin" audit "$tmp/self.jsonl" --out "$tmp/rep" -q
same audit_out_is_input "$tmp/self.jsonl" "$ex"
check dot_is_input 2 "$bin" verify "$tmp/self.jsonl" --dot "$tmp/self.jsonl"
same dot_is_input "$tmp/self.jsonl" "$ex"

# ---- unwritable outputs: refused before the run, no verdict
for opt in --dot --html; do
  check "verify$opt-missing-dir" 2 "$bin" verify "$ex" $opt /nonexistent-isocheck/x.out
  expect_err "verify$opt-missing-dir" "^isocheck: $opt: cannot write /nonexistent-isocheck/x.out: directory /nonexistent-isocheck does not exist"
  check "verify$opt-full" 3 "$bin" verify "$ex" $opt /dev/full
  expect_err "verify$opt-full" "^isocheck: $opt: cannot write /dev/full: No space left on device"
  check "verify$opt-dir" 2 "$bin" verify "$ex" $opt "$tmp"
done
check stage_times_missing_dir 2 "$bin" verify "$ex" --stage-times /nonexistent-isocheck/t.json
check stage_times_under_file 2 "$bin" verify "$ex" --stage-times "$tmp/e.edn/t.json" --dist -q
check stage_times_full 3 "$bin" verify "$ex" --stage-times /dev/full --dist -q
expect_err stage_times_full "^isocheck: --stage-times: cannot write /dev/full"
check stage_times_ok 1 "$bin" verify "$ex" --stage-times "$tmp/t.json" --dist -q
grep -q '"stages"' "$tmp/t.json" && pass || { fail "stage_times_ok: no stage times"; }
check generate_missing_dir 2 "$bin" generate --workload rmw --txns 10 --out /nonexistent-isocheck/g.jsonl -q
expect_err generate_missing_dir "directory /nonexistent-isocheck does not exist"
check generate_full 3 "$bin" generate --workload rmw --txns 10 --out /dev/full --to jsonl -q

# A checkpoint dir or --out that is a file, or cannot be created: exit 2.
touch "$tmp/afile"
check verify_ckpt_is_file 2 "$bin" verify "$ex" --checkpoint-dir "$tmp/afile" -q
expect_err verify_ckpt_is_file "--checkpoint-dir: .*afile exists and is not a directory"
check verify_ckpt_under_file 2 "$bin" verify "$ex" --checkpoint-dir "$tmp/afile/ck" -q
check audit_ckpt_is_file 2 "$bin" audit "$ex" --checkpoint-dir "$tmp/afile" -q
check audit_out_is_file 2 "$bin" audit "$ex" --out "$tmp/afile" -q
check audit_out_under_file 2 "$bin" audit "$ex" --out "$tmp/afile/rep" -q
check audit_out_ok 1 "$bin" audit "$ex" --out "$tmp/rep2" -q
[ -s "$tmp/rep2/g2_item_write_skew.jsonl.audit.json" ] && pass || { fail "audit_out_ok: no report"; }

# A report written beside an existing one replaces it whole; nothing else is left in the folder.
mkdir "$tmp/dots"; echo old > "$tmp/dots/w.dot"
check dot_replaced 1 "$bin" verify "$ex" --dot "$tmp/dots/w.dot" -q
grep -q digraph "$tmp/dots/w.dot" && [ "$(ls -A "$tmp/dots")" = w.dot ] && pass || { fail "dot_replaced"; ls -A "$tmp/dots"; }

# ---- damaged checkpoints: refused before use, one line, exit 2
flip() {  # file offset: one byte changed
  python3 - "$1" "$2" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); i = int(sys.argv[2]) % len(b); b[i] ^= 0x01
open(p, 'wb').write(b)
PY
}
check verify_ckpt_write 1 "$bin" verify "$ex" --checkpoint-dir "$tmp/vck" -q
cp "$tmp/vck/isocheck.ckpt" "$tmp/v.good"
for at in 3 40 200 -60 -2; do
  cp "$tmp/v.good" "$tmp/vck/isocheck.ckpt"; flip "$tmp/vck/isocheck.ckpt" "$at"
  check "verify_ckpt_flip$at" 2 "$bin" verify "$ex" --checkpoint-dir "$tmp/vck" -q
  expect_err "verify_ckpt_flip$at" "^isocheck: damaged checkpoint .*/vck/isocheck.ckpt: .*, remove it or use another --checkpoint-dir"
done
head -c 300 "$tmp/v.good" > "$tmp/vck/isocheck.ckpt"
check verify_ckpt_truncated 2 "$bin" verify "$ex" --checkpoint-dir "$tmp/vck" -q
expect_err verify_ckpt_truncated "damaged checkpoint .*truncated"
cp "$tmp/v.good" "$tmp/vck/isocheck.ckpt"
check verify_ckpt_good 1 "$bin" verify "$ex" --checkpoint-dir "$tmp/vck" -q

check audit_ckpt_write 75 "$bin" audit "$ex" --round 1 --stop-after-rounds 1 --checkpoint-dir "$tmp/ack" -q
ack="$tmp/ack/g2_item_write_skew.jsonl.ckpt"
cp "$ack" "$tmp/a.good"
for at in 3 100 500 -100 -1; do
  cp "$tmp/a.good" "$ack"; flip "$ack" "$at"
  check "audit_ckpt_flip$at" 2 "$bin" audit "$ex" --round 1 --requeue --checkpoint-dir "$tmp/ack" -q
  expect_err "audit_ckpt_flip$at" "^isocheck: damaged checkpoint .*g2_item_write_skew.jsonl.ckpt: .*, remove it or start without --requeue"
done
head -c 100 "$tmp/a.good" > "$ack"
check audit_ckpt_truncated 2 "$bin" audit "$ex" --round 1 --requeue --checkpoint-dir "$tmp/ack" -q
cp "$tmp/a.good" "$ack"
check audit_ckpt_good 1 "$bin" audit "$ex" --round 1 --requeue --checkpoint-dir "$tmp/ack" -q

summary

#!/usr/bin/env bash
# A 4-rank job is stopped by SIGTERM after its first checkpoint, exits 75, and
# the same command run again resumes from the checkpoint to the same result.
# Checkpoints of another input or another isocheck version are refused (exit 2).
# usage: dist_checkpoint.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
. "$(dirname "$0")/held_job.sh"
fail_fast=1
strip() { sed -e 's/"seconds":[0-9.e+-]*//' "$1"; }

"$GEN" many "$tmp/h.h5" --components 60 --txns 6000 --violate || fail "dist_gen"
cp "$tmp/h.h5" "$tmp/orig.h5"
# Reference: an uninterrupted 4-rank run (and the verdict of one process).
$MPI "$BIN" verify "$tmp/h.h5" -l ser,si --json -q > "$tmp/ref.json"; ref_rc=$?
"$BIN" verify "$tmp/h.h5" -l ser,si --json -q > "$tmp/one.json"; one_rc=$?
[ "$ref_rc" = 1 ] && [ "$one_rc" = 1 ] || fail "reference exit codes $ref_rc $one_rc (want 1: a planted lost update)"

# Run, held after the partition checkpoint (test hook), until SIGTERM arrives.
run_held_then_term "$tmp/out1.json" "$tmp/err1.txt" \
  env ISOCHECK_TEST_HOLD_AFTER_PARTITION=1 $MPI "$BIN" verify "$tmp/h.h5" -l ser,si --json -q --checkpoint-dir "$tmp/ck"
rc=$HELD_RC
[ "$HELD" = 1 ] || { cat "$tmp/err1.txt"; fail "the job ended (exit $rc) before holding after its partition checkpoint"; }
[ -s "$tmp/ck/isocheck.ckpt" ] || fail "no checkpoint appeared"
[ "$rc" = 75 ] || { cat "$tmp/err1.txt"; fail "interrupted job exited $rc, want 75"; }
[ -s "$tmp/out1.json" ] && fail "an interrupted job printed a report"

# Same command again: resumes, same result as the uninterrupted run.
$MPI "$BIN" verify "$tmp/h.h5" -l ser,si --json --checkpoint-dir "$tmp/ck" > "$tmp/out2.json" 2> "$tmp/err2.txt"; rc=$?
[ "$rc" = "$ref_rc" ] || { cat "$tmp/err2.txt"; fail "resumed job exited $rc, want $ref_rc"; }
grep -q "resuming from checkpoint" "$tmp/err2.txt" || fail "the second run did not resume"
diff <(strip "$tmp/ref.json") <(strip "$tmp/out2.json") || fail "resumed result differs"
# A finished checkpoint answers at once with the same result.
$MPI "$BIN" verify "$tmp/h.h5" -l ser,si --json -q --checkpoint-dir "$tmp/ck" > "$tmp/out3.json"; rc=$?
[ "$rc" = "$ref_rc" ] && diff <(strip "$tmp/ref.json") <(strip "$tmp/out3.json") || fail "rerun after completion differs"

# Another history under the same name: refused, exit 2.
"$GEN" many "$tmp/h.h5" --components 60 --txns 6000 --seed 2 || fail "dist_gen"
$MPI "$BIN" verify "$tmp/h.h5" -l ser,si -q --checkpoint-dir "$tmp/ck" > /dev/null 2> "$tmp/err4.txt"; rc=$?
[ "$rc" = 2 ] || fail "checkpoint of another input: exit $rc, want 2"
grep -q "another input" "$tmp/err4.txt" || fail "no clear message: $(cat "$tmp/err4.txt")"
# Other options: refused.
cp "$tmp/orig.h5" "$tmp/h.h5"
"$BIN" verify "$tmp/h.h5" -l ser -q --checkpoint-dir "$tmp/ck" > /dev/null 2> "$tmp/err5.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "other options" "$tmp/err5.txt" || fail "other options: exit $rc $(cat "$tmp/err5.txt")"
# A damaged checkpoint (one byte changed): refused before it is used.
cp "$tmp/ck/isocheck.ckpt" "$tmp/good.ckpt"
python3 - "$tmp/ck/isocheck.ckpt" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x10
open(p, 'wb').write(b)
PY
"$BIN" verify "$tmp/h.h5" -l ser,si -q --checkpoint-dir "$tmp/ck" > /dev/null 2> "$tmp/err7.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "^isocheck: damaged checkpoint .*checksum mismatch" "$tmp/err7.txt" || fail "damaged: exit $rc $(cat "$tmp/err7.txt")"
cp "$tmp/good.ckpt" "$tmp/ck/isocheck.ckpt"
# Another isocheck version: refused. The header line is rewritten inside the
# checksummed container (magic, version, kind, payload length, payload, CRC-32).
python3 - "$tmp/ck/isocheck.ckpt" <<'PY'
import struct, sys, zlib
p = sys.argv[1]; b = open(p, 'rb').read()
k = struct.unpack_from('<I', b, 12)[0]; at = 16 + k + 8
payload = b[at:-4]
nl = payload.index(b'\n'); head = payload[:nl].split(b'\t'); head[1] = b'isocheck 0.0.9'
payload = b'\t'.join(head) + payload[nl:]
body = b[:16 + k] + struct.pack('<Q', len(payload)) + payload
open(p, 'wb').write(body + struct.pack('<I', zlib.crc32(body)))
PY
"$BIN" verify "$tmp/h.h5" -l ser,si -q --checkpoint-dir "$tmp/ck" > /dev/null 2> "$tmp/err6.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "written by isocheck 0.0.9" "$tmp/err6.txt" || fail "other version: exit $rc $(cat "$tmp/err6.txt")"
echo "dist_checkpoint: ok"

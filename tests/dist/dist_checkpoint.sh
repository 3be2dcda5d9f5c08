#!/usr/bin/env bash
# A 4-rank job is stopped by SIGTERM after its first checkpoint, exits 75, and
# the same command run again resumes from the checkpoint to the same result.
# Checkpoints of another input or another isocheck version are refused (exit 2).
# usage: dist_checkpoint.sh ISOCHECK SOURCE_DIR DIST_GEN
set -u
BIN=$1; SRC=$2; GEN=$3
. "$(dirname "$0")/held_job.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
fail_fast=1
T=$tmp
strip() { sed -e 's/"seconds":[0-9.e+-]*//' "$1"; }
MPI="mpiexec --oversubscribe -n 4"

"$GEN" many "$T/h.h5" --components 60 --txns 6000 --violate || fail "dist_gen"
cp "$T/h.h5" "$T/orig.h5"
# Reference: an uninterrupted 4-rank run (and the verdict of one process).
$MPI "$BIN" verify "$T/h.h5" -l ser,si --json -q > "$T/ref.json"; ref_rc=$?
"$BIN" verify "$T/h.h5" -l ser,si --json -q > "$T/one.json"; one_rc=$?
[ "$ref_rc" = 1 ] && [ "$one_rc" = 1 ] || fail "reference exit codes $ref_rc $one_rc (want 1: a planted lost update)"

# Run, held after the partition checkpoint (test hook), until SIGTERM arrives.
run_held_then_term "$T/out1.json" "$T/err1.txt" \
  env ISOCHECK_TEST_HOLD_AFTER_PARTITION=1 $MPI "$BIN" verify "$T/h.h5" -l ser,si --json -q --checkpoint-dir "$T/ck"
rc=$HELD_RC
[ "$HELD" = 1 ] || { cat "$T/err1.txt"; fail "the job ended (exit $rc) before holding after its partition checkpoint"; }
[ -s "$T/ck/isocheck.ckpt" ] || fail "no checkpoint appeared"
[ "$rc" = 75 ] || { cat "$T/err1.txt"; fail "interrupted job exited $rc, want 75"; }
[ -s "$T/out1.json" ] && fail "an interrupted job printed a report"

# Same command again: resumes, same result as the uninterrupted run.
$MPI "$BIN" verify "$T/h.h5" -l ser,si --json --checkpoint-dir "$T/ck" > "$T/out2.json" 2> "$T/err2.txt"; rc=$?
[ "$rc" = "$ref_rc" ] || { cat "$T/err2.txt"; fail "resumed job exited $rc, want $ref_rc"; }
grep -q "resuming from checkpoint" "$T/err2.txt" || fail "the second run did not resume"
diff <(strip "$T/ref.json") <(strip "$T/out2.json") || fail "resumed result differs"
# A finished checkpoint answers at once with the same result.
$MPI "$BIN" verify "$T/h.h5" -l ser,si --json -q --checkpoint-dir "$T/ck" > "$T/out3.json"; rc=$?
[ "$rc" = "$ref_rc" ] && diff <(strip "$T/ref.json") <(strip "$T/out3.json") || fail "rerun after completion differs"

# Another history under the same name: refused, exit 2.
"$GEN" many "$T/h.h5" --components 60 --txns 6000 --seed 2 || fail "dist_gen"
$MPI "$BIN" verify "$T/h.h5" -l ser,si -q --checkpoint-dir "$T/ck" > /dev/null 2> "$T/err4.txt"; rc=$?
[ "$rc" = 2 ] || fail "checkpoint of another input: exit $rc, want 2"
grep -q "another input" "$T/err4.txt" || fail "no clear message: $(cat "$T/err4.txt")"
# Other options: refused.
cp "$T/orig.h5" "$T/h.h5"
"$BIN" verify "$T/h.h5" -l ser -q --checkpoint-dir "$T/ck" > /dev/null 2> "$T/err5.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "other options" "$T/err5.txt" || fail "other options: exit $rc $(cat "$T/err5.txt")"
# A damaged checkpoint (one byte changed): refused before it is used.
cp "$T/ck/isocheck.ckpt" "$T/good.ckpt"
python3 - "$T/ck/isocheck.ckpt" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x10
open(p, 'wb').write(b)
PY
"$BIN" verify "$T/h.h5" -l ser,si -q --checkpoint-dir "$T/ck" > /dev/null 2> "$T/err7.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "^isocheck: damaged checkpoint .*checksum mismatch" "$T/err7.txt" || fail "damaged: exit $rc $(cat "$T/err7.txt")"
cp "$T/good.ckpt" "$T/ck/isocheck.ckpt"
# Another isocheck version: refused. The header line is rewritten inside the
# checksummed container (magic, version, kind, payload length, payload, CRC-32).
python3 - "$T/ck/isocheck.ckpt" <<'PY'
import struct, sys, zlib
p = sys.argv[1]; b = open(p, 'rb').read()
k = struct.unpack_from('<I', b, 12)[0]; at = 16 + k + 8
payload = b[at:-4]
nl = payload.index(b'\n'); head = payload[:nl].split(b'\t'); head[1] = b'isocheck 0.0.9'
payload = b'\t'.join(head) + payload[nl:]
body = b[:16 + k] + struct.pack('<Q', len(payload)) + payload
open(p, 'wb').write(body + struct.pack('<I', zlib.crc32(body)))
PY
"$BIN" verify "$T/h.h5" -l ser,si -q --checkpoint-dir "$T/ck" > /dev/null 2> "$T/err6.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "written by isocheck 0.0.9" "$T/err6.txt" || fail "other version: exit $rc $(cat "$T/err6.txt")"
echo "dist_checkpoint: ok"

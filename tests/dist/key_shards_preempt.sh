#!/usr/bin/env bash
# A 4-rank --key-shards job (graph path, blind writes: the general engine runs
# after the gather) is stopped by SIGTERM after its shard stage, exits 75
# without a report, and the same command run again resumes from the read-stage
# checkpoint to the result of an uninterrupted run.
# usage: key_shards_preempt.sh ISOCHECK
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
. "$(dirname "$0")/held_job.sh"
fail_fast=1
strip() { sed -e 's/"seconds":[0-9.e+-]*//' -e 's/"stats".*//' "$1"; }
FLAGS="-l ser,si --json -q --key-shards --no-serial-witness"

"$BIN" generate --workload blindw-rw --txns 3000 --sessions 8 --plant write-skew --seed 4 --out "$tmp/h.h5" -q || fail gen
$MPI "$BIN" verify "$tmp/h.h5" $FLAGS > "$tmp/ref.json"; ref_rc=$?
[ "$ref_rc" = 1 ] || fail "reference exit $ref_rc, want 1 (a planted write skew)"

# The ranks hold after the shard stage until their signal (as SLURM sends it).
run_held_then_term "$tmp/out1.json" "$tmp/err1.txt" \
  env ISOCHECK_TEST_HOLD_AFTER_SHARD=1 $MPI "$BIN" verify "$tmp/h.h5" $FLAGS --checkpoint-dir "$tmp/ck"
rc=$HELD_RC
[ "$HELD" = 1 ] || { cat "$tmp/err1.txt"; fail "the job ended (exit $rc) before holding after its shard stage"; }
[ -s "$tmp/ck/isocheck.ckpt" ] || fail "no checkpoint before the hold"
[ "$rc" = 75 ] || { cat "$tmp/err1.txt"; fail "interrupted job exited $rc, want 75"; }
[ -s "$tmp/out1.json" ] && fail "an interrupted job printed a report"

$MPI "$BIN" verify "$tmp/h.h5" $FLAGS --checkpoint-dir "$tmp/ck" > "$tmp/out2.json" 2> "$tmp/err2.txt"; rc=$?
[ "$rc" = "$ref_rc" ] || { cat "$tmp/err2.txt"; fail "resumed job exited $rc, want $ref_rc"; }
diff <(strip "$tmp/ref.json") <(strip "$tmp/out2.json") || fail "resumed result differs"
echo "key_shards_preempt: ok"

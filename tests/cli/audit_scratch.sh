#!/bin/bash
# isocheck audit's soundness state on disk (--scratch-dir, docs/audit.md
# "Soundness state on disk"): the same report as in memory; an unusable
# folder exits 2 naming it; a write the disk refuses (here a file size limit,
# as a full disk would) exits 3 saying what to raise; nothing is left behind.
#   bash tests/cli/audit_scratch.sh <isocheck-binary> <source-dir>
set -u
BIN=$(readlink -f "$1")
T=$(mktemp -d /tmp/isocheck-scratch.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$BIN" generate --workload blindw-rw --txns 20000 --sessions 8 --keys 5000 --seed 3 --plant stale-read \
  --out "$T/bw.h5" -q || fail "generate"
mask() { sed -E 's/"(seconds|txn_per_s|peak_rss|spilled|scratch_bytes|spill_memory_records|fingerprint_bytes|later_read_bytes)": ?[0-9a-z.e+-]+/"\1":_/g'; }
"$BIN" audit "$T/bw.h5" --level sser --round 1000 --json -q > "$T/mem.json"; rc_mem=$?
"$BIN" audit "$T/bw.h5" --level sser --round 1000 --json -q --scratch-dir "$T/scratch" --spill-above 0 \
  > "$T/disk.json"; rc_disk=$?
[ "$rc_mem" = 1 ] || fail "in memory: exit $rc_mem, expected 1 (a planted stale read)"
[ "$rc_disk" = "$rc_mem" ] || fail "on disk: exit $rc_disk, in memory $rc_mem"
grep -q '"spilled":true' "$T/disk.json" || fail "not spilled: $(head -c 300 "$T/disk.json")"
cmp -s <(mask < "$T/mem.json") <(mask < "$T/disk.json") || fail "reports differ: $(diff <(mask < "$T/mem.json" | tr , '\n') <(mask < "$T/disk.json" | tr , '\n'))"
[ -z "$(ls -A "$T/scratch")" ] || fail "files left in the scratch folder: $(ls "$T/scratch")"

# Unusable: a folder below a file.
echo x > "$T/file"
out=$("$BIN" audit "$T/bw.h5" --level sser -q --scratch-dir "$T/file/below" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "scratch folder below a file: exit $rc, expected 2: $out"
case "$out" in *"--scratch-dir $T/file/below"*) ;; *) fail "message does not name the folder: $out" ;; esac

# Full: the later-reads index (12 bytes a read pair, ~100 KB here) past a
# 32 KiB file size limit (SIGXFSZ ignored, so the write fails with EFBIG).
out=$( (ulimit -f 32; trap '' XFSZ; exec "$BIN" audit "$T/bw.h5" --level sser --round 1000 -q \
  --scratch-dir "$T/small" --spill-above 0) 2>&1); rc=$?
[ "$rc" = 3 ] || fail "file size limit: exit $rc, expected 3: $out"
case "$out" in *"scratch folder is full"*"$T/small/"*) ;; *) fail "message: $out" ;; esac
echo "audit scratch: same report on disk, exit 2 unusable, exit 3 full"

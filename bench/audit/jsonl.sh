#!/bin/bash
# The audit of a JSONL log against `verify` of the same file and the audit of
# its HDF5 conversion, for one or two binaries in the same run (alternating,
# so both see the same machine load): CPU seconds (user + sys of the whole
# process, all threads), wall seconds and peak memory, REPS runs each, as
# min–max ranges.
#   bench/audit/jsonl.sh NEW_BINARY [OLD_BINARY] [workdir]
# Env: TXNS (1000000), KEYS (50000), SESSIONS (16), ROUND (100000), REPS (3),
#      LEVEL (sser), WORKLOAD (rmw; or blindw-rw).
# The log: `generate --workload WORKLOAD` with integer keys, rewritten to string
# keys "k<N>" (generate writes integer keys only), then `convert`ed to HDF5.
# Goals (docs/audit.md "JSONL logs"): audit of the JSONL file <= 1.0 x
# verify of it, and <= 1.5 x the audit of the HDF5 conversion (CPU seconds).
set -eu
NEW=$(readlink -f "$1")
OLD=${2:+$(readlink -f "$2")}
W=${3:-$(mktemp -d /tmp/isocheck-jsonl-bench.XXXXXX)}
TXNS=${TXNS:-1000000} KEYS=${KEYS:-50000} SESSIONS=${SESSIONS:-16}
ROUND=${ROUND:-100000} REPS=${REPS:-3} LEVEL=${LEVEL:-sser} WORKLOAD=${WORKLOAD:-rmw}
mkdir -p "$W"
log=$W/$WORKLOAD-$TXNS.jsonl
if [ ! -f "$log" ] || [ ! -f "${log%.jsonl}.h5" ]; then
  "$NEW" generate --workload "$WORKLOAD" --txns "$TXNS" --sessions "$SESSIONS" --keys "$KEYS" --seed 1 \
    --out "$W/int.jsonl" -q
  sed -E 's/\["(r|w)",([0-9]+),/["\1","k\2",/g' "$W/int.jsonl" > "$log"
  rm -f "$W/int.jsonl"
  "$NEW" convert "$log" "${log%.jsonl}.h5" > /dev/null
fi
echo "log: $log ($(stat -c %s "$log") bytes), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
runs=(
  "verify:verify $log --level $LEVEL -q"
  "audit-jsonl:audit $log --level $LEVEL --round $ROUND -q"
  "audit-hdf5:audit ${log%.jsonl}.h5 --level $LEVEL --round $ROUND -q"
)
bins=(new)
[ -n "$OLD" ] && bins=(old new)
: > "$W/times.txt"
for rep in $(seq "$REPS"); do
  for r in "${runs[@]}"; do
    for b in "${bins[@]}"; do
      bin=$NEW
      [ "$b" = old ] && bin=$OLD
      # shellcheck disable=SC2086
      /usr/bin/time -f "%U %S %e %M" -o "$W/t" "$bin" ${r#*:} > "$W/out" 2>&1 ||
        { echo "FAILED ($b): $bin ${r#*:}"; cat "$W/out"; exit 1; }
      echo "$b ${r%%:*} $(cat "$W/t")" >> "$W/times.txt"
    done
  done
done
python3 - "$W/times.txt" << 'PY'
import collections, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, what, user, sys_s, wall, kb = line.split()
    runs[(b, what)].append((float(user) + float(sys_s), float(wall), int(kb) / 1024))
def rng(xs, fmt):
    lo, hi = fmt % min(xs), fmt % max(xs)
    return lo if lo == hi else lo + "–" + hi
print(f"{'binary':<6} {'run':<12} {'CPU s':>12} {'wall s':>12} {'peak MiB':>12}")
for (b, what), xs in runs.items():
    print(f"{b:<6} {what:<12} {rng([x[0] for x in xs], '%.2f'):>12} {rng([x[1] for x in xs], '%.2f'):>12} "
          f"{rng([x[2] for x in xs], '%.0f'):>12}")
med = lambda b, w: sorted(x[0] for x in runs[(b, w)])[len(runs[(b, w)]) // 2]
for b in sorted({b for b, _ in runs}):
    a, v, h = med(b, "audit-jsonl"), med(b, "verify"), med(b, "audit-hdf5")
    print(f"{b}: CPU medians: audit JSONL / verify = {a / v:.2f} (goal <= 1.0), "
          f"audit JSONL / audit HDF5 = {a / h:.2f} (goal <= 1.5)")
if ("old", "verify") in runs:
    print(f"new audit JSONL / old verify = {med('new', 'audit-jsonl') / med('old', 'verify'):.2f}")
PY
echo "log and times in $W"

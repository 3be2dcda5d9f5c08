#!/bin/bash
# Audit benchmark: a generated "day log" audited in rounds; throughput and
# peak memory per round. Scaled down here (default 10^6 transactions); the
# 10^8 figure needs a real node (set TXNS=100000000 and a disk with ~20 GB).
#   bench/audit/run.sh [isocheck-binary] [workdir]
# Env: TXNS (1000000), ROUND (100000), WORKLOADS ("rmw blindw-rw"), FENCE_EVERY (20),
#      CONFIGS ("ser,si,sser:fence sser:time": level set and rule per audit),
#      THREADS (audit --threads; default: the hardware threads)
# Reports wall seconds and transactions per wall second (the goal is per
# node: all its cores), and CPU seconds (user + sys) and transactions per CPU
# second (on a shared machine the wall time depends on the other jobs).
set -eu
BIN=$(readlink -f "${1:-build/isocheck}")
W=${2:-$(mktemp -d /tmp/isocheck-audit-bench.XXXXXX)}
TXNS=${TXNS:-1000000}
ROUND=${ROUND:-100000}
mkdir -p "$W"
# timed FILE CMD...: "wall user sys maxrss_kib" of CMD into FILE; GNU time
# where installed, else the same figures from Python's getrusage.
timed() {
  local f=$1; shift
  if [ -x /usr/bin/time ]; then /usr/bin/time -f "%e %U %S %M" -o "$f" "$@"; return; fi
  python3 -c 'import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[2:]); w = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{w:.2f} {r.ru_utime:.2f} {r.ru_stime:.2f} {r.ru_maxrss}\n"); sys.exit(rc)' "$f" "$@"
}
printf "%-10s %-6s %-10s %10s %8s %8s %12s %8s %12s %10s %10s %s\n" workload rule levels txns rounds "wall s" "txn/wall s" \
  "CPU s" "txn/CPU s" "peak MiB" "max kept" verdicts
for wl in ${WORKLOADS:-rmw blindw-rw}; do
  raw="$W/$wl-raw.h5"; log="$W/$wl.h5"
  [ -f "$log" ] || {
    "$BIN" generate --workload "$wl" --txns "$TXNS" --sessions 64 --keys $((TXNS / 10)) --seed 1 --out "$raw" -q
    "$BIN" audit "$raw" --write-fenced "$log" --fence-every "${FENCE_EVERY:-20}" -q
    rm -f "$raw"
  }
  for cfg in ${CONFIGS:-ser,si,sser:fence sser:time}; do
    set -- ${cfg/:/ }
    timed "$W/time.txt" "$BIN" audit "$log" --level "$1" --rule "$2" --round "$ROUND" \
      ${THREADS:+--threads "$THREADS"} --json -q > "$W/$wl-$2.json" || true
    python3 - "$W/$wl-$2.json" "$wl" "$2" "$1" "$W/time.txt" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall, user, sys_s, max_kb = open(sys.argv[5]).read().split()[-4:]
wall = float(wall)
cpu = float(user) + float(sys_s)
v = ",".join(f"{k[:4]}={x['verdict']}" for k, x in r["levels"].items())
print(f"{sys.argv[2]:<10} {sys.argv[3]:<6} {sys.argv[4]:<10} {r['transactions']:>10} {r['rounds']:>8} "
      f"{wall:>8.2f} {r['transactions'] / wall:>12.0f} {cpu:>8.2f} {r['transactions'] / cpu:>12.0f} {r['peak_rss']/1048576:>10.1f} {r['max_kept']:>10} {v}")
peaks = [s["peak_rss"] / 1048576 for s in r["round_stats"]]
print(f"  per-round peak MiB: min {min(peaks):.1f} median {sorted(peaks)[len(peaks)//2]:.1f} max {max(peaks):.1f}; "
      f"kept per round: {[s['kept'] for s in r['round_stats']][:6]}...")
PY
  done
done
echo "logs and JSON reports in $W"

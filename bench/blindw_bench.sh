#!/usr/bin/env bash
# General-engine figures per workload and level: chain pairs of unknown order
# (= the constraints a one-per-pair encoding builds), pairs real time orders,
# pairs the known graph decides while building (never materialised), the
# constraints built, constraints pruning decides, constraints left to the SAT
# solver, and CPU seconds (user+sys) and peak memory of the whole
# `isocheck verify` run (/usr/bin/time). The serial witness is switched off
# (--no-serial-witness): these figures are about the general engine, which a
# clean replay would skip on these valid histories.
#
# Usage: bench/blindw_bench.sh [BUILD_DIR=build] [TXNS=10000] [WORKLOADS] [LEVELS]
#   e.g. bench/blindw_bench.sh build 100000 "blindw-rw" "ser sser"
# Histories go to ${TMPDIR:-/tmp}/isocheck-bench (kept between runs).
# The stage breakdown of one history: BUILD_DIR/bench/solver_bench --history FILE LEVEL
set -euo pipefail
build=${1:-build}
txns=${2:-10000}
workloads=${3:-"blindw-rm blindw-rw blindw-wh twitter tpcc"}
levels=${4:-"ser sser ser+time-order si"}
dir=${TMPDIR:-/tmp}/isocheck-bench
mkdir -p "$dir"
printf '%-10s %8s %-15s %10s %10s %10s %11s %8s %9s %6s %7s %8s %s\n' workload txns level pairs by_time decided constraints pruned to_solver parts cpu_s peak_MB verdict
for w in $workloads; do
  f="$dir/$w-$txns.h5"
  [ -s "$f" ] || "$build/isocheck" generate --workload "$w" --txns "$txns" --seed 1 --out "$f" -q
  for l in $levels; do
    args=(--level "${l%%+*}" --no-serial-witness)
    [ "$l" != "${l%+time-order}" ] && args+=(--time-order)
    out=$( { /usr/bin/time -f "TIME %U %S %M" "$build/isocheck" verify "$f" "${args[@]}" --json -q; } 2>&1 || true)
    python3 - "$w" "$txns" "$l" "$out" <<'EOF'
import json, sys
w, n, l, out = sys.argv[1:5]
lines = out.splitlines()
t = [x for x in lines if x.startswith("TIME ")][-1].split()
js = json.loads("\n".join(x for x in lines if not x.startswith("TIME ")))
s = js["stats"]
lv = js["levels"][0]
verdict = "holds" if lv["holds"] else ("undecided" if not lv["decided"] else "VIOLATED")
pairs, by_time, c = s["unordered_write_pairs"], s.get("ordered_by_time", 0), s["constraints"]
decided = max(0, pairs - by_time - c) if c or pairs else 0
print(f'{w:<10} {n:>8} {l:<15} {pairs:>10} {by_time:>10} {decided:>10} {c:>11} {s["pruned"]:>8} {s["to_solver"]:>9} '
      f'{s.get("subproblems", 0):>6} {float(t[1]) + float(t[2]):>7.2f} {int(t[3]) / 1024:>8.0f} {verdict}')
EOF
  done
done

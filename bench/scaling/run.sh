#!/usr/bin/env bash
# Strong scaling of the distributed driver: 1, 2, 4, 8 ranks on histories of
# three kinds (rmw, blindw-rw, many-component), time per stage, parallel
# efficiency, peak memory per rank; a PNG plot when python3-matplotlib (or
# gnuplot) is installed.
#
#   bench/scaling/run.sh [BUILD_DIR] [OUT_DIR]
#   OPS=10000000 RANKS="1 2 4 8 16" bench/scaling/run.sh build /scratch/scaling   # on a cluster node
#
# OPS: operations per history (default 200000: what a 2-core workstation can
# run; the 10^7 target needs a real node with >= 8 cores). LEVELS: default ser,si.
# Oversubscribed runs (ranks > cores) measure nothing useful; the script says so.
set -eu
BUILD=${1:-build}; OUT=${2:-bench/scaling/out}
OPS=${OPS:-200000}; RANKS=${RANKS:-"1 2 4 8"}; LEVELS=${LEVELS:-ser,si}
BIN=$BUILD/isocheck; GEN=$BUILD/tests/dist/dist_gen
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
CORES=$(nproc)
# rmw: 2 keys per txn, 4 ops; blindw-rw: 8 ops per txn; many: 4 ops per txn.
[ -f "$OUT/rmw.h5" ] || "$BIN" generate --workload rmw --txns $((OPS / 4)) --sessions 64 --out "$OUT/rmw.h5" -q
[ -f "$OUT/blindw-rw.h5" ] || "$BIN" generate --workload blindw-rw --txns $((OPS / 8)) --sessions 64 --out "$OUT/blindw-rw.h5" -q
[ -f "$OUT/many.h5" ] || "$GEN" many "$OUT/many.h5" --components 1000 --txns $((OPS / 4)) --sessions-per 4
echo "kind ranks total_s read_s partition_s solve_s merge_s efficiency peak_rss_mib_max oversubscribed" > "$OUT/results.tsv"
for kind in rmw blindw-rw many; do
  base=""
  for p in $RANKS; do
    f="$OUT/$kind.$p.json"
    mpiexec --oversubscribe -n "$p" "$BIN" verify "$OUT/$kind.h5" -l "$LEVELS" -q --stage-times "$f" > /dev/null || true
    line=$(python3 - "$f" "$p" "${base:-}" "$CORES" "$kind" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = int(sys.argv[2]); cores = int(sys.argv[4])
t = d["total_s"]; base = float(sys.argv[3]) if sys.argv[3] else t
s = d["stages"]
eff = base / (p * t)
print(sys.argv[5], p, f"{t:.3f}", *(f"{s.get(k, 0):.3f}" for k in ("read", "partition", "solve", "merge")),
      f"{eff:.2f}", max(d["peak_rss_kib"]) // 1024, "yes" if p > cores else "no")
PY
)
    [ -z "$base" ] && base=$(echo "$line" | awk '{print $3}')
    echo "$line" | tr ' ' '\t' >> "$OUT/results.tsv"
  done
done
column -t "$OUT/results.tsv"
python3 - "$OUT" <<'PY' || echo "(no plot: install python3-matplotlib)"
import sys, csv
out = sys.argv[1]
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(out + "/results.tsv"), delimiter="\t"))
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
for kind in sorted({r["kind"] for r in rows}):
    rs = [r for r in rows if r["kind"] == kind]
    p = [int(r["ranks"]) for r in rs]
    ax[0].plot(p, [float(r["total_s"]) for r in rs], marker="o", label=kind)
    ax[1].plot(p, [float(r["efficiency"]) for r in rs], marker="o", label=kind)
ax[0].set_xlabel("ranks"); ax[0].set_ylabel("seconds"); ax[0].set_xscale("log", base=2); ax[0].legend()
ax[1].set_xlabel("ranks"); ax[1].set_ylabel("parallel efficiency"); ax[1].set_xscale("log", base=2); ax[1].axhline(0.7, ls="--")
fig.savefig(out + "/scaling.png", dpi=120, bbox_inches="tight")
print("plot:", out + "/scaling.png")
PY

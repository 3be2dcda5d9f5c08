#!/usr/bin/env bash
# Strong scaling of the distributed driver: 1, 2, 4, 8 ranks on histories of
# three kinds (rmw, blindw-rw, many-component), time per stage, parallel
# efficiency, peak memory per rank; a PNG plot (python3-matplotlib when
# installed, else bench/scaling/png_plot.py with the standard library only).
#
#   bench/scaling/run.sh [BUILD_DIR] [OUT_DIR]
#   OPS=10000000 RANKS="1 2 4 8 16" bench/scaling/run.sh build /scratch/scaling   # on a cluster node
#
# OPS: operations per history (default 200000: what a 2-core workstation can
# run; the 10^7 target needs a real node with >= 8 cores). LEVELS: default ser,si.
# KINDS: which of rmw blindw-rw many to run (default all three). KEY_SHARDS=1
# (default) also runs the rmw history with --key-shards (one component split
# by key hash; stages shard, acyclic on the shards, gather and witness only
# when a level fails) into key_shards.tsv. KS_FLAGS: more verify flags for
# that run (KS_FLAGS=--no-serial-witness measures the graph path).
# Oversubscribed runs (ranks > cores) measure nothing useful; the script says so.
set -eu
BUILD=${1:-build}; OUT=${2:-bench/scaling/out}
OPS=${OPS:-200000}; RANKS=${RANKS:-"1 2 4 8"}; LEVELS=${LEVELS:-ser,si}
KINDS=${KINDS:-"rmw blindw-rw many"}; KEY_SHARDS=${KEY_SHARDS:-1}; KS_FLAGS=${KS_FLAGS:-}
BIN=$BUILD/isocheck; GEN=$BUILD/tests/dist/dist_gen
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
CORES=$(nproc)
# rmw: 2 keys per txn, 4 ops; blindw-rw: 8 ops per txn; many: 4 ops per txn.
[ -f "$OUT/rmw.h5" ] || [ "${KINDS/rmw/}" = "$KINDS" -a "$KEY_SHARDS" != 1 ] || "$BIN" generate --workload rmw --txns $((OPS / 4)) --sessions 64 --out "$OUT/rmw.h5" -q
[ -f "$OUT/blindw-rw.h5" ] || [ "${KINDS/blindw-rw/}" = "$KINDS" ] || "$BIN" generate --workload blindw-rw --txns $((OPS / 8)) --sessions 64 --out "$OUT/blindw-rw.h5" -q
[ -f "$OUT/many.h5" ] || [ "${KINDS/many/}" = "$KINDS" ] || "$GEN" many "$OUT/many.h5" --components 1000 --txns $((OPS / 4)) --sessions-per 4
echo "kind ranks total_s read_s partition_s solve_s merge_s efficiency peak_rss_mib_max oversubscribed" | tr ' ' '\t' > "$OUT/results.tsv"
for kind in $KINDS; do
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
column -t "$OUT/results.tsv" 2>/dev/null || cat "$OUT/results.tsv"
if [ "$KEY_SHARDS" = 1 ]; then
  # One component (rmw) on key shards: each rank builds its keys' part of the
  # dependency graph; the acyclicity test runs on the shards (peel supersteps).
  echo "ranks total_s read_s shard_s acyclic_s gather_s witness_s supersteps cross_edges efficiency peak_rss_mib_rank0 peak_rss_mib_other_max oversubscribed" | tr ' ' '\t' > "$OUT/key_shards.tsv"
  base=""
  for p in $RANKS; do
    f="$OUT/rmw.keyshards.$p.json"
    mpiexec --oversubscribe -n "$p" "$BIN" verify "$OUT/rmw.h5" -l "$LEVELS" -q --key-shards $KS_FLAGS --stage-times "$f" > /dev/null || true
    line=$(python3 - "$f" "$p" "${base:-}" "$CORES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = int(sys.argv[2]); cores = int(sys.argv[4])
t = d["total_s"]; base = float(sys.argv[3]) if sys.argv[3] else t
s = d["stages"]; rss = d["peak_rss_kib"]
print(p, f"{t:.3f}", *(f"{s.get(k, 0):.3f}" for k in ("read", "shard", "acyclic", "gather", "witness")),
      d.get("peel_supersteps", 0), d.get("cross_edges", 0), f"{base / (p * t):.2f}",
      rss[0] // 1024, max(rss[1:], default=0) // 1024, "yes" if p > cores else "no")
PY
)
    [ -z "$base" ] && base=$(echo "$line" | awk '{print $2}')
    echo "$line" | tr ' ' '\t' >> "$OUT/key_shards.tsv"
  done
  echo; echo "rmw on key shards ($OPS operations, one component):"; { column -t "$OUT/key_shards.tsv" 2>/dev/null || cat "$OUT/key_shards.tsv"; }
fi
python3 - "$OUT" <<'PY' 2>/dev/null || python3 "$(dirname "$0")/png_plot.py" "$OUT"
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

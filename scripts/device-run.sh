#!/usr/bin/env bash
# Everything this project measures on a lent GPU machine, in one call:
#   1. scripts/gpu-check.sh (GPU tests, memcheck, closure benchmark),
#   2. bench/scaling/run.sh at 10^7 operations on 1..16 ranks, since that
#      machine has 16 cores and the development VM has 2,
#   3. bench/audit/run.sh on a 10^7-transaction RMW log (its per-node goal).
#
#   scripts/gpu-check.sh --pack build .gpu-carry        (here, after building)
#   device run, carry [".gpu-carry"]:
#     GPU_CHECK_BUDGET=370 SCALING_BUDGET=120 AUDIT_BUDGET=80 bash scripts/device-run.sh .gpu-carry
#
# Files come back under $OUT (at most 8): gpu-figures.txt, gpu-check.log,
# scaling/{results.tsv,key_shards.tsv,scaling.png,scaling.log,audit.log}.
set -u
P=${1:-.gpu-carry}
OUT=${OUT:-/tmp/device-run-out}; export OUT
mkdir -p "$OUT/scaling"
# Stop at once (keeping the lease's minutes) if the carried build cannot start.
T=$(mktemp -d /tmp/device-run.XXXXXX)
( . scripts/carried-libs.sh; use_carried_libs "$(cd "$P" && pwd)" "$T" && "$P/isocheck" info --devices ) || {
  echo "the carried isocheck does not start here:"; ldd "$P/isocheck" | grep -i "not found"; exit 1; }
# STEPS: which of gpu, scaling, audit, sweep to run (default the first three).
# sweep: bench/scaling/sweep.sh (the GPU end to end on contended BlindW-RW,
# strong scaling at 10^8 operations, weak scaling at 10^7 per rank; about
# 350 s on the H200 node), its tables into $OUT/sweep/.
STEPS=${STEPS:-gpu scaling audit}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
if has gpu; then bash scripts/gpu-check.sh "$P"; echo "gpu-check exit $?"; fi

if has scaling; then
S=$(mktemp -d /tmp/scaling.XXXXXX)
. scripts/carried-libs.sh
use_carried_libs "$(cd "$P" && pwd)" "$S" >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OPS=${OPS:-10000000} RANKS=${RANKS:-"1 2 4 8 16"} \
  timeout -k 5 "${SCALING_BUDGET:-150}" bash bench/scaling/run.sh "$P" "$S" >"$OUT/scaling/scaling.log" 2>&1
sc_rc=$?
cp "$S"/results.tsv "$S"/key_shards.tsv "$S"/scaling.png "$OUT/scaling/" 2>/dev/null
tail -n 40 "$OUT/scaling/scaling.log"
echo "scaling exit $sc_rc"
rm -rf "$S"/*.h5 "$S"/*.json
fi

if has sweep; then
  W=$(mktemp -d /tmp/sweep.XXXXXX); mkdir -p "$OUT/sweep"
  ( . scripts/carried-libs.sh; use_carried_libs "$(cd "$P" && pwd)" "$W" >/dev/null
    timeout -k 5 "${SWEEP_BUDGET:-540}" bash bench/scaling/sweep.sh "$P" "$W" ) >"$OUT/sweep/sweep.log" 2>&1
  echo "sweep exit $?"; tail -n 40 "$OUT/sweep/sweep.log"
  cp "$W"/strong/results.tsv "$W"/strong/key_shards.tsv "$W"/weak/weak.tsv "$W"/ks/ks.jsonl "$OUT/sweep/" 2>/dev/null
  rm -rf "$W"
fi

# 3. The audit of a 10^7-transaction RMW day log on this node's cores (the audit's
#    per-node goal is 10^6 txn/s), both rules.
has audit || exit 0
. scripts/carried-libs.sh
use_carried_libs "$(cd "$P" && pwd)" "$T" >/dev/null
A=$(mktemp -d /tmp/audit.XXXXXX)
TXNS=${AUDIT_TXNS:-10000000} WORKLOADS=rmw CONFIGS="sser:time ser,si,sser:fence" \
  timeout -k 5 "${AUDIT_BUDGET:-80}" bash bench/audit/run.sh "$P/isocheck" "$A" >"$OUT/scaling/audit.log" 2>&1
au_rc=$?
cat "$OUT/scaling/audit.log"
echo "audit exit $au_rc"
rm -rf "$A"

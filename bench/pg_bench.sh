#!/usr/bin/env bash
# Collector benchmark: throughput and abort rate of mini-transactions (mt, <= 4
# ops) against an 8-operation general read/write workload (rmw --ops 8: reads
# and read-modify-writes of 8 distinct keys), same server, sessions and keys.
# MTC's claim (mtc-mini-transactions §V-E): short transactions abort far less
# and generate histories faster.
#
# Usage: bench/pg_bench.sh [ISOCHECK_BINARY] [--txns N] [--sessions S] [--keys "K1 K2"]
#                          [--isolations "serializable repeatable-read"] [--dist uniform|zipf]
# Starts its own throwaway PostgreSQL (tests/pg/pg-cluster.sh) unless
# ISOCHECK_DSN is set. Prints one line per run and a markdown table.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$HERE/build/isocheck}
[[ $# -gt 0 ]] && shift
TXNS=4000 SESSIONS=8 KEYS="100 1000" ISOLATIONS="serializable repeatable-read" DIST=uniform
while [[ $# -gt 0 ]]; do
  case $1 in
    --txns) TXNS=$2; shift 2 ;;
    --sessions) SESSIONS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --isolations) ISOLATIONS=$2; shift 2 ;;
    --dist) DIST=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $BIN ]] || { echo "no isocheck binary at $BIN" >&2; exit 2; }

OUT=$(mktemp -d "${TMPDIR:-/tmp}/isocheck-pg-bench.XXXXXX")
if [[ -z ${ISOCHECK_DSN:-} ]]; then
  source "$HERE/tests/pg/pg-cluster.sh"
  pg_cluster_start || exit 1
  trap 'pg_cluster_stop; rm -rf "$OUT"' EXIT
else
  trap 'rm -rf "$OUT"' EXIT
fi

echo "# pg_bench: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'),"\
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(psql "$ISOCHECK_DSN" -tAc 'SHOW server_version')"
echo "# $SESSIONS sessions, $TXNS txns per run, $DIST keys"
rows=()
for iso in $ISOLATIONS; do
  for keys in $KEYS; do
    for wl in "mt" "rmw --ops 8"; do
      name=${wl%% *}
      log=$OUT/$name-$iso-$keys.log
      # shellcheck disable=SC2086
      if ! "$BIN" collect --dsn "$ISOCHECK_DSN" --workload $wl --isolation "$iso" \
          --sessions "$SESSIONS" --txns "$TXNS" --keys "$keys" --dist "$DIST" --quiet \
          --out "$OUT/h.jsonl" 2>"$log"; then
        cat "$log" >&2; exit 1
      fi
      line=$(sed -n 's/^collect: //p' "$log" | tail -1)
      echo "$line"
      # "N txns in S s (R txn/s): C committed, A aborted (P%: ..."
      read -r tps committed secs pct < <(sed -E 's/.* txns in ([0-9.]+) s \(([0-9]+) txn\/s\): ([0-9]+) committed, [0-9]+ aborted \(([0-9.]+)%.*/\2 \3 \1 \4/' <<<"$line")
      cps=$(awk -v c="$committed" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? c / s : 0) }')
      ops=$([[ $name == mt ]] && echo "<=4" || echo "8")
      rows+=("| $name | $ops | $iso | $keys | $tps | $cps | $pct% |")
    done
  done
done
echo
echo "| workload | ops/txn | isolation | keys | txns/s | committed/s | abort rate |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"

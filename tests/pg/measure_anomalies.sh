#!/usr/bin/env bash
# How often the anomalies the e2e cases look for appear, per 1000 transactions:
# runs each violation case's configuration R times (default 5) and prints
# tests/pg/count_anomalies.py's counts and verify's verdict per run.
# Usage: tests/pg/measure_anomalies.sh ISOCHECK_BINARY [RUNS] [NAME-FILTER]
# (count_anomalies.py cannot count blind-write patterns: for rc_blindw only
# verify's verdict is meaningful.)
set -u
BIN=$1 RUNS=${2:-5} FILTER=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/pg-cluster.sh"
pg_cluster_start || exit 1
OUT=$(mktemp -d "${TMPDIR:-/tmp}/isocheck-pg-measure.XXXXXX")
trap 'pg_cluster_stop; rm -rf "$OUT"' EXIT
configs=(
  "rr_write_skew|ser|--workload mt --isolation repeatable-read --keys 4 --txns 4000"
  "rc_lost_update|si|--workload mt --isolation read-committed --keys 4 --txns 2000"
  "rc_read_skew|si|--workload append --isolation read-committed --keys 8 --txns 1000"
  "rc_bank|si|--workload bank --isolation read-committed --keys 4 --txns 2000"
  "rc_blindw|si|--workload blindw-rw --isolation read-committed --keys 20 --txns 2000"
  "weak_rc_mt|ra|--workload mt --isolation read-committed --keys 4 --txns 4000"
  "weak_rc_append|ra|--workload append --isolation read-committed --keys 8 --txns 1000"
  "weak_rc_blindw|ra|--workload blindw-rw --isolation read-committed --keys 20 --txns 2000"
  "scan_rc|ra|--workload scan --isolation read-committed --keys 1024 --txns 2000"
  "scan_rr|ser|--workload scan --isolation repeatable-read --keys 1024 --txns 2000"
)
for c in "${configs[@]}"; do
  IFS='|' read -r name level args <<<"$c"
  [[ -z $FILTER || $name == *$FILTER* ]] || continue
  for ((r = 1; r <= RUNS; r++)); do
    # shellcheck disable=SC2086
    "$BIN" collect --dsn "$ISOCHECK_DSN" --sessions 8 --seed "$r" $args --quiet --out "$OUT/h.jsonl" 2>/dev/null || exit 1
    vrc=0
    "$BIN" verify "$OUT/h.jsonl" --level "$level" --json -q >"$OUT/v.json" 2>/dev/null || vrc=$?
    anomaly=$(jq -r '[.levels[].anomaly // empty] + [.anomalies[0].kind // empty] | first // "-"' "$OUT/v.json")
    echo "$name run $r: verify $level exit $vrc ($anomaly) $(python3 "$HERE/count_anomalies.py" "$OUT/h.jsonl")"
  done
done

#!/usr/bin/env bash
# Range-scan benchmark: how much longer `verify` takes on a history in which
# 20 % of the transactions also make a range scan of width 10-100 than on the
# same history without the scans.
#
#   bench/scan_bench.sh ISOCHECK [TXNS=1000000] [REPS=3] [DIR=a temporary folder]
#
# Four rmw histories, seed 1, the generator's defaults otherwise (1000 keys,
# 8 sessions, 2 read-modify-writes per transaction):
#   scans  --scans 20 --scan-width 10:100 (JSONL scan operations)
#   plain  the same seed without --scans: the scans' random choices come from a
#          stream of their own, so this is exactly the scans history with its
#          scan operations removed (the baseline the goal names: "the same
#          history without scans")
#   reads  --scans-as reads: each scan written as the point reads of every key
#          of its range instead (what verify expands a scan to), so scans/reads
#          is the cost of the scan spelling itself (reading it, expanding it)
#          and reads/plain the cost of the extra observations.
#   preds  scans' history with --scan-predicates 50: half the scans carry a
#          value predicate v > c (c a value written lately), whose silence
#          about a key is a read open among its versions that do not match,
#          placed by the engine (or the replay).
# Each is verified REPS times at --level ser and at --level si, alternating the
# files; every run must exit 0 (holds). Reported per file and level: wall
# seconds (min-max), CPU seconds user+sys (min-max), peak RSS; then the ratios
# of the minima. CPU time is the steadier figure on a shared machine.
set -euo pipefail
ISO=${1:?usage: scan_bench.sh ISOCHECK [TXNS] [REPS] [DIR]}
TXNS=${2:-1000000}
REPS=${3:-3}
DIR=${4:-}
if [[ -z $DIR ]]; then
  DIR=$(mktemp -d)
  trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"

gen() {  # name, extra options
  local name=$1
  shift
  "$ISO" generate -q --workload rmw --txns "$TXNS" --seed 1 "$@" --out "$DIR/$name.jsonl"
}
gen scans --scans 20 --scan-width 10:100
gen plain
gen reads --scans 20 --scan-width 10:100 --scans-as reads
gen preds --scans 20 --scan-width 10:100 --scan-predicates 50

echo "# $TXNS transactions, $REPS repetitions; $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in scans plain reads preds; do
  printf '# %-5s %s bytes\n' "$f" "$(stat -c %s "$DIR/$f.jsonl")"
done

RES="$DIR/results.txt"
: >"$RES"
for level in ser si; do
  for ((i = 1; i <= REPS; i++)); do
    for f in scans plain reads preds; do
      /usr/bin/time -o "$DIR/time" -f '%e %U %S %M' "$ISO" verify --level "$level" "$DIR/$f.jsonl" >/dev/null 2>"$DIR/err" || {
        echo "verify --level $level $f.jsonl did not exit 0:" >&2
        cat "$DIR/err" "$DIR/time" >&2
        exit 1
      }
      echo "$level $f $(tail -n 1 "$DIR/time")" >>"$RES"
    done
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

awk '
{ lv = $1; f = $2; w = $3; c = $4 + $5; m = $6
  k = lv " " f
  if (!(k in wmin) || w < wmin[k]) wmin[k] = w
  if (!(k in wmax) || w > wmax[k]) wmax[k] = w
  if (!(k in cmin) || c < cmin[k]) cmin[k] = c
  if (!(k in cmax) || c > cmax[k]) cmax[k] = c
  if (!(k in rss) || m > rss[k]) rss[k] = m }
END {
  printf "%-5s %-6s %-13s %-13s %s\n", "level", "file", "wall s", "cpu s", "peak RSS MB"
  split("ser si", L, " "); split("scans plain reads preds", F, " ")
  for (i = 1; i <= 2; ++i) for (j = 1; j <= 4; ++j) {
    k = L[i] " " F[j]
    printf "%-5s %-6s %5.2f-%-7.2f %5.2f-%-7.2f %d\n", L[i], F[j], wmin[k], wmax[k], cmin[k], cmax[k], rss[k] / 1024
  }
  for (i = 1; i <= 2; ++i) {
    s = L[i] " scans"; p = L[i] " plain"; r = L[i] " reads"; v = L[i] " preds"
    printf "%s: scans/plain wall %.2fx cpu %.2fx; scans/reads wall %.2fx cpu %.2fx; reads/plain cpu %.2fx; preds/plain wall %.2fx cpu %.2fx\n", L[i],
      wmin[s] / wmin[p], cmin[s] / cmin[p], wmin[s] / wmin[r], cmin[s] / cmin[r], cmin[r] / cmin[p], wmin[v] / wmin[p], cmin[v] / cmin[p]
  }
}' "$RES"

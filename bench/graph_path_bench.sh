#!/usr/bin/env bash
# The dependency-graph path against the replays, two binaries in the same run:
# CPU seconds (user + sys, /usr/bin/time), transactions per CPU second and
# peak memory of `isocheck verify FILE -q` on RMW histories read from HDF5,
#   (a)  an SI-valid, non-serializable history (`generate --isolation si`),
#        `--level si`;
#   (b)  one planted write skew, `--level ser,si,sser`;
#   (c)  a valid history with the graph path forced (`--no-serial-witness`),
#        `--level ser,si`;
# each beside the valid history of the same size with the same levels and the
# replay on ("valid"). Repetitions interleave the binaries. Prints one line
# per run, then min–max per case and binary.
#
# Usage: bench/graph_path_bench.sh OLD_BINARY NEW_BINARY [TXNS=1000000] [REPS=3] [DIR]
# Histories go to DIR (default ${TMPDIR:-/tmp}/isocheck-graph-bench), generated
# by NEW_BINARY when missing and kept between runs:
#   si-TXNS.h5     generate --isolation si --workload rmw --txns TXNS (8 sessions, 1000 keys)
#   valid-TXNS.h5  generate --workload rmw --txns TXNS --sessions 64 --keys TXNS/10 --seed 1
#   ws-TXNS.h5     the same with --plant write-skew
set -euo pipefail
old=$1 new=$2
txns=${3:-1000000}
reps=${4:-3}
dir=${5:-${TMPDIR:-/tmp}/isocheck-graph-bench}
mkdir -p "$dir"
si="$dir/si-$txns.h5" valid="$dir/valid-$txns.h5" ws="$dir/ws-$txns.h5"
[ -s "$si" ] || "$new" generate --isolation si --workload rmw --txns "$txns" --out "$si" -q
[ -s "$valid" ] || "$new" generate --workload rmw --txns "$txns" --sessions 64 --keys $((txns / 10)) --seed 1 --out "$valid" -q
[ -s "$ws" ] || "$new" generate --workload rmw --txns "$txns" --sessions 64 --keys $((txns / 10)) --seed 1 \
  --plant write-skew --out "$ws" -q
cases=(
  "a|$si|--level si"
  "a-valid|$valid|--level si"
  "b|$ws|--level ser,si,sser"
  "b-valid|$valid|--level ser,si,sser"
  "c|$valid|--level ser,si --no-serial-witness"
  "c-valid|$valid|--level ser,si"
)
results=$(mktemp)
trap 'rm -f "$results"' EXIT
printf '%-8s %-4s %3s %6s %8s %8s %8s %9s %s\n' case bin rep exit user_s sys_s cpu_s txn_per_s peak_MB
for rep in $(seq 1 "$reps"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r name file args <<< "$c"
    for bin in old new; do
      b=$old; [ $bin = new ] && b=$new
      # shellcheck disable=SC2086
      out=$( { /usr/bin/time -f "TIME %U %S %M" "$b" verify "$file" $args -q; } 2>&1 ) && rc=0 || rc=$?
      n=$(sed -nE 's/^[^ ]+: ([0-9]+) transactions.*/\1/p' <<< "$out" | head -1)
      read -r _ u s m < <(grep '^TIME ' <<< "$out" | tail -1)
      line=$(awk -v c="$name" -v b=$bin -v r="$rep" -v rc="$rc" -v u="$u" -v s="$s" -v m="$m" -v n="${n:-0}" 'BEGIN {
        cpu = u + s; printf "%-8s %-4s %3d %6d %8.2f %8.2f %8.2f %9.3gM %8.0f\n", c, b, r, rc, u, s, cpu, (cpu > 0 ? n / cpu / 1e6 : 0), m / 1024 }')
      echo "$line"
      echo "$line" >> "$results"
    done
  done
done
echo
echo "ranges over $reps runs (CPU s, M txn per CPU s, peak MB):"
for c in "${cases[@]}"; do
  name=${c%%|*}
  for bin in old new; do
    awk -v c="$name" -v b=$bin '$1 == c && $2 == b {
      cpu = $7; t = $8 + 0; m = $9 + 0;
      if (!k++) { lo = hi = cpu; tlo = thi = t; mlo = mhi = m; rc = $4 }
      lo = cpu < lo ? cpu : lo; hi = cpu > hi ? cpu : hi; tlo = t < tlo ? t : tlo; thi = t > thi ? t : thi
      mlo = m < mlo ? m : mlo; mhi = m > mhi ? m : mhi
    } END { if (k) printf "%-8s %-4s exit %d  cpu %.2f-%.2f s  %.2f-%.2f M txn/s  peak %d-%d MB\n", c, b, rc, lo, hi, tlo, thi, mlo, mhi }' "$results"
  done
done

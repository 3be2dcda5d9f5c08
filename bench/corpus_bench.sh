#!/usr/bin/env bash
# Corpus benchmark: the two large corpus histories, end to end (parse +
# check + report) through the isocheck binary, as CPU seconds (user + sys; the
# development machine is shared, so wall time is not a fair figure). Targets
# set when the importers landed: Elle's huge-scc.edn for strict serializability < 1 s, Cobra's
# yuga-G2-b (27k transactions) < 1 s. Also times `isocheck info` (parse only).
#
# Usage: bench/corpus_bench.sh [ISOCHECK_BINARY] [RUNS]     (defaults: build/isocheck, 5)
# Prints one markdown row per case: the minimum and median CPU seconds over RUNS
# runs, peak RSS, the verdict line, and whether the target is met. Exit 0.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/isocheck}
runs=${2:-5}
corpus=${ISOCHECK_CORPUS:-$here/../shared/corpus}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cases=(
  "huge-scc sser|$corpus/elle/histories/huge-scc.edn|verify -q --level sser|1.0"
  "huge-scc ser,si,sser|$corpus/elle/histories/huge-scc.edn|verify -q --level ser,si,sser|"
  "huge-scc parse (info)|$corpus/elle/histories/huge-scc.edn|info|"
  "yuga-G2-b ser|$corpus/cobra/ser-violation/yuga-G2-b|verify -q --level ser|1.0"
  "yuga-G2-b ser,si,sser|$corpus/cobra/ser-violation/yuga-G2-b|verify -q --level ser,si,sser|"
  "yuga-G2-b parse (info)|$corpus/cobra/ser-violation/yuga-G2-b|info|"
)
echo "| case | runs | CPU s min | CPU s median | max RSS MB | result | target |"
echo "|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS='|' read -r name file args target <<<"$c"
  [ -e "$file" ] || { echo "| $name | - | - | - | - | missing $file | - |"; continue; }
  : > "$tmp/cpu"; rss=0
  for ((i = 0; i < runs; i++)); do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$bin" $args "$file" > "$tmp/out" 2> "$tmp/err"
    read -r u s m < <(tail -1 "$tmp/t")
    echo "$u + $s" | bc >> "$tmp/cpu"
    [ "$m" -gt "$rss" ] && rss=$m
  done
  min=$(sort -g "$tmp/cpu" | head -1)
  med=$(sort -g "$tmp/cpu" | sed -n "$(( (runs + 1) / 2 ))p")
  verdict=$(grep -E "VIOLATED|holds|UNDECIDED" "$tmp/out" | tr '\n' ';' | sed 's/;$//; s/|/\//g')
  [ -z "$verdict" ] && verdict=$(grep -m1 -E "transactions" "$tmp/out" | cut -c1-60)
  met="-"
  if [ -n "$target" ]; then
    met=$(awk -v m="$min" -v t="$target" 'BEGIN { print (m < t) ? "< " t " s: met" : ">= " t " s: MISSED" }')
  fi
  printf '| %s | %d | %.2f | %.2f | %d | %s | %s |\n' "$name" "$runs" "$min" "$med" $((rss / 1024)) "$verdict" "$met"
done

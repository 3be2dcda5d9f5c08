# What bench/compare_reports.sh and bench/compare_audit_reports.sh share.
# Sourced after `old` and `new` (the two binaries) are set, and after the
# script defines mask (stdin to stdout: the report with its timing fields
# masked). Gives:
#   $root                     the repository
#   $tmp                      a fresh folder, removed on exit
#   compare INPUT WHAT ARGS...  runs both binaries with ARGS, then with ARGS
#                             --json; counts the report in $same when exit
#                             codes and masked reports are equal, else in
#                             $differ with a line naming the mode, WHAT (a
#                             label, may be empty) and INPUT
#   finish WHAT               prints the summary; fails when any differed
#   examples_and_corpus DIR [cobra]  the examples, then every history file of
#                             the corpus DIR (when it is there), into the
#                             array `inputs`; with `cobra`, Cobra's log folders too
#   generated_inputs PLANT...  appends to `inputs` one history per workload
#                             (rmw append mt blindw-rw) × isolation (ser si) ×
#                             plant (none, then each PLANT, planted twice),
#                             written by $old into $tmp/gen (a combination it
#                             refuses is left out); sets $gen to that folder
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
same=0 differ=0

compare() {
  local input=$1 what=$2 mode rc_old rc_new; shift 2
  for mode in text json; do
    local a=("$@")
    [ "$mode" = json ] && a+=(--json)
    "$old" "${a[@]}" > "$tmp/old" 2>&1; rc_old=$?
    "$new" "${a[@]}" > "$tmp/new" 2>&1; rc_new=$?
    if [ "$rc_old" = "$rc_new" ] && cmp -s <(mask < "$tmp/old") <(mask < "$tmp/new"); then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "differs ($mode${what:+, $what}, exit $rc_old -> $rc_new): ${input#$root/}"
    fi
  done
}

finish() {
  echo "$same $1 identical, $differ differ"
  [ "$differ" -eq 0 ]
}

examples_and_corpus() {
  local corpus=$1
  inputs=("$root"/examples/*.jsonl)
  [ -d "$corpus" ] || return 0
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$corpus" -type f \( -name '*.edn' -o -name '*.json' \
    -o -name '*.jsonl' -o -name '*.txt' -o -name '*.yaml' -o -name '*.bincode' -o -name '*.hist' \) | sort)
  [ "${2:-}" = cobra ] || return 0
  while IFS= read -r d; do inputs+=("$d"); done < <(find "$corpus/cobra" -mindepth 1 -type d 2>/dev/null \
    -exec sh -c 'ls "$1"/T*.log >/dev/null 2>&1' _ {} \; -print | sort)
}

generated_inputs() {
  gen=$tmp/gen
  mkdir -p "$gen"
  local seed=1 w iso p f plant
  for w in rmw append mt blindw-rw; do
    for iso in ser si; do
      for p in none "$@"; do
        f=$gen/$w-$iso-$p.jsonl
        plant=()
        [ "$p" = none ] || plant=(--plant "$p" --plant "$p")
        "$old" generate --workload "$w" --isolation "$iso" --txns 3000 --sessions 16 --keys 200 --seed $seed \
          "${plant[@]}" --out "$f" -q 2>/dev/null || continue
        seed=$((seed + 1))
        inputs+=("$f")
      done
    done
  done
}

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

#!/usr/bin/env bash
# Every bundled example through the real CLI: exit code 0/1 and the per-level
# verdicts of examples/EXPECTED.tsv (file ser si sser anomaly).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
while IFS=$'\t' read -r file ser si sser anomaly; do
  [ "$file" = "file" ] && continue
  out=$("$bin" verify -q --json --level ser,si,sser "$src/examples/$file"); rc=$?
  want=0; [ "$ser$si$sser" != "holdsholdsholds" ] && want=1
  got=$(printf '%s' "$out" | jq -r '[.levels[] | if .holds then "holds" else "violated" end] | join(" ")')
  if [ "$rc" -eq "$want" ] && [ "$got" = "$ser $si $sser" ]; then
    pass
  else
    fail "$file: exit $rc (want $want), verdicts '$got' (want '$ser $si $sser')"
  fi
done < "$src/examples/EXPECTED.tsv"
summary

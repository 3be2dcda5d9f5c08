#!/usr/bin/env bash
# The `rules out` lines and JSON `rules_out` arrays along the whole lattice
# RU ⊂ RC ⊂ RA ⊂ CC ⊂ PC ⊂ SI ⊂ SER ⊂ SSER: per planted cycle shape (G0, G1c,
# G-single, write skew, long fork, stale read) the exact list every violated
# level gives, with every level asked and with SER, SI and SSER alone; a G0
# rules out RU too. Each text line says the same as its JSON array, names
# the weaker levels it does not rule out, and no list names a level that
# holds in the same report.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
need jq

all=read-uncommitted,read-committed,read-atomic,causal,prefix,snapshot-isolation,serializable,strict-serializable
from() { echo "${all#*"$1"}" | sed "s/^/$1/"; }  # the lattice from level $1 up
short() {  # long names (comma-separated) to the text's short ones
  echo "$1" | sed 's/read-uncommitted/RU/; s/read-committed/RC/; s/read-atomic/RA/; s/causal/CC/; s/prefix/PC/;
                   s/snapshot-isolation/SI/; s/strict-serializable/SSER/; s/serializable/SER/; s/,/, /g'
}

# plant, the lattice (RU RC RA CC PC SI SER SSER, 1 holds), the weakest level
# every violated level's list starts from
while read -r plant lattice weakest; do
  f="$tmp/$plant.jsonl"
  "$bin" generate --workload rmw --txns 60 --sessions 4 --plant "$plant" --seed 5 --out "$f" -q \
    || { fail "$plant: generate"; continue; }
  want=$(from "$weakest")
  for levels in all ser,si,sser; do
    check "$plant $levels: violated" 1 "$bin" verify -q --level "$levels" --json "$f"
    if [ "$levels" = all ]; then
      got=$(jq -r '[.levels[] | if .holds then "1" else "0" end] | join("")' "$tmp/out")
      [ "$got" = "$lattice" ] && pass || fail "$plant: lattice $got, want $lattice"
    fi
    bad=$(jq -r --arg w "$want" '.levels[] | select(.holds | not) | select((.rules_out | join(",")) != $w)
                                  | "\(.level): \(.rules_out | join(","))"' "$tmp/out")
    [ -z "$bad" ] && pass || fail "$plant $levels: rules_out not $want: $bad"
    # The text: one "rules out" line per violated level, the same list.
    jq -r '.levels[] | select(.holds | not) | .rules_out | join(",")' "$tmp/out" > "$tmp/json_lines"
    check "$plant $levels: text" 1 "$bin" verify -q --level "$levels" "$f"
    grep -A1 ': VIOLATED' "$tmp/out" | sed -n 's/^  rules out: \([^(]*[^ (]\).*/\1/p' > "$tmp/text_lines"
    while read -r l; do short "$l"; done < "$tmp/json_lines" > "$tmp/json_short"
    same "$plant $levels: text lines = JSON arrays" "$tmp/text_lines" "$tmp/json_short"
    if [ "$weakest" = read-uncommitted ]; then
      lacks "$plant $levels: nothing left out" "$tmp/out" "(not "
    else
      expect_out "$plant $levels: the weaker levels named" "^  rules out: $(short "$want") \\(not RU"
    fi
  done
done <<'TABLE'
g0 00000000 read-uncommitted
g1c 10000000 read-committed
g-single 11100000 causal
write-skew 11111100 serializable
long-fork 11110000 prefix
stale-read 11111110 strict-serializable
TABLE
summary

#!/usr/bin/env bash
# A level failed by a per-transaction anomaly (aborted read, intermediate read,
# lost update, thin-air read) names it in the report as a level failed by a
# cycle names its witness: JSON `anomaly` (the kind), `rules_out`,
# `first_anomaly` (the same object as in `anomalies[]`: kind, transactions,
# key) and `anomaly_count`; the lattice's `weakest_violated.anomaly`; text
# `LEVEL: VIOLATED: KIND` with the explanation. Histories generated with one
# planted anomaly each (`generate --plant`).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
need jq

# plant, the anomaly's kind, the lattice (RU RC RA CC PC SI SER SSER, 1 holds),
# the rules_out list of every violated level (comma-separated)
while read -r plant lattice rules kind; do
  f="$tmp/$plant.jsonl"
  "$bin" generate --workload rmw --txns 60 --sessions 4 --plant "$plant" --seed 5 --out "$f" -q \
    || { fail "$plant: generate"; continue; }
  check "$plant: violated" 1 "$bin" verify -q --level all --json "$f"
  json="$tmp/out"
  got=$(jq -r '[.levels[] | if .holds then "1" else "0" end] | join("")' "$json")
  [ "$got" = "$lattice" ] && pass || fail "$plant: lattice $got, want $lattice"
  # The one anomaly the plant makes, as the anomalies list gives it.
  n=$(jq '[.anomalies[] | select(.kind == $k)] | length' --arg k "$kind" "$json")
  [ "$n" -ge 1 ] && pass || fail "$plant: no '$kind' in anomalies[]"
  bad=$(jq -c --arg k "$kind" --arg r "$rules" '
    (first(.anomalies[] | select(.kind == $k))) as $a
    | .levels[] | select(.holds | not)
    | select(.anomaly != $k or (.rules_out | join(",")) != $r or .first_anomaly != $a
             or .anomaly_count < 1 or (.reason | length) == 0)
    | {level, anomaly, rules_out, first_anomaly, anomaly_count}' "$json")
  [ -z "$bad" ] && pass || fail "$plant: violated levels that do not name '$kind' as wanted: $bad"
  # Levels that hold carry none of it.
  bad=$(jq -c '.levels[] | select(.holds) | select(has("anomaly") or has("first_anomaly") or has("rules_out")) | .level' "$json")
  [ -z "$bad" ] && pass || fail "$plant: levels that hold name an anomaly: $bad"
  w=$(jq -r '.lattice.weakest_violated.anomaly' "$json")
  [ "$w" = "$kind" ] && pass || fail "$plant: lattice.weakest_violated.anomaly is '$w', want '$kind'"
  # Text: each violated level names it; the explanation is given once.
  check "$plant: text" 1 "$bin" verify -q --level all "$f"
  expect_out "$plant: serializable named" "^serializable: VIOLATED: ${kind//(/\\(}"
  expect_out "$plant: weakest named in the lattice" "weakest violated: .*: ${kind//(/\\(}"
  c=$(grep -c 'the same anomaly as above' "$tmp/out")
  v=$(grep -c ': VIOLATED: ' "$tmp/out")
  [ "$c" -eq $((v - 1)) ] && pass || fail "$plant: $v violated levels, $c 'the same anomaly as above' lines"
done <<'TABLE'
g1a 10000000 read-committed,read-atomic,causal,prefix,snapshot-isolation,serializable,strict-serializable G1a (aborted read)
g1b 10000000 read-committed,read-atomic,causal,prefix,snapshot-isolation,serializable,strict-serializable G1b (intermediate read)
lost-update 11111000 snapshot-isolation,serializable,strict-serializable lost update
thin-air 00000000 read-uncommitted,read-committed,read-atomic,causal,prefix,snapshot-isolation,serializable,strict-serializable thin-air read
TABLE

# One level: the reason and the name agree, and SER alone names it too.
"$bin" generate --workload rmw --txns 60 --sessions 4 --plant g1b --seed 7 --out "$tmp/one.jsonl" -q
check "ser alone" 1 "$bin" verify -q --level ser --json "$tmp/one.jsonl"
has "ser alone: named" "$tmp/out" '"anomaly":"G1b (intermediate read)","rules_out":["read-committed"'
check "rc alone" 1 "$bin" verify -q --level rc "$tmp/one.jsonl"
expect_out "rc alone: named" "^read-committed: VIOLATED: G1b \\(intermediate read\\)$"
expect_out "rc alone: reason kept" "^  the history contains G1b \\(intermediate read\\), which RC does not allow$"
expect_out "rc alone: explained" "^  T[0-9]+ read key [0-9]+=1, an intermediate value: T[0-9]+ overwrote it"
summary

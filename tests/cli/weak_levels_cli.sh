#!/usr/bin/env bash
# The weak levels through the real CLI: `--level all` on every bundled example
# gives the expected lattice (RU RC RA CC PC SI SER SSER), the JSON lattice
# summary names the weakest violated level, a single weak level exits 0 on the
# anomalies it allows, and audit and the distributed driver refuse weak levels.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
need jq
# file, then RU RC RA CC PC SI SER SSER (1 holds, 0 violated), then the weakest violated level
while read -r file lattice weakest; do
  out=$("$bin" verify -q --json --level all "$src/examples/$file"); rc=$?
  want=0; [ "$lattice" != "11111111" ] && want=1
  got=$(printf '%s' "$out" | jq -r '[.levels[] | if .holds then "1" else "0" end] | join("")')
  w=$(printf '%s' "$out" | jq -r '.lattice.weakest_violated.level // "-"')
  if [ "$rc" -eq "$want" ] && [ "$got" = "$lattice" ] && [ "$w" = "$weakest" ]; then
    pass
  else
    fail "$file: exit $rc (want $want), lattice $got (want $lattice), weakest violated $w (want $weakest)"
  fi
done <<'TABLE'
serializable.jsonl 11111111 -
serializable_list_append.jsonl 11111111 -
serializable_rmw_times.jsonl 11111111 -
stale_read_realtime.jsonl 11111110 strict-serializable
g2_item_write_skew.jsonl 11111100 serializable
lost_update.jsonl 11111000 snapshot-isolation
long_fork.jsonl 11110000 prefix
causality_violation.jsonl 11100000 causal
g_single_read_skew.jsonl 11000000 read-atomic
nonrepeatable_read.jsonl 11000000 read-atomic
fractured_read.jsonl 10000000 read-committed
g1a_aborted_read.jsonl 10000000 read-committed
g1b_intermediate_read.jsonl 10000000 read-committed
g1c_circular_information_flow.jsonl 10000000 read-committed
g0_list_append.jsonl 00000000 read-uncommitted
duplicate_write.jsonl 00000000 read-uncommitted
thin_air_read.jsonl 00000000 read-uncommitted
internal_inconsistency.jsonl 00000000 read-uncommitted
TABLE

# One weak level: the anomalies it allows are not violations (and not listed).
check "pc allows a lost update" 0 "$bin" verify --level pc "$src/examples/lost_update.jsonl"
lacks "pc: no anomaly listed" "$tmp/out" "anomalies"
check "si forbids it" 1 "$bin" verify --level si "$src/examples/lost_update.jsonl"
check "rc allows a non-repeatable read" 0 "$bin" verify --level rc "$src/examples/nonrepeatable_read.jsonl"
check "ra forbids it" 1 "$bin" verify --level ra "$src/examples/nonrepeatable_read.jsonl"
check "ru allows an aborted read" 0 "$bin" verify --level ru "$src/examples/g1a_aborted_read.jsonl"
check "cc: long names too" 1 "$bin" verify --level causal "$src/examples/causality_violation.jsonl"
expect_out "cc: witness named" "causal: VIOLATED: causality violation"
expect_out "cc: lattice line first" "^lattice: CC=VIOLATED"
check "pc: long fork" 1 "$bin" verify --level prefix "$src/examples/long_fork.jsonl"
expect_out "pc: witness named" "prefix: VIOLATED: G-nonadjacent \\(long fork\\)"
# PC's witness is a dependency cycle: named by its shape, as SER's is, and read
# as SER's for what it rules out (a fractured read rules out RA, not only PC).
check "pc: a fractured read" 1 "$bin" verify --level pc --no-serial-witness "$src/examples/fractured_read.jsonl"
expect_out "pc: named by the cycle" "prefix: VIOLATED: G-single \\(fractured read\\)"
expect_out "pc: rules out RA too" "rules out: RC, RA, CC, PC, SI, SER, SSER \\(not RU;"
check "ra: fractured read" 1 "$bin" verify --level ra "$src/examples/g_single_read_skew.jsonl"
expect_out "ra: witness named" "read-atomic: VIOLATED: fractured read"
expect_out "ra: dependency form" "T3 -rw-> T2"

# audit decides them, forgetting nothing (docs/audit.md, "Weak levels"): the
# verdicts of verify, level by level.
check "audit: rc holds" 0 "$bin" audit --level rc "$src/examples/serializable.jsonl" -q
expect_out "audit: rc named" "read-committed: HOLDS"
expect_out "audit: rule none, saying why" "the fence rule: no fence transactions"
check "audit: lost update" 1 "$bin" audit --level rc,ra,si "$src/examples/lost_update.jsonl" -q --round 1
expect_out "audit: lost update allowed by RC" "read-committed: HOLDS"
expect_out "audit: and by RA" "read-atomic: HOLDS"
expect_out "audit: not by SI" "snapshot-isolation: VIOLATED"
check "audit: fractured read" 1 "$bin" audit --level ru,ra "$src/examples/fractured_read.jsonl" -q
expect_out "audit: fractured read allowed by RU" "read-uncommitted: HOLDS"
expect_out "audit: not by RA" "read-atomic: VIOLATED"

# --key-shards decides SER, SI and SSER only: asked for a weak level, the
# run says so in one line and the blocks decide every level (the one-process
# report, word for word).
for ex in serializable fractured_read; do
  "$bin" verify --level all -q "$src/examples/$ex.jsonl" > "$tmp/one.txt"; want=$?
  check "key shards: $ex decided" $want "$bin" verify --key-shards --level all "$src/examples/$ex.jsonl"
  expect_one_err "key shards: $ex says why" "key shards not used: they decide ser, si and sser only, and RU, RC, RA, CC, PC were asked"
  check "key shards: $ex quiet" $want "$bin" verify --key-shards --level all -q "$src/examples/$ex.jsonl"
  same "key shards: $ex report" "$tmp/out" "$tmp/one.txt"
done
check "key shards: one weak level" 0 "$bin" verify --key-shards --level ser,rc "$src/examples/serializable.jsonl"
expect_one_err "key shards: names it" "and RC was asked; checking the usual way"
summary

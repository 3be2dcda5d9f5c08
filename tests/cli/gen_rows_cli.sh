#!/usr/bin/env bash
# `generate --workload rows` and the predicate plants through the CLI: the
# rows history holds every level (verify decides it: exit 0), each plant is
# found and named as src/gen/PLANTS.md says, and what the generator cannot
# write or simulate is refused (exit 2, one message line).
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
check_messages=1

check help 0 "$bin" generate --help
expect_out help_rows "rows: SQL-shaped rows"

check gen_rows 0 "$bin" generate --workload rows --txns 5000 --keys 100 --scan-width 2:20 --seed 3 --out "$tmp/rows.jsonl"
expect_err gen_rows_counts "are inserts, [1-9][0-9]* deletes"
has gen_rows_insert "$tmp/rows.jsonl" '["insert",'
has gen_rows_delete "$tmp/rows.jsonl" '["delete",'
check verify_rows 0 "$bin" verify --level all "$tmp/rows.jsonl"

check gen_pws 0 "$bin" generate -q --workload rows --txns 2000 --seed 4 --plant predicate-write-skew --out "$tmp/pws.jsonl"
check verify_pws 1 "$bin" verify --level ser,si "$tmp/pws.jsonl"
expect_out pws_named "serializable: VIOLATED: G2-item \(predicate write skew\)"
expect_out pws_si_holds "snapshot-isolation: holds"

check gen_plu 0 "$bin" generate -q --workload rmw --txns 2000 --seed 4 --plant predicate-lost-update --out "$tmp/plu.jsonl"
check verify_plu 1 "$bin" verify --level si "$tmp/plu.jsonl"
expect_out plu_named "lost update"

check rows_h5 2 "$bin" generate --workload rows --txns 10 --out "$tmp/rows.h5"
expect_one_err rows_h5_msg "written as JSONL only"
check rows_si 2 "$bin" generate --workload rows --isolation si --txns 10 --out "$tmp/si.jsonl"
expect_one_err rows_si_msg "workload rows is not simulated under snapshot isolation"
check rows_reads_h5 0 "$bin" generate -q --workload rows --txns 500 --scans-as reads --out "$tmp/reads.h5"
check verify_reads_h5 0 "$bin" verify --level all "$tmp/reads.h5"
summary

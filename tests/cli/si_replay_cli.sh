#!/usr/bin/env bash
# generate --isolation si and the SI replay end to end: a contended
# snapshot-isolation history holds for si (settled by the replay, and by the
# graph with --no-si-replay) and fails ser (write skews); plants still work;
# bad --isolation values are usage errors.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
check_messages=1

check gen 0 "$bin" generate --isolation si --workload rmw --txns 3000 --keys 30 --sessions 16 --out "$tmp/si.h5"
expect_err gen "attempts aborted by first committer wins"
check si 0 "$bin" verify -q "$tmp/si.h5" --level si
expect_out si "^SI replay: begin and commit events in time order"
expect_out si "snapshot-isolation: holds"
check si-json 0 "$bin" verify -q "$tmp/si.h5" --level si --json
expect_out si-json '"si_replay":true'
check si-graph 0 "$bin" verify -q "$tmp/si.h5" --level si --no-si-replay --json
expect_out si-graph '"si_replay":false'
check si-time-order 0 "$bin" verify -q "$tmp/si.h5" --level si --time-order
check ser 1 "$bin" verify -q "$tmp/si.h5" --level ser,si
expect_out ser "serializable: VIOLATED"
expect_out ser "snapshot-isolation: holds"

check gen-plant 0 "$bin" generate --isolation si --workload mt --txns 2000 --keys 50 --plant g-single --out "$tmp/p.jsonl"
check plant 1 "$bin" verify -q "$tmp/p.jsonl" --level si
expect_out plant "snapshot-isolation: VIOLATED"
check gen-skew 0 "$bin" generate --isolation si --workload mt --txns 2000 --keys 50 --plant write-skew --out "$tmp/w.jsonl"
check skew 0 "$bin" verify -q "$tmp/w.jsonl" --level si

check gen-ser 0 "$bin" generate --isolation ser --workload rmw --txns 2000 --keys 30 --sessions 16 --out "$tmp/ser.jsonl"
check ser-holds 0 "$bin" verify -q "$tmp/ser.jsonl" --level ser,si,sser

# A serial execution (overlapping intervals, reads in begin order) with a
# planted write skew: the time replay fails at the first overlap, the
# begin-order replay settles SI; SER fails on the skew.
check gen-ser-skew 0 "$bin" generate --isolation ser --workload rmw --txns 2000 --keys 30 --sessions 16 \
  --plant write-skew --out "$tmp/ser-skew.h5"
check ser-skew 1 "$bin" verify -q "$tmp/ser-skew.h5" --level ser,si
expect_out ser-skew "^SI replay: commits in begin-time order, each snapshot the latest one that answers its reads"
expect_out ser-skew "serializable: VIOLATED: G2-item \(write skew\)"
expect_out ser-skew "snapshot-isolation: holds"
check ser-skew-graph 1 "$bin" verify -q "$tmp/ser-skew.h5" --level ser,si --no-si-replay --json
expect_out ser-skew-graph '"si_replay":false'
expect_out ser-skew-graph '"level":"snapshot-isolation","decided":true,"holds":true'

check bad-isolation 2 "$bin" generate --isolation repeatable-read --workload rmw --out "$tmp/x.jsonl"
expect_err bad-isolation "unknown isolation 'repeatable-read' \\(ser, si or rc\\)"
check si-append 2 "$bin" generate --isolation si --workload append --out "$tmp/x.jsonl"
expect_err si-append "--isolation si: workload append"
summary

#!/usr/bin/env bash
# End-to-end tests of the explanations: text ("rules out", edge explanations),
# JSON ("rules_out", "core"), DOT, and the self-contained --html report.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
ex="$src/examples"

check skew 1 "$bin" verify -q "$ex/g2_item_write_skew.jsonl" --level ser,si,sser --html "$tmp/skew.html" --dot "$tmp/skew.dot"
has skew "$tmp/out" "serializable: VIOLATED: G2-item (write skew)"
has skew "$tmp/out" "rules out: SER, SSER (not RU, RC, RA, CC, PC, SI"
has skew "$tmp/out" "but T2's write y=2 is a later version of y: T1 did not see it"
has skew "$tmp/out" "snapshot-isolation: holds"
has skew-html "$tmp/skew.html" "<!DOCTYPE html>"
has skew-html "$tmp/skew.html" "<svg"
has skew-html "$tmp/skew.html" "G2-item (write skew)"
has skew-html "$tmp/skew.html" "<th>session</th><th>status</th><th>begin</th><th>end</th><th>operations</th>"
has skew-html "$tmp/skew.html" "r x null; r y null; w x 1"
lacks skew-html "$tmp/skew.html" "<script"
# The only URL is the SVG namespace name: nothing is fetched.
urls=$(grep -o 'https\?://[^"]*' "$tmp/skew.html" | sort -u | tr '\n' ' ')
if [ "$urls" != "http://www.w3.org/2000/svg " ]; then fail "skew-html: URLs: $urls"; else pass; fi
lacks skew-html "$tmp/skew.html" 'src="'
has skew-dot "$tmp/skew.dot" "rules out SER, SSER"
has skew-dot "$tmp/skew.dot" "style=dashed"

check skew-json 1 "$bin" verify -q "$ex/g2_item_write_skew.jsonl" --level ser,si --json
has skew-json "$tmp/out" '"rules_out":["serializable","strict-serializable"]'

check longfork 1 "$bin" verify -q "$ex/long_fork.jsonl" --level si
has longfork "$tmp/out" "G-nonadjacent (long fork)"
has longfork "$tmp/out" "rules out: PC, SI, SER, SSER (not RU, RC, RA, CC"

check stale 1 "$bin" verify -q "$ex/stale_read_realtime.jsonl" --level sser --json
has stale "$tmp/out" '"anomaly":"G-single-realtime (stale read)","rules_out":["strict-serializable"]'
has stale "$tmp/out" 'before T2 began (at 20 ms): real-time order'

check g1a 1 "$bin" verify -q "$ex/g1a_aborted_read.jsonl" --json --html "$tmp/g1a.html"
has g1a "$tmp/out" '"rules_out":["read-committed","read-atomic","causal","prefix","snapshot-isolation","serializable","strict-serializable"]'
has g1a-html "$tmp/g1a.html" "Anomalies (1)"

check lost 1 "$bin" verify -q "$ex/lost_update.jsonl"
has lost "$tmp/out" "[rules out SI, SER, SSER]"

check holds 0 "$bin" verify -q "$ex/serializable.jsonl" --level ser,si,sser --html "$tmp/ok.html"
has holds "$tmp/ok.html" "every requested level holds"
lacks holds "$tmp/ok.html" "<svg"

check badhtml 2 "$bin" verify -q "$ex/serializable.jsonl" --html "$tmp/no/such/dir/x.html"
has badhtml "$tmp/err" "--html: cannot write"

summary

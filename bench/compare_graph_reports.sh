#!/usr/bin/env bash
# Runs two isocheck binaries with the dependency-graph path forced
# (`--no-serial-witness`, with and without the SI replay and the local
# search) on every example, every corpus history, generated histories with
# each planted anomaly, and a few histories built to stress the (key, value)
# -> writer join: duplicate writes, reads of values never written, aborted
# and unknown writers, intermediate values, lists. Compares their reports
# (text and JSON), byte for byte, with the timing fields masked. For changes
# to the known-graph build: the reports must not change.
#   bench/compare_graph_reports.sh OLD_BINARY NEW_BINARY [CORPUS_DIR]
# CORPUS_DIR defaults to $ISOCHECK_CORPUS, else ../shared/corpus beside the
# repository when it is there. Prints one line per differing report and a
# summary; exits 1 when any report differs.
set -uo pipefail
old=$1 new=$2
. "$(dirname "$0")/compare_lib.sh"
corpus=${3:-${ISOCHECK_CORPUS:-$root/../shared/corpus}}
examples_and_corpus "$corpus" cobra
generated_inputs g0 g1a g1b g1c g-single write-skew lost-update thin-air stale-read
# Larger, so that the join has many partitions: one valid, one with a write skew.
"$old" generate --workload rmw --txns 60000 --sessions 64 --keys 5000 --seed 7 --out "$gen/rmw60k.h5" -q &&
  inputs+=("$gen/rmw60k.h5")
"$old" generate --workload rmw --txns 60000 --sessions 64 --keys 5000 --seed 8 --plant write-skew --out "$gen/ws60k.h5" -q &&
  inputs+=("$gen/ws60k.h5")
# Random small register histories with every kind of trouble at once:
# repeated (key, value) writes (also inside one transaction), reads of values
# nobody wrote, of aborted and unknown writers, of non-final writes, and
# their own later writes.
awk -v seed=11 'BEGIN {
  srand(seed); split("committed committed committed committed aborted unknown", st, " ");
  print "{\"isocheck\":1}";
  for (h = 0; h < 400; ++h) {
    n = 2 + int(rand() * 6);
    line = "{\"id\":" h ",\"session\":" int(rand() * 4) ",\"status\":\"" st[1 + int(rand() * 6)] "\",\"ops\":[";
    for (i = 0; i < n; ++i) {
      k = int(rand() * 12); v = 1 + int(rand() * 60);
      op = rand() < 0.5 ? "r" : "w";
      if (op == "r" && rand() < 0.15) line = line (i ? "," : "") "[\"r\"," k ",null]";
      else line = line (i ? "," : "") "[\"" op "\"," k "," v "]";
    }
    print line "]}";
  }
}' > "$gen/messy.jsonl"
inputs+=("$gen/messy.jsonl")
mask() { sed -E 's/"seconds": ?[0-9.e+-]+/"seconds":_/g; s/[0-9]+(\.[0-9]+)? s\b/_ s/g'; }
for f in "${inputs[@]}"; do
  compare "$f" "graph, ser,si,sser" verify "$f" --level ser,si,sser --no-serial-witness -q
  compare "$f" "graph, ser,si, no local search" verify "$f" --level ser,si --no-serial-witness --no-local-search -q
  compare "$f" "graph, si, no SI replay" verify "$f" --level si --no-serial-witness --no-si-replay -q
done
finish reports

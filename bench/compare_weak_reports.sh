#!/usr/bin/env bash
# Runs two isocheck binaries with every weak level (`--level all`, and
# rc,ra,cc and cc alone without the serial witness, so the saturation engine
# decides, CC's included where a weaker level already fails) on
# every example, every corpus history, and generated histories with each
# planted anomaly, and compares their reports (text and JSON), byte for byte,
# with the timing fields masked. For changes to the weak-level engines: the
# reports must not change.
#   bench/compare_weak_reports.sh OLD_BINARY NEW_BINARY [CORPUS_DIR]
# CORPUS_DIR defaults to $ISOCHECK_CORPUS, else ../shared/corpus beside the
# repository when it is there. Prints one line per differing report and a
# summary; exits 1 when any report differs.
set -uo pipefail
old=$1 new=$2
. "$(dirname "$0")/compare_lib.sh"
corpus=${3:-${ISOCHECK_CORPUS:-$root/../shared/corpus}}
examples_and_corpus "$corpus"
generated_inputs g0 g1a g1b g1c g-single write-skew lost-update fractured-read long-fork stale-read causality-violation
mask() { sed -E 's/"seconds": ?[0-9.e+-]+/"seconds":_/g; s/[0-9]+(\.[0-9]+)? s\b/_ s/g'; }
for f in "${inputs[@]}"; do
  compare "$f" all verify "$f" --level all -q
  compare "$f" "rc,ra,cc" verify "$f" --level rc,ra,cc --no-serial-witness -q
  compare "$f" cc verify "$f" --level cc --no-serial-witness -q
done
finish reports

#!/usr/bin/env bash
# Runs two isocheck binaries on every example and every corpus history and
# compares their reports (text and JSON, every level), byte for byte, with the
# timing fields masked. For refactorings: the reports must not change.
#   bench/compare_reports.sh OLD_BINARY NEW_BINARY [CORPUS_DIR]
# CORPUS_DIR defaults to $ISOCHECK_CORPUS, else ../shared/corpus beside the
# repository when it is there. Prints one line per differing report and a
# summary; exits 1 when any report differs.
set -uo pipefail
old=$1 new=$2
. "$(dirname "$0")/compare_lib.sh"
corpus=${3:-${ISOCHECK_CORPUS:-$root/../shared/corpus}}
examples_and_corpus "$corpus" cobra
mask() { sed -E 's/"seconds": ?[0-9.e+-]+/"seconds":_/g; s/[0-9]+(\.[0-9]+)? s\b/_ s/g'; }
for f in "${inputs[@]}"; do
  compare "$f" "" verify "$f" --level ser,si,sser -q
done
finish reports

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
inputs=("$root"/examples/*.jsonl)
if [ -d "$corpus" ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$corpus" -type f \( -name '*.edn' -o -name '*.json' \
    -o -name '*.jsonl' -o -name '*.txt' -o -name '*.yaml' -o -name '*.bincode' -o -name '*.hist' \) | sort)
  while IFS= read -r d; do inputs+=("$d"); done < <(find "$corpus/cobra" -mindepth 1 -type d 2>/dev/null \
    -exec sh -c 'ls "$1"/T*.log >/dev/null 2>&1' _ {} \; -print | sort)
fi
mask() { sed -E 's/"seconds": ?[0-9.e+-]+/"seconds":_/g; s/[0-9]+(\.[0-9]+)? s\b/_ s/g'; }
for f in "${inputs[@]}"; do
  compare "$f" "" verify "$f" --level ser,si,sser -q
done
finish reports

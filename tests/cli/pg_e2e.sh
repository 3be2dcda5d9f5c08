#!/usr/bin/env bash
# End-to-end: isocheck collect against a throwaway PostgreSQL, then isocheck
# verify. Usage: pg_e2e.sh ISOCHECK_BINARY SOURCE_DIR [CASE...]
# (cases: tests/pg/cases.sh; all by default). Skips (exit 0) when the
# PostgreSQL server binaries are not installed (exit 77: ctest shows the test
# as skipped). Every case must pass: a verdict left undecided is a failure.
# KEEP_WORK=1 keeps the histories and verify outputs.
set -u
BIN=$1 SRC=$2
shift 2
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
if [[ ! -x $PG_BIN/initdb || ! -x $PG_BIN/pg_ctl ]]; then
  echo "SKIP: PostgreSQL server binaries not found in $PG_BIN (install postgresql: scripts/deps.sh)"
  exit 77
fi
for tool in jq psql; do
  command -v $tool >/dev/null || { echo "FAIL: $tool is needed"; exit 1; }
done
source "$SRC/tests/pg/pg-cluster.sh"
source "$SRC/tests/pg/cases.sh"

pg_cluster_start || { echo "FAIL: could not start PostgreSQL"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/isocheck-pg-e2e.XXXXXX")
cleanup() { pg_cluster_stop; [[ -n ${KEEP_WORK:-} ]] || rm -rf "$WORK"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
export BIN SRC WORK

cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=("${PG_CASES[@]}")
failed=() pending=()
for c in "${cases[@]}"; do
  if ! declare -F "case_$c" >/dev/null; then echo "unknown case $c"; failed+=("$c"); continue; fi
  echo "== $c"
  rc=0
  ( set -o pipefail; "case_$c" ) || rc=$?
  case $rc in
    0) echo "   PASS $c" ;;
    77) echo "   FAIL (undecided) $c"; failed+=("$c") ;;
    *) echo "   FAIL $c"; failed+=("$c") ;;
  esac
done
echo "pg_e2e: ${#cases[@]} cases, ${#failed[@]} failed${failed:+ (${failed[*]})}, ${#pending[@]} pending${pending:+ (${pending[*]})}"
[[ ${#failed[@]} -eq 0 ]]

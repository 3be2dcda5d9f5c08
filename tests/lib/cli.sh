# Helpers shared by the shell tests (tests/cli/*.sh). Sourced, never run: it
# lives outside tests/cli/ so ctest does not register it as a test.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
#
# Gives the script:
#   $tmp                      a fresh temporary folder, removed on exit
#   pass / fail NAME...       count one passed / failed assertion (fail prints
#                             "FAIL NAME..."); with fail_fast=1, fail ends the
#                             script (exit 1) instead
#   check NAME RC CMD...      runs CMD with stdout in $tmp/out and stderr in
#                             $tmp/err; passes iff it exits RC. With
#                             check_messages=1, an RC of 2 or 3 also needs
#                             exactly one stderr line and no verdict on stdout.
#   expect_out NAME ERE       stdout of the last check matches ERE
#   expect_err NAME ERE       stderr of the last check matches ERE
#   expect_one_err NAME ERE   ... and holds exactly one line from isocheck
#   no_verdict NAME           the last check printed no verdict
#   has / lacks NAME FILE STR FILE holds / does not hold the fixed string STR
#   same NAME FILE COPY       FILE is byte for byte COPY
#   skip WHY                  ends the script as skipped (exit 77 for ctest)
#   need CMD...               skip unless every CMD is installed
#   find_mpiexec              sets $mpiexec (mpiexec or mpirun), else skip
#   summary                   prints "NAME: P passed, F failed" and ends the
#                             script: exit 1 if anything failed or nothing ran
# Every assertion counts exactly once, as passed or as failed.

tmp=$(mktemp -d "${TMPDIR:-/tmp}/isocheck-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passes=0
fails=0
check_messages=0
fail_fast=0

pass() { passes=$((passes + 1)); }
fail() {
  echo "FAIL $*"
  fails=$((fails + 1))
  [ "$fail_fast" = 1 ] && exit 1
  return 0
}

check() {
  local name="$1" want="$2"; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit $rc, wanted $want"; cat "$tmp/out" "$tmp/err"; return
  fi
  if [ "$check_messages" = 1 ] && { [ "$want" -eq 2 ] || [ "$want" -eq 3 ]; }; then
    if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then fail "$name: wanted one message line:"; cat "$tmp/err"; return; fi
    if grep -qE "holds|VIOLATED" "$tmp/out"; then fail "$name: a verdict came with exit $rc"; return; fi
  fi
  pass
}

expect_out() {
  if grep -qE -- "$2" "$tmp/out"; then pass; else fail "$1: stdout lacks /$2/:"; cat "$tmp/out"; fi
}

expect_err() {
  if grep -qE -- "$2" "$tmp/err"; then pass; else fail "$1: stderr lacks /$2/:"; cat "$tmp/err"; fi
}

expect_one_err() {
  local n
  n=$(grep -c '^isocheck' "$tmp/err")
  if grep -qE -- "$2" "$tmp/err" && [ "$n" -eq 1 ]; then
    pass
  else
    fail "$1: stderr lacks /$2/ in exactly one line:"; cat "$tmp/err"
  fi
}

no_verdict() {
  if grep -qE "holds|HOLDS|VIOLATED" "$tmp/out"; then fail "$1: a verdict was printed"; else pass; fi
}

has() {
  if grep -qF -- "$3" "$2"; then pass; else fail "$1: $2 lacks '$3':"; head -c 3000 "$2"; echo; fi
}

lacks() {
  if grep -qF -- "$3" "$2"; then fail "$1: $2 has '$3'"; else pass; fi
}

same() {
  if cmp -s "$2" "$3"; then pass; else fail "$1: $2 was changed"; fi
}

skip() { echo "SKIP: $*"; exit 77; }

need() {
  local c
  for c in "$@"; do command -v "$c" > /dev/null 2>&1 || skip "$c is not installed"; done
}

find_mpiexec() {
  mpiexec=$(command -v mpiexec || command -v mpirun) || skip "no mpiexec"
}

summary() {
  local name
  name=$(basename "$0" .sh)
  echo "$name: $passes passed, $fails failed"
  [ "$fails" -eq 0 ] && [ "$passes" -gt 0 ] && exit 0
  exit 1
}

# Helpers shared by the distributed shell tests (tests/dist/*.sh), each run
# as SCRIPT ISOCHECK SOURCE_DIR DIST_GEN. Sourced, never run:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
#
# Gives the script all that tests/lib/cli.sh gives, and:
#   BIN SRC GEN               the script's three arguments (SRC, GEN may be
#                             missing where the script does not use them)
#   $mpiexec                  mpiexec or mpirun; skipped without one
#   $MPI                      "$mpiexec --oversubscribe -n 4"
#   report_without FILE KEY...  the JSON report FILE without the top-level
#                             KEYs, keys sorted, on one line
# Open MPI refuses to run as root without the two variables exported here
# (ctest sets them too; these let a script run by hand).
set -u
BIN=$1; SRC=${2:-}; GEN=${3:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "${BASH_SOURCE[0]}")/cli.sh"
find_mpiexec
MPI="$mpiexec --oversubscribe -n 4"

report_without() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k,None) for k in sys.argv[2:]]; print(json.dumps(d, sort_keys=True))' "$@"
}

#!/usr/bin/env bash
# Per-operation overhead of the distributed driver on owned data against one
# plain process, old binary against new, on one HDF5 history:
#
#   bench/dist_overhead.sh OLD_ISOCHECK NEW_ISOCHECK FILE.h5 [REPS=3] [RANKS="1 2"]
#
# Per repetition: the plain `NEW verify FILE -q` (the one-process pipeline,
# which never touches src/mpi), then for each rank count P
# `mpiexec --oversubscribe -n P BIN verify FILE -q --stage-times` with OLD and
# NEW in turn (alternated, so that a machine's load drifts over both). One
# line per run: wall s, user s, sys s, peak RSS KiB (of the largest process),
# then the stages' seconds and every rank's peak RSS from --stage-times.
# Every run must exit 0 (the history holds).
#
# The histories of docs/benchmarks.md ("Distributed driver, per-operation
# overhead"):
#   isocheck generate --workload rmw --txns 2000000 --sessions 64 --out rmw2m.h5
#   dist_gen many many2m.h5 --components 1000 --txns 2000000 --sessions-per 4
set -u
OLD=$1 NEW=$2 FILE=$3 REPS=${4:-3} RANKS=${5:-1 2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stages() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["stages"]
print(" ".join("%s %.2f" % (k, s[k]) for k in ("partition", "distribute", "solve")), "total %.2f" % d["total_s"], "rss_kib", d["peak_rss_kib"])' "$1"
}
for i in $(seq 1 "$REPS"); do
  /usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "$NEW" verify "$FILE" -q >/dev/null 2>&1 || { echo "plain run $i: exit $?" >&2; exit 1; }
  echo "plain run$i $(cat "$tmp/t")"
  for P in $RANKS; do
    for v in old new; do
      bin=$OLD
      [ "$v" = new ] && bin=$NEW
      /usr/bin/time -o "$tmp/t" -f "%e %U %S %M" mpiexec --oversubscribe -n "$P" "$bin" verify "$FILE" -q \
        --stage-times "$tmp/st.json" >/dev/null 2>&1 || { echo "$v P=$P run $i: exit $?" >&2; exit 1; }
      echo "$v P=$P run$i $(cat "$tmp/t") $(stages "$tmp/st.json")"
    done
  done
done

#!/usr/bin/env bash
# JSONL with string keys on many ranks, old binary against new (alternated,
# so that the machine's load drifts over both):
#
#   bench/dist_names.sh OLD_ISOCHECK NEW_ISOCHECK FILE.jsonl [REPS=3] [RANKS="2 4"] [EXTRA OPTIONS...]
#
# Per repetition and rank count P: `mpiexec --oversubscribe -n P BIN verify
# FILE -q --stage-times ST EXTRA...` with OLD, then NEW. One line per run:
# wall s, exit code, every rank's peak RSS (MiB) and operations held, and
# the steps that read the file (from --stage-times). Before 2026-11-28 rank
# 0 read such a file whole and scattered it; now the ranks number the names
# together (src/mpi/range_names.cpp) and each reads its own byte range.
#
# The files of docs/benchmarks.md ("JSONL with string keys on the ranks"):
#   isocheck generate --workload rmw --txns 1000000 --sessions 64 --keys 100000 --seed 1 --out rmw4m.jsonl
#   dist_gen many many.jsonl --components 64 --txns 1000000 --sessions-per 3
# each with its keys renamed "key-N" (sed -E 's/\["(r|w)",([0-9]+),/["\1","key-\2",/g').
set -u
OLD=$1 NEW=$2 FILE=$3 REPS=${4:-3} RANKS=${5:-2 4}
shift $(( $# < 5 ? $# : 5 ))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d.get("rank_steps", {})
rss=" ".join("%.0f" % (k / 1024) for k in d["peak_rss_kib"])
held=" ".join("%.2e" % x for x in d["ops_held"])
steps=" ".join("%s %.2f" % (k, max(v)) for k, v in sorted(s.items()) if k.endswith((".read", ".names")))
print("rss_mib", rss, "| ops_held", held, "|", steps)' "$1"
}
for i in $(seq 1 "$REPS"); do
  for P in $RANKS; do
    for which in OLD NEW; do
      BIN=$OLD
      [ "$which" = NEW ] && BIN=$NEW
      start=$(date +%s.%N)
      mpiexec --oversubscribe -n "$P" "$BIN" verify "$FILE" -q --stage-times "$tmp/st.json" "$@" > /dev/null 2>&1
      rc=$?
      end=$(date +%s.%N)
      printf '%s P=%s run%s wall %.2f exit %s %s\n' "$which" "$P" "$i" "$(python3 -c "print($end - $start)")" "$rc" "$(summary "$tmp/st.json")"
    done
  done
done

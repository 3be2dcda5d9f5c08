#!/usr/bin/env bash
# An HDF5 file with range-scan marks (/op/scan, written by `convert`) on 2
# ranks (and 3, owned data): on every distributed path (owned data, --dist, --key-shards, and
# --dist's join of the ranges by broadcasts) the marks travel with their
# reads, so the report is one process's word for word and a phantom is named
# a phantom (not, as before, `G-single (fractured read)`).
# usage: scan_marks.sh ISOCHECK SOURCE_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"

check generate 0 "$BIN" generate -q --workload rmw --txns 3000 --sessions 8 --keys 300 --seed 5 --plant phantom \
  --scans 20 --out "$tmp/p.jsonl"
check convert 0 "$BIN" convert "$tmp/p.jsonl" "$tmp/p.h5"
check convert_example 0 "$BIN" convert "$SRC/examples/predicate_write_skew.jsonl" "$tmp/w.h5"
for f in p w; do
  "$BIN" verify "$tmp/$f.h5" -l ser,si,sser -q > "$tmp/one.$f.txt"; want=$?
  [ "$want" = 1 ] || fail "$f: one process exit $want, want 1"
  for n in 2 3; do
    modes=(owned --dist --key-shards bcast)
    [ $n = 3 ] && modes=(owned)  # (3 ranks: ranges cut elsewhere; one path is enough)
    for mode in "${modes[@]}"; do
      case $mode in
        owned) args=() ;;
        bcast) args=(--dist) ;;
        *) args=("$mode") ;;
      esac
      env=()
      [ "$mode" = bcast ] && env=(-x ISOCHECK_TEST_ALLGATHER_BY_BCAST=1)
      $mpiexec --oversubscribe "${env[@]}" -n $n "$BIN" verify "$tmp/$f.h5" -l ser,si,sser -q "${args[@]}" \
        > "$tmp/many.txt" 2> "$tmp/many.err"; rc=$?
      if [ "$rc" = "$want" ] && diff "$tmp/one.$f.txt" "$tmp/many.txt" > /dev/null; then pass
      else fail "$f on $n ranks ($mode): exit $rc, want $want; $(diff "$tmp/one.$f.txt" "$tmp/many.txt" | head -4)"; fi
    done
  done
done
has phantom_named "$tmp/one.p.txt" "serializable: VIOLATED: G-single (phantom)"
has skew_named "$tmp/one.w.txt" "predicate write skew"
summary

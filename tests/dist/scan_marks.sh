#!/usr/bin/env bash
# Range scans, inserts and deletes on many ranks, reports compared word for
# word with one process's:
# - an HDF5 file with scan marks (/op/scan, written by `convert`) on 2 ranks
#   (and 3, owned data): on every distributed path (owned data, --dist,
#   --key-shards, and --dist's join of the ranges by broadcasts) the marks
#   travel with their reads, so a phantom is named a phantom (not, as before,
#   `G-single (fractured read)`);
# - JSONL files stating scans, inserts and deletes (expanded over the whole
#   file): read on rank 0 and scattered with their marks, where they used to
#   be refused (exit 2) without --key-shards.
# usage: scan_marks.sh ISOCHECK SOURCE_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"

check generate 0 "$BIN" generate -q --workload rmw --txns 3000 --sessions 8 --keys 300 --seed 5 --plant phantom \
  --scans 20 --out "$tmp/p.jsonl"
check convert 0 "$BIN" convert "$tmp/p.jsonl" "$tmp/p.h5"
check convert_example 0 "$BIN" convert "$SRC/examples/predicate_write_skew.jsonl" "$tmp/w.h5"
check gen_rows 0 "$BIN" generate -q --workload rows --txns 3000 --seed 2 --plant predicate-write-skew --out "$tmp/r.jsonl"
check gen_rows_ok 0 "$BIN" generate -q --workload rows --txns 2000 --seed 3 --out "$tmp/ok.jsonl"
for f in p.h5 w.h5 p.jsonl r.jsonl ok.jsonl; do
  "$BIN" verify "$tmp/$f" -l ser,si,sser -q > "$tmp/one.$f.txt"; want=$?
  case $f in ok.*) [ "$want" = 0 ] || fail "$f: one process exit $want, want 0" ;;
             *) [ "$want" = 1 ] || fail "$f: one process exit $want, want 1" ;; esac
  for n in 2 3; do
    case "$n.${f#*.}" in  # (3 ranks cut the ranges elsewhere: one path is enough there)
      2.h5) modes=(owned --dist --key-shards bcast) ;;
      2.jsonl) modes=(owned --dist) ;;
      *) modes=(owned) ;;
    esac
    for mode in "${modes[@]}"; do
      case $mode in
        owned) args=() ;;
        bcast) args=(--dist) ;;
        *) args=("$mode") ;;
      esac
      env=()
      [ "$mode" = bcast ] && env=(-x ISOCHECK_TEST_ALLGATHER_BY_BCAST=1)
      $mpiexec --oversubscribe "${env[@]}" -n $n "$BIN" verify "$tmp/$f" -l ser,si,sser -q "${args[@]}" \
        > "$tmp/many.txt" 2> "$tmp/many.err"; rc=$?
      if [ "$rc" = "$want" ] && diff "$tmp/one.$f.txt" "$tmp/many.txt" > /dev/null; then pass
      else fail "$f on $n ranks ($mode): exit $rc, want $want; $(diff "$tmp/one.$f.txt" "$tmp/many.txt" | head -4)"; fi
    done
  done
done
has phantom_named "$tmp/one.p.h5.txt" "serializable: VIOLATED: G-single (phantom)"
has skew_named "$tmp/one.w.h5.txt" "predicate write skew"
has rows_skew_named "$tmp/one.r.jsonl.txt" "G2-item (predicate write skew)"
summary

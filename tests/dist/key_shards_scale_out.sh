#!/usr/bin/env bash
# Scale-out: a read-modify-write history too large for one process under
# --memory-limit M (it exits 3) is decided by mpiexec -n 4 --key-shards with
# the same limit on every rank: a valid one (exit 0) and one with a planted
# cycle (exit 1, the same report as one process without the limit); from
# HDF5 and from JSONL.
#
# Why M = 105 MiB is sound for HDF5 (private resident memory, as --memory-limit
# measures it, on the 2-core VM; 500,000 transactions, 2,000,000 operations,
# the dependency-graph path --no-serial-witness): one process needs 130-150
# MiB for either history (the history, ~70 MiB, and its graph are held
# together until the acyclicity test), so it exits 3 under 105 MiB with at
# least 25 MiB to spare; with 4 ranks each needs at most 80 MiB (about 22 MiB
# of it MPI's and the program's own), so they decide under 105 MiB with 25
# MiB to spare. Both margins are over twice the run-to-run spread seen.
# usage: key_shards_scale_out.sh ISOCHECK SOURCE_DIR DIST_GEN
. "$(dirname "${BASH_SOURCE[0]}")/../lib/dist.sh"
# scale_out EXT TXNS M [names]: both histories as EXT (h5 or jsonl) of TXNS
# transactions; one process exits 3 under M, 4 ranks decide under it.
# `names`: JSONL with string keys ("k17" for 17).
scale_out() {
  local ext=$1 txns=$2 M=$3 names=${4:-}
  "$BIN" generate --workload rmw --txns "$txns" --sessions 8 --seed 3 --out "$tmp/valid.$ext" -q || fail "generate valid"
  "$BIN" generate --workload rmw --txns "$txns" --sessions 8 --seed 3 --plant g-single --out "$tmp/cycle.$ext" -q \
    2> /dev/null || fail "generate cycle"
  if [ -n "$names" ]; then
    for h in valid cycle; do
      sed -E 's/\["(r|w)",([0-9]+),/["\1","k\2",/g' "$tmp/$h.$ext" > "$tmp/named.$ext" && mv "$tmp/named.$ext" "$tmp/$h.$ext"
    done
    grep -q '"k[0-9]' "$tmp/valid.$ext" || fail "string keys: the files were not rewritten"
  fi
  for h in valid cycle; do
    check "$h.$ext: one process exits 3 under $M" 3 "$BIN" verify "$tmp/$h.$ext" -q --no-serial-witness --memory-limit $M
    expect_err "$h.$ext: one process names the limit" "memory limit of ${M%M} MiB reached"
  done
  check "valid.$ext: 4 ranks decide under $M each" 0 $mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/valid.$ext" -q \
    --key-shards --no-serial-witness --memory-limit $M
  expect_out "valid.$ext: holds" "serializable: holds"
  check "cycle.$ext: 4 ranks decide under $M each" 1 $mpiexec --oversubscribe -n 4 "$BIN" verify "$tmp/cycle.$ext" -q \
    --key-shards --no-serial-witness --memory-limit $M
  cp "$tmp/out" "$tmp/cycle.4.txt"
  check "cycle.$ext: one process without the limit" 1 "$BIN" verify "$tmp/cycle.$ext" -q --no-serial-witness
  expect_out "cycle.$ext: a G-single witness" "G-single"
  same "cycle.$ext: the same report as one process" "$tmp/cycle.4.txt" "$tmp/out"
}

scale_out h5 500000 105M
# The same from JSONL, each rank reading its own byte range (before
# 2026-11-28 rank 0 read the whole file and ran past the limit like one
# process). 700,000 transactions: one process needs more than 180 MiB
# (exit 3 even under 180M), 4 ranks less than 90 MiB each (they decide under
# 90M): M = 135 MiB leaves over 40 MiB on either side.
scale_out jsonl 700000 135M
# JSONL with string keys: the ranks number the names together
# (mpi/range_names.h) and read their ranges again (before 2026-11-28 rank 0
# read the whole file and scattered it, and ran past the limit like one
# process). 700,000 transactions: one process exits 3 under 170M (valid) and
# 180M (cycle), 4 ranks decide under 80M each: M = 125 MiB leaves 45 MiB on
# either side.
scale_out jsonl 700000 125M names
summary

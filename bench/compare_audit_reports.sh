#!/usr/bin/env bash
# Runs two isocheck binaries' `audit` on every example and on generated logs
# (read-modify-write and blind-write workloads, with and without planted
# anomalies, fenced and timed, JSONL and HDF5) at several round sizes and
# levels, and compares the reports (text and JSON) byte for byte with the
# timing and memory fields masked. For refactorings of src/audit: the
# reports must not change.
#   bench/compare_audit_reports.sh OLD_BINARY NEW_BINARY
# Prints one line per differing report and a summary; exits 1 when any differs.
set -uo pipefail
old=$1 new=$2
. "$(dirname "$0")/compare_lib.sh"
logs=("$root"/examples/*.jsonl)
gen() {  # name, generate's arguments
  local name=$1; shift
  "$old" generate -q "$@" --out "$tmp/$name.jsonl" && "$old" generate -q "$@" --out "$tmp/$name.h5" || return
  logs+=("$tmp/$name.jsonl" "$tmp/$name.h5")
  "$old" audit -q "$tmp/$name.jsonl" --write-fenced "$tmp/$name.fenced.jsonl" --fence-every 7 >/dev/null 2>&1 &&
    logs+=("$tmp/$name.fenced.jsonl")
}
gen rmw --workload rmw --txns 3000 --sessions 8 --keys 200 --seed 1
gen rmw_plants --workload rmw --txns 3000 --sessions 8 --keys 200 --seed 2 --plant lost-update --plant stale-read
gen blindw --workload blindw-rw --txns 3000 --sessions 8 --keys 100 --seed 3
gen blindw_plants --workload blindw-rw --txns 3000 --sessions 8 --keys 100 --seed 4 --plant g-single --plant thin-air
gen append --workload append --txns 2000 --sessions 6 --keys 50 --seed 5
# (the keys of the soundness state on disk, absent from builds before it,
# are dropped when they say it stayed in memory)
mask() {
  sed -E 's/"(seconds|txn_per_s|peak_rss)": ?[0-9.e+-]+/"\1":_/g; s/[0-9]+(\.[0-9]+)? s\b/_ s/g;
          s/[0-9.]+ (txn\/s|MiB|GiB|MB|GB|KiB|kB)/_ \1/g;
          s/"spilled":false,"scratch_bytes":0,"spill_memory_records":0,//'
}
for f in "${logs[@]}"; do
  for args in "--level sser --round 500" "--level ser --round 300" "--level ser,si,sser --round 1000" \
              "--level sser --round 400 --rule fence --threads 1"; do
    # shellcheck disable=SC2086
    compare "$f" "$args" audit "$f" $args -q
  done
done
finish "audit reports"

#!/usr/bin/env bash
# GPU checks of the closure engine (docs/gpu.md), on a machine with a CUDA
# device and an ALREADY-BUILT tree: nothing is compiled here.
#
#   scripts/gpu-check.sh --pack BUILD DEST   (on the build machine) copy what the
#       checks need from BUILD into DEST: isocheck, tests/gpu_closure_test,
#       gpu_closure_bench, gpu_sliced_selftest and, in DEST/gpu-libs, the shared
#       libraries they link (HDF5, simdjson, Boost.Serialization, libmpi_cxx, ...)
#       except glibc, libstdc++, the CUDA driver, NCCL and libmpi/Open MPI's
#       own libraries, which the GPU machine has (Open MPI 4.1.6, NCCL 2.28). Adds DEST to
#       .git/info/exclude so it can travel as a carried path.
#   scripts/gpu-check.sh [DIR]               (on the GPU machine) run the checks on
#       DIR (a packed DEST or a build folder; default build). Everything printed
#       also goes to $OUT/gpu-check.log; figures to $OUT/gpu-figures.txt.
#
# Steps (each under its own timeout, all under a total budget, GPU_CHECK_BUDGET
# seconds, default 460), in order of need, so a short budget loses the least:
# device info; GPU unit tests; compute-sanitizer memcheck on small cases and a
# whole verify; closure benchmark GPU vs CPU engine at 10^4/10^5 endpoints on
# 10^6 vertices; end-to-end SER of 10^5 and 10^6-txn BlindW-RW histories with
# --closure gpu vs cpu; the MPI/NCCL slice self-test; the benchmark on 10^7
# vertices; the host plan alone on all cores and on one.
set -u

if [ "${1:-}" = "--pack" ]; then
  B=${2:?usage: --pack BUILD DEST}; D=${3:?usage: --pack BUILD DEST}
  rm -rf "$D"; mkdir -p "$D/tests" "$D/gpu-libs"
  for f in isocheck gpu_closure_bench gpu_sliced_selftest; do [ -x "$B/$f" ] && cp "$B/$f" "$D/"; done
  cp "$B/tests/gpu_closure_test" "$D/tests/"
  # dist_gen: the many-component generator the scaling benchmark needs.
  [ -x "$B/tests/dist/dist_gen" ] && mkdir -p "$D/tests/dist" && cp "$B/tests/dist/dist_gen" "$D/tests/dist/"
  for f in "$D"/isocheck "$D"/gpu_closure_bench "$D"/gpu_sliced_selftest "$D"/tests/gpu_closure_test "$D"/tests/dist/dist_gen; do
    [ -e "$f" ] || continue
    ldd "$f" | awk '/=> \//{print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda|libnccl|libmpi|libopen-(rte|pal)|libhwloc|libevent[^/]*|libpmix|libfabric|libucp|libucs|libuct|libibverbs|librdmacm)\.so' |
    while read -r lib; do cp -L "$lib" "$D/gpu-libs/"; done
  ex=$(git rev-parse --git-path info/exclude 2>/dev/null) && { grep -qxF "/$D/" "$ex" 2>/dev/null || echo "/$D/" >>"$ex"; }
  du -sh "$D"; ls "$D" "$D/gpu-libs"
  exit 0
fi

B=${1:-build}
B=$(cd "$B" && pwd)
OUT=${OUT:-/tmp/gpu-check-out}
mkdir -p "$OUT"
FIG=$OUT/gpu-figures.txt
LOG=$OUT/gpu-check.log
: >"$FIG"; : >"$LOG"
BUDGET=${GPU_CHECK_BUDGET:-460}
START=$(date +%s)
WORK=$(mktemp -d /tmp/gpu-check.XXXXXX)
. "$(dirname "$0")/carried-libs.sh"
use_carried_libs "$B" "$WORK" >>"$LOG"
export ISOCHECK_BINARY="$B/isocheck"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
fails=0

secs_since() { local ms=$(( ($(date +%s%N) - $1) / 1000000 )); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }
say() { echo "$*" | tee -a "$FIG" "$LOG"; }
# step NAME TIMEOUT CMD...: runs CMD under min(TIMEOUT, what is left of the
# budget); output to the log (and its tail to stdout on failure).
step() {
  local name=$1 lim=$2; shift 2
  local left=$((BUDGET - ($(date +%s) - START) - 5))
  if [ "$left" -lt 20 ]; then say "SKIP  $name (budget spent)"; return 99; fi
  [ "$lim" -gt "$left" ] && lim=$left
  echo "=== $name (timeout ${lim}s): $*" >>"$LOG"
  local t0 rc; t0=$(date +%s%N)
  timeout -k 5 "$lim" "$@" >"$WORK/step.out" 2>&1; rc=$?
  cat "$WORK/step.out" >>"$LOG"
  local dt; dt=$(secs_since "$t0")
  if [ $rc -eq 0 ]; then say "PASS  $name ($(echo "$dt") s)";
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then say "TIMEOUT $name after ${lim}s"; fails=$((fails+1));
  else say "FAIL  $name (exit $rc, $(echo "$dt") s)"; tail -n 30 "$WORK/step.out"; fails=$((fails+1)); fi
  return $rc
}

say "# isocheck gpu-check $(date -u +%FT%TZ) on $(hostname)"
say "card: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
say "cpus: $(nproc)"
for f in "$B"/isocheck "$B"/tests/gpu_closure_test "$B"/gpu_closure_bench "$B"/gpu_sliced_selftest; do
  [ -e "$f" ] && ldd "$f" 2>&1 | grep -q "not found" && say "MISSING LIBS for $f: $(ldd "$f" | grep 'not found' | tr -s ' \t\n' ' ')"
done
"$B/isocheck" info --devices 2>&1 | tee -a "$FIG" "$LOG"

# GPU_CHECK_ONLY=bench: only the closure benchmark and the end-to-end runs
# (a rerun after a CPU engine change; the checks were run before).
ONLY=${GPU_CHECK_ONLY:-all}
if [ "$ONLY" != bench ]; then
# 1. Unit tests (device ones included: 1000 random graphs, chunks, rounds,
#    memory errors, verdicts with --closure gpu vs cpu).
step "gpu_closure_test" 150 "$B/tests/gpu_closure_test" --gtest_brief=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$WORK/step.out" | sed 's/^/    /' | tee -a "$FIG"

# 2. compute-sanitizer memcheck on small cases.
if [ -x "$SAN" ]; then
  step "memcheck (unit, small)" 120 "$SAN" --tool memcheck --error-exitcode 9 \
    "$B/tests/gpu_closure_test" --gtest_filter='GpuDevice.IncrementalRoundsEqualCpu:GpuDevice.TooLittleMemoryIsAResourceError'
  grep -E 'ERROR SUMMARY' "$WORK/step.out" | tail -1 | sed 's/^/    /' | tee -a "$FIG"
  step "memcheck (bench 2*10^4 vertices)" 90 "$SAN" --tool memcheck --error-exitcode 9 \
    "$B/gpu_closure_bench" --vertices 20000 --endpoints 2000 --queries 20000
  grep -E 'ERROR SUMMARY' "$WORK/step.out" | tail -1 | sed 's/^/    /' | tee -a "$FIG"
  # A whole verify with the GPU engine, on a history with a planted write
  # skew (exit 1 = the violation found; the sanitizer's own failure is 9).
  "$B/isocheck" generate -q --workload blindw-rw --txns 3000 --seed 4 --plant write-skew --out "$WORK/ws.jsonl"
  step "memcheck (verify --closure gpu, write skew)" 120 bash -c '"$0" --tool memcheck --error-exitcode 9 "$1" verify -q "$2" \
      --level ser,si,sser --closure gpu --no-serial-witness; rc=$?; echo "verify exit $rc"; [ $rc -le 1 ]' "$SAN" "$B/isocheck" "$WORK/ws.jsonl"
  grep -E 'ERROR SUMMARY|verify exit' "$WORK/step.out" | tail -2 | sed 's/^/    /' | tee -a "$FIG"
else
  say "SKIP  compute-sanitizer (not found)"
fi
fi  # ONLY != bench

# 3. Closure benchmark.
bench() {
  step "bench $*" "$1" "$B/gpu_closure_bench" "${@:2}" && grep '^closure' "$WORK/step.out" | tee -a "$FIG"
}
bench 90 --vertices 1000000 --endpoints 10000
bench 90 --vertices 1000000 --endpoints 100000

# 4. End to end: SER of BlindW-RW histories, --closure gpu vs cpu (same
#    --threads), 10^5 transactions first, then (after the slices) 10^6.
e2e() {
  local txns=$1 lim=$2 H=$WORK/blindw-rw-$1.jsonl
  step "generate blindw-rw $txns" 90 "$B/isocheck" generate --workload blindw-rw --txns "$txns" --seed 7 -q --out "$H" || return
  for e in gpu cpu; do
    local t0 rc; t0=$(date +%s%N)
    step "verify $txns --level ser --closure $e" "$lim" "$B/isocheck" verify -q "$H" --level ser --no-serial-witness --closure $e --threads "$(nproc)"
    rc=$?
    cp "$WORK/step.out" "$WORK/verify-$e.out"
    say "e2e   blindw-rw txns=$txns --closure $e: $(secs_since "$t0") s, exit $rc$([ $rc -eq 1 ] && echo ' (violation reported)')"
  done
  if cmp -s "$WORK/verify-cpu.out" "$WORK/verify-gpu.out"; then say "e2e   txns=$txns verdicts gpu == cpu"
  else say "e2e   txns=$txns verdicts/outputs DIFFER (see gpu-check.log)"; fails=$((fails+1))
    diff "$WORK/verify-cpu.out" "$WORK/verify-gpu.out" | head -20 >>"$LOG"; fi
  rm -f "$H"
}
[ "$ONLY" != bench ] && e2e 100000 60

# 5. Slices over MPI: 2 ranks on one GPU = one NCCL rank + one CPU rank.
if [ "$ONLY" = bench ]; then :
elif [ -x "$B/gpu_sliced_selftest" ] && command -v mpiexec >/dev/null; then
  step "sliced closure (mpiexec -n 2: NCCL + CPU slice)" 60 mpiexec --oversubscribe -n 2 "$B/gpu_sliced_selftest" --graphs 40
  grep -E 'sliced closure|rank' "$WORK/step.out" | head -4 | sed 's/^/    /' | tee -a "$FIG"
else
  say "SKIP  sliced closure self-test (no mpiexec or not built with MPI)"
fi

e2e 1000000 100

# 6. Large graphs (10^7 vertices); the CPU engine at 10^5 endpoints runs on
#    1/8 of the columns and is scaled (marked est.).
bench 120 --vertices 10000000 --endpoints 10000 --queries 4000000
bench 150 --vertices 10000000 --endpoints 100000 --queries 4000000 --cpu-fraction 0.125

# 7. Host plan alone on all cores and on one (docs/gpu.md "Host plan"): how its
# parallel passes scale on this machine.
plan_bench() {
  step "host plan $*" 60 "$B/gpu_closure_bench" --plan-only 1 --repeat 3 "$@" &&
    grep '^least' "$WORK/step.out" | sed "s/^/plan  vertices=$2 /" | tee -a "$FIG"
}
if [ "$ONLY" != bench ]; then
  plan_bench --vertices 10000000 --endpoints 100000 --queries 4000000 --threads "$(nproc)"
  plan_bench --vertices 10000000 --endpoints 100000 --queries 4000000 --threads 1
  plan_bench --vertices 1000000 --endpoints 100000 --threads "$(nproc)"
fi

say "total $(( $(date +%s) - START )) s, failures: $fails"
rm -rf "$WORK"
[ "$fails" -eq 0 ]

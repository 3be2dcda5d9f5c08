#!/usr/bin/env bash
# The scale-out figures a 16-core node gives, in one script sized for a short
# lease (each step under its own timeout; what ran is written as it ends):
#   1. e2e: SER of contended BlindW-RW histories (many sessions, few keys),
#      the class where pruning's reachability is most of the run, --closure
#      gpu vs cpu on all cores, same binary, same node, back to back;
#   2. strong: bench/scaling/run.sh at STRONG_OPS operations on 1..16 ranks,
#      many components (owned pieces) and rmw on key shards;
#   3. weak: WEAK_OPS operations per rank, many components (1000 per rank of
#      4 sessions), 1..16 ranks, each P beside two controls: P independent
#      one-rank runs at once of the 1-rank history, and of one rank's
#      operations with the P-rank history's components (WEAK_CONTROL=0: none);
#   4. ks: STRONG_OPS operations of rmw in one component on key shards
#      (--key-shards --no-serial-witness, the graph path), 1..16 ranks, for
#      each level list of KS_LEVELS (default ser,si), with each rank's step
#      times (--stage-times "rank_steps") in ks/ks.jsonl.
# All inputs are generated first, in parallel (one generator per core).
#
#   bench/scaling/sweep.sh BUILD OUT       (BUILD: a build folder or a packed .gpu-carry)
#   STRONG_OPS=100000000 WEAK_OPS=10000000 RANKS="1 2 4 8 16" STEPS="e2e strong weak ks"
#   (KS_RANKS: the key shards' rank counts, default RANKS)
#
# Why those e2e classes: BlindW-RW with 1,024 concurrent sessions leaves
# many write pairs whose order only reachability in the known graph decides
# (pruning). With 20,000 keys (~40 writes per key) none is settled while
# building: 4*10^6 constraints, 96 % decided by pruning's rounds, each round
# a closure over 10^5 vertices with tens of thousands of target columns, so
# the bit propagation is most of the run (2/3 of a one-thread run on the VM,
# perf) and the GPU pays. With 500 keys (~800 writes per key) the build
# settles 99 % of the pairs and the 3.6*10^5 constraints left are a smaller
# share: building the graph and the host plan weigh as much as the closure.
# With 64 sessions (gpu-check's e2e) pruning is a few per cent of the run.
set -u
B=${1:-build}; O=${2:-/tmp/sweep}
STRONG_OPS=${STRONG_OPS:-100000000}; WEAK_OPS=${WEAK_OPS:-10000000}
RANKS=${RANKS:-"1 2 4 8 16"}; STEPS=${STEPS:-"e2e strong weak"}
E2E=${E2E:-"100000:1024:20000 50000:1024:500"}   # txns:sessions:keys
E2E_LIMIT=${E2E_LIMIT:-90}; STRONG_BUDGET=${STRONG_BUDGET:-240}; WEAK_BUDGET=${WEAK_BUDGET:-120}; KS_BUDGET=${KS_BUDGET:-240}
BIN=$B/isocheck; GEN=$B/tests/dist/dist_gen; T=$(nproc)
mkdir -p "$O/strong" "$O/weak" "$O/e2e" "$O/ks"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
now() { date +%s.%N; }
# print_steps NAME FILE: each run's total and its steps' slowest and fastest rank.
print_steps() {
  python3 - "$1" "$2" <<'PY'
import json, sys
for line in open(sys.argv[2]):
    d = json.loads(line)
    print(f"{sys.argv[1]} ranks={d['ranks']} total={d['total_s']:.2f}")
    for k, v in d.get("rank_steps", {}).items():
        print(f"    {k}: max {max(v):.2f} min {min(v):.2f}")
PY
}
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
echo "# sweep $(date -u +%FT%TZ) $(hostname) cores=$T ranks='$RANKS' strong=$STRONG_OPS weak/rank=$WEAK_OPS"

# 0. Inputs, all at once.
t0=$(now); pids=()
if has e2e; then
  for c in $E2E; do IFS=: read -r n s k <<<"$c"
    "$BIN" generate --workload blindw-rw --txns "$n" --sessions "$s" --keys "$k" --seed 7 -q --out "$O/e2e/c$n-$s-$k.h5" & pids+=($!); done
fi
if has strong; then
  if [ "${STRONG_KEY_SHARDS:-1}" = 1 ]; then
    "$BIN" generate --workload rmw --txns $((STRONG_OPS / 4)) --sessions 64 --out "$O/strong/rmw.h5" -q & pids+=($!)
  fi
  "$GEN" many "$O/strong/many.h5" --components 1000 --txns $((STRONG_OPS / 4)) --sessions-per 4 >/dev/null & pids+=($!)
fi
if has ks; then
  "$BIN" generate --workload rmw --txns $((STRONG_OPS / 4)) --sessions 64 --out "$O/ks/rmw.h5" -q & pids+=($!)
fi
if has weak; then
  for p in $RANKS; do
    "$GEN" many "$O/weak/many.$p.h5" --components $((1000 * p)) --txns $((WEAK_OPS / 4 * p)) --sessions-per 4 >/dev/null & pids+=($!)
    # The shape control's input: one rank's operations with the P-rank history's components.
    [ "${WEAK_CONTROL:-1}" = 1 ] && [ "$p" -gt 1 ] &&
      { "$GEN" many "$O/weak/shape.$p.h5" --components $((1000 * p)) --txns $((WEAK_OPS / 4)) --sessions-per 4 >/dev/null & pids+=($!); }
  done
fi
for p in "${pids[@]}"; do wait "$p" || echo "a generator failed (exit $?)"; done
echo "inputs generated in $(since "$t0") s"

# 1. GPU vs CPU closure, end to end.
if has e2e; then
  for c in $E2E; do IFS=: read -r n s k <<<"$c"; H=$O/e2e/c$n-$s-$k.h5
    for e in gpu cpu; do
      t1=$(now)
      timeout -k 5 $((E2E_LIMIT + 10)) "$BIN" verify "$H" --level ser --no-serial-witness --closure $e --threads "$T" \
        --time-limit ${E2E_LIMIT}s >"$O/e2e/$e.$n.out" 2>&1; rc=$?
      echo "e2e blindw-rw txns=$n sessions=$s keys=$k --closure $e --threads $T: $(since "$t1") s, exit $rc"
      grep -E "general engine|limit" "$O/e2e/$e.$n.out" | head -2 | sed 's/^/    /'
    done
    # The same output but the progress line's seconds (and a stop at the limit).
    same() { grep -v -e "time limit" -e "txn/s" "$1"; }
    cmp -s <(same "$O/e2e/gpu.$n.out") <(same "$O/e2e/cpu.$n.out") &&
      echo "    outputs gpu == cpu" || { echo "    outputs differ (or one stopped at the limit):";
      diff <(same "$O/e2e/gpu.$n.out") <(same "$O/e2e/cpu.$n.out") | head -6 | sed 's/^/    /'; }
  done
fi

# 2. Strong scaling (bench/scaling/run.sh finds the inputs already there).
if has strong; then
  OPS=$STRONG_OPS RANKS=${STRONG_RANKS:-$RANKS} KINDS=many KEY_SHARDS=${STRONG_KEY_SHARDS:-1} KS_FLAGS=--no-serial-witness \
    timeout -k 5 "$STRONG_BUDGET" bash "$(dirname "$0")/run.sh" "$B" "$O/strong" >"$O/strong/log" 2>&1
  echo "strong scaling exit $?"; cat "$O/strong/log" | grep -v "^$" | head -30
  cat "$O"/strong/many.*.json >"$O/strong/strong.jsonl" 2>/dev/null
  print_steps many "$O/strong/strong.jsonl"
  rm -f "$O"/strong/*.h5
fi

# 3. Weak scaling: the same operations per rank, P ranks on P times the history.
if has weak; then
  end=$(( $(date +%s) + WEAK_BUDGET ))
: >"$O/weak/weak.jsonl"
  printf 'ranks\tops\ttotal_s\tread_s\tpartition_s\tdistribute_s\tsolve_s\tefficiency\tpeak_rss_mib_max\tops_held_max\tcontrol_s\tshape_s\n' >"$O/weak/weak.tsv"
  base=""
  for p in $RANKS; do
    left=$(( end - $(date +%s) )); [ "$left" -lt 10 ] && { echo "weak: budget spent before $p ranks"; break; }
    f=$O/weak/many.$p.json
    timeout -k 5 "$left" mpiexec --oversubscribe -n "$p" "$BIN" verify "$O/weak/many.$p.h5" -l ser,si -q --stage-times "$f" >/dev/null 2>"$O/weak/err.$p"
    cat "$f" >>"$O/weak/weak.jsonl" 2>/dev/null
    line=$(python3 - "$f" "$p" "${base:-}" $((WEAK_OPS * p)) <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = int(sys.argv[2]); t = d["total_s"]
base = float(sys.argv[3]) if sys.argv[3] else t; s = d["stages"]
print(p, sys.argv[4], f"{t:.3f}", *(f"{s.get(k, 0):.3f}" for k in ("read", "partition", "distribute", "solve")),
      f"{base / t:.2f}", max(d["peak_rss_kib"]) // 1024, max(d.get("ops_held", [0])), sep="\t")
PY
) || { echo "weak: $p ranks gave no stage times: $(tail -2 "$O/weak/err.$p")"; continue; }
    [ -z "$base" ] && base=$(echo "$line" | cut -f3)
    # The control: P independent one-rank runs of the 1-rank history at once
    # (no messages at all, so perfect weak scaling in software): what the
    # node itself loses when P cores work (clocks, memory bandwidth), to set
    # the P-rank time against. Its slowest run's total.
    # The shape control: the same, each run on one rank's operations with the
    # P-rank history's components. The 'many' generator interleaves its
    # components over the whole file, so a rank's range touches every one of
    # them: its tables (the (key, session) rows) and its pieces grow with P
    # at constant operations per rank (one process on 10^7 operations: 1,000
    # components 1.38 s, 16,000 components 2.23 s, VM, 2026-11-28). The
    # P-rank time against this one is what the messages cost.
    controls() {  # controls FILE TAG: the slowest of P one-rank runs of FILE at once
      local cpids=() i
      for i in $(seq 1 "$p"); do
        "$BIN" verify "$1" -l ser,si -q --dist --stage-times "$O/weak/$2.$p.$i.json" >/dev/null 2>&1 & cpids+=($!)
      done
      wait "${cpids[@]}"
      python3 - "$O"/weak/$2.$p.*.json <<'PY' 2>/dev/null || echo -
import json, sys
print(f"{max(json.load(open(f))['total_s'] for f in sys.argv[1:]):.3f}")
PY
    }
    ctl=- shape=-
    if [ "${WEAK_CONTROL:-1}" = 1 ] && [ "$(( end - $(date +%s) ))" -gt 20 ]; then
      ctl=$(controls "$O/weak/many.1.h5" ctl)
      if [ "$p" -gt 1 ]; then shape=$(controls "$O/weak/shape.$p.h5" shape); else shape=$ctl; fi
    fi
    echo "$line	$ctl	$shape" >>"$O/weak/weak.tsv"
  done
  column -t "$O/weak/weak.tsv" 2>/dev/null || cat "$O/weak/weak.tsv"
  print_steps weak "$O/weak/weak.jsonl"
  rm -f "$O"/weak/*.h5
fi

# 4. One component on key shards (the graph path), each rank's steps, for
#    each level list of KS_LEVELS; first one plain process on the same file
#    (the baseline the distributed driver on one rank is measured against).
if has ks; then
  end=$(( $(date +%s) + KS_BUDGET )); : >"$O/ks/ks.jsonl"
  for lv in ${KS_LEVELS:-ser,si}; do
    t1=$(now)
    /usr/bin/time -f "%M" -o "$O/ks/plain.rss" "$BIN" verify "$O/ks/rmw.h5" -l "$lv" -q --no-serial-witness >/dev/null 2>&1
    echo "ks -l $lv one plain process: $(since "$t1") s, peak $(( $(tail -1 "$O/ks/plain.rss") / 1024 )) MiB"
    base=""
    for p in ${KS_RANKS:-$RANKS}; do
      left=$(( end - $(date +%s) )); [ "$left" -lt 10 ] && { echo "ks: budget spent before $p ranks"; break; }
      f=$O/ks/ks.$p.json
      timeout -k 5 "$left" mpiexec --oversubscribe -n "$p" "$BIN" verify "$O/ks/rmw.h5" -l "$lv" -q --key-shards \
        --no-serial-witness --stage-times "$f" >/dev/null 2>"$O/ks/err.$p" || { echo "ks: $p ranks: $(tail -2 "$O/ks/err.$p")"; continue; }
      cat "$f" >>"$O/ks/ks.jsonl"
      base=$(python3 - "$f" "${base:-}" "$lv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = d["ranks"]; t = d["total_s"]
base = float(sys.argv[2]) if sys.argv[2] else t
print(f"ks -l {sys.argv[3]} ranks={p} total={t:.2f} s efficiency={base / (p * t):.2f} stages=" +
      " ".join(f"{k}:{v:.2f}" for k, v in d["stages"].items()) +
      f" peak_rss_mib_max={max(d['peak_rss_kib']) // 1024} ops_held_max={max(d['ops_held'])}", file=sys.stderr)
for k, v in d.get("rank_steps", {}).items():
    print(f"    {k}: max {max(v):.2f} min {min(v):.2f}", file=sys.stderr)
print(base)
PY
)
    done
  done
  rm -f "$O"/ks/*.h5
fi

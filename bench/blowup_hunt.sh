#!/usr/bin/env bash
# Hunts for histories of modest size on which `isocheck verify` takes far too
# much memory or time, and for verdicts that differ between engine variants.
#   bench/blowup_hunt.sh ISOCHECK [CONFIGS] [SEED] [WORKDIR]
# Draws CONFIGS (default 40) generator configurations at random (workload,
# isolation, sessions 1..256, keys 2..10^5, uniform/zipf, ops, plants,
# 2,000..50,000 transactions), and on each history runs several verify
# variants, one at a time, under --memory-limit 3G --time-limit 60s:
#   all        --level all
#   sss        --level ser,si,sser
#   graph      --level ser,si,sser --no-serial-witness --no-si-replay
#   cadical    as graph, --solver cadical
#   nolocal    --level all --no-local-search --no-serial-witness --no-si-replay
#   cpu        --level ser,si,sser --closure cpu --no-serial-witness
# Writes WORKDIR/runs.tsv (one line per run: config, variant, seconds, peak KB,
# exit code, verdicts, the "general engine:" line) and prints FLAG lines:
#   LIMIT     exit 3 (a resource limit)
#   EXIT      an exit code other than 0, 1, 3
#   BIG       peak memory or time out of line with the size (scaled from
#             500 MB / 10 s per 20,000 transactions, floors 200 MB / 3 s)
#   DISAGREE  two variants give different verdicts for one level
# The history of every flagged configuration is kept in WORKDIR.
set -uo pipefail
bin=$(readlink -f "$1") n=${2:-40} seed=${3:-1} work=${4:-/tmp/blowup_hunt}
mkdir -p "$work"
RANDOM=$seed
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
tsv=$work/runs.tsv
[ -f "$tsv" ] || printf 'config\tvariant\tseconds\tpeak_kb\trc\tverdicts\tengine\n' >"$tsv"

variants=(all sss graph cadical nolocal cpu)
variant_args() {
  case $1 in
    all) echo "--level all" ;;
    sss) echo "--level ser,si,sser" ;;
    graph) echo "--level ser,si,sser --no-serial-witness --no-si-replay" ;;
    cadical) echo "--level ser,si,sser --no-serial-witness --no-si-replay --solver cadical" ;;
    nolocal) echo "--level all --no-local-search --no-serial-witness --no-si-replay" ;;
    cpu) echo "--level ser,si,sser --closure cpu --no-serial-witness" ;;
  esac
}

for ((c = 0; c < n; c++)); do
  wl=$(pick rmw append mt lwt blindw-rm blindw-rw blindw-wh twitter tpcc)
  iso=ser
  case $wl in rmw | mt | blindw-*) iso=$(pick ser si) ;; esac
  txns=$(pick 2000 5000 10000 20000 50000)
  sess=$(pick 1 2 4 8 16 64 256)
  keys=$(pick 2 5 20 100 1000 10000 100000)
  dist=$(pick uniform zipf)
  ops=$(pick 0 0 1 4 16)
  plant=$(pick none none none none none g0 g1a g1b g1c g-single write-skew lost-update fractured-read long-fork stale-read phantom thin-air)
  gs=$((RANDOM))
  gen=(--workload "$wl" --isolation "$iso" --txns "$txns" --sessions "$sess" --keys "$keys" --dist "$dist" --seed "$gs")
  case $wl in rmw | append | blindw-*) ((ops > 0)) && gen+=(--ops "$ops") ;; esac
  ((sess < 4)) && plant=none  # plants need 4 sessions
  [ "$plant" != none ] && gen+=(--plant "$plant")
  name="c${seed}_$c"
  hist=$work/$name.jsonl
  if ! "$bin" generate "${gen[@]}" --out "$hist" -q --memory-limit 3G --time-limit 60s 2>"$work/$name.generr"; then
    echo "GENFAIL $name ${gen[*]}: $(head -c 200 "$work/$name.generr")"
    rm -f "$hist"
    continue
  fi
  rm -f "$work/$name.generr"
  flagged=0
  declare -A verdict=()
  for v in "${variants[@]}"; do
    out=$work/$name.$v.out
    /usr/bin/time -o "$work/time" -f '%e %M' "$bin" verify "$hist" $(variant_args "$v") -q \
      --memory-limit 3G --time-limit 60s >"$out" 2>&1
    rc=$?
    read -r secs kb < <(tail -1 "$work/time")
    verd=$(grep -E '^(read-uncommitted|read-committed|read-atomic|causal|prefix|snapshot-isolation|serializable|strict-serializable): ' "$out" |
      sed -E 's/^([a-z-]+): (holds|VIOLATED|UNDECIDED).*/\1=\2/' | tr '\n' ' ')
    eng=$(grep -m1 '^general engine:' "$out" | sed 's/^general engine: //')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name ${gen[*]}" "$v" "$secs" "$kb" "$rc" "$verd" "$eng" >>"$tsv"
    mb_cap=$((txns * 500 / 20000)); ((mb_cap < 200)) && mb_cap=200
    s_cap=$((txns * 10 / 20000)); ((s_cap < 3)) && s_cap=3
    if [ "$rc" = 3 ]; then echo "LIMIT $name $v: ${gen[*]} :: $(grep -m1 -iE 'limit|memory|exceed' "$out")"; flagged=1
    elif [ "$rc" != 0 ] && [ "$rc" != 1 ]; then echo "EXIT $rc $name $v: ${gen[*]} :: $(tail -1 "$out")"; flagged=1; fi
    if ((kb / 1024 > mb_cap)) || awk -v s="$secs" -v c="$s_cap" 'BEGIN{exit !(s > c)}'; then
      echo "BIG $name $v: ${secs}s $((kb / 1024))MB rc=$rc: ${gen[*]} :: $eng"; flagged=1
    fi
    [ "$rc" = 3 ] && continue
    for lv in $verd; do
      l=${lv%%=*} val=${lv#*=}
      [ "$val" = UNDECIDED ] && continue
      if [ -n "${verdict[$l]:-}" ] && [ "${verdict[$l]%%@*}" != "$val" ]; then
        echo "DISAGREE $name $l: ${verdict[$l]} vs $val@$v: ${gen[*]}"; flagged=1
      fi
      [ -z "${verdict[$l]:-}" ] && verdict[$l]="$val@$v"
    done
  done
  unset verdict
  if ((flagged)); then echo "${gen[*]}" >"$work/$name.cmd"; else rm -f "$hist" "$work/$name".*.out; fi
done
echo "done: $tsv"

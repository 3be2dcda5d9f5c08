#!/usr/bin/env bash
# Third call: key shards (rmw 10^8, ser,si) on 1, 8 (twice) and 16 ranks after the read
# path's changes; weak scaling at 16 ranks beside two controls (16 one-rank runs of one
# file, and of 16 copies of it).
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=.gpu-carry; . scripts/carried-libs.sh; T=$(mktemp -d); use_carried_libs "$(cd $P && pwd)" "$T" >/dev/null
W=/tmp/w3; mkdir -p $W; t0=$(date +%s)
$P/isocheck generate --workload rmw --txns 25000000 --sessions 64 --out $W/rmw.h5 -q &
$P/tests/dist/dist_gen many $W/many16.h5 --components 16000 --txns 40000000 --sessions-per 4 >/dev/null &
$P/tests/dist/dist_gen many $W/many1.h5 --components 1000 --txns 2500000 --sessions-per 4 >/dev/null &
wait; echo "inputs in $(( $(date +%s) - t0 )) s"
for i in $(seq 1 16); do cp $W/many1.h5 $W/copy$i.h5; done
tot() { python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(f\"{d['total_s']:.2f} s, peak {max(d['peak_rss_kib'])//1024} MiB, \"+' '.join(f'{k}:{max(v):.2f}' for k,v in d.get('rank_steps',{}).items() if k.startswith(sys.argv[2])))" "$1" "${2-shard.}"; }
for p in 1 8 8 16; do
  mpiexec -n $p $P/isocheck verify $W/rmw.h5 -l ser,si -q --key-shards --no-serial-witness --stage-times $W/ks.json >/dev/null
  echo "ks ser,si ranks=$p: $(tot $W/ks.json)"
done
mpiexec -n 1 $P/isocheck verify $W/many1.h5 -l ser,si -q --stage-times $W/w1.json >/dev/null; echo "weak 1 rank: $(tot $W/w1.json "")"
mpiexec -n 16 $P/isocheck verify $W/many16.h5 -l ser,si -q --stage-times $W/w16.json >/dev/null; echo "weak 16 ranks: $(tot $W/w16.json "")"
ctl() { local pids=(); for i in $(seq 1 16); do $P/isocheck verify $(printf "$1" $i) -l ser,si -q --dist --stage-times $W/c$i.json >/dev/null & pids+=($!); done
  wait "${pids[@]}"; python3 -c "import json,sys;t=[json.load(open(f))['total_s'] for f in sys.argv[1:]];print(f'{min(t):.2f}-{max(t):.2f} s')" $W/c*.json; }
echo "control, one file: $(ctl $W/many1.h5)"
echo "control, 16 copies: $(ctl $W/copy%d.h5)"
echo "control, one file again: $(ctl $W/many1.h5)"

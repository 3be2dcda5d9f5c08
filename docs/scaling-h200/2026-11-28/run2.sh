#!/usr/bin/env bash
# Second call: the e2e class again (outputs compared), key shards 1 and 8 ranks again,
# and weak scaling at 16 ranks under MPI settings (what the 16 ranks lose).
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=.gpu-carry; . scripts/carried-libs.sh; T=$(mktemp -d); use_carried_libs "$(cd $P && pwd)" "$T" >/dev/null
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name|L3|NUMA node\(s\)"
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list
W=/tmp/w2; mkdir -p $W
$P/tests/dist/dist_gen many $W/many16.h5 --components 16000 --txns 40000000 --sessions-per 4 >/dev/null &
$P/tests/dist/dist_gen many $W/many1.h5 --components 1000 --txns 2500000 --sessions-per 4 >/dev/null &
E2E="100000:1024:20000" E2E_LIMIT=60 STRONG_OPS=100000000 KS_RANKS="1 8" KS_LEVELS="ser,si" KS_BUDGET=120 STEPS="e2e ks" \
  timeout 250 bash $P/sweep.sh $P /tmp/sw2 2>&1 | grep -v "^    [a-z_]*\.[a-z_]*:"
wait
run16() { local tag=$1; shift
  /usr/bin/time -f "%e" -o $W/t "$@" $P/isocheck verify $W/many16.h5 -l ser,si -q --stage-times $W/s.json >/dev/null 2>$W/err
  echo "weak 16 ranks [$tag]: $(cat $W/t) s wall, total_s $(python3 -c "import json;print(json.load(open('$W/s.json'))['total_s'])")"; }
/usr/bin/time -f "%e" -o $W/t mpiexec -n 1 $P/isocheck verify $W/many1.h5 -l ser,si -q --stage-times $W/s1.json >/dev/null
echo "weak 1 rank: total_s $(python3 -c "import json;print(json.load(open('$W/s1.json'))['total_s'])")"
run16 default mpiexec -n 16
run16 yield env OMPI_MCA_mpi_yield_when_idle=1 mpiexec -n 16
run16 bind-core mpiexec --bind-to core -n 16
run16 bind-none mpiexec --bind-to none -n 16
run16 default-again mpiexec -n 16

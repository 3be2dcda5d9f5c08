#!/bin/bash
# A real SLURM on this machine: munged, slurmctld and slurmd with a minimal
# configuration in a temporary folder (SlurmUser=root). Through the submit
# helper: one single-node audit, one MPI job of 2 tasks (mpiexec inside the
# allocation), and an array of 3 logs followed by its summary job. Waits for
# them (sbatch --wait on a dependent job, bounded by timeout), checks verdicts,
# exit codes and the summary, and stops the daemons (trap, also on failure).
# Skips (exit 77, shown as skipped by ctest) only when slurm-wlm / munge /
# Open MPI are not installed, or when not root (SlurmUser=root).
#   bash tests/cli/slurm_cluster.sh <isocheck-binary> <source-dir>
set -u
BIN=$(readlink -f "$1")
SRC=$(readlink -f "$2")
missing=()
for c in munged slurmctld slurmd sbatch squeue scontrol mpiexec python3; do
  command -v "$c" > /dev/null 2>&1 || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "SKIPPED: slurm_cluster needs ${missing[*]} (apt-get install -y slurm-wlm munge openmpi-bin)"
  exit 77
fi
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: slurm_cluster runs slurmctld/slurmd/munged as root (SlurmUser=root); run as root"
  exit 77
fi

T=$(mktemp -d /tmp/isocheck-slurm.XXXXXX)
chmod 755 "$T"
fail() { echo "FAIL: $*"; for f in "$T"/*.log; do echo "== $f"; tail -20 "$f"; done; exit 1; }
stop_daemons() {
  for p in slurmd slurmctld munged; do
    if [ -f "$T/$p.pid" ]; then
      pid=$(cat "$T/$p.pid")
      kill "$pid" 2> /dev/null
      for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2> /dev/null
    fi
  done
  [ -n "${KEEP_SLURM_TMP:-}" ] || rm -rf "$T"
}
trap stop_daemons EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HOST=$(hostname -s)
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
mkdir -p "$T/state" "$T/spool" "$T/munge"
chmod 700 "$T/munge"

# munge: own key, socket and pid file (does not touch a system munged).
dd if=/dev/urandom of="$T/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" \
  --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge/seed" \
  || fail "munged did not start"

cat > "$T/slurm.conf" << EOF
ClusterName=isocheck-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
export SLURM_CONF=$T/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$HOST" || fail "slurmd did not start"
# Bounded poll until the node is idle.
up=0
for _ in $(seq 300); do
  if scontrol show node "$HOST" 2> /dev/null | grep -q "State=IDLE"; then up=1; break; fi
  sleep 0.2
done
[ $up = 1 ] || fail "node never became idle: $(scontrol show node "$HOST" 2>&1 | head -3)"

# Logs: two that hold, one with a planted lost update (violated).
mkdir -p "$T/logs" "$T/jobs"
"$BIN" generate --workload rmw --txns 3000 --sessions 4 --seed 1 --out "$T/g1.jsonl" -q
"$BIN" generate --workload rmw --txns 3000 --sessions 4 --seed 2 --out "$T/g2.jsonl" -q
"$BIN" generate --workload rmw --txns 3000 --sessions 4 --seed 3 --plant lost-update --out "$T/g3.jsonl" -q
"$BIN" audit "$T/g1.jsonl" --write-fenced "$T/logs/day1.jsonl" --fence-every 5 -q
"$BIN" audit "$T/g2.jsonl" --write-fenced "$T/logs/day2.jsonl" --fence-every 5 -q
"$BIN" audit "$T/g3.jsonl" --write-fenced "$T/logs/day3.jsonl" --fence-every 5 -q
"$BIN" convert "$T/logs/day2.jsonl" "$T/logs/day2.h5" > /dev/null && rm "$T/logs/day2.jsonl"

common="
[resources]
partition = \"test\"
time = \"00:10:00\"
mem = \"200M\"
cpus_per_task = 1
signal_seconds = 30
"
cat > "$T/jobs/single.toml" << EOF
[job]
name = "single"
kind = "single"
command = "audit"
isocheck = "$BIN"
output = "$T/out-single"
[input]
files = ["$T/logs/day1.jsonl"]
[check]
levels = ["ser", "si", "sser"]
round = 500
$common
EOF
cat > "$T/jobs/mpi.toml" << EOF
[job]
name = "mpi"
kind = "multi"
command = "verify"
isocheck = "$BIN"
output = "$T/out-mpi"
[input]
files = ["$T/logs/day2.h5"]
[check]
levels = ["ser"]
[env]
OMPI_ALLOW_RUN_AS_ROOT = "1"
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = "1"
OMPI_MCA_plm = "isolated"
OMPI_MCA_btl = "self,vader"
$common
ntasks_per_node = 2
launcher = "mpiexec"
EOF
cat > "$T/jobs/array.toml" << EOF
[job]
name = "nightly"
kind = "array"
command = "audit"
isocheck = "$BIN"
output = "$T/out-array"
[input]
folders = ["$T/logs"]
[check]
levels = ["ser", "sser"]
round = 700
$common
EOF

SUBMIT="$SRC/scripts/isocheck-submit"
python3 "$SRC/slurm/submit" "$T/jobs/array.toml" --dry-run | grep -q -- "--array=0-2" || fail "dry run of the array"
single=$("$SUBMIT" "$T/jobs/single.toml") || fail "submit single"
mpi=$("$SUBMIT" "$T/jobs/mpi.toml") || fail "submit mpi"
read -r array summary <<< "$("$SUBMIT" "$T/jobs/array.toml")" || fail "submit array"
echo "jobs: single=$single mpi=$mpi array=$array summary=$summary"
[[ "$single" =~ ^[0-9]+$ && "$mpi" =~ ^[0-9]+$ && "$array" =~ ^[0-9]+$ && "$summary" =~ ^[0-9]+$ ]] || fail "job ids"

# Wait for all of them: a dependent job with sbatch --wait, bounded by timeout.
timeout 600 sbatch --wait --quiet --dependency="afterany:$single:$mpi:$array:$summary" -p test -t 1 \
  -o /dev/null --wrap true || fail "waiting for the jobs (timeout or sbatch error)"

exit_of() { scontrol show job "$1" 2> /dev/null | grep -o " ExitCode=[0-9]*:[0-9]*" | head -1 | cut -d= -f2; }
state_of() { scontrol show job "$1" 2> /dev/null | grep -o "JobState=[A-Z_]*" | head -1 | cut -d= -f2; }

# 1. The single-node audit.
[ "$(exit_of "$single")" = "0:0" ] || fail "single job exit $(exit_of "$single") $(state_of "$single")"
rep="$T/out-single/reports/day1.jsonl.audit.json"
[ -f "$rep" ] || fail "no report $rep"
python3 - "$rep" << 'EOF' || fail "single report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] and r["rule"] == "fence", r
assert all(v["verdict"] == "holds" for v in r["levels"].values()), r["levels"]
assert r["transactions"] > 3000 and r["rounds"] >= 6 and r["forgotten"] > 0, r
EOF

# 2. The MPI job: two ranks ran isocheck verify (mpiexec inside the allocation).
[ "$(exit_of "$mpi")" = "0:0" ] || fail "mpi job exit $(exit_of "$mpi"): $(cat "$T"/out-mpi/logs/*.out)"
n=$(grep -c "serializable: holds" "$T"/out-mpi/logs/*.out)
[ "$n" -ge 1 ] || fail "mpi job output: $(cat "$T"/out-mpi/logs/*.out)"
echo "mpi job: $n rank report(s)"

# 3. The array: per-task exit codes (only the violated log is non-zero) and the summary.
for i in 0 1 2; do
  log=$(sed -n "$((i + 1))p" "$T/out-array/logs.list")
  code=$(exit_of "${array}_$i")
  case "$(basename "$log")" in
    day3.jsonl) [ "$code" = "1:0" ] || fail "array task $i ($log) exit $code, expected 1" ;;
    *) [ "$code" = "0:0" ] || fail "array task $i ($log) exit $code, expected 0" ;;
  esac
done
[ "$(exit_of "$summary")" = "1:0" ] || fail "summary job exit $(exit_of "$summary") (expected 1: one log violated)"
python3 - "$T/out-array/summary.json" << 'EOF' || fail "summary.json"
import json, os, sys
rows = {os.path.basename(r["log"]): r for r in json.load(open(sys.argv[1]))["logs"]}
assert set(rows) == {"day1.jsonl", "day2.h5", "day3.jsonl"}, rows.keys()
assert rows["day1.jsonl"]["status"] == "holds" and rows["day2.h5"]["status"] == "holds", rows
assert rows["day3.jsonl"]["status"] == "violated", rows["day3.jsonl"]
assert rows["day3.jsonl"]["levels"] == {"serializable": "violated", "strict-serializable": "violated"}, rows["day3.jsonl"]
for name, r in rows.items():
    # a log violated at every level stops early: its verdict is final
    assert r["transactions"] > (0 if name == "day3.jsonl" else 3000) and r["peak_rss"] > 0 and r["seconds"] >= 0, r
EOF
grep -q "violated" "$T/out-array/summary.txt" || fail "summary.txt"
cat "$T/out-array/summary.txt"
echo "PASS: slurm_cluster"

# Sourced by the preemption tests: run_held_then_term OUT ERR CMD... runs an
# MPI job whose ranks hold at a test hook (ISOCHECK_TEST_HOLD_*=1 in CMD's
# environment), blocks until rank 0 reports the hold through a FIFO, sends
# SIGTERM to the ranks themselves (as SLURM does), and sets HELD_RC to the
# job's exit code. No polling: the read blocks until "held" (the hook) or
# "done" (the job ended before holding: HELD_RC is its code, HELD=0).
run_held_then_term() {
  local out=$1 err=$2; shift 2
  local fifo; fifo=$(mktemp -u); mkfifo "$fifo"
  exec 3<>"$fifo"  # read-write: neither side's open blocks
  ( ISOCHECK_TEST_READY_FIFO=$fifo "$@" > "$out" 2> "$err"; echo "$?" > "$fifo.rc"; echo done >&3 ) &
  local sub=$! line
  read -r line <&3
  HELD=0
  if [ "$line" = held ]; then
    HELD=1
    local m
    for m in $(pgrep -P "$sub"); do
      for c in $(pgrep -P "$m"); do kill -TERM "$c" 2>/dev/null; done
    done
    read -r line <&3  # "done"
  fi
  wait "$sub"
  HELD_RC=$(cat "$fifo.rc")
  exec 3>&-
  rm -f "$fifo" "$fifo.rc"
}

# Sourced by gpu-check.sh and device-run.sh on the GPU machine.
# use_carried_libs PACKED WORKDIR: put on LD_LIBRARY_PATH only those libraries
# of PACKED/gpu-libs (see gpu-check.sh --pack) that this machine lacks, as
# links in WORKDIR/libs. Putting all of them first would hand this machine's
# own programs (mpiexec, nvidia-smi, compute-sanitizer) the build machine's
# older libz, libudev, ...
use_carried_libs() {
  local B=$1 L=$2/libs round missing m f
  [ -d "$B/gpu-libs" ] || return 0
  mkdir -p "$L"
  for round in 1 2 3 4; do
    missing=$(for f in "$B"/isocheck "$B"/tests/gpu_closure_test "$B"/gpu_closure_bench "$B"/gpu_sliced_selftest "$B"/tests/dist/dist_gen; do
                [ -e "$f" ] && LD_LIBRARY_PATH="$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" 2>/dev/null; done |
              awk '/not found/{print $1}' | sort -u)
    [ -z "$missing" ] && break
    for m in $missing; do [ -e "$B/gpu-libs/$m" ] && ln -sf "$B/gpu-libs/$m" "$L/$m"; done
  done
  export LD_LIBRARY_PATH="$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "carried libraries used: $(ls "$L" | tr '\n' ' ')"
}

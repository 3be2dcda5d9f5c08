#!/usr/bin/env bash
# Failure paths of every command (verify, audit, convert, info, generate,
# collect, and verify under `mpiexec -n 4`): a memory limit certainly too
# small, a time limit that has certainly run out, a truncated input. Each must
# end with exit 2 (input, usage) or 3 (resources) — never 0 or 1, never a
# signal — with exactly one message line naming the problem, no verdict, the
# input byte-for-byte unchanged and no core file. Deterministic: the memory
# limits are far below what the generated histories need (or below what a
# process holds at its start), the time limit is 1e-12 s; nothing sleeps.
set -u
bin="$1"; src="$2"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
cd "$tmp" || exit 1
find_mpiexec
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi4() { "$mpiexec" --oversubscribe -n 4 "$@"; }

# fails_with NAME WANT INPUT PATTERN command...
#   WANT: the exit code (2 or 3); INPUT: a file that must stay unchanged (or -);
#   PATTERN: what the one message line must say. Under mpiexec (the command
#   starts with mpi4) only isocheck's lines are counted: mpiexec adds its own
#   banner for any non-zero exit.
fails_with() {
  local name="$1" want="$2" input="$3" pattern="$4"; shift 4
  local before="" after="" why=""
  [ "$input" = - ] || before=$(sha256sum <"$input")
  rm -f core core.*
  "$@" >out 2>err; local rc=$?
  [ "$input" = - ] || after=$(sha256sum <"$input")
  [ "$rc" -ge 128 ] && why+=" killed by signal $((rc - 128));"
  [ "$rc" -eq "$want" ] || why+=" exit $rc, wanted $want;"
  local lines
  if [ "$1" = mpi4 ]; then lines=$(grep -c '^isocheck' err); else lines=$(wc -l <err); fi
  [ "$lines" -eq 1 ] || why+=" $lines message lines, wanted 1;"
  grep -E '^isocheck' err | grep -qE -- "$pattern" || why+=" no line matches /$pattern/;"
  if grep -qE 'holds|VIOLATED|violated' out; then why+=" a verdict was printed;"; fi
  [ "$before" = "$after" ] || why+=" the input $input changed;"
  if compgen -G 'core*' >/dev/null; then why+=" a core file was left;"; fi
  if [ -n "$why" ]; then
    fail "$name:$why"; echo "  command: $*"; sed 's/^/  stderr: /' err | head -20
  else pass; fi
}

# Inputs of known size: 100,000 read-modify-write transactions hold about
# 40 MiB resident once read (a 16 MiB limit is certainly too small); truncated
# copies cut inside a line (JSONL) or inside the data (HDF5).
"$bin" generate -q --workload rmw --txns 100000 --out big.jsonl || exit 1
"$bin" generate -q --workload rmw --txns 2000 --out small.jsonl || exit 1
"$bin" convert small.jsonl small.h5 || exit 1
head -c $(( $(stat -c %s small.jsonl) / 2 + 7 )) small.jsonl > cut.jsonl
head -c $(( $(stat -c %s small.h5) / 2 )) small.h5 > cut.h5
nodb='host=/nonexistent-isocheck-test port=1'
gen() { "$bin" generate -q --workload rmw --txns 100000 --out gen_out.jsonl "$@"; }

# ---- a memory limit certainly too small
mem='memory limit of [0-9]+ [KM]iB reached during stage "[^"]+" \([0-9.]+ [KM]iB resident\); raise --memory-limit'
fails_with mem.verify 3 big.jsonl "$mem" "$bin" verify -q big.jsonl --memory-limit 16M
fails_with mem.verify.stage 3 big.jsonl 'stage "read"' "$bin" verify -q big.jsonl --memory-limit 16M
fails_with mem.audit 3 big.jsonl "$mem" "$bin" audit -q big.jsonl --memory-limit 16M
fails_with mem.convert 3 big.jsonl "$mem" "$bin" convert big.jsonl conv_out.h5 --memory-limit 16M
fails_with mem.info 3 big.jsonl "$mem" "$bin" info big.jsonl --memory-limit 16M
fails_with mem.info.h5 3 small.h5 "$mem" "$bin" info small.h5 --memory-limit 256K
fails_with mem.generate 3 - "$mem" gen --memory-limit 256K
fails_with mem.collect 3 - "$mem" "$bin" collect -q --dsn "$nodb" --out coll_out.jsonl --memory-limit 256K
fails_with mem.mpi 3 big.jsonl "$mem" mpi4 "$bin" verify -q big.jsonl --memory-limit 16M
fails_with mem.mpi.start 3 big.jsonl 'stage "start"' mpi4 "$bin" verify -q big.jsonl --memory-limit 1M
fails_with mem.mpi.h5 3 small.h5 "$mem" mpi4 "$bin" verify -q small.h5 --memory-limit 1M
fails_with mem.dist 3 small.jsonl "$mem" "$bin" verify -q --dist small.jsonl --memory-limit 1M

# ---- a time limit that has run out (1e-12 s) and one of zero (a usage error)
tl='time limit of 1e-12s reached during stage "[^"]+"; raise --time-limit'
fails_with time.verify 3 big.jsonl "$tl" "$bin" verify -q big.jsonl --time-limit 1e-12
fails_with time.audit 3 big.jsonl "$tl" "$bin" audit -q big.jsonl --time-limit 1e-12
fails_with time.convert 3 big.jsonl "$tl" "$bin" convert big.jsonl conv_out.h5 --time-limit 1e-12
fails_with time.info 3 small.h5 "$tl" "$bin" info small.h5 --time-limit 1e-12
fails_with time.generate 3 - "$tl" gen --time-limit 1e-12
fails_with time.collect 3 - "$tl" "$bin" collect -q --dsn "$nodb" --out coll_out.jsonl --time-limit 1e-12
fails_with time.mpi 3 big.jsonl "$tl" mpi4 "$bin" verify -q big.jsonl --time-limit 1e-12
zero='--time-limit: must be positive'
fails_with zero.verify 2 small.jsonl "$zero" "$bin" verify -q small.jsonl --time-limit 0
fails_with zero.audit 2 small.jsonl "$zero" "$bin" audit -q small.jsonl --time-limit 0
fails_with zero.convert 2 small.jsonl "$zero" "$bin" convert small.jsonl conv_out.h5 --time-limit 0
fails_with zero.info 2 small.jsonl "$zero" "$bin" info small.jsonl --time-limit 0
fails_with zero.generate 2 - "$zero" gen --time-limit 0
fails_with zero.collect 2 - "$zero" "$bin" collect -q --dsn "$nodb" --out coll_out.jsonl --time-limit 0
fails_with zero.mpi 2 small.jsonl "$zero" mpi4 "$bin" verify -q small.jsonl --time-limit 0
fails_with zero.mem 2 small.jsonl '--memory-limit: must be positive' "$bin" info small.jsonl --memory-limit 0

# ---- a truncated input: exit 2 naming the file (and the line, for JSONL)
cutj='cut\.jsonl:[0-9]+: '
fails_with cut.verify 2 cut.jsonl "$cutj" "$bin" verify -q cut.jsonl
fails_with cut.audit 2 cut.jsonl "cut\.jsonl" "$bin" audit -q cut.jsonl
fails_with cut.convert 2 cut.jsonl "$cutj" "$bin" convert cut.jsonl conv_out.h5
fails_with cut.info 2 cut.jsonl "$cutj" "$bin" info cut.jsonl
fails_with cut.mpi 2 cut.jsonl "$cutj" mpi4 "$bin" verify -q cut.jsonl
fails_with cut.verify.h5 2 cut.h5 'cut\.h5' "$bin" verify -q cut.h5
fails_with cut.audit.h5 2 cut.h5 'cut\.h5' "$bin" audit -q cut.h5
fails_with cut.convert.h5 2 cut.h5 'cut\.h5' "$bin" convert cut.h5 conv_out.jsonl
fails_with cut.info.h5 2 cut.h5 'cut\.h5' "$bin" info cut.h5
fails_with cut.mpi.h5 2 cut.h5 'cut\.h5' mpi4 "$bin" verify -q cut.h5
# collect has no input; without a server it fails in one line.
fails_with nodb.collect 2 - 'cannot connect' "$bin" collect -q --dsn "$nodb" --out coll_out.jsonl

# ---- outputs that cannot be written, outputs equal to the input, damaged
# checkpoints
# (A directory below a regular file cannot be made, not even by root.)
echo 'a regular file' > notadir
fails_with out.convert 2 small.jsonl 'notadir/x\.h5' "$bin" convert small.jsonl notadir/x.h5
fails_with out.generate 2 - 'notadir/x\.jsonl' "$bin" generate -q --workload rmw --txns 10 --out notadir/x.jsonl
fails_with out.verify.ckdir 2 small.jsonl 'notadir' "$bin" verify -q small.jsonl --checkpoint-dir notadir
fails_with out.audit.ckdir 2 small.jsonl 'notadir' "$bin" audit -q small.jsonl --checkpoint-dir notadir
fails_with out.audit.out 2 small.jsonl 'notadir' "$bin" audit -q small.jsonl --out notadir

# Outputs checked before the verdict, write errors, an output that is the
# input (by name or through a link), a damaged checkpoint.
output_cases() {
  printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["r","x",null],["r","y",null],["w","y",1]]}' \
    '{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["r","y",null],["w","x",2]]}' > skew.jsonl
  fails_with out.verify.dot 2 skew.jsonl 'notadir/x\.dot' "$bin" verify -q skew.jsonl --dot notadir/x.dot
  fails_with out.verify.html 2 skew.jsonl '--html' "$bin" verify -q skew.jsonl --html notadir/x.html
  fails_with full.verify.dot 3 skew.jsonl '/dev/full' "$bin" verify -q skew.jsonl --dot /dev/full
  fails_with full.verify.html 3 skew.jsonl '/dev/full' "$bin" verify -q skew.jsonl --html /dev/full
  # The report itself to a full disk or a closed descriptor: it is lost, so
  # exit 3 with a message, not the verdict's code (regression: exit 1 with
  # nothing written, or 0 for a history that holds).
  fails_with full.verify.stdout 3 skew.jsonl 'standard output: No space left on device; exit 3 instead of 1' \
    sh -c '"$0" verify -q "$1" > /dev/full' "$bin" skew.jsonl
  fails_with full.verify.json 3 small.jsonl 'standard output: No space left on device; exit 3 instead of 0' \
    sh -c '"$0" verify -q --json "$1" > /dev/full' "$bin" small.jsonl
  fails_with full.audit.stdout 3 skew.jsonl 'standard output: No space left on device; exit 3 instead of 1' \
    sh -c '"$0" audit -q "$1" > /dev/full' "$bin" skew.jsonl
  fails_with closed.verify.stdout 3 small.jsonl 'standard output: Bad file descriptor' \
    sh -c '"$0" verify -q "$1" >&-' "$bin" small.jsonl
  cp small.jsonl self.jsonl
  fails_with self.convert 2 self.jsonl 'self\.jsonl' "$bin" convert self.jsonl self.jsonl --to jsonl
  fails_with self.audit 2 self.jsonl 'self\.jsonl' "$bin" audit -q self.jsonl --write-fenced self.jsonl
  ln -sf self.jsonl link.jsonl
  fails_with self.link 2 self.jsonl 'link\.jsonl' "$bin" convert self.jsonl link.jsonl --to jsonl
  mkdir -p ck && "$bin" verify -q skew.jsonl --checkpoint-dir ck >/dev/null 2>&1
  for f in ck/*; do head -c $(( $(stat -c %s "$f") / 2 )) "$f" > "$f.cut" && mv "$f.cut" "$f"; done
  fails_with ck.verify 2 skew.jsonl 'damaged checkpoint' "$bin" verify -q skew.jsonl --checkpoint-dir ck
}
output_cases

# An internal check that fails (a bug's path, forced by a test variable):
# exit 3 with one line saying so, not std::terminate's abort (it was a crash:
# no handler took std::logic_error, nor the runtime_error a collective step
# rethrows it as).
fails_with internal.verify 3 skew.jsonl 'internal error.*a bug in isocheck' \
  env ISOCHECK_TEST_INTERNAL_ERROR=1 "$bin" verify -q skew.jsonl

summary

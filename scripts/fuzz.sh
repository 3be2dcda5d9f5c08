#!/usr/bin/env bash
# Builds the importers' libFuzzer targets (tests/fuzz/fuzz_*.cpp) with clang,
# AddressSanitizer and UBSan, then runs each for SECONDS.
#   scripts/fuzz.sh SECONDS [TARGET...]      e.g. scripts/fuzz.sh 60 elle_edn cobra
# Needs Debian's clang and libclang-rt-14-dev (apt-get install -y clang libclang-rt-14-dev).
# Seeds: the small files of ../shared/corpus (or $ISOCHECK_CORPUS) that fit each
# format, plus the target's own findings kept in build-fuzz/corpus/TARGET.
# A crash leaves build-fuzz/artifacts/TARGET/crash-*; turn each into a test in
# tests/unit/import_test.cpp ("fuzzer finds"). Exit 1 when any target failed.
set -euo pipefail
secs=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
out=${ISOCHECK_FUZZ_DIR:-$root/build-fuzz}
corpus=${ISOCHECK_CORPUS:-$root/../shared/corpus}
cxx=${CXX_FUZZ:-clang++}
all=(elle_edn elle_json cobra polysi dbcop_bincode dbcop_yaml dbcop_json dbcop_text)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -I"$root/src")
srcs=(history import_common import_edn import_elle_json import_cobra import_dbcop import_polysi)
mkdir -p "$out/obj"
for s in "${srcs[@]}"; do
  o="$out/obj/$s.o"
  if [ ! -f "$o" ] || [ "$root/src/io/$s.cpp" -nt "$o" ] || [ "$root/src/io/import_common.h" -nt "$o" ] || [ "$root/src/io/import.h" -nt "$o" ]; then
    echo "compile $s" >&2
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$root/src/io/$s.cpp" -o "$o"
  fi
done

seed() {  # seed TARGET: fill $out/seeds/TARGET
  local d="$out/seeds/$1"
  rm -rf "$d"; mkdir -p "$d"
  local pat
  case $1 in
    elle_edn) pat='*.edn' ;;
    elle_json) pat='*.json' ;;
    polysi) pat='*.txt' ;;
    dbcop_bincode) pat='*.bincode' ;;
    dbcop_yaml) pat='*.yaml' ;;
    cobra) pat='T*.log' ;;
    *) pat='' ;;
  esac
  if [ -n "$pat" ] && [ -d "$corpus" ]; then
    find "$corpus" -name "$pat" -size -64k -type f | while read -r f; do cp "$f" "$d/$(echo "$f" | md5sum | cut -c1-12)"; done
  fi
  case $1 in
    dbcop_json) printf '%s' '[[{"events":[{"Write":{"variable":0,"version":1}},{"Read":{"variable":1,"version":null}}],"committed":true}]]' > "$d/s1"
                printf '%s' '{"params":{"id":0},"data":[[{"events":[{"Read":{"variable":0,"version":1}}],"committed":false}]]}' > "$d/s2" ;;
    dbcop_text) printf '// s1\n[x:=1 y:=2] [y==2 x:=3]\n---\n[x==1 y:=4] [z==?]!\n' > "$d/s1" ;;
    elle_json) printf '{"type":"invoke","f":"txn","value":[["append",1,2]],"process":0}\n{"type":"ok","f":"txn","value":[["append",1,2]],"process":0}\n' > "$d/s2" ;;
  esac
}

failed=0
for t in "${targets[@]}"; do
  bin="$out/fuzz_$t"
  if [ ! -x "$bin" ] || [ "$root/tests/fuzz/fuzz_$t.cpp" -nt "$bin" ] || [ -n "$(find "$out/obj" -newer "$bin" -name '*.o')" ]; then
    echo "link fuzz_$t" >&2
    "$cxx" "${flags[@]}" -fsanitize=fuzzer -I"$root/tests/fuzz" "$root/tests/fuzz/fuzz_$t.cpp" "$out"/obj/*.o -o "$bin"
  fi
  seed "$t"
  mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
  echo "== fuzz_$t for ${secs}s" >&2
  if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
       -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "$out/seeds/$t" > "$out/$t.log" 2>&1; then
    echo "fuzz_$t FAILED: see $out/$t.log and $out/artifacts/$t/" >&2
    failed=1
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/$t.log" | tail -1 >&2 || true
done
exit $failed

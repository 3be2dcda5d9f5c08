#!/usr/bin/env bash
# Hostile and careless inputs: repeated fields, where errors point, resource
# messages that name the stage, user strings that try to forge output lines,
# and the importers' notes that convert and info must not drop.
set -u
bin="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() {  # name expected_rc command...
  local name="$1" want="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then echo "FAIL $name: exit $rc, wanted $want"; cat "$tmp/out" "$tmp/err"; fails=$((fails+1)); else passes=$((passes+1)); fi
}
has() {  # name file pattern (fixed string)
  if ! grep -qF -- "$3" "$2"; then echo "FAIL $1: $2 lacks '$3':"; head -c 3000 "$2"; echo; fails=$((fails+1)); else passes=$((passes+1)); fi
}
lacks() {
  if grep -qF -- "$3" "$2"; then echo "FAIL $1: $2 has '$3'"; head -c 3000 "$2"; echo; fails=$((fails+1)); else passes=$((passes+1)); fi
}
count() {  # name file pattern expected_count
  local n; n=$(grep -oF -- "$3" "$2" | wc -l)
  if [ "$n" -ne "$4" ]; then echo "FAIL $1: '$3' appears $n times in $2, wanted $4"; cat "$2"; fails=$((fails+1)); else passes=$((passes+1)); fi
}

# A repeated field: the second "ops" would discard the thin-air read.
printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["w","x",1],["r","x",2]],"ops":[]}' > "$tmp/dup.jsonl"
check dup-verify 2 "$bin" verify "$tmp/dup.jsonl"
has dup-verify "$tmp/err" 'dup.jsonl:1: field "ops" is given more than once'
check dup-audit 2 "$bin" audit -q "$tmp/dup.jsonl"
has dup-audit "$tmp/err" 'field "ops" is given more than once'

# Audit errors: the file named once, the file's own line number.
"$bin" generate --workload rmw --txns 40 --sessions 2 --out "$tmp/log.jsonl" -q
sed -i '31s/"committed"/"commited"/' "$tmp/log.jsonl"
check audit-line 2 "$bin" audit -q --round 10 "$tmp/log.jsonl"
has audit-line "$tmp/err" "log.jsonl:31: unknown status"
count audit-line "$tmp/err" "log.jsonl" 1

# An audit that runs out of memory names the audit's step, not "start".
"$bin" generate --workload rmw --txns 200000 --sessions 8 --out "$tmp/big.jsonl" -q
check audit-memory 3 "$bin" audit -q "$tmp/big.jsonl" --memory-limit 40M
has audit-memory "$tmp/err" 'during stage "audit'
lacks audit-memory "$tmp/err" 'stage "start"'

# An allocation the system refuses (an address-space limit, as some batch
# systems set) exits 3 and names the stage and the peak resident memory, not
# what is left resident after the stage unwound. The limit: the smallest
# address space (in 8 MiB steps) in which a 1-transaction history is checked,
# plus 16 MiB — too little to read 200 000 transactions.
printf '%s\n' '{"id":1,"session":1,"status":"committed","ops":[["w","x",1]]}' > "$tmp/one.jsonl"
base=""
for kib in $(seq 24576 8192 1048576); do
  if (ulimit -v "$kib"; "$bin" verify -q "$tmp/one.jsonl") >/dev/null 2>&1; then base=$kib; break; fi
done
if [ -z "$base" ]; then echo "FAIL alloc-limit: no address-space limit up to 1 GiB runs a 1-transaction check"; fails=$((fails+1)); else
  check alloc-limit 3 bash -c 'ulimit -v "$1"; exec "$2" verify -q "$3"' _ $((base + 16384)) "$bin" "$tmp/big.jsonl"
  if grep -qE 'out of memory during stage "[a-z ]+" \(peak [0-9.]+ MiB resident\); run on a machine with more memory' "$tmp/err"; then
    passes=$((passes+1)); else echo "FAIL alloc-limit: message:"; cat "$tmp/err"; fails=$((fails+1)); fi
fi

# --zipf is the option's name.
check zipf 2 "$bin" generate --workload rmw --txns 10 --dist zipf --zipf 0 --out "$tmp/z.jsonl"
has zipf "$tmp/err" "--zipf must be in (0, 100]"
lacks zipf "$tmp/err" "--zipf-s"

# The importers' notes: convert and info say what was skipped, one line each.
cat > "$tmp/e.edn" <<'EDN'
{:type :invoke, :f :txn, :value [[:append 1 1]], :process 0, :index 0}
{:type :info, :f :start, :value nil, :process :nemesis, :index 1}
{:type :ok, :f :txn, :value [[:append 1 1]], :process 0, :index 2}
EDN
check info-notes 0 "$bin" info "$tmp/e.edn"
has info-notes "$tmp/err" "isocheck: skipped 1: operations of a process that is not a client (:nemesis)"
count info-notes "$tmp/err" "isocheck:" 1
check convert-notes 0 "$bin" convert "$tmp/e.edn" "$tmp/e.jsonl"
has convert-notes "$tmp/err" "isocheck: skipped 1: operations of a process that is not a client (:nemesis)"

# One flipped byte in an HDF5 file: the length of the first string in the
# global heap (the time_unit attribute) grows past its collection. libhdf5
# trusted it and crashed; every command must say the file is damaged.
"$bin" generate --workload rmw --txns 20 --sessions 2 --out "$tmp/g.h5" -q
gcol=$(grep -obUa 'GCOL' "$tmp/g.h5" | head -1 | cut -d: -f1)
cp "$tmp/g.h5" "$tmp/heap.h5"
printf '\x7f' | dd of="$tmp/heap.h5" bs=1 seek=$((gcol + 25)) conv=notrunc status=none
for cmd in "info" "verify" "convert:$tmp/heap-out.jsonl" "audit:-q"; do
  name=${cmd%%:*}; extra=""; [ "$cmd" != "$name" ] && extra=${cmd#*:}
  check "heap-$name" 2 "$bin" $name "$tmp/heap.h5" $extra
  has "heap-$name" "$tmp/err" "heap.h5: cannot read root attribute time_unit (damaged file: global heap collection at byte $gcol"
done

# A damaged audit checkpoint whose first string claims 2^64-1 bytes (the
# checkpoint fuzzer's first find): std::length_error escaped and aborted.
ck="$tmp/ck"
"$bin" audit -q --round 1 --checkpoint-dir "$ck" "$src/examples/g2_item_write_skew.jsonl" >/dev/null 2>&1
f="$ck/g2_item_write_skew.jsonl.ckpt"
if [ -f "$f" ]; then passes=$((passes+1)); else echo "FAIL ckpt: no checkpoint written"; fails=$((fails+1)); fi
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$f" bs=1 seek=40 conv=notrunc status=none
check ckpt-length 2 "$bin" audit -q --requeue --checkpoint-dir "$ck" "$src/examples/g2_item_write_skew.jsonl"
has ckpt-length "$tmp/err" "g2_item_write_skew.jsonl.ckpt"

echo "hostile_inputs: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

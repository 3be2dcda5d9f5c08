#!/usr/bin/env bash
# Imported formats read a piece at a time (Cobra client logs, dbcop JSON and YAML):
# verify, audit and convert give the verdicts and history of the whole
# import, a lost update is found by both; a malformed log ends with exit 2
# and one message naming the file and byte (Cobra) or line (JSON, YAML), from
# every command.
set -u
bin="$1"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cli.sh"
cd "$tmp" || exit 1
need python3
check_messages=1

# cobra FOLDER LOG... where LOG is "NAME:RECORDS", RECORDS space-separated
# S,id C,id W,wid,key,value R,writer,wid,key,value (init = the initial-value marker).
cobra() {
  python3 - "$@" <<'EOF'
import os, struct, sys
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
for spec in sys.argv[2:]:
    name, records = spec.split(":", 1)
    out = b""
    for rec in records.split():
        tag, *fields = rec.split(",")
        out += tag.encode()
        for f in fields:
            v = 0xbebeebee if f == "init" else int(f)
            out += struct.pack(">q", v)
    open(os.path.join(folder, name), "wb").write(out)
EOF
}

# Two clients read the initial value of key 1 and both write it: a lost update.
cobra lost "T1.log:S,1 R,init,init,1,0 W,10,1,5 C,1" "T2.log:S,2 R,init,init,1,0 W,11,1,6 C,2"
# The second reads the first's write.
cobra fine "T1.log:S,1 R,init,init,1,0 W,10,1,5 C,1" "T2.log:S,2 R,1,10,1,5 W,11,1,6 C,2"
for level in ser si; do
  check "verify lost $level" 1 "$bin" verify -q lost -l "$level"
  check "audit lost $level" 1 "$bin" audit -q lost -l "$level"
  check "verify fine $level" 0 "$bin" verify -q fine -l "$level"
  check "audit fine $level" 0 "$bin" audit -q fine -l "$level"
done
check "convert fine" 0 "$bin" convert fine fine.jsonl
check "verify converted" 0 "$bin" verify -q fine.jsonl -l ser
has "converted reads the write id" fine.jsonl '[["r",1,10],["w",1,11]]'

# A record cut short at byte 9 of T2.log (a write needs 24 bytes after its tag).
cobra cut "T1.log:S,1 W,10,1,5 C,1" "T2.log:S,2"
printf 'W\0\0\0' >> cut/T2.log
for cmd in verify audit; do
  check "$cmd cut" 2 "$bin" "$cmd" -q cut
  expect_one_err "$cmd cut names file and byte" 'T2\.log: byte 9.*truncated record: the write id needs 8 bytes, 3 left'
done
check "convert cut" 2 "$bin" convert cut cut.jsonl
expect_one_err "convert cut names file and byte" 'T2\.log: byte 9'
# A transaction id used in two logs: named where it starts the second time.
cobra twice "T1.log:S,7 W,10,1,5 C,7" "T2.log:S,3 C,3 S,7 C,7"
check "audit twice" 2 "$bin" audit -q twice
expect_one_err "audit twice names the second start" 'T2\.log: byte 18.*transaction id 7 is used twice'

# dbcop JSON: the same lost update, and the second reading the first's write.
txn() { printf '{"events": [{"Read": {"variable": 1, "version": %s}}, {"Write": {"variable": 1, "version": %s}}], "committed": true}' "$1" "$2"; }
printf '[[%s],\n[%s]]\n' "$(txn null 5)" "$(txn null 6)" > lost.json
printf '{"data": [[%s],\n[%s]], "info": "x"}\n' "$(txn null 5)" "$(txn 5 6)" > fine.json
for level in ser si; do
  check "verify lost.json $level" 1 "$bin" verify -q lost.json -l "$level"
  check "audit lost.json $level" 1 "$bin" audit -q lost.json -l "$level"
  check "verify fine.json $level" 0 "$bin" verify -q fine.json -l "$level"
  check "audit fine.json $level" 0 "$bin" audit -q fine.json -l "$level"
done
check "convert fine.json" 0 "$bin" convert fine.json fine2.jsonl
has "converted dbcop JSON" fine2.jsonl '[["r",1,5],["w",1,6]]'
# A transaction's error on line 2, an unterminated array from line 1: the
# text's error comes first, as in the whole parse.
printf '[[%s],\n[{"events": 3, "committed": true}]\n' "$(txn null 5)" > bad.json
for cmd in verify audit; do
  check "$cmd bad.json" 2 "$bin" "$cmd" -q bad.json
  expect_one_err "$cmd bad.json names the line" 'bad\.json:1.*unterminated array'
done
printf '[[%s],\n[{"events": 3, "committed": true}]]\n' "$(txn null 5)" > bad2.json
check "audit bad2.json" 2 "$bin" audit -q bad2.json
expect_one_err "audit bad2.json names the line" 'bad2\.json:2.*"events" must be a list'

# dbcop YAML: the same lost update; a YAML error on line 22 comes before the
# transaction's error on line 1 (the whole parse reads the YAML first).
ev() { printf '    - write: %s\n      variable: 1\n      value: %s\n      success: true\n' "$1" "$2"; }
{ echo "- - events:"; ev false 0; ev true 5; echo "    success: true"
  echo "- - events:"; ev false 0; ev true 6; echo "    success: true"; } > lost.yaml
check "verify lost.yaml" 1 "$bin" verify -q lost.yaml -l ser
check "audit lost.yaml" 1 "$bin" audit -q lost.yaml -l ser
sed 's/^- - events:$/- - evants:/' lost.yaml > bad.yaml
check "audit bad.yaml" 2 "$bin" audit -q bad.yaml
expect_one_err "audit bad.yaml names the line" 'bad\.yaml:1.*missing field "events"'
printf '  - x\n   - y\n' >> bad.yaml
for cmd in verify audit; do
  check "$cmd bad.yaml" 2 "$bin" "$cmd" -q bad.yaml
  expect_one_err "$cmd bad.yaml: the YAML's error first" 'bad\.yaml:22: unexpected indentation'
done

summary

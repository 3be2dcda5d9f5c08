#!/usr/bin/env python3
"""Counts two-transaction anomaly instances in a collected history (JSONL).

A measurement aid for docs/collect.md and bench/pg_bench.sh, not a checker
(`isocheck verify` decides; this only counts simple patterns among committed
transactions, relying on unique values and read-before-write):
  lost update  two txns read one version of k and both wrote k
  write skew   T1 read x@v, T2 read x@v and wrote x; T2 read y@u, T1 read y@u and
               wrote y; neither wrote the other's key (x != y)
  read skew    T read x missing W's write/append to x while it read W's write/append
               to y (W committed, x != y); for registers W must have read x's
               version T read (so it is the next version)
Usage: count_anomalies.py HISTORY.jsonl  -> one JSON line of counts
"""
import json
import sys
from collections import defaultdict


def main(path):
    txns = []
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            if "ops" in t:
                txns.append(t)
    total = len(txns)
    committed = [t for t in txns if t["status"] == "committed"]
    readers = defaultdict(set)   # (k, version) -> txns that read it
    rmw = defaultdict(set)       # (k, version) -> txns that read it and then wrote k
    writer = {}                  # (k, value) -> txn (writes and appends)
    info = []
    for i, t in enumerate(committed):
        reads, writes, lists = {}, set(), {}
        for op in t["ops"]:
            if op[0] in ("scan", "insert", "delete"):
                continue  # (predicate operations are not counted: verify's verdict is the measure)
            kind, k, v = op
            if kind == "r" and isinstance(v, list):
                lists[k] = v
            elif kind == "r":
                reads.setdefault(k, v)
            else:
                writes.add(k)
                writer[(k, v)] = i
        for k, v in reads.items():
            readers[(k, v)].add(i)
            if k in writes:
                rmw[(k, v)].add(i)
        info.append((reads, writes, lists))

    lost = sum(len(s) * (len(s) - 1) // 2 for s in rmw.values() if len(s) > 1)

    # rw[i] = {(j, key)}: i read a version that j (rmw) overwrote, i did not write key.
    rw = defaultdict(set)
    for (k, v), ws in rmw.items():
        for i in readers[(k, v)]:
            if k in info[i][1]:
                continue
            for j in ws:
                if j != i:
                    rw[i].add((j, k))
    skew = 0
    for i, outs in rw.items():
        for j, x in outs:
            if j > i and any(jj == i and y != x for jj, y in rw.get(j, ())):
                skew += 1

    # Read skew: T -rw-> W on x, W -wr-> T on y.
    rskew = 0
    for t, (reads, writes, lists) in enumerate(info):
        seen_from = defaultdict(set)  # W -> keys where T saw W's write
        for k, v in reads.items():
            w = writer.get((k, v))
            if w is not None and w != t:
                seen_from[w].add(k)
        for k, l in lists.items():
            for v in l:
                w = writer.get((k, v))
                if w is not None and w != t:
                    seen_from[w].add(k)
        hit = False
        for w, ys in seen_from.items():
            wr, ww, wl = info[w]
            for x in ww:
                if x in ys:
                    continue
                if x in reads and x in wr and reads[x] == wr[x]:
                    hit = any(y != x for y in ys)
                elif x in lists:
                    # W appended to x: is any of W's values for x missing from T's read?
                    hit = any(y != x for y in ys) and not any(
                        writer.get((x, v)) == w for v in lists[x])
                if hit:
                    break
            if hit:
                break
        rskew += 1 if hit else 0

    out = {"txns": total, "committed": len(committed), "lost_update": lost,
           "write_skew": skew, "read_skew_txns": rskew}
    for name in ("lost_update", "write_skew", "read_skew_txns"):
        out[name + "_per_1000"] = round(1000.0 * out[name] / total, 2) if total else 0
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])

#include "oracle/lin_oracle.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

namespace isocheck {
namespace {

struct Op {
  Sym key, read;
  bool writes;
  Sym wrote;
  int64_t begin, end;  // end: max when unknown
  TxnStatus status;
};

struct Search {
  std::vector<Op> ops;
  int64_t skew;
  std::vector<uint8_t> placed, skipped;
  std::map<Sym, Sym> state;

  // Does some order of the ops not yet placed (and not left out) finish?
  // Each step places one whose real-time predecessors are all placed or
  // left out and whose read returns the key's current value.
  bool run(size_t left) {
    if (left == 0) return true;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (placed[i] || skipped[i]) continue;
      // every op that must precede i is placed (or left out)
      bool ready = true;
      for (size_t j = 0; j < ops.size() && ready; ++j)
        if (j != i && !placed[j] && !skipped[j] && ops[j].end != std::numeric_limits<int64_t>::max() &&
            ops[j].end + skew < ops[i].begin)
          ready = false;
      if (!ready) continue;
      auto it = state.find(ops[i].key);
      Sym cur = it == state.end() ? kNullValue : it->second;
      if (cur != ops[i].read) continue;
      placed[i] = 1;
      if (ops[i].writes) state[ops[i].key] = ops[i].wrote;
      bool ok = run(left - 1);
      if (ops[i].writes) state[ops[i].key] = cur;
      placed[i] = 0;
      if (ok) return true;
    }
    return false;
  }
};

}  // namespace

bool lin_oracle(const History& h, int64_t clock_skew) {
  Search s;
  s.skew = clock_skew;
  std::vector<size_t> unknown;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] == TxnStatus::aborted) continue;
    Op o;
    uint64_t b = h.op_begin(t);
    o.key = h.op_key[b];
    o.read = h.op_value[b];
    o.writes = h.op_end(t) - b == 2;
    o.wrote = o.writes ? h.op_value[b + 1] : 0;
    o.begin = h.txn_begin[t];
    o.status = h.txn_status[t];
    o.end = o.status == TxnStatus::unknown ? std::numeric_limits<int64_t>::max() : h.txn_end[t];
    if (o.status == TxnStatus::unknown) unknown.push_back(s.ops.size());
    s.ops.push_back(o);
  }
  if (s.ops.size() > kLinOracleMaxTxns) throw std::invalid_argument("lin_oracle: too many transactions");
  // Every subset of the unknown ones may be the ones that took effect.
  for (uint64_t mask = 0; mask < (uint64_t{1} << unknown.size()); ++mask) {
    s.placed.assign(s.ops.size(), 0);
    s.skipped.assign(s.ops.size(), 0);
    s.state.clear();
    size_t left = s.ops.size();
    for (size_t u = 0; u < unknown.size(); ++u)
      if (mask >> u & 1) s.skipped[unknown[u]] = 1, --left;
    if (s.run(left)) return true;
  }
  return false;
}

History random_lwt_history(uint64_t seed, int max_txns) {
  std::mt19937_64 rng(seed);
  auto uni = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
  const int n = 2 + static_cast<int>(uni(static_cast<uint64_t>(max_txns - 1)));
  const int keys = 1 + static_cast<int>(uni(2));
  struct T {
    int key;
    int64_t read = 0;  // 0 = null
    bool writes = false;
    int64_t wrote = 0;
    int64_t begin, end, point;
    TxnStatus status = TxnStatus::committed;
    bool no_end = false;
  };
  std::vector<T> ts(n);
  for (auto& t : ts) {
    t.key = static_cast<int>(uni(static_cast<uint64_t>(keys)));
    t.begin = uni(20);
    t.end = t.begin + uni(8);
    t.point = t.begin + uni(static_cast<uint64_t>(t.end - t.begin + 1));
  }
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ts[a].point < ts[b].point; });
  std::vector<int64_t> cur(keys, 0), fresh(keys, 1);
  std::vector<std::vector<int64_t>> versions(keys, std::vector<int64_t>{0});
  std::vector<std::vector<int64_t>> aborted_values(keys);
  for (int i : order) {
    T& t = ts[i];
    const int64_t kind = uni(10);
    t.read = cur[t.key];
    if (kind < 1) {  // aborted attempt: no effect
      t.status = TxnStatus::aborted;
      t.writes = true;
      t.wrote = fresh[t.key]++;
      aborted_values[t.key].push_back(t.wrote);
    } else if (kind < 6) {  // successful CAS or insert-if-absent
      t.writes = true;
      t.wrote = fresh[t.key]++;
      cur[t.key] = t.wrote;
      versions[t.key].push_back(t.wrote);
      if (uni(8) == 0) t.status = TxnStatus::unknown, t.no_end = uni(2) == 0;
    } else {  // failed CAS: reads what made it fail
      if (uni(10) == 0) t.status = TxnStatus::unknown, t.no_end = uni(2) == 0;
    }
  }
  // One mutation in about half of the histories.
  const int64_t m = uni(12);
  const int v = static_cast<int>(uni(static_cast<uint64_t>(n)));
  T& t = ts[v];
  auto& vs = versions[t.key];
  if (m == 0 || m == 1) {  // stale or future read: any version of the key
    t.read = vs[static_cast<size_t>(uni(vs.size()))];
  } else if (m == 2 || m == 3) {  // move an operation in time
    int64_t d = uni(30) - 15;
    t.begin += d, t.end += d;
  } else if (m == 4) {  // swap two operations' intervals
    T& u = ts[static_cast<size_t>(uni(static_cast<uint64_t>(n)))];
    std::swap(t.begin, u.begin), std::swap(t.end, u.end);
  } else if (m == 5 && t.writes && vs.size() > 1) {  // a CAS on an older version (maybe a fork)
    t.read = vs[static_cast<size_t>(uni(vs.size()))];
  } else if (m == 6 && !aborted_values[t.key].empty() && t.status != TxnStatus::aborted) {
    t.read = aborted_values[t.key][0];
  }
  History h;
  for (int k = 0; k < keys; ++k) h.keys.intern_int(k + 1);
  h.time_unit = "ms";
  std::vector<int> file(n);
  for (int i = 0; i < n; ++i) file[i] = i;
  std::stable_sort(file.begin(), file.end(), [&](int a, int b) { return ts[a].begin < ts[b].begin; });
  int64_t id = 1;
  for (int i : file) {
    const T& x = ts[i];
    h.begin_txn(id++, 0, x.status, x.begin, x.no_end ? kNoTime : x.end);
    Sym key = h.keys.intern_int(x.key + 1);
    h.add_op(OpKind::read, key, x.read == 0 ? kNullValue : h.values.intern_int(x.read));
    if (x.writes) h.add_op(OpKind::write, key, h.values.intern_int(x.wrote));
    h.end_txn();
  }
  h.session_name = {0};
  return h;
}

}  // namespace isocheck

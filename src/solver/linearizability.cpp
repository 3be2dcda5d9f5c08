// Linearizability of lightweight-transaction histories. Per key, the
// successful compare-and-sets (and the insert) form a chain from the initial
// state: with unique values each one read the version the previous one wrote,
// so the version order is known. Give every operation a rank on its key's
// chain: the i-th write 2i, a read of the version the i-th write made 2i+1
// (a read of the initial state 1). A legal sequential order must sort the
// operations by rank (reads of one version in any order). Such an order that
// also respects real time exists iff no operation b ended before an operation
// a of strictly lower rank began: sorting by (rank, begin) is then a
// linearization (equal ranks are reads of one version, ordered by begin,
// which respects real time between them). So one pass per key in rank order,
// keeping the largest begin of the lower ranks, decides it.
#include "solver/linearizability.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/errors.h"
#include "core/flat_hash.h"

namespace isocheck {
namespace {

constexpr TxnIdx kNone = ~TxnIdx{0};
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// (key, value) -> writer: open addressing over one flat array (linear
// probing), as the graph builder's tables: a node-based map's cache misses
// dominated the check.
class WriterTable {
 public:
  explicit WriterTable(size_t n) {
    size_t cap = 16;
    while (cap < n + n / 2 + 1) cap <<= 1;
    slots_.assign(cap, {0, 0, kNone});
  }
  // The writer already there, or kNone after inserting t.
  TxnIdx insert(Sym k, Sym v, TxnIdx t) {
    for (size_t i = index(k, v);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.t == kNone) { s = {k, v, t}; return kNone; }
      if (s.k == k && s.v == v) return s.t;
    }
  }
  TxnIdx find(Sym k, Sym v) const {
    for (size_t i = index(k, v);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.t == kNone) return kNone;
      if (s.k == k && s.v == v) return s.t;
    }
  }

 private:
  struct Slot {
    Sym k, v;
    TxnIdx t;
  };
  size_t index(Sym k, Sym v) const { return mix64(k * 0x9E3779B97F4A7C15ULL ^ mix64(v)) & (slots_.size() - 1); }
  std::vector<Slot> slots_;
};

// One lightweight transaction, read from the history's operations.
struct Lwt {
  Sym key = 0;
  Sym read = kNullValue;  // the value it saw
  bool writes = false;
  Sym wrote = 0;
};

// end + skew < begin, without overflow for any 64-bit times.
bool ended_before(int64_t end, int64_t begin, int64_t skew) {
  return static_cast<__int128>(end) + skew < static_cast<__int128>(begin);
}

std::string name(const History& h, TxnIdx t) { return "T" + std::to_string(h.txn_id[t]); }

std::string kv(const History& h, Sym k, Sym v) {
  return (h.keys.is_int(k) ? "key " : "") + h.keys.text(k) + "=" + value_text(h, v);
}

std::string at(const History& h, int64_t t) {
  return std::to_string(t) + (h.time_unit.empty() ? "" : " " + h.time_unit);
}

Lwt read_lwt(const History& h, TxnIdx t) {
  auto bad = [&](const std::string& what) {
    throw InputError("transaction " + name(h, t),
                     what + " (--level lin takes lightweight transactions: [r k old, w k new] for a compare-and-set "
                            "or an insert-if-absent (old = null), [r k seen] for a failed one)");
  };
  const uint64_t b = h.op_begin(t), e = h.op_end(t);
  // An attempt the database refused before it did anything (a serialization
  // failure) took no effect and is left out, as every aborted one is.
  if (e - b == 0 && h.txn_status[t] == TxnStatus::aborted) return Lwt{};
  if (e - b == 0) bad("has no operations");
  if (e - b > 2) bad("has " + std::to_string(e - b) + " operations, at most 2");
  for (uint64_t o = b; o < e; ++o)
    if (h.op_kind[o] != OpKind::read && h.op_kind[o] != OpKind::write)
      bad(std::string("has an operation of kind ") + to_string(h.op_kind[o]) + ", only reads and writes");
  if (h.op_kind[b] != OpKind::read) bad("does not begin with a read of its key (a write without a compare)");
  Lwt l;
  l.key = h.op_key[b];
  l.read = h.op_value[b];
  if (e - b == 2) {
    if (h.op_kind[b + 1] != OpKind::write) bad("reads twice");
    if (h.op_key[b + 1] != l.key) bad("touches two keys");
    if (h.op_value[b + 1] == kNullValue) bad("writes null");
    l.writes = true;
    l.wrote = h.op_value[b + 1];
  }
  if (h.txn_begin[t] == kNoTime) bad("has no begin time");
  if (h.txn_end[t] == kNoTime && h.txn_status[t] != TxnStatus::unknown) bad("has no end time");
  return l;
}

}  // namespace

LevelResult check_linearizable(const History& h, int64_t clock_skew, size_t* included_count) {
  const size_t n = h.txn_count();
  std::vector<Lwt> lwt(n);
  for (TxnIdx t = 0; t < n; ++t) lwt[t] = read_lwt(h, t);

  // (key, value) -> its writer, any status.
  WriterTable writer(n);
  for (TxnIdx t = 0; t < n; ++t) {
    if (!lwt[t].writes) continue;
    TxnIdx other = writer.insert(lwt[t].key, lwt[t].wrote, t);
    if (other != kNone)
      throw InputError("transaction " + name(h, t), "writes " + kv(h, lwt[t].key, lwt[t].wrote) + ", which " +
                                                        name(h, other) +
                                                        " writes too (--level lin needs values unique per key)");
  }
  // The writer of the value each one read (kNone: the initial state, or nobody).
  std::vector<TxnIdx> wof(n, kNone);
  for (TxnIdx t = 0; t < n; ++t)
    if (lwt[t].read != kNullValue) wof[t] = writer.find(lwt[t].key, lwt[t].read);
  auto writer_of = [&](TxnIdx t) { return wof[t]; };

  LevelResult r;
  r.level = Level::lin;
  auto fail = [&](std::string why) {
    r.holds = false;
    r.reason = std::move(why);
    return r;
  };

  // Taking part: the committed, and (fixpoint) every unknown one whose value
  // an included one read — it took effect. An unknown one whose value nobody
  // read may be left out: it could only have been the last write of its key.
  std::vector<uint8_t> in(n, 0);
  std::vector<TxnIdx> work;
  for (TxnIdx t = 0; t < n; ++t)
    if (h.txn_status[t] == TxnStatus::committed) in[t] = 1, work.push_back(t);
  while (!work.empty()) {
    TxnIdx t = work.back();
    work.pop_back();
    if (lwt[t].read == kNullValue) continue;
    TxnIdx w = writer_of(t);
    if (w == kNone)
      return fail(name(h, t) + " read " + kv(h, lwt[t].key, lwt[t].read) + ", a value no transaction wrote (thin-air read)");
    if (h.txn_status[w] == TxnStatus::aborted)
      return fail(name(h, t) + " read " + kv(h, lwt[t].key, lwt[t].read) + ", written by " + name(h, w) +
                  ", which aborted (aborted read)");
    if (!in[w]) in[w] = 1, work.push_back(w);
  }
  size_t count = 0;
  for (TxnIdx t = 0; t < n; ++t) count += in[t];
  if (included_count) *included_count = count;

  // Dense key index; per version (a writer, or a key's initial state) its
  // successor write and its readers (CSR).
  // Only readers of the initial state need their key's index.
  FlatMap64 key_index(1024);
  std::vector<Sym> keys;
  std::vector<uint32_t> null_key(n, 0);
  for (TxnIdx t = 0; t < n; ++t) {
    if (!in[t] || lwt[t].read != kNullValue) continue;
    bool fresh = false;
    null_key[t] = static_cast<uint32_t>(key_index.get_or_insert(lwt[t].key, keys.size(), fresh));
    if (fresh) keys.push_back(lwt[t].key);
  }
  const size_t K = keys.size();
  // Version slots: writer t -> t; key i's initial state -> n + i. A key whose
  // initial state nobody read has no chain: its writes are all unreached.
  auto version_of = [&](TxnIdx t) -> size_t {
    TxnIdx w = writer_of(t);
    return w == kNone ? n + null_key[t] : w;
  };
  std::vector<TxnIdx> next(n + K, kNone);
  std::vector<uint64_t> off(n + K + 1, 0);
  std::vector<size_t> ver(n, 0);
  for (TxnIdx t = 0; t < n; ++t) {
    if (!in[t]) continue;
    ver[t] = version_of(t);
    if (lwt[t].writes) {
      TxnIdx& s = next[ver[t]];
      if (s != kNone)
        return fail(name(h, s) + " and " + name(h, t) + " both read " + kv(h, lwt[t].key, lwt[t].read) +
                    " and both wrote " + (h.keys.is_int(lwt[t].key) ? "key " : "") + h.keys.text(lwt[t].key) +
                    " (" + value_text(h, lwt[s].wrote) + " and " + value_text(h, lwt[t].wrote) +
                    "): two compare-and-sets succeeded on one version (lost update)");
      s = t;
    } else {
      ++off[ver[t] + 1];
    }
  }
  for (size_t v = 0; v < n + K; ++v) off[v + 1] += off[v];
  std::vector<TxnIdx> readers(off[n + K]);
  {
    std::vector<uint64_t> fill(off.begin(), off.end() - 1);
    for (TxnIdx t = 0; t < n; ++t)
      if (in[t] && !lwt[t].writes) readers[fill[ver[t]]++] = t;
  }

  auto end_of = [&](TxnIdx t) {
    return h.txn_status[t] == TxnStatus::unknown || h.txn_end[t] == kNoTime ? kForever : h.txn_end[t];
  };
  // Each key in rank order: groups are [readers of the initial state], then
  // per chain write [the write], [its readers].
  struct Group {
    size_t version;  // slot whose readers this is, or of the write
    bool write;
  };
  size_t reached = 0;
  std::vector<Group> groups;
  for (size_t ki = 0; ki < K; ++ki) {
    groups.clear();
    groups.push_back({n + ki, false});
    for (TxnIdx w = next[n + ki]; w != kNone; w = next[w]) {
      groups.push_back({w, true});
      groups.push_back({w, false});
    }
    auto members = [&](const Group& g, auto&& f) {
      if (g.write) return f(static_cast<TxnIdx>(g.version));
      for (uint64_t i = off[g.version]; i < off[g.version + 1]; ++i) f(readers[i]);
    };
    int64_t max_begin = std::numeric_limits<int64_t>::min();
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      TxnIdx late = kNone;
      members(groups[gi], [&](TxnIdx b) {
        ++reached;
        int64_t e = end_of(b);
        if (late == kNone && e != kForever && max_begin != std::numeric_limits<int64_t>::min() &&
            ended_before(e, max_begin, clock_skew))
          late = b;
      });
      if (late != kNone) {
        // The nearest earlier-ranked a that began after `late` ended: the
        // shortest cycle through `late`.
        const int64_t e = end_of(late);
        TxnIdx a = kNone;
        size_t ga = gi;
        while (a == kNone && ga-- > 0)
          members(groups[ga], [&](TxnIdx x) {
            if (a == kNone && ended_before(e, h.txn_begin[x], clock_skew)) a = x;
          });
        if (a == kNone)  // cannot happen: max_begin came from an earlier group
          return fail(name(h, late) + " ended at " + at(h, e) + ", before an operation of lower rank began");
        Witness w;
        // a's version order path to `late`, then late -rt-> a.
        size_t g = ga;
        TxnIdx cur = a;
        if (!groups[g].write) {  // a read: its version is overwritten by the next write
          ++g;
          TxnIdx nw = static_cast<TxnIdx>(groups[g].version);
          if (g == gi) nw = late;
          w.cycle.add(a, nw, EdgeKind::rw, 0);
          cur = nw;
        }
        while (g + 2 <= gi && groups[g + 2].write) {
          TxnIdx nw = static_cast<TxnIdx>(groups[g + 2].version);
          w.cycle.add(cur, nw, EdgeKind::wr, 0);
          cur = nw, g += 2;
        }
        if (cur != late) w.cycle.add(cur, late, EdgeKind::wr, 0);
        w.cycle.add(late, a, EdgeKind::rt, 0);
        const bool a_reads = !lwt[a].writes, b_reads = !lwt[late].writes;
        w.anomaly = a_reads ? "stale read" : b_reads ? "read of a future value" : "compare-and-set chain against real time";
        Sym k = keys[ki];
        std::string what_a = a_reads ? name(h, a) + " (read " + kv(h, k, lwt[a].read) + ")"
                                     : name(h, a) + " (wrote " + kv(h, k, lwt[a].wrote) + ")";
        std::string what_b = b_reads ? name(h, late) + " (read " + kv(h, k, lwt[late].read) + ")"
                                     : name(h, late) + " (wrote " + kv(h, k, lwt[late].wrote) + ")";
        r.holds = false;
        r.reason = what_b + " ended at " + at(h, e) + ", before " + what_a + " began at " + at(h, h.txn_begin[a]) +
                   ", yet " + name(h, late) + " comes later in the chain of " + (h.keys.is_int(k) ? "key " : "") +
                   h.keys.text(k) + " (" + w.anomaly + ")";
        r.witness = std::move(w);
        return r;
      }
      members(groups[gi], [&](TxnIdx x) { max_begin = std::max(max_begin, h.txn_begin[x]); });
    }
  }
  if (reached != count) {
    // Some write is not on its key's chain: the writes read one another in a
    // cycle that never starts at the initial state.
    std::vector<uint8_t> on(n, 0);
    for (size_t ki = 0; ki < K; ++ki)
      for (TxnIdx w = next[n + ki]; w != kNone; w = next[w]) on[w] = 1;
    for (TxnIdx t = 0; t < n; ++t)
      if (in[t] && lwt[t].writes && !on[t])
        return fail(name(h, t) + " read " + kv(h, lwt[t].key, lwt[t].read) +
                    " but its key's chain of compare-and-sets from the initial state never reaches that value "
                    "(the writes read one another in a cycle)");
  }
  return r;
}

}  // namespace isocheck

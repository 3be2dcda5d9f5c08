// RU, RC, RA and CC by saturation (solver/weak_levels.h): resolve every
// external read to the transaction it read from, add the commit-order edges
// each level's axiom forces, and look for a cycle.
#include <algorithm>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <utility>

#include "core/flat_hash.h"
#include "graph/known_graph.h"
#include "solver/acyclic.h"
#include "solver/weak_levels.h"

namespace isocheck {

const char* weak_violation_name(Level l) {
  switch (l) {
    case Level::ru: return "G0";
    case Level::rc: return "non-monotonic read";
    case Level::ra: return "fractured read";
    case Level::cc: return "causality violation";
    case Level::pc: return "long fork";
    default: return "cycle";
  }
}

namespace {

constexpr TxnIdx kInit = ~TxnIdx{0};
// CC's vector clocks take (transactions alive at once) × sessions words:
// above this, CC is left undecided rather than exhausting memory.
constexpr uint64_t kMaxClockWords = uint64_t{1} << 27;
// How far ahead (in transactions) reads' writer lookups are prefetched.
constexpr TxnIdx kPrefetchTxns = 4;

// Four clock words at once (GCC's vector extension: SSE2 on x86-64).
constexpr unsigned kLanes = 4;
typedef uint32_t Lanes __attribute__((vector_size(16)));
typedef int32_t LaneMask __attribute__((vector_size(16)));  // what a comparison gives
inline Lanes load_lanes(const uint32_t* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_lanes(uint32_t* p, Lanes v) { std::memcpy(p, &v, sizeof v); }

struct WriterRef {
  TxnIdx txn;
  OpIdx op;
};

constexpr uint32_t kUnknownPos = ~0u;

// One external read: what t observed of key before its own writes of it.
// 32 bytes: there are as many as reads.
struct ExtRead {
  TxnIdx t;
  TxnIdx from;        // writer of the version read; kInit for the initial state
  Sym key;
  uint32_t pos;       // the read's position in t
  uint32_t from_pos;  // position in `from` of the op that wrote the last value observed
  uint32_t obs;       // a list read's external observation: Impl::list_obs[obs]
  bool dirty;         // G1a or G1b: the version read is not a committed one
  bool list;
};

// A transaction's own writes of each key so far, while its reads are
// resolved: a short list searched in place for a small transaction, a hash
// map for a large one.
class OwnWrites {
 public:
  struct Own {
    bool overwrite = false;
    std::vector<Sym> vals;
  };
  // Forget the previous transaction's (`ops`: the size of the next one).
  void reset(uint64_t ops) {
    for (size_t i = 0; i < used_; ++i) small_[i].second.overwrite = false, small_[i].second.vals.clear();
    used_ = 0;
    big_.clear();
    large_ = ops > kSmall;
  }
  Own& get(Sym k) {
    if (large_) return big_[k];
    for (size_t i = 0; i < used_; ++i)
      if (small_[i].first == k) return small_[i].second;
    if (used_ == small_.size()) small_.emplace_back();
    small_[used_].first = k;
    return small_[used_++].second;
  }
  const Own* find(Sym k) const {
    if (large_) {
      auto it = big_.find(k);
      return it == big_.end() ? nullptr : &it->second;
    }
    for (size_t i = 0; i < used_; ++i)
      if (small_[i].first == k) return &small_[i].second;
    return nullptr;
  }

 private:
  static constexpr uint64_t kSmall = 32;
  std::vector<std::pair<Sym, Own>> small_;
  size_t used_ = 0;
  bool large_ = false;
  std::unordered_map<Sym, Own> big_;
};

}  // namespace

struct WeakChecker::Impl {
  const History& h;
  const std::vector<uint8_t>& inc;
  uint32_t n;
  std::string corrupt;     // every level fails: why
  std::string dirty;       // RC and above fail: why (first G1a/G1b)
  std::string list_fail;   // the list reads admit no version order: why
  // (key, value) -> its writer: open addressing, the entries in the table
  // (one cache miss a lookup).
  struct Write {
    Sym key, value;
    WriterRef ref;
  };
  std::vector<Write> table_;  // a free slot has ref.txn == kInit
  uint64_t mask_ = 0;
  static uint64_t slot_hash(Sym k, Sym v) { return mix64(k * 0x9E3779B97F4A7C15ULL ^ v); }
  std::vector<ExtRead> reads;
  std::vector<uint64_t> read_off;  // reads of t: [read_off[t], read_off[t + 1])
  std::vector<Sym> ext_vals;  // list reads' external observations, one after another
  struct ListObs {
    uint64_t off, len;  // in ext_vals
  };
  std::vector<ListObs> list_obs;
  std::vector<uint64_t> wkey_off;  // keys t writes, sorted: wkeys[wkey_off[t] .. wkey_off[t + 1])
  std::vector<Sym> wkeys;
  std::vector<uint32_t> sess_pos;  // 1-based position among the included transactions of its session
  std::vector<std::vector<TxnIdx>> sess_txns;
  // The included writers of each key, grouped by session, each group in
  // session order: key block b has groups [block_group[b], block_group[b + 1]),
  // group g has writers kw_txn[group_begin[g] .. group_begin[g + 1]) of session group_sess[g].
  FlatMap64 key_block;
  std::vector<uint64_t> block_group, group_begin;
  std::vector<uint32_t> group_sess;
  std::vector<TxnIdx> kw_txn;
  EdgeList list_edges;  // version orders the list reads show (ww)

  // g: the known graph of hh, when there is one.
  Impl(const History& hh, const std::vector<uint8_t>& included, const DependencyGraph* g = nullptr)
      : h(hh), inc(included), n(static_cast<uint32_t>(hh.txn_count())) {
    if (!g || !reads_from_graph(*g)) {
      index_writes();
      resolve_reads();
    }
    index_write_keys();
    index_sessions();
    if (corrupt.empty()) list_orders();
  }

  std::string T(TxnIdx t) const { return "T" + std::to_string(h.txn_id[t]); }
  std::string K(Sym k) const { return h.keys.is_int(k) ? "key " + h.keys.text(k) : h.keys.text(k); }

  void index_writes() {
    uint64_t total = 0;
    for (OpIdx o = 0; o < h.op_count(); ++o) total += h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append;
    uint64_t cap = 16;
    while (cap < total + total / 2 + 1) cap <<= 1;
    table_.assign(cap, Write{0, 0, {kInit, 0}});
    mask_ = cap - 1;
    for (TxnIdx t = 0; t < n; ++t)
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        if (h.op_kind[o] != OpKind::write && h.op_kind[o] != OpKind::append) continue;
        const Sym k = h.op_key[o], v = h.op_value[o];
        uint64_t i = slot_hash(k, v) & mask_;
        for (; table_[i].ref.txn != kInit; i = (i + 1) & mask_) {
          const Write& w = table_[i];
          if (w.key == k && w.value == v) break;
        }
        if (table_[i].ref.txn != kInit) {
          if (corrupt.empty())
            corrupt = "duplicate write: " + T(t) + " wrote " + K(k) + "=" + value_text(h, v) + ", a value " +
                      T(table_[i].ref.txn) + " also wrote";
          continue;
        }
        table_[i] = {k, v, {t, o}};
      }
  }

  void index_write_keys() {
    wkey_off.assign(n + 1, 0);
    for (TxnIdx t = 0; t < n; ++t) {
      size_t first = wkeys.size();
      if (inc[t])
        for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
          if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) wkeys.push_back(h.op_key[o]);
      std::sort(wkeys.begin() + static_cast<ptrdiff_t>(first), wkeys.end());
      wkeys.erase(std::unique(wkeys.begin() + static_cast<ptrdiff_t>(first), wkeys.end()), wkeys.end());
      wkey_off[t + 1] = wkeys.size();
    }
  }

  bool writes(TxnIdx t, Sym k) const {
    return std::binary_search(wkeys.begin() + static_cast<ptrdiff_t>(wkey_off[t]),
                              wkeys.begin() + static_cast<ptrdiff_t>(wkey_off[t + 1]), k);
  }

  const WriterRef* writer_of(Sym k, Sym v) const {
    for (uint64_t i = slot_hash(k, v) & mask_; table_[i].ref.txn != kInit; i = (i + 1) & mask_) {
      const Write& w = table_[i];
      if (w.key == k && w.value == v) return &w.ref;
    }
    return nullptr;
  }

  // At most one ExtRead a read: no growing and copying.
  void reserve_reads() {
    uint64_t count = 0;
    for (TxnIdx t = 0; t < n; ++t)
      if (inc[t])
        for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) count += h.op_kind[o] == OpKind::read || h.op_kind[o] == OpKind::read_list;
    reads.reserve(count);
  }

  // The reads as resolve_reads finds them, from the known graph instead of a
  // second index of every write, where the graph's build vouches for them:
  // it found no anomaly, so no read is of a value nobody wrote, of an
  // aborted or intermediate version, or out of place in its transaction, no
  // write repeats a value, and a transaction's external reads of a key all
  // read one version, whose writer is the source of the WR edge of the
  // first. The graph's WR edges come in transaction and operation order, and
  // each must be where a read expects it. Registers only (no list reads or
  // appends). The version's write is looked up only when an edge needs its
  // position (from_pos kUnknownPos: its writer's last write of the key).
  // False, nothing kept, when the graph does not qualify.
  bool reads_from_graph(const DependencyGraph& g) {
    if (!g.whole_build || !g.anomalies.empty() || &g.included != &inc || g.edges_pass1_end > g.edges.size()) return false;
    for (OpKind k : h.op_kind)
      if (k != OpKind::read && k != OpKind::write) return false;
    read_off.assign(n + 1, 0);
    reserve_reads();
    struct KeyNow {
      Sym key;
      bool written, read;
      TxnIdx from;  // what the first external read read
    };
    std::vector<KeyNow> small;
    std::unordered_map<Sym, KeyNow> big;
    constexpr uint64_t kSmall = 32;
    const EdgeList& e = g.edges;
    const uint64_t end = g.edges_pass1_end;
    uint64_t x = 0;  // the next WR edge: e[x] is one when x < end
    auto next_wr = [&] {
      while (x < end && e.kind[x] != EdgeKind::wr) ++x;
    };
    next_wr();
    bool ok = true;
    for (TxnIdx t = 0; t < n && ok; ++t) {
      read_off[t] = reads.size();
      if (!inc[t]) continue;
      const OpIdx b = h.op_begin(t);
      const bool large = h.op_end(t) - b > kSmall;
      small.clear(), big.clear();
      auto state = [&](Sym k) -> KeyNow& {
        if (large) {
          auto [it, added] = big.try_emplace(k, KeyNow{k, false, false, kInit});
          return it->second;
        }
        for (KeyNow& s : small)
          if (s.key == k) return s;
        small.push_back({k, false, false, kInit});
        return small.back();
      };
      for (OpIdx o = b; o < h.op_end(t); ++o) {
        KeyNow& s = state(h.op_key[o]);
        if (h.op_kind[o] == OpKind::write) {
          s.written = true;
          continue;
        }
        if (s.written) continue;  // a read of its own write
        const uint32_t pos = static_cast<uint32_t>(o - b);
        if (!s.read) {
          s.read = true;
          if (h.op_value[o] != kNullValue) {
            if (x >= end || e.dst[x] != t || e.why[x] != pos) {
              ok = false;
              break;
            }
            s.from = e.src[x++];
            next_wr();
          }
        }
        ExtRead r{};
        r.t = t, r.from = s.from, r.key = h.op_key[o], r.pos = pos;
        r.from_pos = kUnknownPos;
        reads.push_back(r);
      }
    }
    if (ok && x < end) ok = false;  // a WR edge no read accounts for
    if (!ok) {
      reads.clear(), read_off.clear();
      return false;
    }
    read_off[n] = reads.size();
    return true;
  }

  // The position in `from` of the version r read (its writer's last write of
  // r's key where reads_from_graph left it unknown).
  uint32_t version_pos(const ExtRead& r) const {
    if (r.from_pos != kUnknownPos) return r.from_pos;
    for (OpIdx o = h.op_end(r.from); o-- > h.op_begin(r.from);)
      if (h.op_kind[o] == OpKind::write && h.op_key[o] == r.key) return static_cast<uint32_t>(o - h.op_begin(r.from));
    return 0;
  }

  void resolve_reads() {
    read_off.assign(n + 1, 0);
    reserve_reads();
    OwnWrites own;
    std::vector<Sym> obs;
    std::vector<const WriterRef*> wref;  // the writer of each value in obs (nullptr: none)
    for (TxnIdx t = 0; t < n; ++t) {
      read_off[t] = reads.size();
      // The writer table is large and probed at random: ask for the slots of
      // a later transaction's point reads now, so they arrive while this one
      // is resolved.
      if (t + kPrefetchTxns < n)
        for (OpIdx o = h.op_begin(t + kPrefetchTxns); o < h.op_end(t + kPrefetchTxns); ++o)
          if (h.op_kind[o] == OpKind::read && h.op_value[o] != kNullValue)
            __builtin_prefetch(&table_[slot_hash(h.op_key[o], h.op_value[o]) & mask_]);
      if (!inc[t]) continue;
      own.reset(h.op_end(t) - h.op_begin(t));
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        const Sym k = h.op_key[o];
        switch (h.op_kind[o]) {
          case OpKind::write: {
            OwnWrites::Own& e = own.get(k);
            e.overwrite = true;
            e.vals.assign(1, h.op_value[o]);
            continue;
          }
          case OpKind::append: own.get(k).vals.push_back(h.op_value[o]); continue;
          case OpKind::read:
            obs.clear();
            if (h.op_value[o] != kNullValue) obs.push_back(h.op_value[o]);
            break;
          case OpKind::read_list: {
            auto l = h.list(o);
            obs.assign(l.begin(), l.end());
            break;
          }
        }
        bool bad = false, is_dirty = false;
        wref.clear();
        for (Sym v : obs) {
          const WriterRef* w = writer_of(k, v);
          wref.push_back(w);
          if (!w) {
            if (corrupt.empty()) corrupt = "thin-air read: " + T(t) + " read " + K(k) + "=" + value_text(h, v) + ", a value no transaction wrote";
            bad = true;
            continue;
          }
          if (w->txn == t) {
            if (w->op > o) {
              if (corrupt.empty()) corrupt = "internal inconsistency: " + T(t) + " read " + K(k) + "=" + value_text(h, v) + " before writing it";
              bad = true;
            }
            continue;
          }
          if (!inc[w->txn]) {
            if (!is_dirty && dirty.empty())
              dirty = "G1a (aborted read): " + T(t) + " read " + K(k) + "=" + value_text(h, v) + " written by " + T(w->txn) + ", which did not commit";
            is_dirty = true;
            continue;
          }
          for (OpIdx o2 = w->op + 1; o2 < h.op_end(w->txn); ++o2) {
            if (h.op_key[o2] != k) continue;
            if (h.op_kind[o2] == OpKind::write ||
                (h.op_kind[o2] == OpKind::append && std::find(obs.begin(), obs.end(), h.op_value[o2]) == obs.end())) {
              if (!is_dirty && dirty.empty())
                dirty = "G1b (intermediate read): " + T(t) + " read " + K(k) + "=" + value_text(h, v) + ", which " +
                        T(w->txn) + " overwrote or extended in the same transaction";
              is_dirty = true;
            }
          }
        }
        if (bad) continue;
        size_t ext_len = obs.size();
        if (const OwnWrites::Own* it = own.find(k)) {
          const OwnWrites::Own& e = *it;
          if (e.overwrite) {  // read of its own write: not an observation of others
            if (obs != e.vals && corrupt.empty())
              corrupt = "internal inconsistency: " + T(t) + " read " + K(k) + " and did not see its own write";
            continue;
          }
          if (obs.size() < e.vals.size() || !std::equal(e.vals.begin(), e.vals.end(), obs.end() - static_cast<ptrdiff_t>(e.vals.size()))) {
            if (corrupt.empty()) corrupt = "internal inconsistency: " + T(t) + " read " + K(k) + " without its own appends at the end";
            continue;
          }
          ext_len -= e.vals.size();
        }
        bool own_value = false;  // what others wrote cannot hold this transaction's values
        for (size_t i = 0; i < ext_len; ++i) own_value |= wref[i]->txn == t;
        if (own_value) {
          if (corrupt.empty()) corrupt = "internal inconsistency: " + T(t) + " read " + K(k) + " with its own values out of place";
          continue;
        }
        ExtRead r{};
        r.t = t, r.pos = static_cast<uint32_t>(o - h.op_begin(t)), r.key = k, r.dirty = is_dirty;
        r.list = h.op_kind[o] == OpKind::read_list;
        if (r.list) {  // only list reads' observations are looked at again
          r.obs = static_cast<uint32_t>(list_obs.size());
          list_obs.push_back({ext_vals.size(), ext_len});
          ext_vals.insert(ext_vals.end(), obs.begin(), obs.begin() + static_cast<ptrdiff_t>(ext_len));
        }
        if (ext_len == 0) {
          r.from = kInit, r.from_pos = 0;
        } else {
          r.from = wref[ext_len - 1]->txn;
          r.from_pos = static_cast<uint32_t>(wref[ext_len - 1]->op - h.op_begin(r.from));
        }
        reads.push_back(r);
      }
    }
    read_off[n] = reads.size();
  }

  void index_sessions() {
    sess_pos.assign(n, 0);
    sess_txns.assign(h.session_count(), {});
    struct Entry {
      Sym key;
      uint32_t sess;
      TxnIdx t;
    };
    std::vector<Entry> entries;
    entries.reserve(wkeys.size());
    for (TxnIdx t = 0; t < n; ++t) {
      if (!inc[t]) continue;
      uint32_t s = h.txn_session[t];
      if (s >= sess_txns.size()) sess_txns.resize(s + 1);
      sess_txns[s].push_back(t);
      sess_pos[t] = static_cast<uint32_t>(sess_txns[s].size());
      for (uint64_t i = wkey_off[t]; i < wkey_off[t + 1]; ++i) entries.push_back({wkeys[i], s, t});
    }
    // Into (key, session, transaction) order: the entries come in transaction
    // order, so a stable sort on (key, session) gives it. An LSD radix sort,
    // 16 bits a pass, session first, skipping the digits every entry shares
    // (all of them above the highest bit any entry sets).
    {
      constexpr int kDigits = 6, kBits = 16;  // 2 of the session, then 4 of the key
      constexpr uint64_t kBuckets = uint64_t{1} << kBits;
      auto digit = [](const Entry& x, int d) {
        return static_cast<size_t>((d < 2 ? x.sess >> (kBits * d) : x.key >> (kBits * (d - 2))) & (kBuckets - 1));
      };
      Sym key_bits = 0;
      uint32_t sess_bits = 0;
      for (const Entry& x : entries) key_bits |= x.key, sess_bits |= x.sess;
      auto used = [&](int d) { return d < 2 ? (sess_bits >> (kBits * d)) != 0 : (key_bits >> (kBits * (d - 2))) != 0; };
      std::vector<Entry> tmp;
      std::vector<uint64_t> count;
      for (int d = 0; d < kDigits && !entries.empty(); ++d) {
        if (!used(d)) continue;
        count.assign(kBuckets, 0);
        for (const Entry& x : entries) ++count[digit(x, d)];
        if (count[digit(entries[0], d)] == entries.size()) continue;
        uint64_t at = 0;
        for (uint64_t& c : count) {
          const uint64_t k = c;
          c = at, at += k;
        }
        tmp.resize(entries.size());
        for (const Entry& x : entries) tmp[count[digit(x, d)]++] = x;
        entries.swap(tmp);
      }
    }
    kw_txn.reserve(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      const bool new_key = i == 0 || entries[i].key != entries[i - 1].key;
      if (new_key) {
        bool inserted;
        key_block.get_or_insert(entries[i].key, block_group.size(), inserted);
        block_group.push_back(group_sess.size());
      }
      if (new_key || entries[i].sess != entries[i - 1].sess) group_sess.push_back(entries[i].sess), group_begin.push_back(i);
      kw_txn.push_back(entries[i].t);
    }
    block_group.push_back(group_sess.size());
    group_begin.push_back(entries.size());
  }

  // The groups of key k's writers: [first, last).
  std::pair<uint64_t, uint64_t> groups_of(Sym k) const {
    const uint64_t* b = key_block.find(k);
    if (!b) return {0, 0};
    return {block_group[*b], block_group[*b + 1]};
  }

  // t1's version already precedes t2's in session order (an edge t1 -> t2
  // adds nothing). CC's search drops the writers that precede t2 causally.
  bool known_before(TxnIdx t1, TxnIdx t2) const { return h.txn_session[t1] == h.txn_session[t2] && t1 < t2; }

  // Position (in t) of t's first write or append of k at or after op `from`.
  uint32_t write_pos(TxnIdx t, Sym k, OpIdx from = 0) const {
    for (OpIdx o = std::max(from, h.op_begin(t)); o < h.op_end(t); ++o)
      if ((h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) && h.op_key[o] == k)
        return static_cast<uint32_t>(o - h.op_begin(t));
    return 0;
  }

  // The list reads of a key show a prefix of one version order: each read is
  // whole runs of its writers' appends, and all reads are prefixes of the
  // longest. Its writers come in that order; every other appender later.
  void list_orders() {
    std::unordered_map<Sym, std::vector<uint64_t>> by_key;
    for (uint64_t i = 0; i < reads.size(); ++i)
      if (reads[i].list && !reads[i].dirty && list_obs[reads[i].obs].len > 0) by_key[reads[i].key].push_back(i);
    std::unordered_map<Sym, std::vector<TxnIdx>> appenders;
    for (TxnIdx t = 0; t < n; ++t) {
      if (!inc[t]) continue;
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
        if (h.op_kind[o] == OpKind::append && by_key.count(h.op_key[o])) {
          auto& a = appenders[h.op_key[o]];
          if (a.empty() || a.back() != t) a.push_back(t);
        }
    }
    std::vector<Sym> run;
    for (auto& [k, idx] : by_key) {
      uint64_t longest = idx[0];
      for (uint64_t i : idx) if (list_obs[reads[i].obs].len > list_obs[reads[longest].obs].len) longest = i;
      const ExtRead& L = reads[longest];
      const ListObs& Lo = list_obs[L.obs];
      const Sym* lv = ext_vals.data() + Lo.off;
      for (uint64_t i : idx) {
        const ExtRead& r = reads[i];
        const ListObs& ro = list_obs[r.obs];
        if (!std::equal(lv, lv + ro.len, ext_vals.data() + ro.off)) {
          list_fail = "incompatible order: " + T(r.t) + "'s read of " + K(k) + " is not a prefix of " + T(L.t) + "'s";
          return;
        }
      }
      std::vector<TxnIdx> seq;
      for (uint64_t i = 0; i < Lo.len;) {
        TxnIdx w = writer_of(k, lv[i])->txn;
        run.clear();
        for (OpIdx o = h.op_begin(w); o < h.op_end(w); ++o)
          if (h.op_kind[o] == OpKind::append && h.op_key[o] == k) run.push_back(h.op_value[o]);
        if (i + run.size() > Lo.len || !std::equal(run.begin(), run.end(), lv + i) ||
            std::find(seq.begin(), seq.end(), w) != seq.end()) {
          list_fail = "incompatible order: " + T(L.t) + "'s read of " + K(k) + " shows " + T(w) +
                      "'s appends split, incomplete or out of order";
          return;
        }
        seq.push_back(w);
        i += run.size();
      }
      for (size_t i = 1; i < seq.size(); ++i) list_edges.add(seq[i - 1], seq[i], EdgeKind::ww, write_pos(seq[i], k));
      std::vector<TxnIdx> sorted = seq;
      std::sort(sorted.begin(), sorted.end());
      for (TxnIdx d : appenders[k])
        if (!std::binary_search(sorted.begin(), sorted.end(), d)) list_edges.add(seq.back(), d, EdgeKind::ww, write_pos(d, k));
    }
  }

  WeakOutcome fail(const std::string& why) {
    WeakOutcome o;
    o.holds = false;
    o.reason = why;
    return o;
  }

  // Why an axiom edge t1 -> r.from exists: read r observed t1 through `how`
  // (wr, so, or aux: a so/wr path).
  struct AxiomWhy {
    const ExtRead* r;
    TxnIdx t1;
    EdgeKind how;
    uint32_t how_why;
  };

  // The dependency form of an axiom's violation: t1 -φ-> ... -> r.t, then
  // r.t -rw-> t1 (r read an older version of the key than t1's: t1 is later
  // in the version order, an order inferred from the rest of the cycle, or
  // certain when r read the initial state).
  void axiom_cycle(EdgeList& out, const EdgeList& e, size_t base_size, const AxiomWhy& a) const {
    if (a.how == EdgeKind::aux) {
      for (uint32_t id : hb_path(e, base_size, a.t1, a.r->t)) out.add(e.src[id], e.dst[id], e.kind[id], e.why[id]);
    } else {
      out.add(a.t1, a.r->t, a.how, a.how_why);
    }
    out.add(a.r->t, a.t1, EdgeKind::rw,
            a.r->pos | (a.r->from == kInit ? 0 : kInferredBit));
  }

  // A cycle of `e` over transactions as a witness, or none. A cycle through
  // exactly one axiom edge (edges from base_size on, explained by `axioms`)
  // is shown in its dependency form (axiom_cycle).
  std::optional<Witness> cycle_of(const EdgeList& e, Level level, size_t base_size = ~size_t{0},
                                  const std::vector<AxiomWhy>* axioms = nullptr) const {
    // Every edge forward in transaction order (a history in commit order
    // that holds): no cycle, nothing to build.
    if (edges_forward(e)) return std::nullopt;
    Csr c = build_csr(n, e, true);
    std::vector<uint32_t> cyc = find_cycle(c, n);
    if (cyc.empty()) return std::nullopt;
    Witness w;
    bool inferred = false, so = false, wr = false;
    size_t axiom_hops = 0, which = 0;
    for (size_t i = 0; i < cyc.size(); ++i) {
      uint32_t u = cyc[i], v = cyc[(i + 1) % cyc.size()];
      uint64_t best = ~uint64_t{0};  // a certain edge where there is one
      for (uint64_t s = c.offset[u]; s < c.offset[u + 1]; ++s)
        if (c.target[s] == v && (best == ~uint64_t{0} || (why_inferred(e.why[best]) && !why_inferred(e.why[c.edge_id[s]]))))
          best = c.edge_id[s];
      w.cycle.add(u, v, e.kind[best], e.why[best]);
      inferred |= why_inferred(e.why[best]);
      so |= e.kind[best] == EdgeKind::so;
      wr |= e.kind[best] == EdgeKind::wr;
      if (best >= base_size) ++axiom_hops, which = best - base_size;
    }
    if (inferred) w.anomaly = weak_violation_name(level);
    else w.anomaly = std::string(wr ? "G1c" : "G0") + (so ? "-process" : "");
    if (axioms && axiom_hops == 1) {
      EdgeList dep;
      axiom_cycle(dep, e, base_size, (*axioms)[which]);
      w.cycle = std::move(dep);
    }
    return w;
  }

  // Session and read-from edges (RC and above: wr ⊆ co).
  void base_edges(EdgeList& e, bool with_wr) const {
    if (e.src.capacity() == 0) e.reserve(n + list_edges.size() + (with_wr ? reads.size() : 0));
    for (auto& st : sess_txns)
      for (size_t i = 1; i < st.size(); ++i) e.add(st[i - 1], st[i], EdgeKind::so);
    for (size_t i = 0; i < list_edges.size(); ++i) e.add(list_edges.src[i], list_edges.dst[i], list_edges.kind[i], list_edges.why[i]);
    if (!with_wr) return;
    for (const ExtRead& r : reads)
      if (r.from != kInit) e.add(r.from, r.t, EdgeKind::wr, r.pos);
  }

  // Read-uncommitted: session order plus the version orders the history
  // shows (list reads; a transaction that read a version of a register and
  // then wrote it wrote after that version), dirty reads set aside.
  WeakOutcome decide_ru() {
    EdgeList e;
    base_edges(e, false);
    for (const ExtRead& r : reads)
      if (!r.list && !r.dirty && r.from != kInit && writes(r.t, r.key))
        e.add(r.from, r.t, EdgeKind::ww, write_pos(r.t, r.key, h.op_begin(r.t) + r.pos));
    WeakOutcome out;
    out.witness = cycle_of(e, Level::ru);
    out.holds = !out.witness;
    return out;
  }

  // What has had its turn of each writer group in CC's clock pass: how many
  // of its writers, and the position of the last one. A reader's past has had
  // its turn, and a group's writers take theirs in session order: when the
  // last one is within the reader's clock it is the writer the search would find.
  struct GroupNow {
    uint32_t sess, count = 0, last_pos = 0;  // sess: the group's session (group_sess), beside the rest
  };

  // The latest writer of group g (one session's writers of a key, their
  // session positions first[0, ...)) at a position in (floor, lim], or kInit:
  // a writer known to precede r's writer (position <= floor) or r's writer
  // itself adds nothing. `last_pos_dense`: in transaction order, the key's
  // dense row's entry for the session (no count kept: every writer at or
  // before lim comes before the reader, so the search runs over the whole
  // group); ~0u otherwise, and gn's count bounds the search.
  TxnIdx group_writer(uint64_t g, uint32_t lim, uint32_t floor, uint32_t last_pos_dense, const GroupNow& gn,
                      const std::vector<uint32_t>& kw_pos) const {
    const uint32_t* first = kw_pos.data() + group_begin[g];
    if (last_pos_dense != ~0u) {
      if ((lim <= floor) | (last_pos_dense <= floor)) return kInit;
      const uint32_t* p = std::upper_bound(first, static_cast<const uint32_t*>(kw_pos.data() + group_begin[g + 1]), lim);
      if (p == first || *(p - 1) <= floor) return kInit;
      return kw_txn[static_cast<size_t>(p - 1 - kw_pos.data())];
    }
    if ((lim <= floor) | (gn.last_pos <= floor)) return kInit;
    const uint32_t* p = first + gn.count;
    if (gn.last_pos > lim) {
      // The first writer past lim (a branch-free binary search).
      p = first;
      for (size_t len = gn.count; len > 1;) {
        const size_t half = len / 2;
        p = p[half] <= lim ? p + half : p;
        len -= half;
      }
      p += *p <= lim;
      if (p == first || *(p - 1) <= floor) return kInit;
    }
    return kw_txn[static_cast<size_t>(p - 1 - kw_pos.data())];
  }

  // CC's axiom: for each external read r of t and each session writing r's
  // key, the latest writer t1 of the key in that session that causally
  // (strictly, through so ∪ wr) precedes t must commit before r's writer,
  // unless it already precedes it causally. Strict happens-before clocks are
  // computed in one topological pass of so ∪ wr, a transaction's clock
  // pulled from its predecessors' at its turn; a clock row lives only until
  // every successor has had its turn (its readers compare against it then),
  // so memory is the transactions alive at once × sessions, not all of them.
  // A read is checked at its transaction's turn; the writers found are
  // handed to `act` afterwards in read order (transaction by transaction), so
  // the edges are those, and in the order, of a pass over the reads.
  // too_big: the rows would exceed kMaxClockWords; cyclic: so ∪ wr has a
  // cycle (nothing handed to `act`).
  enum class Causal { done, too_big, cyclic };
  // e: the base edges (so, wr, list orders), once `need_edges` has been
  // called: the clock pass in transaction order needs none of them.
  // CC's clock pass driven (causal_axioms): in transaction order when so ∪ wr
  // points forward (and the rows stay within the bound), else breadth-first
  // over the graph build_graph() makes; `turn` is one transaction's turn.
  template <class Start, class Turn, class NeedEdges, class BuildGraph>
  Causal causal_turns(bool forward, Start& start, Turn& turn, NeedEdges& need_edges, BuildGraph& build_graph,
                      bool& in_order, std::vector<uint64_t>& wgroup, std::vector<uint32_t>& indeg,
                      const std::vector<uint64_t>& succ_off, const std::vector<uint32_t>& succ) {
    bool done = false;
    if (forward) {
      start();
      in_order = done = true;
      for (TxnIdx t = 0; t < n && done; ++t)
        if (inc[t]) done = turn(t);
    }
    if (!done) {
      need_edges();
      build_graph();
      in_order = false;
      wgroup.resize(wkeys.size());
      std::vector<uint64_t> fill(wkey_off.begin(), wkey_off.end() - 1);
      for (uint64_t g = 0; g + 1 < group_begin.size(); ++g)
        for (uint64_t i = group_begin[g]; i < group_begin[g + 1]; ++i) wgroup[fill[kw_txn[i]]++] = g;
      start();
      std::deque<TxnIdx> q;
      uint64_t left = 0;  // included transactions yet to have their turn
      for (TxnIdx t = 0; t < n; ++t) {
        left += inc[t];
        if (inc[t] && indeg[t] == 0) q.push_back(t);
      }
      while (!q.empty()) {
        const TxnIdx t = q.front();
        q.pop_front();
        --left;
        if (!turn(t)) return Causal::too_big;
        for (uint64_t s = succ_off[t]; s < succ_off[t + 1]; ++s)
          if (--indeg[succ[s]] == 0) q.push_back(succ[s]);
      }
      if (left > 0) return Causal::cyclic;
    }
    return Causal::done;
  }

  template <class Act, class NeedEdges>
  Causal causal_axioms(const EdgeList& e, Act& act, NeedEdges&& need_edges) {
    // A clock row: the S session entries (padded with zeros to Sp, a whole
    // number of vectors), then the transaction's session and position in it
    // (a row is W words, a whole number of vectors too). The memory bound
    // counts S + 2 words a row, the padding aside.
    const uint64_t S = sess_txns.size(), Sp = (S + kLanes - 1) / kLanes * kLanes, W = Sp + kLanes;
    // so ∪ wr (the list orders are commit order, not causality). When every
    // edge of it goes forward in transaction order (a file in commit order),
    // transaction order is a topological order: each turn's rows and reads
    // are then near the last ones in memory, and a transaction's
    // predecessors are its session predecessor and the writers its reads
    // read (e's so and wr edges, base_edges), with no graph to build.
    // Otherwise, or should that order keep too many rows alive, the graph
    // forwards and backwards (offsets by counting, then the targets) and
    // a breadth-first order.
    auto hb = [&](size_t i) { return e.kind[i] == EdgeKind::so || e.kind[i] == EdgeKind::wr; };
    // Session order goes forward; read-from where each read's writer comes
    // before its reader.
    bool forward = true;
    for (TxnIdx t = 0; t < n && forward; ++t)
      for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i) forward &= reads[i].from == kInit || reads[i].from < t;
    bool by_graph = false;
    std::vector<uint64_t> succ_off, pred_off;
    std::vector<uint32_t> succ, pred, indeg;
    auto build_graph = [&] {
      by_graph = true;
      indeg.assign(n, 0);
      succ_off.assign(n + 1, 0), pred_off.assign(n + 1, 0);
      for (size_t i = 0; i < e.size(); ++i)
        if (hb(i)) ++succ_off[e.src[i] + 1], ++pred_off[e.dst[i] + 1];
      for (uint32_t v = 0; v < n; ++v) succ_off[v + 1] += succ_off[v], pred_off[v + 1] += pred_off[v];
      succ.resize(succ_off[n]), pred.resize(pred_off[n]);
      std::vector<uint64_t> fs(succ_off.begin(), succ_off.end() - 1), fp(pred_off.begin(), pred_off.end() - 1);
      for (size_t i = 0; i < e.size(); ++i)
        if (hb(i)) succ[fs[e.src[i]]++] = e.dst[i], pred[fp[e.dst[i]]++] = e.src[i];
    };
    // Each included transaction's predecessor in its session (kInit: none).
    std::vector<TxnIdx> so_prev;
    if (forward) {
      so_prev.assign(n, kInit);
      std::vector<TxnIdx> last(S, kInit);
      for (TxnIdx t = 0; t < n; ++t)
        if (inc[t]) so_prev[t] = last[h.txn_session[t]], last[h.txn_session[t]] = t;
    }
    // f(p) for each so ∪ wr edge p -> t (as many times as edges).
    auto for_each_pred = [&](TxnIdx t, auto&& f) {
      if (by_graph) {
        for (uint64_t s = pred_off[t]; s < pred_off[t + 1]; ++s) f(pred[s]);
        return;
      }
      if (so_prev[t] != kInit) f(so_prev[t]);
      for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i)
        if (reads[i].from != kInit) f(reads[i].from);
    };
    std::vector<uint32_t> pending(n, 0);
    std::vector<uint32_t> pool, free_rows, row(n, ~0u);
    // The session positions of the key writers, beside kw_txn: the searches
    // below read one contiguous array instead of sess_pos[kw_txn[i]].
    std::vector<uint32_t> kw_pos(kw_txn.size());
    for (size_t i = 0; i < kw_txn.size(); ++i) kw_pos[i] = sess_pos[kw_txn[i]];
    // The writers found, a transaction's together: (its read, t1), the read
    // numbered within the transaction; and where each transaction's are.
    std::vector<std::pair<uint32_t, TxnIdx>> found;
    struct Found {
      TxnIdx t;
      uint64_t begin, end;
    };
    std::vector<Found> found_of;
    std::vector<GroupNow> now(group_sess.size());
    // Keys written by many sessions (a group for at least a quarter of them)
    // also keep each session's last position to have had its turn in a
    // zero-padded row of Sp words: a read of such a key tests every session
    // at once, a few vector operations, for the test the group loop below
    // makes group by group; only a read it lets through goes through that
    // loop. dense_of[block]: the key's row, or ~0u.
    const uint64_t blocks = block_group.empty() ? 0 : block_group.size() - 1;
    std::vector<uint32_t> dense_of(blocks, ~0u), group_dense(group_sess.size(), ~0u);
    uint32_t dense_rows = 0;
    for (uint64_t b = 0; b < blocks; ++b)
      if ((block_group[b + 1] - block_group[b]) * 4 >= Sp) {
        dense_of[b] = dense_rows++;
        for (uint64_t g = block_group[b]; g < block_group[b + 1]; ++g) group_dense[g] = dense_of[b];
      }
    std::vector<uint32_t> dense_last(static_cast<size_t>(dense_rows) * Sp, 0);
    for (size_t g = 0; g < now.size(); ++g) now[g].sess = group_sess[g];
    // Transaction order (in_order): the writers to have had their turn are
    // those before the reader, so a dense key's group needs no count kept
    // (its search finds it) and a written key's group is looked up at its
    // writer's turn. The breadth-first order keeps every count, with the
    // group of each (t, key t writes) beside wkeys in wgroup.
    bool in_order = false;
    std::vector<uint64_t> wgroup;
    // Everything a turn changes, as before the first.
    auto start = [&] {
      if (by_graph) {
        for (TxnIdx t = 0; t < n; ++t) {
          pending[t] = static_cast<uint32_t>(succ_off[t + 1] - succ_off[t]);
          indeg[t] = static_cast<uint32_t>(pred_off[t + 1] - pred_off[t]);
        }
      } else {
        std::fill(pending.begin(), pending.end(), 0u);
        for (TxnIdx t = 0; t < n; ++t)
          if (inc[t]) for_each_pred(t, [&](TxnIdx p) { ++pending[p]; });
      }
      pool.clear(), free_rows.clear(), found.clear(), found_of.clear();
      for (size_t g = 0; g < now.size(); ++g) now[g].count = 0, now[g].last_pos = 0;
      std::fill(dense_last.begin(), dense_last.end(), 0u);
    };
    // t's turn: its clock, its reads' writers, then what it writes; false
    // when its clock row would pass the memory bound.
    auto turn = [&](TxnIdx t) -> bool {
      if (free_rows.empty()) {
        if ((pool.size() / W + 1) * (S + 2) > kMaxClockWords) return false;
        free_rows.push_back(static_cast<uint32_t>(pool.size() / W));
        pool.resize(pool.size() + W);
      }
      row[t] = free_rows.back();
      free_rows.pop_back();
      uint32_t* rt = pool.data() + static_cast<size_t>(row[t]) * W;
      std::fill(rt, rt + Sp, 0u);
      rt[Sp] = h.txn_session[t], rt[Sp + 1] = sess_pos[t];
      for_each_pred(t, [&](TxnIdx p) {
        const uint32_t* rp = pool.data() + static_cast<size_t>(row[p]) * W;
        for (uint64_t j = 0; j < Sp; j += kLanes) {
          const Lanes a = load_lanes(rt + j), c = load_lanes(rp + j);
          store_lanes(rt + j, a > c ? a : c);
        }
        uint32_t& own = rt[h.txn_session[p]];
        own = std::max(own, sess_pos[p]);
      });
      const uint64_t found_begin = found.size();
      for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i) {
        const ExtRead& r = reads[i];
        const uint64_t* b = key_block.find(r.key);
        if (!b) continue;
        const uint64_t g0 = block_group[*b], g1 = block_group[*b + 1];
        const uint32_t* rf = r.from == kInit ? nullptr : pool.data() + static_cast<size_t>(row[r.from]) * W;
        // r's writer's session and position (it adds nothing, being r's writer).
        const uint32_t from_sess = rf ? rf[Sp] : ~0u, from_pos = rf ? rf[Sp + 1] : 0;
        if (dense_of[*b] != ~0u) {
          // A session can add an edge only if both its clock entry and its
          // last writer's position exceed its floor (below).
          // The floor is rf with from_pos in r's writer's session (zero
          // for the initial state).
          const uint32_t* last = dense_last.data() + static_cast<size_t>(dense_of[*b]) * Sp;
          LaneMask any{};
          for (uint64_t j = 0; j < Sp; j += kLanes) {
            Lanes f = rf ? load_lanes(rf + j) : Lanes{};
            if (from_sess - j < kLanes) f[from_sess - j] = from_pos;
            any |= (load_lanes(rt + j) > f) & (load_lanes(last + j) > f);
          }
          bool some = false;
          for (unsigned l = 0; l < kLanes; ++l) some |= any[l] != 0;
          if (!some) continue;
        }
        for (uint64_t g = g0; g < g1; ++g) {
          // The latest writer of the key in this session that causally
          // precedes r (at position <= lim = rt[s]); only one past the floor
          // (rf[s], or r's writer's own position) can add an edge.
          const GroupNow& gn = now[g];
          const uint32_t s = gn.sess;
          const uint32_t lim = rt[s], floor = s == from_sess ? from_pos : rf ? rf[s] : 0;
          const uint32_t dense = in_order && group_dense[g] != ~0u ? dense_last[static_cast<size_t>(group_dense[g]) * Sp + s] : ~0u;
          const TxnIdx t1 = group_writer(g, lim, floor, dense, gn, kw_pos);
          if (t1 != kInit) found.push_back({static_cast<uint32_t>(i - read_off[t]), t1});
        }
      }
      if (found.size() > found_begin) found_of.push_back({t, found_begin, found.size()});
      for (uint64_t j = wkey_off[t]; j < wkey_off[t + 1]; ++j) {
        const uint32_t ts = h.txn_session[t];
        uint64_t g;
        if (in_order) {
          const uint64_t b = *key_block.find(wkeys[j]);
          if (dense_of[b] != ~0u) {
            dense_last[static_cast<size_t>(dense_of[b]) * Sp + ts] = sess_pos[t];
            continue;
          }
          g = static_cast<uint64_t>(std::lower_bound(group_sess.begin() + static_cast<ptrdiff_t>(block_group[b]),
                                                     group_sess.begin() + static_cast<ptrdiff_t>(block_group[b + 1]), ts) -
                                    group_sess.begin());
        } else {
          g = wgroup[j];
          if (group_dense[g] != ~0u) dense_last[static_cast<size_t>(group_dense[g]) * Sp + ts] = sess_pos[t];
        }
        GroupNow& gn = now[g];
        ++gn.count, gn.last_pos = sess_pos[t];
      }
      for_each_pred(t, [&](TxnIdx p) {
        if (--pending[p] == 0) free_rows.push_back(row[p]);
      });
      if (pending[t] == 0) free_rows.push_back(row[t]);
      return true;
    };
    // Any topological order of so ∪ wr finds the same writers.
    const Causal c = causal_turns(forward, start, turn, need_edges, build_graph, in_order, wgroup, indeg, succ_off, succ);
    if (c != Causal::done) return c;
    std::sort(found_of.begin(), found_of.end(), [](const Found& a, const Found& b) { return a.t < b.t; });
    for (const Found& f : found_of)
      for (uint64_t j = f.begin; j < f.end; ++j) act(reads[read_off[f.t] + found[j].first], found[j].second, EdgeKind::aux, 0, true);
    return Causal::done;
  }

  WeakOutcome decide_axioms(Level level) {
    EdgeList e;
    size_t base_size = 0;
    bool based = false;
    auto need_edges = [&] {
      if (based) return;
      based = true;
      // Room for an axiom edge a read besides the base (about what RA adds on
      // a history that holds): untouched room costs no memory, regrowing copies.
      e.reserve(n + list_edges.size() + 2 * reads.size());
      base_edges(e, true);
      base_size = e.size();
    };
    // CC without list orders builds the base edges only when it needs them:
    // an axiom edge, a violation, or the breadth-first clock pass. Without
    // them no edge is added to so ∪ wr, which the clock pass finds acyclic.
    if (level != Level::cc || list_edges.size() > 0) need_edges();
    std::optional<Witness> init_violation;
    std::vector<AxiomWhy> axioms;
    axioms.reserve(reads.size());
    // t1 must commit before the writer of r's version (t1 also wrote its key
    // and r's transaction observed t1 through `how`).
    // `writer`: t1 is known to write r's key (it came from the key's index).
    auto act = [&](const ExtRead& r, TxnIdx t1, EdgeKind how, uint32_t how_why, bool writer = false) {
      if (t1 == r.from || t1 == r.t) return;
      if (r.from != kInit && known_before(t1, r.from)) return;
      if (!writer && !writes(t1, r.key)) return;
      need_edges();
      if (r.from != kInit) {
        e.add(t1, r.from, EdgeKind::ww, kInferredBit | version_pos(r));
        axioms.push_back({&r, t1, how, how_why});
        return;
      }
      if (init_violation) return;
      // r read the initial state of a key t1 wrote, though it observed t1:
      // t1 -> ... -> r.t -rw-> t1.
      Witness w;
      w.anomaly = weak_violation_name(level);
      axiom_cycle(w.cycle, e, base_size, AxiomWhy{&r, t1, how, how_why});
      init_violation = std::move(w);
    };
    if (level == Level::rc) {
      std::vector<std::pair<TxnIdx, uint32_t>> seen;  // transactions read so far, and where
      for (TxnIdx t = 0; t < n; ++t) {
        seen.clear();
        for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i) {
          const ExtRead& r = reads[i];
          for (auto [t1, pos] : seen) act(r, t1, EdgeKind::wr, pos);
          if (r.from != kInit && std::find_if(seen.begin(), seen.end(), [&](auto& p) { return p.first == r.from; }) == seen.end())
            seen.push_back({r.from, r.pos});
        }
      }
    } else if (level == Level::ra) {
      std::vector<std::pair<TxnIdx, uint32_t>> froms;
      // The latest writer of each key earlier in each session, kept as the
      // transactions go by: last[block * S + session] (kInit: none), when
      // that table is small beside the writes; else searched in the key's
      // writer groups.
      const uint64_t S = sess_txns.size(), blocks = block_group.empty() ? 0 : block_group.size() - 1;
      const bool by_table = S * blocks <= 4 * kw_txn.size() + (uint64_t{1} << 16);
      std::vector<TxnIdx> last;
      if (by_table) last.assign(S * blocks, kInit);
      for (TxnIdx t = 0; t < n; ++t) {
        froms.clear();
        for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i)
          if (reads[i].from != kInit &&
              std::find_if(froms.begin(), froms.end(), [&](auto& p) { return p.first == reads[i].from; }) == froms.end())
            froms.push_back({reads[i].from, reads[i].pos});
        for (uint64_t i = read_off[t]; i < read_off[t + 1]; ++i) {
          const ExtRead& r = reads[i];
          for (auto [t1, pos] : froms) act(r, t1, EdgeKind::wr, pos);
          if (by_table) {
            const uint64_t* b = key_block.find(r.key);
            if (!b) continue;
            const TxnIdx t1 = last[*b * S + h.txn_session[t]];
            if (t1 != kInit) act(r, t1, EdgeKind::so, 0, true);
            continue;
          }
          auto [g0, g1] = groups_of(r.key);  // the latest writer of the key earlier in t's session
          auto g = std::lower_bound(group_sess.begin() + static_cast<ptrdiff_t>(g0), group_sess.begin() + static_cast<ptrdiff_t>(g1), h.txn_session[t]);
          if (g == group_sess.begin() + static_cast<ptrdiff_t>(g1) || *g != h.txn_session[t]) continue;
          const size_t gi = static_cast<size_t>(g - group_sess.begin());
          auto first = kw_txn.begin() + static_cast<ptrdiff_t>(group_begin[gi]), end = kw_txn.begin() + static_cast<ptrdiff_t>(group_begin[gi + 1]);
          auto p = std::lower_bound(first, end, t);
          if (p != first) act(r, *(p - 1), EdgeKind::so, 0, true);
        }
        if (by_table && inc[t])
          for (uint64_t j = wkey_off[t]; j < wkey_off[t + 1]; ++j) last[*key_block.find(wkeys[j]) * S + h.txn_session[t]] = t;
      }
    } else {  // causal
      // The base graph must be acyclic before clocks. Without list orders it
      // is so ∪ wr, whose cycle the clocks' topological pass finds anyway.
      auto cyclic = [&]() -> std::optional<WeakOutcome> {
        need_edges();
        std::optional<Witness> c = cycle_of(e, level);
        if (!c) return std::nullopt;
        WeakOutcome out;
        out.holds = false;
        out.witness = std::move(c);
        return out;
      };
      if (list_edges.size() > 0)
        if (auto c = cyclic()) return *c;
      if (causal_axioms(e, act, need_edges) != Causal::done) {
        if (auto c = cyclic()) return *c;
        WeakOutcome out;
        out.decided = false;
        out.reason = "causal: vector clocks for the transactions alive at once × " + std::to_string(sess_txns.size()) +
                     " sessions exceed " + std::to_string(kMaxClockWords) + " words";
        return out;
      }
    }
    WeakOutcome out;
    if (init_violation) {
      out.holds = false;
      out.witness = std::move(init_violation);
      return out;
    }
    out.witness = cycle_of(e, level, base_size, &axioms);
    out.holds = !out.witness;
    return out;
  }

  // Edge ids of a path from a to b over the so/wr edges e[0, base_size) (BFS).
  std::vector<uint32_t> hb_path(const EdgeList& e, size_t base_size, TxnIdx a, TxnIdx b) const {
    std::vector<uint64_t> via(n, ~uint64_t{0});
    std::vector<uint8_t> seen(n, 0);
    Csr c;
    {
      EdgeList hb;
      for (size_t i = 0; i < base_size; ++i)
        if (e.kind[i] == EdgeKind::so || e.kind[i] == EdgeKind::wr) hb.add(e.src[i], e.dst[i], e.kind[i]);
      c = build_csr(n, hb, false);
      std::deque<TxnIdx> q{a};
      seen[a] = 1;
      while (!q.empty()) {
        TxnIdx u = q.front();
        q.pop_front();
        if (u == b) break;
        for (uint64_t s = c.offset[u]; s < c.offset[u + 1]; ++s) {
          TxnIdx v = c.target[s];
          if (seen[v]) continue;
          seen[v] = 1;
          via[v] = u;
          q.push_back(v);
        }
      }
    }
    std::vector<uint32_t> path;
    if (!seen[b]) return path;
    for (TxnIdx v = b; v != a; v = static_cast<TxnIdx>(via[v])) {
      TxnIdx u = static_cast<TxnIdx>(via[v]);
      for (size_t i = 0; i < base_size; ++i)
        if (e.src[i] == u && e.dst[i] == v && (e.kind[i] == EdgeKind::so || e.kind[i] == EdgeKind::wr)) {
          path.push_back(static_cast<uint32_t>(i));
          break;
        }
    }
    std::reverse(path.begin(), path.end());
    return path;
  }
};

WeakChecker::WeakChecker(const History& h, const std::vector<uint8_t>& included) : impl_(std::make_unique<Impl>(h, included)) {}
WeakChecker::WeakChecker(const History& h, const DependencyGraph& g) : impl_(std::make_unique<Impl>(h, g.included, &g)) {}
WeakChecker::~WeakChecker() = default;

std::string WeakChecker::precondition(Level level) const {
  const Impl& m = *impl_;
  if (!m.corrupt.empty()) return m.corrupt;
  if (!m.list_fail.empty()) return m.list_fail;
  if (level != Level::ru && !m.dirty.empty()) return m.dirty;
  return "";
}

WeakOutcome WeakChecker::decide(Level level) {
  Impl& m = *impl_;
  std::string pre = precondition(level);
  if (!pre.empty()) return m.fail(pre);
  if (level == Level::ru) return m.decide_ru();
  return m.decide_axioms(level);
}

}  // namespace isocheck

#include "graph/known_graph.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "core/flat_hash.h"
#include "core/predicates.h"
#include "core/radix_order.h"
#include "core/progress_counter.h"
#include "core/text_escape.h"

namespace isocheck {
namespace {

constexpr uint32_t kNoTxn = ~0U;

// Every write and append, joined with its (key, value)'s first write and
// with the register reads that name it. Values are unique per key, so a read
// names its writer; a repeated (key, value) is a duplicate write, and the
// first write of it in index order (transactions in file order, each one's
// operations backwards) owns it.
//
// The join is partitioned by the hash of (key, value): writes and reads are
// scattered into partitions whose table fits in cache, each partition joined
// alone, and the answers written back by operation. One global table's
// lookups missed the cache (and the TLB) at every read. After the join every
// write has an id (writes and appends in operation order), a read's writer is
// `reader_write(op)`, and the state of a version lives in `state`, indexed by
// id: versions a transaction reads were mostly written shortly before it, so
// the passes in transaction order touch it with some locality.
class WriteIndex {
 public:
  static constexpr uint32_t kNoWrite = ~0U;
  static uint64_t hash(Sym k, Sym v) { return mix64(k * 0x9e3779b97f4a7c15ULL ^ mix64(v)); }

  // A duplicate write: `dup` repeats the (key, value) of `first` (write ids).
  struct Duplicate { uint32_t dup, first; };

  // Joins every write and append with every read (kind read, value not null).
  // `partition_writes`: about this many writes per partition (0: default).
  // Returns the duplicate writes in index order.
  std::vector<Duplicate> build(const History& h, size_t writes, size_t partition_writes, int max_bucket_bits);

  TxnIdx txn(uint32_t w) const { return state_[w].txn; }
  uint32_t pos(uint32_t w) const { return state_[w].pos; }
  uint32_t& succ(uint32_t w) { return state_[w].succ; }
  uint32_t succ(uint32_t w) const { return state_[w].succ; }
  uint8_t flags(uint32_t w) const { return state_[w].flags; }
  void set_flag(uint32_t w, uint8_t f) { state_[w].flags |= f; }
  uint32_t size() const { return writes_; }
  // The write id of a write or append op; the write a read op names (its
  // (key, value)'s first write), kNoWrite when none.
  uint32_t write_of(OpIdx o) const { return op_ref_[o]; }
  void prefetch_state(uint32_t w) const { __builtin_prefetch(&state_[w]); }
  // The first write of (k, v) for a list element (appends only; kNoWrite: none).
  uint32_t find_append(Sym k, Sym v) const;

  static constexpr uint8_t kRead = 1;       // some other transaction read this version
  static constexpr uint8_t kBlind = 2;      // a version whose writer did not read the key first
  static constexpr uint8_t kVersion = 4;    // final write of an included transaction
  static constexpr uint8_t kEndWithTails = 8;  // last linked version of a key with unread blind tails
  static constexpr uint8_t kFinal = 16;     // the last write of its key inside its transaction
  static constexpr uint8_t kDuplicate = 32; // repeats an earlier write's (key, value)

 private:
  // One 16-byte state per write: a version's lookups touch one cache line.
  struct State {
    TxnIdx txn;
    uint32_t pos;   // position in its transaction
    uint32_t succ;  // the successor transaction in version order (kNoTxn: none)
    uint8_t flags;
  };
  // What the partitions hold: a (key, value) and a write id or a read's op.
  struct Tuple { Sym k, v; uint64_t id; };
  // Arrays without value-initialisation: the join writes every entry, and
  // zeroing them first was a pass over memory of its own.
  std::unique_ptr<State[]> state_;
  std::unique_ptr<uint32_t[]> op_ref_;  // per op: see write_of
  uint32_t writes_ = 0;
  // Appends by (key, value), for list elements: open addressing over write ids.
  std::vector<uint32_t> appends_;
  const History* h_ = nullptr;
};

std::vector<WriteIndex::Duplicate> WriteIndex::build(const History& h, size_t writes, size_t partition_writes,
                                                     int max_bucket_bits) {
  h_ = &h;
  if (writes >= kNoWrite) throw ResourceError("more than 2^32 - 2 writes in one history");
  writes_ = static_cast<uint32_t>(writes);
  state_.reset(new State[writes]);
  op_ref_.reset(new uint32_t[h.op_count()]);  // every entry is set below
  if (partition_writes == 0) partition_writes = 4096;
  // Partitions of about `partition_writes` writes, by the top bits of the
  // hash, made in two scatters: into at most 256 buckets from the operations,
  // then each bucket (in cache) into its partitions. One scatter straight
  // into 4096 partitions kept 8192 streams open at 10^7 writes, more pages
  // than the TLB holds: the scatter's stores were half the join.
  int bits = 0;
  while (bits < 12 && (writes >> bits) > partition_writes) ++bits;
  const int bucket_bits = std::min(bits, std::max(max_bucket_bits, 0)), sub_bits = bits - bucket_bits;
  auto part = [&](uint64_t hv) -> size_t { return bucket_bits ? static_cast<size_t>(hv >> (64 - bucket_bits)) : 0; };
  const size_t parts = size_t{1} << bucket_bits;  // (the first scatter's buckets)

  // Writes in index order (transactions in file order, each backwards, so
  // "final" is known at the write); write ids in operation order.
  std::vector<size_t> wcount(parts + 1, 0), rcount(parts + 1, 0);
  size_t reads = 0;
  bool any_append = false;
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    const OpKind kind = h.op_kind[o];
    if (kind == OpKind::write || kind == OpKind::append) {
      wcount[part(hash(h.op_key[o], h.op_value[o])) + 1]++;
      any_append |= kind == OpKind::append;
    } else if (kind == OpKind::read && h.op_value[o] != kNullValue) {
      rcount[part(hash(h.op_key[o], h.op_value[o])) + 1]++, ++reads;
    }
  }
  for (size_t p = 0; p < parts; ++p) wcount[p + 1] += wcount[p], rcount[p + 1] += rcount[p];
  std::unique_ptr<Tuple[]> wt(new Tuple[writes]), rt(new Tuple[reads]);
  {
    std::vector<size_t> wcur(wcount.begin(), wcount.end() - 1), rcur(rcount.begin(), rcount.end() - 1);
    std::vector<Sym> later;             // keys written later in the txn (scanning backwards)
    std::unordered_set<Sym> later_big;  // the same, for transactions with many keys
    uint32_t wbase = 0;
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      const OpIdx b = h.op_begin(t), e = h.op_end(t);
      uint32_t w = wbase;
      for (OpIdx o = b; o < e; ++o) {
        const OpKind kind = h.op_kind[o];
        if (kind == OpKind::write || kind == OpKind::append) {
          op_ref_[o] = w;
          state_[w] = {t, static_cast<uint32_t>(o - b), kNoTxn, 0};
          ++w;
        } else if (kind == OpKind::read && h.op_value[o] != kNullValue) {
          const Sym k = h.op_key[o], v = h.op_value[o];
          rt[rcur[part(hash(k, v))]++] = {k, v, o};  // op_ref_[o] is set by the probe
        } else {
          op_ref_[o] = kNoWrite;
        }
      }
      later.clear();
      later_big.clear();
      for (OpIdx o = e; o-- > b;) {
        const OpKind kind = h.op_kind[o];
        if (kind != OpKind::write && kind != OpKind::append) continue;
        const Sym k = h.op_key[o], v = h.op_value[o];
        bool final;
        if (later.size() < 32) {
          final = std::find(later.begin(), later.end(), k) == later.end();
          if (final) later.push_back(k);
        } else {
          if (later_big.empty()) later_big.insert(later.begin(), later.end());
          final = later_big.insert(k).second;
        }
        const uint32_t id = op_ref_[o];
        if (final) state_[id].flags = kFinal;
        wt[wcur[part(hash(k, v))]++] = {k, v, id};
      }
      wbase = w;
    }
  }

  // Each partition: a table of its writes (the first of each (key, value)
  // wins: the scatters keep index order), then its reads probed against it.
  std::vector<Duplicate> dups;
  std::vector<uint32_t> table;
  auto join = [&](const Tuple* w, size_t nw, const Tuple* rd, size_t nr) {
    if (nw == 0) {
      for (size_t r = 0; r < nr; ++r) op_ref_[rd[r].id] = kNoWrite;
      return;
    }
    size_t cap = 16;
    while (cap < 2 * nw) cap <<= 1;
    table.assign(cap, kNoWrite);  // index into w
    const size_t m = cap - 1;
    for (size_t i = 0; i < nw; ++i) {
      size_t s = hash(w[i].k, w[i].v) & m;
      while (table[s] != kNoWrite && !(w[table[s]].k == w[i].k && w[table[s]].v == w[i].v)) s = (s + 1) & m;
      if (table[s] == kNoWrite) {
        table[s] = static_cast<uint32_t>(i);
      } else {
        const uint32_t first = static_cast<uint32_t>(w[table[s]].id), dup = static_cast<uint32_t>(w[i].id);
        state_[dup].flags |= kDuplicate;
        dups.push_back({dup, first});
      }
    }
    for (size_t r = 0; r < nr; ++r) {
      const Tuple& q = rd[r];
      size_t s = hash(q.k, q.v) & m;
      while (table[s] != kNoWrite && !(w[table[s]].k == q.k && w[table[s]].v == q.v)) s = (s + 1) & m;
      op_ref_[q.id] = table[s] == kNoWrite ? kNoWrite : static_cast<uint32_t>(w[table[s]].id);
    }
  };
  const size_t subs = size_t{1} << sub_bits;
  auto sub_of = [&](const Tuple& x) -> size_t {
    return sub_bits ? static_cast<size_t>(hash(x.k, x.v) >> (64 - bits)) & (subs - 1) : 0;
  };
  std::vector<Tuple> wsub, rsub;
  std::vector<size_t> ws, rs;
  for (size_t p = 0; p < parts; ++p) {
    const Tuple* w = wt.get() + wcount[p];
    const Tuple* rd = rt.get() + rcount[p];
    const size_t nw = wcount[p + 1] - wcount[p], nr = rcount[p + 1] - rcount[p];
    if (sub_bits == 0) {
      join(w, nw, rd, nr);
      continue;
    }
    wsub.resize(nw), rsub.resize(nr);
    scatter_by_part(w, nw, subs, sub_of, wsub.data(), ws);
    scatter_by_part(rd, nr, subs, sub_of, rsub.data(), rs);
    for (size_t q = 0; q < subs; ++q)
      join(wsub.data() + ws[q], ws[q + 1] - ws[q], rsub.data() + rs[q], rs[q + 1] - rs[q]);
  }
  wt.reset(), rt.reset();
  // Index order: transactions in file order, each one's operations backwards.
  std::sort(dups.begin(), dups.end(), [&](const Duplicate& a, const Duplicate& b) {
    return state_[a.dup].txn != state_[b.dup].txn ? state_[a.dup].txn < state_[b.dup].txn : a.dup > b.dup;
  });

  if (any_append) {
    size_t n = 0;
    for (uint32_t id = 0; id < writes; ++id) {
      const OpIdx o = h.op_begin(state_[id].txn) + state_[id].pos;
      n += h.op_kind[o] == OpKind::append && !(state_[id].flags & kDuplicate);
    }
    appends_.assign(table_capacity(n), kNoWrite);
    const size_t m = appends_.size() - 1;
    for (uint32_t id = 0; id < writes; ++id) {
      const OpIdx o = h.op_begin(state_[id].txn) + state_[id].pos;
      if (h.op_kind[o] != OpKind::append || (state_[id].flags & kDuplicate)) continue;
      size_t s = hash(h.op_key[o], h.op_value[o]) & m;
      while (appends_[s] != kNoWrite) s = (s + 1) & m;
      appends_[s] = id;
    }
  }
  return dups;
}

uint32_t WriteIndex::find_append(Sym k, Sym v) const {
  if (appends_.empty()) return kNoWrite;
  const size_t m = appends_.size() - 1;
  for (size_t s = hash(k, v) & m; appends_[s] != kNoWrite; s = (s + 1) & m) {
    const uint32_t id = appends_[s];
    const OpIdx o = h_->op_begin(state_[id].txn) + state_[id].pos;
    if (h_->op_key[o] == k && h_->op_value[o] == v) return id;
  }
  return kNoWrite;
}

constexpr uint32_t kNone = WriteIndex::kNoWrite;  // no write (version)

// What one transaction did to one key so far (scanning its ops in order).
struct KeyState {
  Sym key;
  bool written = false;       // a w or append on this key happened earlier in the txn
  bool ext_read = false;      // an external read happened
  Sym last_write = 0;
  uint32_t last_write_id = 0;  // registers: the write id of the last write
  Sym ext_value = 0;          // registers: the external read's value
  uint32_t ext_pos = 0;
  uint32_t ext_slot = WriteIndex::kNoWrite;  // registers: the version the external read saw
  uint32_t append_begin = 0, append_count = 0;  // own appends, in `appends`
  std::vector<Sym> ext_list;  // lists: the external observation
};

// Per-transaction scratch: few keys per transaction is the norm, so a vector
// with linear search; large transactions fall back to a map.
class TxnKeys {
 public:
  KeyState& get(Sym k) {
    if (states_.size() <= 16) {
      for (size_t i = 0; i < used_; ++i) if (states_[i].key == k) return states_[i];
    } else {
      auto it = big_.find(k);
      if (it != big_.end()) return states_[it->second];
    }
    if (used_ == states_.size()) states_.emplace_back();
    KeyState& s = states_[used_];
    s.key = k;
    s.written = s.ext_read = false;
    s.ext_slot = WriteIndex::kNoWrite;
    s.append_count = 0;
    s.ext_list.clear();
    if (states_.size() > 16) {
      if (big_.empty()) for (size_t i = 0; i < used_; ++i) big_.emplace(states_[i].key, i);
      big_.emplace(k, used_);
    }
    ++used_;
    return s;
  }
  void clear() { used_ = 0; big_.clear(); appends.clear(); }
  size_t size() const { return used_; }
  KeyState& at(size_t i) { return states_[i]; }
  std::vector<Sym> appends;

 private:
  std::vector<KeyState> states_;
  size_t used_ = 0;
  std::unordered_map<Sym, size_t> big_;
};

// One included transaction's appends to one list key, in order: their
// positions in the transaction are Builder::run_pos[begin, begin + count).
struct AppendRun {
  uint64_t begin;
  TxnIdx t;
  uint32_t count;
};
constexpr uint32_t kNoRun = ~0U;

std::string txn_where(const History& h, TxnIdx t, uint64_t o) {
  return "transaction " + std::to_string(h.txn_id[t]) + ", operation " + std::to_string(h.position_in_txn(o, t));
}

struct Builder {
  const History& h;
  const KnownGraphOptions& opt;
  DependencyGraph& g;
  WriteIndex widx;
  FlatMap64 list_keys;
  bool has_lists = false;

  // Register keys with something beyond plain RMW chains: index into infos.
  struct KeyInfo {
    Sym key = 0;
    uint32_t init_succ = kNoTxn;   // the txn that read null and wrote the key
    uint32_t init_succ_pos = 0;
    uint32_t blind = 0;            // blind versions
    bool general = false;          // needs the general engine
    bool init_read = false;        // someone read the initial state
    uint32_t end_slot = WriteIndex::kNoWrite;  // last linked version (when there are tails)
    std::vector<uint32_t> tails;   // unread blind versions (txns)
    std::vector<uint32_t> tail_pos;
  };
  FlatMap64 key_info_index;
  std::vector<KeyInfo> infos;
  // External reads pass 2 may give an RW edge (see pass1).
  uint64_t rw_open = 0;
  // Does pass 2 have anything to add? Not when pass 1 settled every
  // external read (rw_open == 0): a history of read-modify-write
  // transactions. Blind versions change nothing: their unread tails take RW
  // edges from the readers of a key's last linked version, which has no
  // successor (a settled read's version has its reader as successor), and
  // from readers of the initial state of a key no transaction wrote after
  // reading it (a settled one did).
  bool pass2_needed() const { return rw_open > 0; }

  Builder(const History& h_, const KnownGraphOptions& o, DependencyGraph& g_) : h(h_), opt(o), g(g_) {}

  bool is_list_key(Sym k) const { return has_lists && list_keys.find(k) != nullptr; }
  KeyInfo& info(Sym k) {
    bool ins;
    uint64_t& i = key_info_index.get_or_insert(k, infos.size(), ins);
    if (ins) infos.emplace_back(), infos.back().key = k;
    return infos[i];
  }
  // Indices into infos, by key symbol (symbols are global to the file, so a
  // projection sorts its keys as the whole history does).
  std::vector<uint32_t> keys_by_symbol() const {
    std::vector<uint32_t> order(infos.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return infos[a].key < infos[b].key; });
    return order;
  }
  KeyInfo* find_info(Sym k) {
    uint64_t* i = key_info_index.find(k);
    return i ? &infos[*i] : nullptr;
  }
  void anomaly(AnomalyKind kind, TxnIdx t, TxnIdx other, uint64_t op, Sym key, Sym value) {
    g.anomalies.push_back({kind, t, other, static_cast<uint32_t>(op - h.op_begin(t)), key, value});
  }
  void classify_keys() {
    for (OpIdx o = 0; o < h.op_count(); ++o) {
      if (uses_as_list(h.op_kind[o])) {
        bool ins;
        list_keys.get_or_insert(h.op_key[o], 0, ins);
        has_lists = true;
      }
    }
    if (!has_lists) return;
    for (OpIdx o = 0; o < h.op_count(); ++o) {
      if (!is_list_key(h.op_key[o])) continue;
      if (uses_as_register(h.op_kind[o], h.op_value[o])) {
        const bool writes = h.op_kind[o] == OpKind::write;
        const TxnIdx t = h.txn_of_op(o);
        throw list_key_misuse(h.txn_id[t], h.position_in_txn(o, t), h.keys.text(h.op_key[o]), writes);
      }
    }
  }

  void index_writes(size_t writes) {
    for (const WriteIndex::Duplicate& d : widx.build(h, writes, opt.join_partition_writes, opt.join_bucket_bits)) {
      const TxnIdx t = widx.txn(d.dup);
      const OpIdx o = h.op_begin(t) + widx.pos(d.dup);
      anomaly(AnomalyKind::duplicate_write, t, widx.txn(d.first), o, h.op_key[o], h.op_value[o]);
    }
  }

  // Committed transactions, plus unknown ones whose writes somebody included read.
  void compute_included() {
    g.included.assign(h.txn_count(), 0);
    std::vector<TxnIdx> stack;
    for (TxnIdx t = 0; t < h.txn_count(); ++t)
      if (h.txn_status[t] == TxnStatus::committed) g.included[t] = 1, stack.push_back(t);
    bool any_unknown = std::find(h.txn_status.begin(), h.txn_status.end(), TxnStatus::unknown) != h.txn_status.end();
    if (!any_unknown) return;
    auto visit = [&](uint32_t s) {
      if (s == WriteIndex::kNoWrite) return;
      TxnIdx w = widx.txn(s);
      if (!g.included[w] && h.txn_status[w] == TxnStatus::unknown) g.included[w] = 1, stack.push_back(w);
    };
    while (!stack.empty()) {
      TxnIdx t = stack.back();
      stack.pop_back();
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        if (h.op_kind[o] == OpKind::read && h.op_value[o] != kNullValue) visit(widx.write_of(o));
        if (h.op_kind[o] == OpKind::read_list)
          for (Sym v : h.list(o)) visit(widx.find_append(h.op_key[o], v));
      }
    }
  }

  // Resolves an external register read of (k, v) by t at op o to the write
  // id of the version it read (kNoWrite for the initial state or an
  // anomalous read). Reports anomalies only when `report`.
  uint32_t resolve_read(TxnIdx t, OpIdx o, Sym k, Sym v, bool report) {
    if (v == kNullValue) return kNone;
    uint32_t s = widx.write_of(o);
    if (s == kNone) {
      if (report) anomaly(AnomalyKind::thin_air_read, t, t, o, k, v);
      return kNone;
    }

    TxnIdx wt = widx.txn(s);
    if (wt == t) {  // read a value this transaction only writes later
      if (report) anomaly(AnomalyKind::internal_read, t, t, o, k, v);
      return kNone;
    }
    if (!g.included[wt]) {
      if (report) anomaly(AnomalyKind::aborted_read, t, wt, o, k, v);
      return kNone;
    }
    if (!(widx.flags(s) & WriteIndex::kFinal)) {
      if (report) anomaly(AnomalyKind::intermediate_read, t, wt, o, k, v);
      return kNone;
    }
    return s;
  }

  // Calls f(o, k, s) on each of t's ops on register keys, in order, with s
  // t's state for key k so far (ks starts empty).
  template <class F>
  void for_each_register_op(TxnIdx t, TxnKeys& ks, F&& f) {
    ks.clear();
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      Sym k = h.op_key[o];
      if (is_list_key(k)) continue;
      f(o, k, ks.get(k));
    }
  }

  // Pass 1 over a transaction's register ops: intra-transaction checks, WR
  // edges, version predecessors (WW), successor bookkeeping.
  void pass1(TxnIdx t, TxnKeys& ks) {
    const uint64_t b = h.op_begin(t);
    for_each_register_op(t, ks, [&](OpIdx o, Sym k, KeyState& s) {
      OpKind kind = h.op_kind[o];
      if (kind == OpKind::write) {
        s.written = true;
        s.last_write = h.op_value[o];
        s.last_write_id = widx.write_of(o);
        return;
      }
      Sym v = h.op_value[o];
      if (is_choice(o)) return;  // absent_choices() places it
      if (s.written) {
        if (v != s.last_write) anomaly(AnomalyKind::internal_read, t, t, o, k, v);
        return;
      }
      if (s.ext_read) {
        if (v != s.ext_value) anomaly(AnomalyKind::nonrepeatable_read, t, t, o, k, v);
        return;
      }
      s.ext_read = true;
      s.ext_value = v;
      s.ext_pos = static_cast<uint32_t>(o - b);
      uint32_t slot = resolve_read(t, o, k, v, true);
      s.ext_slot = slot;
      if (slot != kNone) {
        g.edges.add(widx.txn(slot), t, EdgeKind::wr, s.ext_pos);
        widx.set_flag(slot, WriteIndex::kRead);
      } else if (v == kNullValue) {
        info(k).init_read = true;
      }
    });
    // Versions: the final write of each written key. An external read that
    // pass 2 may give an RW edge counts in rw_open: all but the read of a
    // key the transaction then overwrites, whose version's successor (or
    // the key's first writer, after a read of the initial state) this
    // transaction becomes here: that read's RW edge would be to itself.
    for (size_t i = 0; i < ks.size(); ++i) {
      KeyState& s = ks.at(i);
      if (!s.written) {
        rw_open += s.ext_read;
        continue;
      }
      const uint32_t vslot = s.last_write_id;
      // A duplicate value owned by another transaction: already an anomaly.
      if (widx.flags(vslot) & WriteIndex::kDuplicate) {
        rw_open += s.ext_read;
        continue;
      }
      widx.set_flag(vslot, WriteIndex::kVersion);
      const uint32_t wpos = widx.pos(vslot);
      if (!s.ext_read) {  // blind write: position in the version order unknown
        widx.set_flag(vslot, WriteIndex::kBlind);
        info(s.key).blind++;
        continue;
      }
      if (s.ext_value == kNullValue) {
        KeyInfo& ki = info(s.key);
        if (ki.init_succ != kNoTxn) {
          anomaly(AnomalyKind::lost_update, t, ki.init_succ, b + s.ext_pos, s.key, kNullValue);
          ++rw_open;
        } else {
          ki.init_succ = t, ki.init_succ_pos = wpos;
        }
        continue;
      }
      const uint32_t pslot = s.ext_slot;
      if (pslot == kNone) {  // read was anomalous: treat the write as unlinked
        widx.set_flag(vslot, WriteIndex::kBlind);
        info(s.key).blind++;
        ++rw_open;
        continue;
      }
      TxnIdx pt = widx.txn(pslot);
      uint32_t& succ = widx.succ(pslot);
      if (succ != kNoTxn && succ != t) {
        anomaly(AnomalyKind::lost_update, t, succ, b + s.ext_pos, s.key, s.ext_value);
        ++rw_open;
      } else {
        succ = t;
      }
      g.edges.add(pt, t, EdgeKind::ww, wpos);
    }
  }

  // Keys with blind versions: are they unread tails (order free for
  // serializability) or real unknowns for the general engine?
  void classify_blind() {
    if (infos.empty()) return;
    bool any_blind = false;
    for (auto& ki : infos) any_blind |= ki.blind > 0;
    if (!any_blind) return;
    for (uint32_t s = 0; s < widx.size(); ++s) {
      if (!(widx.flags(s) & WriteIndex::kVersion)) continue;
      const OpIdx o = h.op_begin(widx.txn(s)) + widx.pos(s);
      KeyInfo* ki = find_info(h.op_key[o]);
      if (!ki || ki->blind == 0) continue;
      uint8_t f = widx.flags(s);
      if (f & WriteIndex::kBlind) {
        if ((f & WriteIndex::kRead) || widx.succ(s) != kNoTxn) {
          ki->general = true;
        } else {
          ki->tails.push_back(widx.txn(s));
          ki->tail_pos.push_back(widx.pos(s));
        }
      } else if (widx.succ(s) == kNoTxn) {
        if (ki->end_slot != kNone) ki->general = true;  // two chain ends: a broken chain
        ki->end_slot = s;
      }
    }
    // Keys by symbol, tails by transaction: the order of these edges and
    // keys must not depend on the write index's hash order, so that a
    // projection of the history onto some keys (key shards) emits them in the
    // whole history's relative order.
    for (size_t i : keys_by_symbol()) {
      KeyInfo& ki = infos[i];
      if (ki.blind == 0 || ki.general) continue;
      if (ki.tails.size() > 1) {
        std::vector<std::pair<uint32_t, uint32_t>> tp(ki.tails.size());
        for (size_t j = 0; j < tp.size(); ++j) tp[j] = {ki.tails[j], ki.tail_pos[j]};
        std::sort(tp.begin(), tp.end());
        for (size_t j = 0; j < tp.size(); ++j) ki.tails[j] = tp[j].first, ki.tail_pos[j] = tp[j].second;
      }
      if (opt.for_si && ki.tails.size() >= 2) {
        UnorderedKey uk;
        uk.key = ki.key;
        uk.si_only = true;
        uk.first_chain = g.chains.size();
        for (size_t j = 0; j < ki.tails.size(); ++j) {
          g.chains.open(false);
          g.chains.add_txn(ki.tails[j], ki.tail_pos[j]);
          g.chains.close();
        }
        uk.end_chain = g.chains.size();
        g.unordered_write_pairs += ki.tails.size() * (ki.tails.size() - 1) / 2;
        g.unordered.push_back(uk);
      }
      // Tails come after the last linked version (or after the initial state).
      if (ki.end_slot != kNone) {
        widx.set_flag(ki.end_slot, WriteIndex::kEndWithTails);
        TxnIdx e = widx.txn(ki.end_slot);
        for (size_t i = 0; i < ki.tails.size(); ++i) g.edges.add(e, ki.tails[i], EdgeKind::ww, ki.tail_pos[i]);
      }
    }
  }

  // Calls f(o, k, pos) on t's external reads of register keys, the first
  // read of each key only and none after t's own write of that key
  // (pos: the read's position in t).
  template <class F>
  void for_each_external_read(TxnIdx t, TxnKeys& ks, F&& f) {
    const uint64_t b = h.op_begin(t);
    for_each_register_op(t, ks, [&](OpIdx o, Sym k, KeyState& s) {
      if (h.op_kind[o] == OpKind::write) { s.written = true; return; }
      if (s.written || s.ext_read || is_choice(o)) return;
      s.ext_read = true;
      f(o, k, static_cast<uint32_t>(o - b));
    });
  }

  // Pass 2: RW edges, now that every version's successor is known.
  void pass2(TxnIdx t, TxnKeys& ks) {
    for_each_external_read(t, ks, [&](OpIdx o, Sym k, uint32_t pos) {
      Sym v = h.op_value[o];
      if (v == kNullValue) {
        KeyInfo* ki = find_info(k);
        if (!ki) return;
        if (ki->init_succ != kNoTxn) {  // certain even when other chains' order is not
          if (ki->init_succ != t) g.edges.add(t, ki->init_succ, EdgeKind::rw, pos);
        } else if (!ki->general) {
          for (uint32_t tail : ki->tails) if (tail != t) g.edges.add(t, tail, EdgeKind::rw, pos);
        }  // general keys without an init chain: the init readers ride on chain 0
        return;
      }
      uint32_t slot = resolve_read(t, o, k, v, false);
      if (slot == kNone) return;
      uint32_t succ = widx.succ(slot);
      if (succ != kNoTxn && succ != t) g.edges.add(t, succ, EdgeKind::rw, pos);
      if (widx.flags(slot) & WriteIndex::kEndWithTails) {
        KeyInfo* ki = find_info(k);
        for (uint32_t tail : ki->tails) if (tail != t) g.edges.add(t, tail, EdgeKind::rw, pos);
      }
    });
  }

  // Asks the cache for the versions t's reads name (the passes reach t a
  // few transactions later). The count is kept: a loop with no effect but
  // prefetches may be deleted by the compiler.
  uint64_t prefetched = 0;
  void prefetch_reads(TxnIdx t) {
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
      if (h.op_kind[o] == OpKind::read)
        if (uint32_t w = widx.write_of(o); w != kNone) widx.prefetch_state(w), ++prefetched;
  }

  // A scan's read of an open absence (History::absent_choice_ops)?
  bool is_choice(OpIdx o) const {
    return !h.absent_choice_ops.empty() && h.op_value[o] == kNullValue && h.is_absent_choice(o);
  }

  // The scans' open absences: each saw the initial state or one of its key's
  // tombstones. Where the key's version order is known (one chain from the
  // initial state), the versions it cannot have seen are the present ones;
  // for each run of them the scan ran before the run's first write, or after
  // the delete that ends the run. A run nothing ends gives a certain edge;
  // the others an AbsentChoice for the general engine. Throws ResourceError
  // ("not decided") where the order is unknown or the scan's transaction
  // writes the key itself. A scan with a value predicate (History::
  // op_value_predicate) saw a version that does not match it: its runs are
  // those of matching versions (a run ends at the write or delete after
  // which the key no longer matches).
  struct PresentRun {
    TxnIdx first;            // the run's first writer (it made the key present)
    TxnIdx end = kNoTxn;     // the delete after the run (kNoTxn: none)
  };
  void absent_choices() {
    if (h.absent_choice_ops.empty()) return;
    auto undecided = [&](TxnIdx t, OpIdx o, const std::string& why) {
      const std::string key = printable(h.keys.text(h.op_key[o]));
      if (const ValuePredicate* p = h.value_predicate_of(o))
        throw OpenReadUndecided("not decided: " + txn_where(h, t, o) + ": a range scan (" + predicate_text(h, *p) +
                                    ") did not return key " + key + ", which has several versions that do not match: "
                                    "which one it saw is open, and " + why, h.op_key[o]);
      if (h.is_insert_choice(o))
        throw OpenReadUndecided("not decided: " + txn_where(h, t, o) + ": an insert of key " + key +
                                    " required it absent, and another transaction deletes it: which absent version (the "
                                    "initial state or a deleted one) it saw is open, and " + why, h.op_key[o]);
      throw OpenReadUndecided("not decided: " + txn_where(h, t, o) + ": a range scan saw key " + key +
                                  " absent, and another transaction deletes it: which absent version (the initial state "
                                  "or a deleted one) it saw is open, and " + why, h.op_key[o]);
    };
    // Keys asked about; a write of one by an unknown transaction nobody read
    // (left out) might have been the deleted version seen.
    FlatMap64 asked{64};
    for (OpIdx o : h.absent_choice_ops) {
      bool fresh;
      asked.get_or_insert(h.op_key[o], 0, fresh);
    }
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (g.included[t] || h.txn_status[t] != TxnStatus::unknown) continue;
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
        if (h.op_kind[o] == OpKind::write && asked.find(h.op_key[o]))
          undecided(t, o, "transaction " + std::to_string(h.txn_id[t]) +
                              " (status unknown, read by nobody) writes it: whether it committed is unknown");
    }
    // Runs by (key, 1 + the scan's value predicate index, or 0).
    std::map<std::pair<Sym, uint32_t>, std::vector<PresentRun>> runs_of;
    auto pred_id = [&](OpIdx o) -> uint32_t {
      const ValuePredicate* p = h.value_predicate_of(o);
      return p ? static_cast<uint32_t>(p - h.value_predicates.data()) + 1 : 0;
    };
    // Whether operation x's version (a write, a read of null or of some
    // write) would be returned by a scan with predicate `pid`.
    auto matches = [&](uint32_t pid, OpIdx w) {
      if (h.is_delete(w)) return false;
      return pid == 0 || predicate_matches(h.values, h.value_predicates[pid - 1], h.op_value[w]);
    };
    auto runs = [&](TxnIdx t, OpIdx o, Sym k) -> const std::vector<PresentRun>& {
      const uint32_t pid = pred_id(o);
      auto it = runs_of.find({k, pid});
      if (it != runs_of.end()) return it->second;
      std::vector<PresentRun> r;
      if (KeyInfo* ki = find_info(k)) {
        if (ki->blind || ki->general || !ki->tails.empty())
          undecided(t, o, "the key's version order is not known (blind writes)");
        uint64_t steps = 0;
        for (TxnIdx v = ki->init_succ; v != kNoTxn && steps <= widx.size(); ++steps) {
          OpIdx w = h.op_end(v);
          for (OpIdx x = h.op_end(v); x-- > h.op_begin(v);)
            if (h.op_kind[x] == OpKind::write && h.op_key[x] == k) { w = x; break; }
          if (w == h.op_end(v)) break;
          const bool present = matches(pid, w);
          if (present && (r.empty() || r.back().end != kNoTxn)) r.push_back({v});
          else if (!present && !r.empty() && r.back().end == kNoTxn) r.back().end = v;
          const uint32_t slot = widx.write_of(w);
          v = slot == WriteIndex::kNoWrite ? kNoTxn : widx.succ(slot);
        }
      }
      return runs_of.emplace(std::pair{k, pid}, std::move(r)).first->second;
    };
    // Per key of the transaction in hand (filled once per transaction: a
    // wide scan has a choice per row): its first write, and its first read
    // that is not an open absence before that write.
    struct KeyFirst {
      OpIdx write, read;
      std::vector<uint32_t> placed;  // predicates (pred_id) of t's choices on the key already placed
    };
    std::unordered_map<Sym, KeyFirst> firsts;
    TxnIdx t = 0;
    bool filled = false;
    for (OpIdx o : h.absent_choice_ops) {
      const TxnIdx prev = t;
      while (h.op_end(t) <= o) ++t;
      if (t != prev) filled = false;
      if (!g.included[t]) continue;
      if (!filled) {
        firsts.clear();
        for (OpIdx x = h.op_begin(t); x < h.op_end(t); ++x) {
          auto [it, fresh] = firsts.try_emplace(h.op_key[x], KeyFirst{h.op_end(t), h.op_end(t)});
          KeyFirst& f = it->second;
          if (h.op_kind[x] == OpKind::write && f.write == h.op_end(t)) f.write = x;
          else if (h.op_kind[x] == OpKind::read && f.write == h.op_end(t) && f.read == h.op_end(t) && !is_choice(x)) f.read = x;
        }
        filled = true;
      }
      const Sym k = h.op_key[o];
      KeyFirst& kf = firsts.at(k);
      // t's own write of k before this scan: the scan must have seen it (an
      // own delete would have made the read its tombstone, not open). Asked
      // of every scan of k, not only t's first: a later one may follow the
      // write.
      const OpIdx first_write = kf.write;
      if (first_write < o) {
        anomaly(AnomalyKind::internal_read, t, t, o, k, kNullValue);
        continue;
      }
      // t's scans of k before its write see one version: placed once per
      // predicate (scans with different predicates each exclude their own
      // matching versions).
      const uint32_t pid = pred_id(o);
      if (std::find(kf.placed.begin(), kf.placed.end(), pid) != kf.placed.end()) continue;
      kf.placed.push_back(pid);
      // Another read of k in t before t writes it (the read an insert
      // stands for, say) pins the version t saw: the absence must agree.
      bool pinned = false;
      if (const OpIdx x = kf.read; x != h.op_end(t)) {
        pinned = true;
        const Sym v = h.op_value[x];
        const uint32_t slot = v == kNullValue ? WriteIndex::kNoWrite : widx.write_of(x);
        const bool unseen = v == kNullValue ||
                            (slot != WriteIndex::kNoWrite && !matches(pid, h.op_begin(widx.txn(slot)) + widx.pos(slot)));
        if (!unseen) anomaly(AnomalyKind::nonrepeatable_read, t, t, o, k, v);
      }
      if (pinned) continue;
      if (first_write != h.op_end(t))
        undecided(t, o, "transaction " + std::to_string(h.txn_id[t]) + " writes it without reading it first");
      const uint32_t pos = static_cast<uint32_t>(o - h.op_begin(t));
      for (const PresentRun& run : runs(t, o, k)) {
        if (run.end == kNoTxn) g.edges.add(t, run.first, EdgeKind::rw, pos);
        else g.absent_choices.push_back({t, pos, k, run.first, run.end});
      }
    }
  }

  void session_order() {
    std::vector<uint32_t> last(h.session_count(), kNoTxn);
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (!g.included[t]) continue;
      uint32_t& l = last[h.txn_session[t]];
      if (l != kNoTxn) g.edges.add(l, t, EdgeKind::so);
      l = t;
    }
  }

  void lists();
  void general_keys();

  // Lists: each included transaction's run of appends to a key (the
  // positions of its appends in order are run_pos[begin, begin + count));
  // key_runs[k] lists k's runs by transaction. The marks say which runs and
  // appends the list being scanned showed (scan number `mark`).
  std::vector<AppendRun> runs;
  std::vector<uint32_t> run_pos;
  std::unordered_map<Sym, std::vector<uint32_t>> key_runs;
  std::vector<uint32_t> run_mark, append_mark;
  uint32_t mark = 0;
  // A list element: its writer (kNoTxn: nobody) and, for an included writer,
  // its run and place in it (kNoRun: none).
  struct ListElem {
    TxnIdx w = kNoTxn;
    uint32_t run = kNoRun, idx = 0;
  };
  // What scan_runs found in a list, for every prefix of it: the first
  // repeated append, the first element that starts a run wrongly (split,
  // reordered, or without its first appends), the last element of the first
  // run cut short before something else, and per element whether the run it
  // belongs to is still incomplete there.
  struct RunScan {
    size_t dup = SIZE_MAX, incompat = SIZE_MAX, cut_end = SIZE_MAX;
    std::vector<uint8_t> open;
  };
  ListElem resolve_elem(Sym k, Sym v, const std::vector<uint32_t>& kruns) const;
  void scan_runs(const std::vector<ListElem>& el, TxnIdx reader, RunScan& s);
  void report_runs(const RunScan& s, const std::vector<ListElem>& el, size_t p, TxnIdx t, OpIdx o, Sym k,
                   const std::vector<Sym>& list);
};

// List-append keys: the longest observed list orders its elements; every other
// observation must be a prefix of it, and each must show every writer's
// appends whole (scan_runs).
void Builder::lists() {
  if (!has_lists) return;
  struct Obs { TxnIdx t; uint32_t pos; std::vector<Sym> list; };
  std::unordered_map<Sym, std::vector<Obs>> obs;
  std::vector<std::pair<Sym, uint32_t>> txn_appends;  // one transaction's appends, grouped by key below
  TxnKeys ks;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (!g.included[t]) continue;
    ks.clear();
    txn_appends.clear();
    uint64_t b = h.op_begin(t);
    for (OpIdx o = b; o < h.op_end(t); ++o) {
      Sym k = h.op_key[o];
      if (!is_list_key(k)) continue;
      KeyState& s = ks.get(k);
      if (h.op_kind[o] == OpKind::append) {
        if (!s.written) s.append_begin = static_cast<uint32_t>(ks.appends.size()), s.append_count = 0;
        // Own appends of this key are kept contiguous per key in `appends` only
        // when a txn does not interleave keys; store per key instead.
        s.written = true;
        s.ext_list.reserve(0);
        s.last_write = h.op_value[o];
        s.append_count++;
        ks.appends.push_back(k);
        ks.appends.push_back(h.op_value[o]);
        txn_appends.push_back({k, static_cast<uint32_t>(o - b)});
        continue;
      }
      // A list read (or a null read = empty list).
      std::vector<Sym> seen;
      if (h.op_kind[o] == OpKind::read_list) {
        auto l = h.list(o);
        seen.assign(l.begin(), l.end());
      }
      if (s.written) {
        // Strip own appends (they must be the list's tail, in order).
        std::vector<Sym> own;
        for (size_t i = 0; i + 1 < ks.appends.size(); i += 2) if (ks.appends[i] == k) own.push_back(ks.appends[i + 1]);
        bool ok = seen.size() >= own.size() && std::equal(own.begin(), own.end(), seen.end() - own.size());
        if (!ok) { anomaly(AnomalyKind::internal_read, t, t, o, k, own.back()); continue; }
        seen.resize(seen.size() - own.size());
      }
      if (s.ext_read) {
        if (seen != s.ext_list) anomaly(AnomalyKind::nonrepeatable_read, t, t, o, k, seen.empty() ? kNullValue : seen.back());
        continue;
      }
      s.ext_read = true;
      s.ext_list = seen;
      obs[k].push_back({t, static_cast<uint32_t>(o - b), std::move(seen)});
    }
    // This transaction's run on each key it appended to.
    std::stable_sort(txn_appends.begin(), txn_appends.end(),
                     [](const std::pair<Sym, uint32_t>& x, const std::pair<Sym, uint32_t>& y) { return x.first < y.first; });
    for (size_t i = 0; i < txn_appends.size();) {
      size_t j = i;
      while (j < txn_appends.size() && txn_appends[j].first == txn_appends[i].first) run_pos.push_back(txn_appends[j++].second);
      key_runs[txn_appends[i].first].push_back(static_cast<uint32_t>(runs.size()));
      runs.push_back({run_pos.size() - (j - i), t, static_cast<uint32_t>(j - i)});
      i = j;
    }
  }
  run_mark.assign(runs.size(), 0);
  append_mark.assign(run_pos.size(), 0);
  // Keys that are only appended to and never read still get their appenders.
  std::vector<Sym> keys;
  for (auto& [k, v] : key_runs) keys.push_back(k);
  for (auto& [k, v] : obs) if (!key_runs.count(k)) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (Sym k : keys) {
    auto& ob = obs[k];
    // The longest observation; all others must be its prefixes.
    size_t longest = 0;
    for (size_t i = 1; i < ob.size(); ++i) if (ob[i].list.size() > ob[longest].list.size()) longest = i;
    std::vector<Sym> order = ob.empty() ? std::vector<Sym>{} : ob[longest].list;
    bool consistent = true;
    for (auto& x : ob) {
      if (!std::equal(x.list.begin(), x.list.end(), order.begin())) {
        anomaly(AnomalyKind::incompatible_order, x.t, ob[longest].t, h.op_begin(x.t) + x.pos, k,
                x.list.empty() ? kNullValue : x.list.back());
        consistent = false;
      }
    }
    // Resolve elements to appending transactions: each element's writer and
    // its place in the writer's run.
    const std::vector<uint32_t>& kruns = key_runs[k];
    std::vector<ListElem> elems(order.size());
    std::vector<TxnIdx> elem_txn(order.size(), kNoTxn);
    for (size_t i = 0; i < order.size(); ++i) elems[i] = resolve_elem(k, order[i], kruns), elem_txn[i] = elems[i].w;
    // Per observation: its elements' anomalies, then its runs. When the
    // observations are prefixes of `order`, one scan of `order` answers for
    // each of them (an observation holding its own reader's append, already
    // an anomaly, is scanned alone: there that element breaks runs).
    RunScan whole;
    bool scanned = false;
    std::vector<ListElem> own;
    RunScan alone;
    for (auto& x : ob) {
      OpIdx o = h.op_begin(x.t) + x.pos;
      bool bad = false;
      if (!consistent) {
        own.resize(x.list.size());
        for (size_t i = 0; i < x.list.size(); ++i) own[i] = resolve_elem(k, x.list[i], kruns);
      }
      const std::vector<ListElem>& el = consistent ? elems : own;
      for (size_t i = 0; i < x.list.size(); ++i) {
        TxnIdx wt = el[i].w;
        if (wt == kNoTxn) { anomaly(AnomalyKind::thin_air_read, x.t, x.t, o, k, x.list[i]); bad = true; continue; }
        if (wt == x.t) { anomaly(AnomalyKind::internal_read, x.t, x.t, o, k, x.list[i]); bad = true; }
        else if (!g.included[wt]) { anomaly(AnomalyKind::aborted_read, x.t, wt, o, k, x.list[i]); bad = true; }
      }
      if (x.list.empty()) continue;
      if (consistent && !bad) {
        if (!scanned) scan_runs(elems, kNoTxn, whole), scanned = true;
        report_runs(whole, elems, x.list.size(), x.t, o, k, x.list);
      } else {
        if (consistent) own.assign(elems.begin(), elems.begin() + static_cast<ptrdiff_t>(x.list.size()));
        scan_runs(own, x.t, alone);
        report_runs(alone, own, own.size(), x.t, o, k, x.list);
      }
    }
    if (!consistent) continue;
    // WW between consecutive elements of different transactions. A writer's
    // edges carry the position of its last append to k.
    auto last_pos = [&](uint32_t r) { return run_pos[runs[r].begin + runs[r].count - 1]; };
    auto pos_in = [&](TxnIdx t) -> uint32_t {
      auto it = std::lower_bound(kruns.begin(), kruns.end(), t, [&](uint32_t r, TxnIdx x) { return runs[r].t < x; });
      return it != kruns.end() && runs[*it].t == t ? last_pos(*it) : 0;
    };
    std::vector<TxnIdx> vtxn;  // distinct writer per maximal run, in order
    std::vector<size_t> run_end;  // index in `order` of the run's last element
    for (size_t i = 0; i < order.size(); ++i) {
      TxnIdx w = elem_txn[i];
      if (w == kNoTxn || !g.included[w]) continue;
      if (!vtxn.empty() && vtxn.back() == w) { run_end.back() = i; continue; }
      if (!vtxn.empty()) g.edges.add(vtxn.back(), w, EdgeKind::ww, pos_in(w));
      vtxn.push_back(w);
      run_end.push_back(i);
    }
    for (auto& x : ob) {
      size_t p = x.list.size();  // number of elements seen
      // WR: the writer of the last element seen.
      if (p > 0 && elem_txn[p - 1] != kNoTxn && elem_txn[p - 1] != x.t && g.included[elem_txn[p - 1]])
        g.edges.add(elem_txn[p - 1], x.t, EdgeKind::wr, x.pos);
      // RW: the writer of the next element, or every unobserved appender.
      size_t next = p;
      while (next < order.size() && (elem_txn[next] == kNoTxn || !g.included[elem_txn[next]])) ++next;
      if (next < order.size()) {
        if (elem_txn[next] != x.t) g.edges.add(x.t, elem_txn[next], EdgeKind::rw, x.pos);
      }
    }
    // Appenders whose elements nobody observed: after the observed order.
    std::vector<std::pair<TxnIdx, uint32_t>> unobserved;
    for (uint32_t r : kruns) {
      if (std::find(vtxn.begin(), vtxn.end(), runs[r].t) != vtxn.end()) continue;
      unobserved.push_back({runs[r].t, last_pos(r)});
    }
    if (unobserved.empty()) continue;
    if (opt.for_si && unobserved.size() >= 2) {
      // Their mutual order matters for SI: the general engine decides it.
      UnorderedKey uk;
      uk.key = k;
      uk.si_only = true;
      uk.first_chain = g.chains.size();
      g.chains.open(true);
      for (size_t i = 0; i < vtxn.size(); ++i) g.chains.add_txn(vtxn[i], pos_in(vtxn[i]));
      for (auto& x : ob) if (x.list.size() == order.size()) g.chains.add_reader(x.t, x.pos);
      g.chains.close();
      for (auto& [t, pos] : unobserved) {
        g.chains.open(false);
        g.chains.add_txn(t, pos);
        g.chains.close();
      }
      uk.end_chain = g.chains.size();
      g.unordered_write_pairs += unobserved.size() * (unobserved.size() - 1) / 2;
      g.unordered.push_back(uk);
      // The edges from the observed prefix to each unobserved appender are still certain.
    }
    for (auto& [t, pos] : unobserved) {
      if (!vtxn.empty()) g.edges.add(vtxn.back(), t, EdgeKind::ww, pos);
      for (auto& x : ob)
        if (x.list.size() == order.size() && x.t != t) g.edges.add(x.t, t, EdgeKind::rw, x.pos);
    }
  }
  // The runs are not needed past the graph: give their memory back now.
  std::vector<AppendRun>().swap(runs);
  std::vector<uint32_t>().swap(run_pos), std::vector<uint32_t>().swap(run_mark), std::vector<uint32_t>().swap(append_mark);
  std::unordered_map<Sym, std::vector<uint32_t>>().swap(key_runs);
}

Builder::ListElem Builder::resolve_elem(Sym k, Sym v, const std::vector<uint32_t>& kruns) const {
  ListElem e;
  const uint32_t s = widx.find_append(k, v);
  if (s == kNone) return e;
  e.w = widx.txn(s);
  if (!g.included[e.w]) return e;
  auto it = std::lower_bound(kruns.begin(), kruns.end(), e.w, [&](uint32_t r, TxnIdx x) { return runs[r].t < x; });
  if (it == kruns.end() || runs[*it].t != e.w) return e;
  const uint32_t pos = widx.pos(s);
  const uint32_t* b = run_pos.data() + runs[*it].begin;
  const uint32_t* end = b + runs[*it].count;
  const uint32_t* p = std::lower_bound(b, end, pos);
  if (p != end && *p == pos) e.run = *it, e.idx = static_cast<uint32_t>(p - b);
  return e;
}

// Every state of a list is the concatenation of whole append runs: a
// transaction's appends to a key are one atomic step. So a read shows each
// writer's run all or not at all, its elements adjacent and in the order
// appended, and no element twice. Scans a list's elements (`reader`'s own
// appends, and elements of no included writer, break runs: the caller
// reports those) for what report_runs needs about every prefix.
void Builder::scan_runs(const std::vector<ListElem>& el, TxnIdx reader, RunScan& s) {
  s.dup = s.incompat = s.cut_end = SIZE_MAX;
  s.open.assign(el.size(), 0);
  auto usable = [&](size_t i) { return el[i].run != kNoRun && el[i].w != reader; };
  if (++mark == 0) {  // wrapped: no list scanned so far may look current
    std::fill(run_mark.begin(), run_mark.end(), 0);
    std::fill(append_mark.begin(), append_mark.end(), 0);
    mark = 1;
  }
  for (size_t i = 0; i < el.size() && s.dup == SIZE_MAX; ++i) {
    if (!usable(i)) continue;
    uint32_t& m = append_mark[runs[el[i].run].begin + el[i].idx];
    if (m == mark) s.dup = i;
    m = mark;
  }
  uint32_t cur = kNoRun, next = 0;  // the run being followed; the index its next element must have
  auto leave = [&](size_t i) {      // the run being followed ends before element i
    if (cur != kNoRun && next < runs[cur].count && s.cut_end == SIZE_MAX) s.cut_end = i - 1;
    cur = kNoRun;
  };
  for (size_t i = 0; i < el.size(); ++i) {
    if (!usable(i)) { leave(i); continue; }
    const uint32_t r = el[i].run;
    if (r == cur && el[i].idx == next) {
      s.open[i] = ++next < runs[r].count;
      continue;
    }
    leave(i);
    if (run_mark[r] == mark || el[i].idx != 0) {
      s.incompat = i;
      return;
    }
    run_mark[r] = mark;
    cur = r, next = 1;
    s.open[i] = next < runs[r].count;
  }
}

// Reports the first way the first p elements of a scanned list (the external
// part of t's read at op o) break the writers' runs: duplicate elements; an
// incompatible order (a run split by other elements, reordered, or without
// its first appends); or G1b, an intermediate read (a run cut short after its
// first appends: a state in the middle of the writer).
void Builder::report_runs(const RunScan& s, const std::vector<ListElem>& el, size_t p, TxnIdx t, OpIdx o, Sym k,
                          const std::vector<Sym>& list) {
  if (p == 0) return;
  if (s.dup < p) return anomaly(AnomalyKind::duplicate_elements, t, el[s.dup].w, o, k, list[s.dup]);
  if (s.incompat < p) return anomaly(AnomalyKind::incompatible_order, t, el[s.incompat].w, o, k, list[s.incompat]);
  if (s.cut_end < p) return anomaly(AnomalyKind::intermediate_read, t, el[s.cut_end].w, o, k, list[s.cut_end]);
  if (s.open[p - 1]) anomaly(AnomalyKind::intermediate_read, t, el[p - 1].w, o, k, list[p - 1]);
}

// Register keys whose chains' order is unknown: collect their chains for the
// general engine (the certain edges inside chains were already added).
void Builder::general_keys() {
  bool any = false;
  for (auto& ki : infos) any |= ki.general;
  if (!any) return;
  // Flat arrays sorted by key (its index in `infos`): 10^6 keys of unknown
  // order must not mean 10^6 small hash maps. A reader of a version is named
  // by (key, writer): versions and readers sort the same way, so each
  // version's readers are found by one merge per key.
  struct V { uint32_t key; TxnIdx t; uint32_t pos; uint32_t succ; };
  struct R { uint32_t key; TxnIdx writer; TxnIdx t; uint32_t pos; };
  struct I { uint32_t key; TxnIdx t; uint32_t pos; };
  // Keys numbered by symbol order (see keys_by_symbol): the unordered keys
  // come out sorted by symbol.
  const std::vector<uint32_t> by_symbol = keys_by_symbol();
  std::vector<uint32_t> rank_of(infos.size());
  for (uint32_t r = 0; r < by_symbol.size(); ++r) rank_of[by_symbol[r]] = r;
  auto key_index = [&](const KeyInfo* ki) { return rank_of[static_cast<size_t>(ki - infos.data())]; };
  std::vector<V> versions;
  for (uint32_t s = 0; s < widx.size(); ++s) {
    if (!(widx.flags(s) & WriteIndex::kVersion)) continue;
    const TxnIdx t = widx.txn(s);
    KeyInfo* ki = find_info(h.op_key[h.op_begin(t) + widx.pos(s)]);
    if (!ki || !ki->general) continue;
    versions.push_back({key_index(ki), t, widx.pos(s), widx.succ(s)});
  }
  std::sort(versions.begin(), versions.end(), [](const V& a, const V& b) { return a.key != b.key ? a.key < b.key : a.t < b.t; });
  // Readers of each version and of the initial state (external reads by included txns).
  std::vector<R> readers;
  std::vector<I> init_readers;
  TxnKeys ks;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (!g.included[t]) continue;
    for_each_external_read(t, ks, [&](OpIdx o, Sym k, uint32_t pos) {
      KeyInfo* ki = find_info(k);
      if (!ki || !ki->general) return;
      if (h.op_value[o] == kNullValue) { init_readers.push_back({key_index(ki), t, pos}); return; }
      uint32_t slot = resolve_read(t, o, k, h.op_value[o], false);
      if (slot != kNone) readers.push_back({key_index(ki), widx.txn(slot), t, pos});
    });
  }
  std::sort(readers.begin(), readers.end(), [](const R& a, const R& b) {
    return a.key != b.key ? a.key < b.key : a.writer != b.writer ? a.writer < b.writer : a.t < b.t;
  });
  std::sort(init_readers.begin(), init_readers.end(), [](const I& a, const I& b) { return a.key != b.key ? a.key < b.key : a.t < b.t; });
  size_t ir = 0, rr = 0;
  std::vector<size_t> reader_begin;  // per version of the key: its readers are [reader_begin[i], reader_begin[i+1])
  for (size_t kb = 0; kb < versions.size();) {
    const uint32_t k = versions[kb].key;
    size_t ke = kb;
    while (ke < versions.size() && versions[ke].key == k) ++ke;
    const V* vs = versions.data() + kb;
    const size_t n = ke - kb;
    KeyInfo* ki = &infos[by_symbol[k]];
    UnorderedKey uk{ki->key, false, g.chains.size(), 0};
    // Versions of the key are sorted by transaction: the successor by binary search.
    auto index_of = [&](TxnIdx t) -> size_t {
      const V* it = std::lower_bound(vs, vs + n, t, [](const V& v, TxnIdx x) { return v.t < x; });
      return (it != vs + n && it->t == t) ? static_cast<size_t>(it - vs) : SIZE_MAX;
    };
    auto next_of = [&](size_t i) -> size_t { return vs[i].succ == kNoTxn ? SIZE_MAX : index_of(vs[i].succ); };
    // Merge the key's readers (sorted by writer) against its versions (sorted by txn).
    while (rr < readers.size() && readers[rr].key < k) ++rr;
    reader_begin.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      while (rr < readers.size() && readers[rr].key == k && readers[rr].writer < vs[i].t) ++rr;
      reader_begin[i] = rr;
      while (rr < readers.size() && readers[rr].key == k && readers[rr].writer == vs[i].t) ++rr;
    }
    reader_begin[n] = rr;
    auto readers_of = [&](size_t i) {
      for (size_t q = reader_begin[i]; q < reader_begin[i + 1] && readers[q].writer == vs[i].t; ++q)
        g.chains.add_reader(readers[q].t, readers[q].pos);
    };
    std::vector<uint8_t> has_pred(n, 0);
    for (size_t i = 0; i < n; ++i)
      if (size_t j = next_of(i); j != SIZE_MAX) has_pred[j] = 1;
    // Chain from `head`: its versions in order, then the readers of its tail.
    uint64_t pairs = 0, total = 0;  // write pairs across non-init chains
    auto walk = [&](size_t head, bool from_init) {
      g.chains.open(from_init);
      size_t cur = head, guard = 0;
      while (cur != SIZE_MAX && guard++ <= n) {
        g.chains.add_txn(vs[cur].t, vs[cur].pos);
        size_t nx = next_of(cur);
        if (nx == SIZE_MAX) readers_of(cur);
        cur = nx;
      }
      if (!from_init) {
        const uint64_t len = g.chains.open_txns();
        pairs += total * len;
        total += len;
      }
      g.chains.close();
    };
    while (ir < init_readers.size() && init_readers[ir].key < k) ++ir;
    // The init chain first (its head read the initial state).
    if (ki->init_succ != kNoTxn) {
      if (size_t i = index_of(ki->init_succ); i != SIZE_MAX) walk(i, true), has_pred[i] = 1;
    } else if (ir < init_readers.size() && init_readers[ir].key == k) {
      // No version read the initial state: an empty init chain carries the init readers.
      g.chains.open(true);
      for (size_t j = ir; j < init_readers.size() && init_readers[j].key == k; ++j)
        g.chains.add_reader(init_readers[j].t, init_readers[j].pos);
      g.chains.close();
    }
    for (size_t i = 0; i < n; ++i)
      if (!has_pred[i]) walk(i, false);
    uk.end_chain = g.chains.size();
    g.unordered_write_pairs += pairs;
    g.unordered.push_back(uk);
    kb = ke;
  }
}

}  // namespace

DependencyGraph build_known_graph(const History& h, const KnownGraphOptions& opt) {
  DependencyGraph g;
  g.n = static_cast<uint32_t>(h.txn_count());
  size_t writes = 0;
  for (OpKind k : h.op_kind) writes += (k == OpKind::write || k == OpKind::append);
  Builder b(h, opt, g);
  b.classify_keys();
  b.index_writes(writes);
  b.compute_included();
  g.edges.reserve(h.txn_count() + h.op_count());  // about right for read-modify-write; grows otherwise
  TxnKeys ks;
  work_begin(2 * static_cast<uint64_t>(h.txn_count()));
  constexpr TxnIdx kTick = 1 << 16;  // progress granularity
  constexpr TxnIdx kAhead = 32;  // prefetch distance, in transactions
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (t + kAhead < h.txn_count()) b.prefetch_reads(t + kAhead);
    if (g.included[t]) b.pass1(t, ks);
    if ((t + 1) % kTick == 0) work_add(kTick);
  }
  g.edges_pass1_end = g.edges.size();
  b.classify_blind();
  g.edges_blind_end = g.edges.size();
  if (b.pass2_needed() || opt.always_pass2) {
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (t + kAhead < h.txn_count()) b.prefetch_reads(t + kAhead);
      if (g.included[t]) b.pass2(t, ks);
      if ((t + 1) % kTick == 0) work_add(kTick);
    }
  } else {
    g.pass2_skipped = true;
    work_add(h.txn_count() - h.txn_count() % kTick);
  }
  b.absent_choices();
  b.lists();
  b.general_keys();
  b.session_order();
  // The graph outlives the builder through every level: no growth slack
  // (copying 48M edges to drop 4% was 0.6 GiB of fresh pages at 10^7).
  g.edges.trim_slack();
  g.chains.shrink_to_fit();
  g.whole_build = true;
  return g;
}

InputError list_key_misuse(int64_t txn_id, uint64_t pos, const std::string& key_text, bool writes) {
  const std::string where = "transaction " + std::to_string(txn_id) + ", operation " + std::to_string(pos);
  return InputError(where, "key " + printable(key_text) +
                               (writes ? " is written with w but is a list elsewhere (appended to or read as a list)"
                                       : " is a list elsewhere but this read returned a single value"));
}

OpIdx first_list_key_misuse(const History& h) {
  FlatMap64 lists{64};
  for (OpIdx o = 0; o < h.op_count(); ++o)
    if (uses_as_list(h.op_kind[o])) {
      bool ins;
      lists.get_or_insert(h.op_key[o], 0, ins);
    }
  if (lists.size() == 0) return kNoOp;
  for (OpIdx o = 0; o < h.op_count(); ++o)
    if (uses_as_register(h.op_kind[o], h.op_value[o]) && lists.find(h.op_key[o])) return o;
  return kNoOp;
}

}  // namespace isocheck

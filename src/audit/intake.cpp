// A round into the carry: its transactions appended (JSONL: symbols
// re-interned into the carry's tables; HDF5: the file's own), each one's
// previous and next fence, and the summary entries its keys need moved from
// rest_ into the summary's pieces.
#include <algorithm>

#include "audit/auditor.h"
#include "audit/pass1.h"
#include "core/timer.h"

namespace isocheck::audit_detail {

bool Auditor::fence_txn(const History& h, Sym fence_sym_, TxnIdx t, int64_t& value, bool& well_formed) {
  OpIdx o = h.op_begin(t);
  return fence_ops(h.op_kind.data() + o, h.op_key.data() + o, h.op_value.data() + o, h.op_end(t) - o, h.txn_status[t],
                   fence_sym_, h.values, value, well_formed);
}

// Appends a round's transactions to carry (symbols re-interned into carry's
// tables when the chunk's tables are named).
void Auditor::append_round(const History& chunk, const KeyIds& key_ids) {
  if (reader_.hdf5()) return append_same_symbols(chunk);
  History& c = s_.carry;
  if (c.time_unit.empty()) c.time_unit = chunk.time_unit;
  // The reader's key numbers, when it gave them for every key of the chunk:
  // a key met in an earlier round is mapped by its number, not its name
  // (once the carry's key table is named its symbols never change).
  const bool use_ids = chunk.keys.named() && !key_ids.ids.empty() && key_ids.ids.size() == chunk.keys.size();
  if (use_ids && key_ids.space != key_space_) {
    key_id_sym_.clear();
    key_space_ = key_ids.space;
    fence_key_id_ = ~0ULL;
  }
  std::vector<Sym> kmap(chunk.keys.named() ? chunk.keys.size() : 0, ~0ULL);
  std::vector<Sym> vmap(chunk.values.named() ? chunk.values.size() : 0, ~0ULL);
  // A key integer's symbol in a named carry table, remembered across rounds
  // (interning formats the number and hashes the text). Keys only: values
  // are new with every write.
  auto intern_int = [&](SymbolTable& to, int64_t v, bool is_key) -> Sym {
    if (!to.named() || v == -1 || !is_key) return to.intern_int(v);
    FlatMap64& m = key_ints_;
    if (const uint64_t* p = m.find(static_cast<uint64_t>(v))) return *p;
    Sym out = to.intern_int(v);
    bool ins;
    m.get_or_insert(static_cast<uint64_t>(v), out, ins);
    return out;
  };
  auto map_sym = [&](const SymbolTable& from, SymbolTable& to, std::vector<Sym>& cache, Sym s, bool is_key) -> Sym {
    if (!from.named()) return intern_int(to, SymbolTable::as_int(s), is_key);
    if (cache[s] != ~0ULL) return cache[s];
    const bool by_id = is_key && use_ids;
    if (by_id && to.named()) {
      const uint32_t g = key_ids.ids[s];
      if (g < key_id_sym_.size() && key_id_sym_[g] != ~0ULL) {
        const Sym out = key_id_sym_[g];
        cache[s] = out;
        if (g == fence_key_id_) fence_sym_ = out;
        return out;
      }
    }
    Sym out;
    if (from.is_int(s)) {
      int64_t v = 0;
      sym_int(from, s, v);
      out = intern_int(to, v, is_key);
    } else {
      out = to.intern_string(from.name(s));
      if (to.take_switch()) {  // (the carry was in integer mode: nothing remembered yet)
        if (is_key) c.remap_keys();
        else c.remap_values();
        remap_rest(is_key);
        std::fill(cache.begin(), cache.end(), ~0ULL);
        if (is_key && fence_sym_ != ~0ULL) fence_sym_ = ~0ULL;
      }
    }
    cache[s] = out;
    const bool fence = is_key && !from.is_int(s) && from.name(s) == opt_.fence_key;
    if (fence) fence_sym_ = out;
    if (by_id && to.named()) {
      const uint32_t g = key_ids.ids[s];
      if (g >= key_id_sym_.size()) key_id_sym_.resize(std::max<size_t>(g + 1, key_id_sym_.size() * 3 / 2), ~0ULL);
      key_id_sym_[g] = out;
      if (fence) fence_key_id_ = g;
    }
    return out;
  };
  // Summary entries outside the carry whose key this round touches go into
  // the pieces first (keys mapped here, the mapping is cached for below).
  if (s_.has_summary && rest_.size() > 0) {
    // A string key of a named chunk switches an integer-mode carry's key
    // table to named symbols (the carry and rest_ are renumbered): that
    // happens first, so that the keys wanted below are the new symbols.
    if (!c.keys.named() && chunk.keys.named())
      for (OpIdx o = 0; o < chunk.op_count() && !c.keys.named(); ++o) map_sym(chunk.keys, c.keys, kmap, chunk.op_key[o], true);
    std::vector<Sym> want;
    FlatMap64 seen(1024);
    for (OpIdx o = 0; o < chunk.op_count(); ++o) {
      Sym k = map_sym(chunk.keys, c.keys, kmap, chunk.op_key[o], true);
      if (k == FlatMap64::kEmpty) continue;  // never in rest_ (see forget)
      bool ins;
      seen.get_or_insert(k, 0, ins);
      if (ins && rest_.find(k)) want.push_back(k);
    }
    if (!want.empty()) materialize(want, chunk.txn_count(), chunk.op_count());
  }
  // Integer-mode chunk into a named carry: intern_int maps; the fence key can
  // only be a string, so fence_sym_ is found while mapping named chunks.
  for (TxnIdx t = 0; t < chunk.txn_count(); ++t) {
    int64_t sname = chunk.session_name[chunk.txn_session[t]];
    auto [it, fresh] = session_index_.try_emplace(sname, static_cast<uint32_t>(c.session_name.size()));
    if (fresh) {
      c.session_name.push_back(sname);
      awaiting_nf_.emplace_back();
    }
    c.begin_txn(chunk.txn_id[t], it->second, chunk.txn_status[t], chunk.txn_begin[t], chunk.txn_end[t]);
    for (OpIdx o = chunk.op_begin(t); o < chunk.op_end(t); ++o) {
      Sym k = map_sym(chunk.keys, c.keys, kmap, chunk.op_key[o], true);
      if (chunk.op_kind[o] == OpKind::read_list) {
        std::vector<Sym> vals;
        for (Sym v : chunk.list(o)) {
          const bool was_named = c.values.named();
          Sym m = map_sym(chunk.values, c.values, vmap, v, false);
          // This element switched the carry's values to named symbols: the
          // elements before it, not in the carry yet, were integer symbols.
          if (!was_named && c.values.named())
            for (Sym& x : vals) x = c.values.remap(x);
          vals.push_back(m);
        }
        c.add_list_read(k, vals);
      } else {
        Sym v = chunk.op_value[o];
        if (v != kNullValue) v = map_sym(chunk.values, c.values, vmap, v, false);
        c.add_op(chunk.op_kind[o], k, v);
      }
      copy_predicate_mark(c, chunk, o);
    }
    c.end_txn();
  }
  // A key remap above may have renamed symbols of earlier chunk txns too
  // (remap_keys covers all of carry), so nothing else to fix.
  note_appended();
}

// HDF5: the chunk's symbols are the file's, and so are the carry's (its
// tables are the file's from the start, see run()): columns are copied as
// they are, no symbol is looked up.
void Auditor::append_same_symbols(const History& chunk) {
  History& c = s_.carry;
  Timer append_timer;
  if (s_.has_summary && rest_.size() > 0) {
    std::vector<Sym> want;
    FlatMap64 asked(64);
    constexpr size_t kAhead = 16;
    const std::vector<Sym>& keys = chunk.op_key;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i + kAhead < keys.size()) rest_.prefetch(keys[i + kAhead]);
      if (rest_.take_first(keys[i], asked)) want.push_back(keys[i]);
    }
    for (Sym k : want) rest_.unmark(k);
    const double t_scan = append_timer.seconds();
    if (!want.empty()) materialize(want, chunk.txn_count(), chunk.op_count());
    if (opt_.debug_timing)
      std::fprintf(stderr, "append: %zu waiting keys found in %.3f s, into the pieces by %.3f s\n", want.size(), t_scan,
                   append_timer.seconds());
  }
  std::vector<uint32_t> sess(chunk.session_count());
  for (size_t i = 0; i < sess.size(); ++i) {
    int64_t sname = chunk.session_name[i];
    auto [it, fresh] = session_index_.try_emplace(sname, static_cast<uint32_t>(c.session_name.size()));
    if (fresh) {
      c.session_name.push_back(sname);
      awaiting_nf_.emplace_back();
    }
    sess[i] = it->second;
  }
  c.reserve_more(chunk.txn_count(), chunk.op_count());  // (after materialize: one regrowth at most)
  auto extend = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  extend(c.txn_id, chunk.txn_id);
  for (uint32_t s : chunk.txn_session) c.txn_session.push_back(sess[s]);
  extend(c.txn_status, chunk.txn_status);
  extend(c.txn_begin, chunk.txn_begin);
  extend(c.txn_end, chunk.txn_end);
  const uint64_t ops0 = c.op_count(), list0 = c.list_value.size();
  for (size_t t = 1; t < chunk.txn_op_offset.size(); ++t) c.txn_op_offset.push_back(ops0 + chunk.txn_op_offset[t]);
  extend(c.op_kind, chunk.op_kind);
  extend(c.op_key, chunk.op_key);
  extend(c.op_value, chunk.op_value);
  for (size_t o = 1; o < chunk.op_list_offset.size(); ++o) c.op_list_offset.push_back(list0 + chunk.op_list_offset[o]);
  extend(c.list_value, chunk.list_value);
  auto shifted = [&](std::vector<OpIdx>& to, const std::vector<OpIdx>& from) {
    for (OpIdx o : from) to.push_back(static_cast<OpIdx>(ops0 + o));
  };
  c.scan_ops.append_shifted(chunk.scan_ops, ops0);
  shifted(c.scan_absent_ops, chunk.scan_absent_ops);
  shifted(c.delete_ops, chunk.delete_ops);
  if (c.time_unit.empty()) c.time_unit = chunk.time_unit;
  note_appended();
}

// pf / nf of the transactions just appended (and nf of earlier ones whose
// session reached its next fence).
void Auditor::note_appended() {
  History& c = s_.carry;
  size_t n0 = s_.pf.size(), n = c.txn_count();
  s_.pf.resize(n, kNegInf);
  s_.nf.resize(n, kPosInf);
  s_.pending.resize(n, 0);
  s_.checked_op.resize(c.op_count(), 0);
  // Last fence per carry session, looked up once per session (not per transaction).
  std::vector<int64_t> last(c.session_count());
  std::vector<uint8_t> known(c.session_count(), 0);
  for (size_t t = n0; t < n; ++t) {
    uint32_t sess = c.txn_session[t];
    if (!known[sess]) {
      auto it = last_fence_.find(c.session_name[sess]);
      last[sess] = it == last_fence_.end() ? kNegInf : it->second;
      known[sess] = 1;
    }
    int64_t value = 0;
    bool ok = true;
    if (fence_sym_ != ~0ULL && is_fence_txn(c, static_cast<TxnIdx>(t), value, ok) && ok) {
      s_.pf[t] = s_.nf[t] = value;
      last[sess] = value;
      last_fence_[c.session_name[sess]] = value;
      for (uint32_t w : awaiting_nf_[sess]) s_.nf[w] = value;
      awaiting_nf_[sess].clear();
    } else {
      s_.pf[t] = last[sess];
      awaiting_nf_[sess].push_back(static_cast<uint32_t>(t));
    }
  }
}

// The summary pieces hold the entries whose key a carry transaction touches;
// the others wait in rest_. Rebuilds the pieces with `keys` added (those not
// in the pieces yet), the fence key last, and shifts the carry's indices.
void Auditor::materialize(const std::vector<Sym>& keys, size_t then_txns, size_t then_ops) {
  History& c = s_.carry;
  const uint32_t old_pieces = s_.summary_txns;
  const uint32_t first = summary_marker() ? 1 : 0;  // the marker stays first, as it is
  struct Entry {
    Sym k, v;
    bool rmw;  // reads the initial state first (else a blind write: a kept txn read it)
  };
  std::vector<Entry> es;
  FlatMap64 have(256);
  for (TxnIdx t = first; t < old_pieces; ++t)
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write) {
        bool rmw = o > c.op_begin(t) && c.op_kind[o - 1] == OpKind::read && c.op_key[o - 1] == c.op_key[o];
        es.push_back({c.op_key[o], c.op_value[o], rmw});
        bool ins;
        have.get_or_insert(c.op_key[o], 0, ins);
      }
  size_t before = es.size();
  for (Sym k : keys)
    if (!have.find(k))
      if (const uint64_t* v = rest_.find(k)) es.push_back({k, *v, true});
  if (es.size() == before) return;
  if (fence_sym_ != ~0ULL)
    std::stable_partition(es.begin(), es.end(), [&](const Entry& e) { return e.k != fence_sym_; });
  History nc;
  {
    constexpr size_t kPiece = 128;  // as below
    size_t kept_ops = c.op_count() - (old_pieces ? c.op_begin(old_pieces) : 0);
    nc.reserve_more(es.size() / kPiece + 1 + c.txn_count() - old_pieces + then_txns, 2 * es.size() + kept_ops + then_ops);
  }
  nc.keys = std::move(c.keys);
  nc.values = std::move(c.values);
  nc.time_unit = c.time_unit;
  nc.session_name = c.session_name;
  constexpr size_t kPiece = 128;  // as in forget()
  size_t pieces = std::max<size_t>(1, (es.size() + kPiece - 1) / kPiece);
  std::vector<int64_t> npf, nnf;
  std::vector<uint8_t> npend, nchecked;
  if (first) {
    nc.begin_txn(c.txn_id[0], c.txn_session[0], TxnStatus::committed, c.txn_begin[0], c.txn_end[0]);
    nc.end_txn();
    npf.push_back(s_.pf[0]);
    nnf.push_back(s_.nf[0]);
    npend.push_back(0);
  }
  for (size_t p = 0; p < pieces; ++p) {
    nc.begin_txn(kSummaryId + static_cast<int64_t>(p), c.txn_session[first], TxnStatus::committed,
                 c.txn_begin[first], c.txn_end[first]);
    for (size_t i = p * kPiece; i < std::min(es.size(), (p + 1) * kPiece); ++i) {
      if (es[i].rmw) nc.add_op(OpKind::read, es[i].k, kNullValue);
      nc.add_op(OpKind::write, es[i].k, es[i].v);
    }
    nc.end_txn();
    npf.push_back(s_.pf[first]);
    nnf.push_back(s_.nf[first]);
    npend.push_back(0);
  }
  nchecked.assign(nc.op_count(), 0);
  for (TxnIdx t = old_pieces; t < c.txn_count(); ++t) {
    nc.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      if (c.op_kind[o] == OpKind::read_list) nc.add_list_read(c.op_key[o], c.list(o));
      else nc.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
      copy_predicate_mark(nc, c, o);
      nchecked.push_back(s_.checked_op[o]);
    }
    nc.end_txn();
    npf.push_back(s_.pf[t]);
    nnf.push_back(s_.nf[t]);
    npend.push_back(s_.pending[t]);
  }
  int64_t shift = static_cast<int64_t>(first + pieces) - static_cast<int64_t>(old_pieces);
  for (auto& v : awaiting_nf_)
    for (uint32_t& t : v) t = static_cast<uint32_t>(t + shift);
  s_.carry = std::move(nc);
  s_.pf = std::move(npf);
  s_.nf = std::move(nnf);
  s_.pending = std::move(npend);
  s_.checked_op = std::move(nchecked);
  s_.summary_txns = static_cast<uint32_t>(first + pieces);
}

// The carry's key or value table switched from integer to named symbols:
// rest_ holds symbols of that table too.
void Auditor::remap_rest(bool keys_switched) {
  std::vector<std::pair<uint64_t, uint64_t>> all;
  rest_.for_each([&](uint64_t k, uint64_t v) { all.push_back({k, v}); });
  if (all.empty()) return;
  rest_ = KeyVersions{};
  for (auto [k, v] : all) {
    if (keys_switched) k = s_.carry.keys.remap(k);
    else if (v != kNullValue) v = s_.carry.values.remap(v);
    rest_.set(k, v);
  }
}

}  // namespace isocheck::audit_detail

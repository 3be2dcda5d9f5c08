#include "audit/pass1.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <unordered_map>

#include "audit/state.h"
#include "core/flat_hash.h"
#include "graph/known_graph.h"

namespace isocheck {

bool sym_int(const SymbolTable& t, Sym s, int64_t& out) {
  if (!t.named()) {
    out = SymbolTable::as_int(s);
    return true;
  }
  if (s >= t.names().size() || !t.is_int(s)) return false;
  const std::string& n = t.name(s);
  auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), out);
  return ec == std::errc() && p == n.data() + n.size();
}

bool fence_ops(const OpKind* kind, const Sym* key, const Sym* val, size_t n, TxnStatus status, Sym fk,
               const SymbolTable& values, int64_t& value, bool& well_formed) {
  well_formed = true;
  bool touches = false;
  for (size_t i = 0; i < n; ++i) touches |= key[i] == fk;
  if (!touches) return false;
  int64_t r = 0, w = 0;
  if (n != 2 || kind[0] != OpKind::read || kind[1] != OpKind::write || key[1] != fk || key[0] != fk ||
      (val[0] != kNullValue && !sym_int(values, val[0], r)) || !sym_int(values, val[1], w) || w != r + 1 ||
      status == TxnStatus::unknown) {
    well_formed = false;
    return true;
  }
  value = w;
  return status == TxnStatus::committed;
}

Pass1Scanner::Pass1Scanner(Pass1Piece& out, uint64_t round_txns, Sym fk, bool need_times, bool need_write_ends)
    : p_(out),
      R_(round_txns),
      fk_(fk),
      need_times_(need_times),
      need_write_ends_(need_write_ends),
      min_pf_(kPosInf),
      min_begin_(kPosInf),
      min_write_end_(kPosInf) {}

void Pass1Scanner::close_round() {
  p_.min_pf.push_back(min_pf_);
  p_.min_begin.push_back(min_begin_);
  if (need_write_ends_) p_.min_write_end.push_back(min_write_end_);
  p_.open_offset.push_back(p_.open_sessions.size());
  min_pf_ = min_begin_ = min_write_end_ = kPosInf;
  row_in_round_ = 0;
}

void Pass1Scanner::scan(const Hdf5Columns& cols, const SymbolTable& values, uint64_t first_row, const int64_t* ids) {
  const size_t cnt = cols.session.size();
  const bool have_values = cols.op_value.size() == cols.op_kind.size();
  for (size_t o = 0; o < cols.op_kind.size(); ++o) {
    const OpKind k = cols.op_kind[o];
    p_.writes += k == OpKind::write || k == OpKind::append;
    p_.list_ops += uses_as_list(k);
    // (without values every read may be of one value)
    p_.register_ops += have_values ? uses_as_register(k, cols.op_value[o]) : k == OpKind::write || k == OpKind::read;
  }
  for (size_t t = 0; t < cnt; ++t) {
    const int64_t session = cols.session[t];
    if (need_times_) {
      if (cols.begin[t] == kNoTime || cols.end[t] == kNoTime) {
        if (p_.bad_time_row == kNoRow) {
          p_.bad_time_row = first_row + t;
          if (ids) p_.bad_time_id = ids[t], p_.bad_time_id_known = true;
        }
      } else {
        min_begin_ = std::min(min_begin_, cols.begin[t]);
      }
    }
    if (need_write_ends_ && cols.begin[t] != kNoTime && cols.end[t] != kNoTime && cols.status[t] != TxnStatus::aborted &&
        cols.end[t] < min_write_end_) {
      bool writes = false;
      for (uint64_t o = cols.op_offset[t]; o < cols.op_offset[t + 1] && !writes; ++o)
        writes = cols.op_kind[o] == OpKind::write || cols.op_kind[o] == OpKind::append;
      if (writes) min_write_end_ = cols.end[t];
    }
    int64_t value = 0;
    bool ok = true, fence = false;
    if (fk_ != ~0ULL) {
      uint64_t o = cols.op_offset[t];
      fence = fence_ops(cols.op_kind.data() + o, cols.op_key.data() + o, cols.op_value.data() + o,
                        cols.op_offset[t + 1] - o, cols.status[t], fk_, values, value, ok);
    }
    if (!ok && p_.bad_fence_row == kNoRow) {
      p_.bad_fence_row = first_row + t;
      if (ids) p_.bad_fence_id = ids[t], p_.bad_fence_id_known = true;
    }
    bool ins;
    uint64_t& d = index_.get_or_insert(static_cast<uint64_t>(session), name_.size(), ins);
    if (ins) {
      name_.push_back(session);
      fence_.push_back(0);
      has_fence_.push_back(0);
      opened_.push_back(0);
    }
    const size_t i = d;
    if (fence) {
      p_.any_fence = true;
      has_fence_[i] = 1;
      fence_[i] = value;
      min_pf_ = std::min(min_pf_, value);
    } else if (has_fence_[i]) {
      min_pf_ = std::min(min_pf_, fence_[i]);
    } else {
      // Its previous fence lies in an earlier piece (or nowhere): the merge decides.
      const uint64_t stamp = p_.min_pf.size() + 1;
      if (opened_[i] != stamp) {
        opened_[i] = stamp;
        p_.open_sessions.push_back(session);
      }
    }
    ++p_.txns;
    if (++row_in_round_ == R_) close_round();
  }
}

void Pass1Scanner::finish() {
  if (row_in_round_ > 0) close_round();
  for (size_t i = 0; i < name_.size(); ++i)
    if (has_fence_[i]) p_.last_fence.push_back({name_[i], fence_[i]});
}

Pass1Result merge_pass1(const std::vector<Pass1Piece>& pieces, uint64_t round_txns) {
  Pass1Result r;
  FlatMap64 last(256);  // session -> value of its last fence so far
  for (const Pass1Piece& p : pieces) {
    for (size_t i = 0; i < p.min_pf.size(); ++i) {
      int64_t v = p.min_pf[i];
      for (uint64_t j = p.open_offset[i]; j < p.open_offset[i + 1]; ++j) {
        const uint64_t* f = last.find(static_cast<uint64_t>(p.open_sessions[j]));
        v = std::min(v, f ? static_cast<int64_t>(*f) : kNegInf);
      }
      r.round_min_pf.push_back(v);
      r.round_min_begin.push_back(p.min_begin[i]);
      if (i < p.min_write_end.size()) r.round_min_write_end.push_back(p.min_write_end[i]);
    }
    for (auto& [s, v] : p.last_fence) {
      bool ins;
      last.get_or_insert(static_cast<uint64_t>(s), 0, ins) = static_cast<uint64_t>(v);
    }
    r.any_fence |= p.any_fence;
    if (r.bad_fence_row == kNoRow && p.bad_fence_row != kNoRow) {
      r.bad_fence_row = p.bad_fence_row;
      r.bad_fence_id = p.bad_fence_id;
      r.bad_fence_id_known = p.bad_fence_id_known;
    }
    if (r.bad_time_row == kNoRow && p.bad_time_row != kNoRow) {
      r.bad_time_row = p.bad_time_row;
      r.bad_time_id = p.bad_time_id;
      r.bad_time_id_known = p.bad_time_id_known;
    }
    r.txns += p.txns;
    r.writes += p.writes;
    r.list_ops += p.list_ops, r.register_ops += p.register_ops;
  }
  // A single scan gives up the least begin from the round of the first
  // transaction without times on (the time rule cannot apply then anyway).
  if (r.bad_time_row != kNoRow)
    for (size_t i = r.bad_time_row / round_txns; i < r.round_min_begin.size(); ++i) r.round_min_begin[i] = kNegInf;
  return r;
}

}  // namespace isocheck

// ---------------------------------------------------------------- the keys a log's scans expand over

namespace isocheck {
namespace {

// A key's or value's name independent of the piece's table: an integer is
// 0x00 and its 8 bytes big-endian with the sign bit flipped, a string 0x01
// and its bytes. Byte order of names is the key order of key_less
// (integers before strings, integers by value, strings bytewise).
std::string name_of(const SymbolTable& t, Sym s) {
  int64_t v;
  if (sym_int(t, s, v)) {
    std::string out(9, '\0');
    const uint64_t u = static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
    for (int i = 0; i < 8; ++i) out[1 + i] = static_cast<char>(u >> (56 - 8 * i));
    return out;
  }
  std::string out(1, '\x01');
  out += t.name(s);
  return out;
}

// The symbol of `name` in table t, interned; false when t cannot hold it
// without switching to named symbols (an integer-mode table and a string:
// nothing in such a piece can name it).
bool symbol_of(SymbolTable& t, const std::string& name, Sym& out) {
  if (name[0] == '\x01') {
    if (!t.named()) return false;
    out = t.intern_string(std::string_view(name).substr(1));
  } else {
    uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u = u << 8 | static_cast<unsigned char>(name[1 + i]);
    out = t.intern_int(static_cast<int64_t>(u ^ (uint64_t{1} << 63)));
  }
  if (t.take_switch()) throw std::logic_error("predicate keys: a piece's table switched to named symbols");
  return true;
}

}  // namespace

LogPredicateKeys::Info* LogPredicateKeys::find(const SymbolTable& t, Sym s) {
  int64_t v;
  if (sym_int(t, s, v)) {
    const uint64_t* i = ints_.find(static_cast<uint64_t>(v));
    return i ? &infos_[*i] : nullptr;
  }
  auto it = strings_.find(t.name(s));
  return it == strings_.end() ? nullptr : &infos_[it->second];
}

LogPredicateKeys::Info& LogPredicateKeys::get(const SymbolTable& t, Sym s) {
  int64_t v;
  bool fresh;
  uint32_t at;
  if (sym_int(t, s, v)) at = static_cast<uint32_t>(ints_.get_or_insert(static_cast<uint64_t>(v), infos_.size(), fresh));
  else at = strings_.try_emplace(t.name(s), static_cast<uint32_t>(infos_.size())).first->second;
  if (at == infos_.size()) infos_.emplace_back();
  return infos_[at];
}

LogPredicateKeys::Info& LogPredicateKeys::get(const std::string& name) {
  SymbolTable t;
  Sym s;
  symbol_of(t, name, s);  // (an integer: the table stays in integer mode)
  if (name[0] == '\x01') return infos_[strings_.at(name.substr(1))];
  return get(t, s);
}

void LogPredicateKeys::add(const History& h, const PredicateList& preds) {
  any_ |= !preds.ops.empty();
  // Per key symbol of the piece, its entry (a named table's symbols index it).
  std::vector<Info*> cache(h.keys.named() ? h.keys.size() : 0, nullptr);
  auto info = [&](Sym k) -> Info& {
    if (k < cache.size()) {
      if (!cache[k]) cache[k] = &get(h.keys, k);
      return *cache[k];
    }
    return get(h.keys, k);
  };
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    if (h.op_kind[o] == OpKind::read) continue;
    if (h.op_kind[o] == OpKind::write) info(h.op_key[o]).written = true;
    else info(h.op_key[o]).list = true;  // appends and list reads
  }
  bool any_delete = false;
  for (const PredicateRec& p : preds.ops) {
    if (p.kind == PredicateOp::scan) continue;
    Info& i = info(p.key);
    if (p.kind == PredicateOp::del) {
      i.deleted = any_delete = true;
      std::string v = name_of(h.values, p.value);
      if (std::find(i.tombstones.begin(), i.tombstones.end(), v) == i.tombstones.end()) i.tombstones.push_back(std::move(v));
    } else if (i.inserts < 2) {
      ++i.inserts;
    }
  }
  if (!any_delete) return;
  // Deletes not preceded in their transaction by an observation of a present
  // value of the key (as expand_predicates finds them): a scan row or an
  // insert observes; a read of a value observes unless the value is a
  // tombstone of the key, which is settled in finish().
  size_t next = 0;
  std::unordered_map<Sym, std::vector<Sym>> reads;
  std::vector<Sym> observed;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    size_t end = next;
    bool deletes = false;
    for (; end < preds.ops.size() && preds.ops[end].txn == t; ++end) deletes |= preds.ops[end].kind == PredicateOp::del;
    if (!deletes) {
      next = end;
      continue;
    }
    reads.clear();
    observed.clear();
    auto seen = [&](Sym k) { return std::find(observed.begin(), observed.end(), k) != observed.end(); };
    OpIdx o = h.op_begin(t);
    for (uint32_t pos = 0;; ++pos) {
      if (next < preds.ops.size() && preds.ops[next].txn == t && preds.ops[next].pos == pos) {
        const PredicateRec& p = preds.ops[next++];
        if (p.kind == PredicateOp::scan) {
          for (uint64_t r = p.row_begin; r < p.row_end; ++r) observed.push_back(preds.rows[r].first);
        } else if (p.kind == PredicateOp::insert) {
          observed.push_back(p.key);
        } else if (!seen(p.key)) {
          Info& i = info(p.key);
          auto it = reads.find(p.key);
          if (it == reads.end()) {
            i.unobserved = true;
          } else if (!i.unobserved) {
            Pending q{name_of(h.keys, p.key), {}};
            for (Sym v : it->second) q.values.push_back(name_of(h.values, v));
            pending_.push_back(std::move(q));
          }
        }
        continue;
      }
      if (o == h.op_end(t)) break;
      if (h.op_kind[o] == OpKind::read && h.op_value[o] != kNullValue) reads[h.op_key[o]].push_back(h.op_value[o]);
      ++o;
    }
  }
}

void LogPredicateKeys::finish() {
  for (const Pending& q : pending_) {
    Info& i = get(q.key);
    bool all_tombstones = true;
    for (const std::string& v : q.values)
      all_tombstones &= std::find(i.tombstones.begin(), i.tombstones.end(), v) != i.tombstones.end();
    if (all_tombstones) i.unobserved = true;
  }
  pending_ = {};
  if (!any_) {  // no scan, insert or delete: nothing to expand, nothing to hold
    infos_ = {}, ints_ = FlatMap64(0), strings_ = {};
    return;
  }
  sorted_.clear();
  sorted_.reserve(infos_.size());
  SymbolTable ints;  // (integer mode: a symbol is its integer)
  ints_.for_each([&](uint64_t v, uint64_t i) { sorted_.push_back({name_of(ints, static_cast<Sym>(v)), &infos_[i]}); });
  for (const auto& [text, i] : strings_) sorted_.push_back({'\x01' + text, &infos_[i]});
  std::sort(sorted_.begin(), sorted_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  strings_ = {};  // (expand() looks string keys up in sorted_)
}

History LogPredicateKeys::expand(History&& h, const PredicateList& preds, const std::string& file) const {
  auto less = [](const std::pair<std::string, const Info*>& a, const std::string& b) { return a.first < b; };
  PredicateKeyFacts facts;
  // Keys given (by the round's symbol), and the changing keys (by their
  // place in key order) met in a scan's range: a round's scans mostly
  // cover the same keys again.
  FlatMap64 added(256), covered(256);
  auto add = [&](Sym k, const Info& i) {
    bool fresh;
    added.get_or_insert(k, 0, fresh);
    if (!fresh) return;
    facts.keys.push_back({k, i.written, i.list, i.deleted, i.inserts, i.unobserved});
    for (const std::string& v : i.tombstones) {
      Sym s;
      if (symbol_of(h.values, v, s)) facts.tombstones.push_back({k, s});
    }
  };
  auto named = [&](Sym k) {
    int64_t v;
    if (sym_int(h.keys, k, v)) {
      if (const uint64_t* i = ints_.find(static_cast<uint64_t>(v))) add(k, infos_[*i]);
      return;
    }
    const std::string name = name_of(h.keys, k);
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), name, less);
    if (it != sorted_.end() && it->first == name) add(k, *it->second);
  };
  for (const PredicateRec& p : preds.ops) {
    if (p.kind != PredicateOp::scan) {
      named(p.key);
      continue;
    }
    for (uint64_t r = p.row_begin; r < p.row_end; ++r) named(preds.rows[r].first);
    // Every key of the scan's range whose state changes anywhere in the log.
    const std::string lo = name_of(h.keys, p.key), hi = name_of(h.keys, p.hi);
    for (auto it = std::lower_bound(sorted_.begin(), sorted_.end(), lo, less); it != sorted_.end() && it->first <= hi;
         ++it) {
      bool fresh;
      covered.get_or_insert(static_cast<uint64_t>(it - sorted_.begin()), 0, fresh);
      Sym k;
      if (fresh && symbol_of(h.keys, it->first, k)) add(k, *it->second);
    }
  }
  return expand_predicates(std::move(h), preds, file, facts);
}

}  // namespace isocheck

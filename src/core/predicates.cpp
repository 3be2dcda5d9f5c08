#include "core/predicates.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "core/flat_hash.h"
#include "core/populate.h"

namespace isocheck {

bool key_less(const SymbolTable& keys, Sym a, Sym b) {
  if (!keys.named()) return SymbolTable::as_int(a) < SymbolTable::as_int(b);
  if (a == b) return false;
  bool ia = keys.is_int(a), ib = keys.is_int(b);
  if (ia != ib) return ia;
  if (ia) return std::stoll(keys.name(a)) < std::stoll(keys.name(b));
  return keys.name(a) < keys.name(b);
}

bool predicate_matches(const SymbolTable& values, const ValuePredicate& p, Sym v) {
  if (v == kNullValue) return false;
  auto less = [&](Sym x, Sym y) { return key_less(values, x, y); };
  switch (p.cmp) {
    case ValuePredicate::eq: return v == p.a;
    case ValuePredicate::ne: return v != p.a;
    case ValuePredicate::lt: return less(v, p.a);
    case ValuePredicate::le: return !less(p.a, v);
    case ValuePredicate::gt: return less(p.a, v);
    case ValuePredicate::ge: return !less(v, p.a);
    case ValuePredicate::between: return !less(v, p.a) && !less(p.b, v);
  }
  return false;
}

std::string predicate_text(const History& h, const ValuePredicate& p) {
  static const char* const ops[] = {"=", "!=", "<", "<=", ">", ">="};
  if (p.cmp == ValuePredicate::between) return "v between " + value_text(h, p.a) + " and " + value_text(h, p.b);
  return std::string("v ") + ops[p.cmp] + " " + value_text(h, p.a);
}

namespace {

struct PairHash {
  size_t operator()(const std::pair<Sym, Sym>& p) const { return std::hash<Sym>()(p.first * 0x9e3779b97f4a7c15ULL ^ p.second); }
};

// What the history does to a key, one entry per key named by a write,
// append, list read, insert or delete (a flat table: a history of 10^6
// transactions names its few thousand keys millions of times).
enum KeyFlag : uint64_t { kWritten = 1, kList = 2, kDeleted = 4, kInsertOne = 8 };  // inserts counted from bit 3

// The facts about keys the expansion asks, gathered in one pass: keys whose
// state changes (every key in `flags`), keys deleted somewhere, list keys,
// keys written by `w`, inserts per key; tombstones; deletes not preceded by
// an observation of the key in their transaction.
struct KeyFacts {
  FlatMap64 flags{1024};
  bool has_lists = false, has_deletes = false;
  // Tombstones: a key's first in a flat table (most deleted keys are
  // deleted once; every scan row and read of a deleted key asks), any
  // further ones in a set.
  FlatMap64 first_tombstone{64};
  std::unordered_set<std::pair<Sym, Sym>, PairHash> more_tombstones;
  std::unordered_set<Sym> unobserved_delete;

  KeyFacts(const History& b, const PredicateList& ph) {
    for (OpIdx o = 0; o < b.op_count(); ++o) {
      if (b.op_kind[o] == OpKind::read) continue;
      if (b.op_kind[o] == OpKind::write) mark(b.op_key[o], kWritten);
      else mark(b.op_key[o], kList), has_lists = true;  // a scan over one is refused
    }
    for (const PredicateRec& p : ph.ops) {
      if (p.kind == PredicateOp::scan) continue;
      if (p.kind == PredicateOp::del) {
        mark(p.key, kDeleted), has_deletes = true;
        bool fresh;
        const uint64_t first = first_tombstone.get_or_insert(p.key, p.value, fresh);
        if (!fresh && first != p.value) more_tombstones.insert({p.key, p.value});
      } else {
        bool fresh;
        uint64_t& f = flags.get_or_insert(p.key, 0, fresh);
        if ((f >> 3) < 2) f += kInsertOne;  // one, or more than one
      }
    }
    if (has_deletes) find_unobserved_deletes(b, ph);
  }
  // A piece's facts given by the whole history (PredicateKeyFacts).
  explicit KeyFacts(const PredicateKeyFacts& w) {
    for (const PredicateKeyFacts::Key& k : w.keys) {
      bool fresh;
      flags.get_or_insert(k.key, 0, fresh) = uint64_t{k.written} * kWritten | uint64_t{k.list} * kList |
                                             uint64_t{k.deleted} * kDeleted | uint64_t{k.inserts} * kInsertOne;
      has_lists |= k.list, has_deletes |= k.deleted;
      if (k.unobserved_delete) unobserved_delete.insert(k.key);
    }
    for (const auto& [k, v] : w.tombstones) {
      bool fresh;
      const uint64_t first = first_tombstone.get_or_insert(k, v, fresh);
      if (!fresh && first != v) more_tombstones.insert({k, v});
    }
  }
  bool is_tombstone(Sym k, Sym v) const {
    const uint64_t* first = first_tombstone.find(k);
    if (!first) return false;
    return *first == v || (!more_tombstones.empty() && more_tombstones.count({k, v}));
  }
  uint64_t flag(Sym k) const {
    const uint64_t* f = flags.find(k);
    return f ? *f : 0;
  }
  // Whether k's only insert is safe to place after the initial absence: one
  // insert, no `w`, and every delete observed a present value of the key
  // before deleting (so every tombstone follows the insert's version).
  bool insert_after_initial(Sym k) const {
    const uint64_t f = flag(k);
    return (f >> 3) == 1 && !(f & kWritten) && !unobserved_delete.count(k);
  }

 private:
  void mark(Sym k, uint64_t f) {
    bool fresh;
    flags.get_or_insert(k, 0, fresh) |= f;
  }
  // Only deleted keys ask insert_after_initial(), so only they are followed,
  // and only in transactions that delete.
  void find_unobserved_deletes(const History& b, const PredicateList& ph) {
    size_t next = 0;
    std::unordered_set<Sym> observed;
    auto observe = [&](Sym k) {
      if (flag(k) & kDeleted) observed.insert(k);
    };
    for (TxnIdx t = 0; t < b.txn_count(); ++t) {
      size_t end = next;
      bool any_delete = false;
      for (; end < ph.ops.size() && ph.ops[end].txn == t; ++end) any_delete |= ph.ops[end].kind == PredicateOp::del;
      if (!any_delete) {
        next = end;
        continue;
      }
      observed.clear();
      OpIdx o = b.op_begin(t);
      for (uint32_t pos = 0;; ++pos) {
        if (next < ph.ops.size() && ph.ops[next].txn == t && ph.ops[next].pos == pos) {
          const PredicateRec& p = ph.ops[next++];
          if (p.kind == PredicateOp::scan)
            for (uint64_t r = p.row_begin; r < p.row_end; ++r) observe(ph.rows[r].first);
          else if (p.kind == PredicateOp::insert)
            observe(p.key);
          else if (!observed.count(p.key))
            unobserved_delete.insert(p.key);
          continue;
        }
        if (o == b.op_end(t)) break;
        if (b.op_kind[o] == OpKind::read && b.op_value[o] != kNullValue && !is_tombstone(b.op_key[o], b.op_value[o]))
          observe(b.op_key[o]);
        ++o;
      }
    }
  }
};

// Per key, the values written to it (`w`, insert), sorted in value order, for
// the scans with value predicates: the values a predicate matches are one
// interval of them (its complement for !=).
struct WrittenValues {
  std::unordered_map<Sym, std::vector<Sym>> of;
  const SymbolTable* values = nullptr;

  WrittenValues(const History& b, const PredicateList& ph) : values(&b.values) {
    for (OpIdx o = 0; o < b.op_count(); ++o)
      if (b.op_kind[o] == OpKind::write) of[b.op_key[o]].push_back(b.op_value[o]);
    for (const PredicateRec& p : ph.ops)
      if (p.kind == PredicateOp::insert) of[p.key].push_back(p.value);
    auto less = [this](Sym x, Sym y) { return key_less(*values, x, y); };
    for (auto& [k, v] : of) {
      std::sort(v.begin(), v.end(), less);
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  // (matching, not matching) among k's written values.
  std::pair<size_t, size_t> split(Sym k, const ValuePredicate& p) const {
    auto it = of.find(k);
    if (it == of.end()) return {0, 0};
    const std::vector<Sym>& v = it->second;
    auto less = [this](Sym x, Sym y) { return key_less(*values, x, y); };
    auto lb = [&](Sym c) { return static_cast<size_t>(std::lower_bound(v.begin(), v.end(), c, less) - v.begin()); };
    auto ub = [&](Sym c) { return static_cast<size_t>(std::upper_bound(v.begin(), v.end(), c, less) - v.begin()); };
    size_t first = 0, end = 0;
    switch (p.cmp) {
      case ValuePredicate::eq:
      case ValuePredicate::ne: first = lb(p.a), end = ub(p.a); break;
      case ValuePredicate::lt: end = lb(p.a); break;
      case ValuePredicate::le: end = ub(p.a); break;
      case ValuePredicate::gt: first = ub(p.a), end = v.size(); break;
      case ValuePredicate::ge: first = lb(p.a), end = v.size(); break;
      case ValuePredicate::between: first = lb(p.a), end = std::max(first, ub(p.b)); break;
    }
    const size_t in = end - first;
    return p.cmp == ValuePredicate::ne ? std::pair{v.size() - in, in} : std::pair{in, v.size() - in};
  }
};

}  // namespace

History expand_predicates(const PredicateHistory& ph, const std::string& file, const ExpandOptions& opt) {
  PredicateList flat;
  flat.ops.reserve(ph.ops.size());
  for (const PredicateOp& p : ph.ops) {
    PredicateRec r{p.kind, p.txn, p.pos, p.key, p.hi, p.value, flat.rows.size(), 0};
    for (const auto& row : p.rows) flat.rows.push_back(row);
    r.row_end = flat.rows.size();
    if (p.kind == PredicateOp::scan && p.has_where) {
      flat.wheres.push_back(p.where);
      r.where = static_cast<uint32_t>(flat.wheres.size());
    }
    if (p.kind == PredicateOp::scan && p.has_key_set) {
      r.key_set = true;
      r.set_begin = flat.set_keys.size();
      flat.set_keys.insert(flat.set_keys.end(), p.key_set.begin(), p.key_set.end());
      r.set_end = flat.set_keys.size();
    }
    flat.ops.push_back(r);
  }
  History base = ph.base;
  return expand_predicates(std::move(base), flat, file, opt);
}

namespace {
History expand_with(History&& base, const PredicateList& ph, const std::string& file, const KeyFacts& facts,
                    const ExpandOptions& opt);
}

History expand_predicates(History&& base, const PredicateList& ph, const std::string& file,
                          const ExpandOptions& opt) {
  const KeyFacts facts(base, ph);
  return expand_with(std::move(base), ph, file, facts, opt);
}

History expand_predicates(History&& base, const PredicateList& preds, const std::string& file,
                          const PredicateKeyFacts& whole, const ExpandOptions& opt) {
  if (!preds.wheres.empty()) {
    const PredicateRec* p = nullptr;
    for (const PredicateRec& r : preds.ops)
      if (r.where) { p = &r; break; }
    throw ResourceError("not decided: " + file + ": transaction " + std::to_string(base.txn_id[p->txn]) + ", operation " +
                        std::to_string(p->pos) +
                        ": a range scan with a value predicate; the audit's rounds do not decide those (isocheck "
                        "verify on one process does)");
  }
  const KeyFacts facts(whole);
  return expand_with(std::move(base), preds, file, facts, opt);
}

namespace {
// How many operations the expansion makes, and of them scan reads and reads
// of keys a scan did not return: at most (room reserved) and at least (room
// mapped up front). A scan reads the union of its rows and the changing keys
// of its range.
struct ExpandedSize {
  size_t ops = 0, ops_at_least = 0, scans = 0, scan_reads = 0, scan_reads_at_least = 0, absent_reads = 0;
};
template <class Less>
ExpandedSize expanded_size(const History& b, const PredicateList& ph, const std::vector<Sym>& sorted, Less less) {
  ExpandedSize n;
  for (const PredicateRec& p : ph.ops) {
    if (p.kind != PredicateOp::scan) {
      n.ops += p.kind == PredicateOp::insert ? 2 : 1;
      continue;
    }
    auto lo = std::lower_bound(sorted.begin(), sorted.end(), p.key, less);
    auto hi = std::upper_bound(lo, sorted.end(), p.hi, less);
    const size_t rows = p.row_end - p.row_begin, changing = static_cast<size_t>(hi - lo);
    ++n.scans;
    n.scan_reads += rows + changing;
    n.scan_reads_at_least += std::max(rows, p.key_set ? 0 : changing);
    n.absent_reads += changing;
  }
  n.ops_at_least = b.op_count() + n.ops + n.scan_reads_at_least;
  n.ops += b.op_count() + n.scan_reads;
  return n;
}

// The expansion's result before its operations: the transactions' own
// columns, which are the same, moved from `base` (fresh pages for a copy
// cost more than the copy); room for the operations reserved, and the room
// surely filled mapped now in one call per column rather than a page fault
// per page as it fills.
History result_with_room(History& base, const ExpandedSize& size, bool offsets) {
  History out;
  if (!offsets) out.op_list_offset.clear();
  out.txn_id = std::move(base.txn_id);
  out.txn_session = std::move(base.txn_session);
  out.txn_status = std::move(base.txn_status);
  out.txn_begin = std::move(base.txn_begin);
  out.txn_end = std::move(base.txn_end);
  out.reserve_more(0, size.ops);
  out.scan_ops.reserve_runs(size.scans);
  out.scan_absent_ops.reserve(size.absent_reads);
  populate_pages(out.op_kind.data(), size.ops_at_least * sizeof(OpKind));
  populate_pages(out.op_key.data(), size.ops_at_least * sizeof(Sym));
  populate_pages(out.op_value.data(), size.ops_at_least * sizeof(Sym));
  if (offsets) populate_pages(out.op_list_offset.data(), size.ops_at_least * sizeof(uint64_t));
  return out;
}

// The operation columns resized to n operations (new list offsets: the list
// values' end, as add_op would write them).
void resize_ops(History& out, size_t n, bool offsets) {
  out.op_kind.resize(n);
  out.op_key.resize(n);
  out.op_value.resize(n);
  if (offsets) out.op_list_offset.resize(n + 1, out.list_value.size());
}

History expand_with(History&& base, const PredicateList& ph, const std::string& file, const KeyFacts& facts,
                    const ExpandOptions& opt) {
  const History& b = base;
  const bool named_keys = b.keys.named();
  auto less = [&](Sym x, Sym y) {
    return named_keys ? key_less(b.keys, x, y) : SymbolTable::as_int(x) < SymbolTable::as_int(y);
  };
  const std::vector<int64_t>* txn_ids = &b.txn_id;  // (the result's, once moved there)
  auto where = [&](const PredicateRec& p) {
    return "transaction " + std::to_string((*txn_ids)[p.txn]) + ", operation " + std::to_string(p.pos) + ": ";
  };
  const bool has_lists = facts.has_lists, has_deletes = facts.has_deletes;
  auto flag = [&](Sym k) { return facts.flag(k); };
  std::vector<Sym> sorted;  // the keys whose state changes, in key order
  facts.flags.for_each([&](uint64_t k, uint64_t) { sorted.push_back(k); });
  std::sort(sorted.begin(), sorted.end(), less);

  const ExpandedSize size = expanded_size(b, ph, sorted, less);
  const bool offsets =
      opt.list_offsets || std::find(b.op_kind.begin(), b.op_kind.end(), OpKind::read_list) != b.op_kind.end();
  const size_t txns = b.txn_count();
  History out = result_with_room(base, size, offsets);
  txn_ids = &out.txn_id;
  // History::add_op inlined: the columns were reserved whole above, so these
  // are stores, not calls.
  auto add = [&out, offsets](OpKind k, Sym key, Sym value) __attribute__((always_inline)) {
    out.op_kind.push_back(k);
    out.op_key.push_back(key);
    out.op_value.push_back(value);
    if (offsets) out.op_list_offset.push_back(out.list_value.size());
  };
  size_t next = 0;  // into ph.ops
  auto undecided = [&](const PredicateRec& p, Sym k, const char* what) {
    const bool scan = p.kind == PredicateOp::scan;
    throw ResourceError("not decided: " + file + ": " + where(p) + what + " key " + b.keys.text(k) +
                        " absent, and another transaction deletes " + b.keys.text(k) +
                        ": which absent version (the initial state or a deleted one) it saw is unknown; " +
                        (scan ? "this reader does not place such a scan (isocheck verify on one process does)"
                              : "this reader does not place such an insert (isocheck verify on one process does)"));
  };
  auto list_key = [&](const PredicateRec& p, Sym k) {
    throw InputError(file, where(p) + "the scan covers key " + b.keys.text(k) +
                               ", which is appended to or read as a list (scans cover register keys)");
  };
  auto undecided_where = [&](const PredicateRec& p, Sym k) {
    throw ResourceError("not decided: " + file + ": " + where(p) + "a range scan (" +
                        predicate_text(b, ph.wheres[p.where - 1]) + ") did not return key " + b.keys.text(k) +
                        ", and several of its versions do not match: which one it saw is unknown; this reader does "
                        "not place such a scan (isocheck verify on one process does)");
  };
  // The scans' value predicates: the written values per key they ask about.
  std::unique_ptr<WrittenValues> written;
  if (!ph.wheres.empty()) {
    written = std::make_unique<WrittenValues>(b, ph);
    out.value_predicates = ph.wheres;
  }
  // The transaction's own effect so far per key: present with its value, or
  // deleted with its tombstone. Followed only in transactions that insert,
  // delete or scan with a value predicate: a scan asks it about keys the
  // transaction deleted itself, or wrote a value its predicate may not match.
  std::unordered_map<Sym, std::pair<bool, Sym>> own;
  std::vector<Sym> set_changing;  // a key-set scan's keys whose state changes
  for (TxnIdx t = 0; t < txns; ++t) {
    bool track_own = false;
    for (size_t i = next; i < ph.ops.size() && ph.ops[i].txn == t; ++i)
      track_own |= ph.ops[i].kind != PredicateOp::scan || ph.ops[i].where;
    if (track_own && !own.empty()) own = {};
    OpIdx o = b.op_begin(t);
    for (uint32_t pos = 0;; ++pos) {
      if (next < ph.ops.size() && ph.ops[next].txn == t && ph.ops[next].pos == pos) {
        const PredicateRec& p = ph.ops[next++];
        switch (p.kind) {
          case PredicateOp::insert: {
            auto it = own.find(p.key);
            if (it != own.end() && !it->second.first) {
              // After its own delete: the absent version is its tombstone.
            } else if (it != own.end()) {
              add(OpKind::read, p.key, kNullValue);  // inserting a row it made present: internal read
            } else {
              // Another transaction deletes the key: the absence it required
              // is the initial one or a tombstone, kept open as a scan's is.
              const bool open = (flag(p.key) & kDeleted) && !facts.insert_after_initial(p.key);
              if (open && !opt.absent_choices) undecided(p, p.key, "inserts, requiring");
              if (open) out.absent_choice_ops.push_back(out.op_count());
              add(OpKind::read, p.key, kNullValue);
            }
            add(OpKind::write, p.key, p.value);
            own[p.key] = {true, p.value};
            break;
          }
          case PredicateOp::del:
            out.delete_ops.push_back(out.op_count());
            add(OpKind::write, p.key, p.value);
            own[p.key] = {false, p.value};
            break;
          case PredicateOp::scan: {
            // (One block holds most scans' rows: read them in place.)
            const std::pair<Sym, Sym>* in_place = ph.rows.contiguous(p.row_begin, p.row_end);
            auto rows = [&](size_t r) -> const std::pair<Sym, Sym>& {
              return in_place ? in_place[r] : ph.rows[p.row_begin + r];
            };
            const size_t nrows = p.row_end - p.row_begin;
            if (has_lists)
              for (size_t r = 0; r < nrows; ++r)
                if (flag(rows(r).first) & kList) list_key(p, rows(r).first);
            // The keys it covers whose state changes: a stretch of `sorted`,
            // or those of its declared key set.
            const Sym *k, *k_end;
            if (p.key_set) {
              set_changing.clear();
              for (uint64_t i = p.set_begin; i < p.set_end; ++i)
                if (facts.flags.find(ph.set_keys[i])) set_changing.push_back(ph.set_keys[i]);
              k = set_changing.data(), k_end = k + set_changing.size();
            } else {
              k = sorted.data() + (std::lower_bound(sorted.begin(), sorted.end(), p.key, less) - sorted.begin());
              k_end = sorted.data() + (std::upper_bound(sorted.begin(), sorted.end(), p.hi, less) - sorted.begin());
            }
            // Its reads are consecutive operations (one run of scan_ops), at
            // most its rows and the changing keys it covers: the columns grow
            // once for them and are cut back after, rather than a push_back
            // call per column per read (the compiler keeps those out of line
            // here; they were a twentieth of the scan benchmark).
            const OpIdx first_read = out.op_count();
            const size_t most = nrows + static_cast<size_t>(k_end - k);
            resize_ops(out, first_read + most, offsets);
            OpIdx next_read = first_read;
            auto read = [&](Sym key, Sym value) {
              out.op_kind[next_read] = OpKind::read, out.op_key[next_read] = key, out.op_value[next_read++] = value;
            };
            size_t r = 0;
            while (true) {
              bool has_k = k != k_end;
              bool has_r = r < nrows;
              if (!has_k && !has_r) break;
              if (has_r && (!has_k || !less(*k, rows(r).first))) {
                const auto& [rk, rv] = rows(r);
                if (has_deletes && facts.is_tombstone(rk, rv))
                  throw InputError(file, where(p) + "the scan returns row " + b.keys.text(rk) + " = " +
                                             value_text(b, rv) + ", the version a delete of it left (a deleted row is absent)");
                if (p.where && !predicate_matches(b.values, ph.wheres[p.where - 1], rv))
                  throw InputError(file, where(p) + "the scan returns row " + b.keys.text(rk) + " = " +
                                             value_text(b, rv) + ", which does not satisfy its predicate " +
                                             predicate_text(b, ph.wheres[p.where - 1]));
                read(rk, rv);
                if (has_k && *k == rk) ++k;
                ++r;
                continue;
              }
              Sym key = *k++;
              const uint64_t f = has_lists || has_deletes ? flag(key) : 0;
              if (f & kList) list_key(p, key);
              Sym seen = kNullValue;
              bool open_choice = false;
              if (p.where) {
                const ValuePredicate& pred = ph.wheres[p.where - 1];
                auto mine = own.find(key);
                if (mine != own.end()) {
                  // Its own version: a tombstone, or a value the scan had to
                  // return when it matches (then `r k null`: an internal read).
                  const auto [present, v] = mine->second;
                  if (!present || !predicate_matches(b.values, pred, v)) seen = v;
                } else {
                  const auto [match, other] = written->split(key, pred);
                  if (match == 0) continue;  // no version of it matches: any was seen
                  if (other > 0 || (f & kDeleted)) {
                    if (!opt.absent_choices) undecided_where(p, key);
                    open_choice = true;
                  }
                }
                out.op_value_predicate.push_back({next_read, p.where - 1});
              } else if (f & kDeleted) {
                auto mine = track_own ? own.find(key) : own.end();
                if (mine != own.end() && !mine->second.first) seen = mine->second.second;
                else if (mine == own.end() && !opt.absent_choices) undecided(p, key, "scans, seeing");
                else if (mine == own.end()) open_choice = true;
              }
              out.scan_absent_ops.push_back(next_read);
              if (open_choice) out.absent_choice_ops.push_back(next_read);
              read(key, seen);
            }
            resize_ops(out, next_read, offsets);
            out.scan_ops.push_run(first_read, next_read);
            break;
          }
        }
        continue;
      }
      if (o == b.op_end(t)) break;
      if (b.op_kind[o] == OpKind::read_list) {
        out.add_list_read(b.op_key[o], b.list(o));
      } else {
        add(b.op_kind[o], b.op_key[o], b.op_value[o]);
        if (track_own && b.op_kind[o] != OpKind::read) own[b.op_key[o]] = {true, b.op_value[o]};
      }
      ++o;
    }
    out.end_txn();
  }
  out.take_tables(base);
  if (!offsets) std::vector<uint64_t>().swap(out.op_list_offset);  // (its reserved room)
  return out;
}
}  // namespace

}  // namespace isocheck

#include "core/predicates.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"

namespace isocheck {

bool key_less(const SymbolTable& keys, Sym a, Sym b) {
  if (!keys.named()) return SymbolTable::as_int(a) < SymbolTable::as_int(b);
  if (a == b) return false;
  bool ia = keys.is_int(a), ib = keys.is_int(b);
  if (ia != ib) return ia;
  if (ia) return std::stoll(keys.name(a)) < std::stoll(keys.name(b));
  return keys.name(a) < keys.name(b);
}

namespace {

struct PairHash {
  size_t operator()(const std::pair<Sym, Sym>& p) const { return std::hash<Sym>()(p.first * 0x9e3779b97f4a7c15ULL ^ p.second); }
};

}  // namespace

History expand_predicates(const PredicateHistory& ph, const std::string& file) {
  const History& b = ph.base;
  auto less = [&](Sym x, Sym y) { return key_less(b.keys, x, y); };
  auto where = [&](const PredicateOp& p) {
    return "transaction " + std::to_string(b.txn_id[p.txn]) + ", operation " + std::to_string(p.pos) + ": ";
  };
  // Keys whose state changes, keys deleted somewhere, list keys, tombstones.
  std::unordered_set<Sym> changed, deleted, lists;
  std::unordered_set<std::pair<Sym, Sym>, PairHash> tombstones;
  for (OpIdx o = 0; o < b.op_count(); ++o) {
    if (b.op_kind[o] == OpKind::write) changed.insert(b.op_key[o]);
    if (b.op_kind[o] == OpKind::append || b.op_kind[o] == OpKind::read_list)
      lists.insert(b.op_key[o]), changed.insert(b.op_key[o]);  // a scan over one is refused below
  }
  for (const PredicateOp& p : ph.ops) {
    if (p.kind == PredicateOp::scan) continue;
    changed.insert(p.key);
    if (p.kind == PredicateOp::del) deleted.insert(p.key), tombstones.insert({p.key, p.value});
  }
  // Keys whose only insert is safe to place after the initial absence: one
  // insert, no `w`, and every delete observed a present value of the key
  // before deleting (so every tombstone follows the insert's version).
  std::unordered_map<Sym, uint32_t> inserts;
  std::unordered_set<Sym> blind_written, unobserved_delete;
  for (OpIdx o = 0; o < b.op_count(); ++o)
    if (b.op_kind[o] == OpKind::write) blind_written.insert(b.op_key[o]);
  for (const PredicateOp& p : ph.ops)
    if (p.kind == PredicateOp::insert) ++inserts[p.key];
  {
    size_t next = 0;
    for (TxnIdx t = 0; t < b.txn_count(); ++t) {
      std::unordered_set<Sym> observed;
      OpIdx o = b.op_begin(t);
      for (uint32_t pos = 0;; ++pos) {
        if (next < ph.ops.size() && ph.ops[next].txn == t && ph.ops[next].pos == pos) {
          const PredicateOp& p = ph.ops[next++];
          if (p.kind == PredicateOp::scan)
            for (const auto& r : p.rows) observed.insert(r.first);
          else if (p.kind == PredicateOp::insert)
            observed.insert(p.key);
          else if (!observed.count(p.key))
            unobserved_delete.insert(p.key);
          continue;
        }
        if (o == b.op_end(t)) break;
        if (b.op_kind[o] == OpKind::read && b.op_value[o] != kNullValue && !tombstones.count({b.op_key[o], b.op_value[o]}))
          observed.insert(b.op_key[o]);
        ++o;
      }
    }
  }
  auto insert_after_initial = [&](Sym k) {
    auto it = inserts.find(k);
    return it != inserts.end() && it->second == 1 && !blind_written.count(k) && !unobserved_delete.count(k);
  };
  std::vector<Sym> sorted(changed.begin(), changed.end());
  std::sort(sorted.begin(), sorted.end(), less);

  History out;
  out.keys = b.keys;
  out.values = b.values;
  out.session_name = b.session_name;
  out.time_unit = b.time_unit;
  out.reserve_more(b.txn_count(), b.op_count() + ph.ops.size());
  size_t next = 0;  // into ph.ops
  auto undecided = [&](const PredicateOp& p, Sym k, const char* what) {
    throw ResourceError("not decided: " + file + ": " + where(p) + what + " key " + b.keys.text(k) +
                        " absent, and another transaction deletes " + b.keys.text(k) +
                        ": which absent version (the initial state or a deleted one) it saw is unknown; "
                        "isocheck decides absences only on keys no other transaction deletes");
  };
  for (TxnIdx t = 0; t < b.txn_count(); ++t) {
    out.begin_txn(b.txn_id[t], b.txn_session[t], b.txn_status[t], b.txn_begin[t], b.txn_end[t]);
    // The transaction's own effect so far per key: present, or deleted with its tombstone.
    std::unordered_map<Sym, std::pair<bool, Sym>> own;
    OpIdx o = b.op_begin(t);
    for (uint32_t pos = 0;; ++pos) {
      if (next < ph.ops.size() && ph.ops[next].txn == t && ph.ops[next].pos == pos) {
        const PredicateOp& p = ph.ops[next++];
        auto it = own.find(p.key);
        switch (p.kind) {
          case PredicateOp::insert:
            if (it != own.end() && !it->second.first) {
              // After its own delete: the absent version is its tombstone.
            } else if (it != own.end()) {
              out.add_op(OpKind::read, p.key, kNullValue);  // inserting a row it made present: internal read
            } else {
              if (deleted.count(p.key) && !insert_after_initial(p.key)) undecided(p, p.key, "inserts, requiring");
              out.add_op(OpKind::read, p.key, kNullValue);
            }
            out.add_op(OpKind::write, p.key, p.value);
            own[p.key] = {true, p.value};
            break;
          case PredicateOp::del:
            out.add_op(OpKind::write, p.key, p.value);
            own[p.key] = {false, p.value};
            break;
          case PredicateOp::scan: {
            for (const auto& [k, v] : p.rows)
              if (lists.count(k))
                throw InputError(file, where(p) + "the scan covers key " + b.keys.text(k) +
                                           ", which is appended to or read as a list (scans cover register keys)");
            auto k = std::lower_bound(sorted.begin(), sorted.end(), p.key, less);
            size_t r = 0;
            while (true) {
              bool has_k = k != sorted.end() && !less(p.hi, *k);
              bool has_r = r < p.rows.size();
              if (!has_k && !has_r) break;
              if (has_r && (!has_k || !less(*k, p.rows[r].first))) {
                const auto& [rk, rv] = p.rows[r];
                if (tombstones.count({rk, rv}))
                  throw InputError(file, where(p) + "the scan returns row " + b.keys.text(rk) + " = " +
                                             value_text(b, rv) + ", the version a delete of it left (a deleted row is absent)");
                out.scan_ops.push_back(out.op_count());
                out.add_op(OpKind::read, rk, rv);
                if (has_k && *k == rk) ++k;
                ++r;
                continue;
              }
              Sym key = *k++;
              if (lists.count(key))
                throw InputError(file, where(p) + "the scan covers key " + b.keys.text(key) +
                                           ", which is appended to or read as a list (scans cover register keys)");
              auto mine = own.find(key);
              Sym seen = kNullValue;
              if (mine != own.end() && !mine->second.first) seen = mine->second.second;
              else if (mine == own.end() && deleted.count(key)) undecided(p, key, "scans, seeing");
              out.scan_ops.push_back(out.op_count());
              out.scan_absent_ops.push_back(out.op_count());
              out.add_op(OpKind::read, key, seen);
            }
            break;
          }
        }
        continue;
      }
      if (o == b.op_end(t)) break;
      if (b.op_kind[o] == OpKind::read_list) {
        out.add_list_read(b.op_key[o], b.list(o));
      } else {
        out.add_op(b.op_kind[o], b.op_key[o], b.op_value[o]);
        if (b.op_kind[o] != OpKind::read) own[b.op_key[o]] = {true, b.op_value[o]};
      }
      ++o;
    }
    out.end_txn();
  }
  return out;
}

}  // namespace isocheck

#include "oracle/predicate_oracle.h"

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>

namespace isocheck {
namespace {

struct Version {
  bool present = false;
  Sym name = kNullValue;  // the value, the tombstone, or kNullValue (initial)
  bool operator==(const Version&) const = default;
};
using State = std::map<int64_t, Version>;  // keys not in the map: initial

// One stated operation.
struct Op {
  enum Kind { read, write, scan, insert, del } kind;
  int64_t key = 0, hi = 0;
  Sym value = 0;
  std::vector<std::pair<int64_t, Sym>> rows;
  bool has_where = false;
  ValuePredicate where;
  std::vector<int64_t> key_set;  // a scan of these keys (has_key_set) instead of [key, hi]
  bool has_key_set = false;
};

// The predicate by definition, on integer values.
bool satisfies(const ValuePredicate& p, Sym value) {
  const int64_t v = static_cast<int64_t>(value), a = static_cast<int64_t>(p.a), b = static_cast<int64_t>(p.b);
  switch (p.cmp) {
    case ValuePredicate::eq: return v == a;
    case ValuePredicate::ne: return v != a;
    case ValuePredicate::lt: return v < a;
    case ValuePredicate::le: return v <= a;
    case ValuePredicate::gt: return v > a;
    case ValuePredicate::ge: return v >= a;
    case ValuePredicate::between: return a <= v && v <= b;
  }
  return false;
}

std::vector<Op> stated_ops(const PredicateHistory& ph, TxnIdx t) {
  const History& h = ph.base;
  std::vector<Op> out;
  OpIdx o = h.op_begin(t);
  auto p = std::find_if(ph.ops.begin(), ph.ops.end(), [&](const PredicateOp& x) { return x.txn == t; });
  for (uint32_t pos = 0;; ++pos) {
    if (p != ph.ops.end() && p->txn == t && p->pos == pos) {
      Op x;
      x.kind = p->kind == PredicateOp::scan ? Op::scan : p->kind == PredicateOp::insert ? Op::insert : Op::del;
      x.key = static_cast<int64_t>(p->key), x.hi = static_cast<int64_t>(p->hi), x.value = p->value;
      for (auto [k, v] : p->rows) x.rows.push_back({static_cast<int64_t>(k), v});
      x.has_where = p->has_where, x.where = p->where;
      x.has_key_set = p->has_key_set;
      for (Sym k : p->key_set) x.key_set.push_back(static_cast<int64_t>(k));
      out.push_back(x);
      ++p;
      continue;
    }
    if (o == h.op_end(t)) break;
    if (h.op_kind[o] != OpKind::read && h.op_kind[o] != OpKind::write)
      throw std::invalid_argument("predicate_oracle_check: registers only");
    out.push_back({h.op_kind[o] == OpKind::read ? Op::read : Op::write, static_cast<int64_t>(h.op_key[o]), 0,
                   h.op_value[o], {}});
    ++o;
  }
  return out;
}

// Executes ops on `s` (a copy); false when an observation does not hold.
bool execute(const std::vector<Op>& ops, State s, State& effect) {
  effect.clear();
  for (const Op& op : ops) {
    Version& v = s[op.key];
    switch (op.kind) {
      case Op::read:
        if (op.value == kNullValue ? !(v == Version{}) : v.name != op.value) return false;
        break;
      case Op::write: v = {true, op.value}, effect[op.key] = v; break;
      case Op::insert:
        if (v.present) return false;
        v = {true, op.value}, effect[op.key] = v;
        break;
      case Op::del: v = {false, op.value}, effect[op.key] = v; break;
      case Op::scan: {
        std::vector<std::pair<int64_t, Sym>> present;
        for (auto it = s.lower_bound(op.key); it != s.end() && it->first <= op.hi; ++it)
          if (it->second.present && (!op.has_where || satisfies(op.where, it->second.name)) &&
              (!op.has_key_set || std::find(op.key_set.begin(), op.key_set.end(), it->first) != op.key_set.end()))
            present.push_back({it->first, it->second.name});
        if (present != op.rows) return false;
        break;
      }
    }
  }
  return true;
}

struct Model {
  size_t n = 0;
  std::vector<std::vector<Op>> ops;
  std::vector<uint32_t> so_before;
  std::vector<uint32_t> rt_before;  // j ended before i began (both timed): SSER's real-time order
  std::vector<std::vector<int64_t>> wkeys;
  bool conflict(size_t i, size_t j) const {
    for (int64_t k : wkeys[i])
      if (std::find(wkeys[j].begin(), wkeys[j].end(), k) != wkeys[j].end()) return true;
    return false;
  }
};

void apply_effect(State& s, const State& eff) {
  for (auto& [k, v] : eff) s[k] = v;
}

// A serial order (each transaction after those `before` names) in which
// every transaction's stated operations hold.
bool ser_search(const Model& m, const std::vector<uint32_t>& before, uint32_t placed, const State& s) {
  if (placed == (1u << m.n) - 1) return true;
  for (size_t i = 0; i < m.n; ++i) {
    if ((placed >> i & 1) || (before[i] & ~placed)) continue;
    State eff;
    if (!execute(m.ops[i], s, eff)) continue;
    State next = s;
    apply_effect(next, eff);
    if (ser_search(m, before, placed | 1u << i, next)) return true;
  }
  return false;
}

bool si_search(const Model& m, uint32_t placed, size_t p, std::vector<State>& prefix, std::vector<size_t>& pos) {
  if (p == m.n) return true;
  for (size_t i = 0; i < m.n; ++i) {
    if ((placed >> i & 1) || (m.so_before[i] & ~placed)) continue;
    size_t lo = 0;
    for (size_t j = 0; j < m.n; ++j)
      if ((placed >> j & 1) && ((m.so_before[i] >> j & 1) || m.conflict(i, j))) lo = std::max(lo, pos[j] + 1);
    for (size_t sp = lo; sp <= p; ++sp) {
      State eff;
      if (!execute(m.ops[i], prefix[sp], eff)) continue;
      pos[i] = p;
      prefix[p + 1] = prefix[p];
      apply_effect(prefix[p + 1], eff);
      if (si_search(m, placed | 1u << i, p + 1, prefix, pos)) return true;
      break;  // the effect is the same for every snapshot that works: one is enough
    }
  }
  return false;
}

}  // namespace

OracleVerdict predicate_oracle_check(const PredicateHistory& ph) {
  const History& h = ph.base;
  if (h.keys.named()) throw std::invalid_argument("predicate_oracle_check: integer keys only");
  Model m;
  std::vector<TxnIdx> inc;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] == TxnStatus::unknown) throw std::invalid_argument("predicate_oracle_check: no unknown transactions");
    if (h.txn_status[t] == TxnStatus::committed) inc.push_back(t);
  }
  if (inc.size() > kOracleMaxTxns) throw std::invalid_argument("predicate_oracle_check: too many transactions");
  m.n = inc.size();
  m.so_before.assign(m.n, 0);
  m.rt_before.assign(m.n, 0);
  for (size_t i = 0; i < m.n; ++i) {
    m.ops.push_back(stated_ops(ph, inc[i]));
    std::vector<int64_t> w;
    for (const Op& op : m.ops.back())
      if (op.kind == Op::write || op.kind == Op::insert || op.kind == Op::del) w.push_back(op.key);
    m.wkeys.push_back(w);
    for (size_t j = 0; j < i; ++j)
      if (h.txn_session[inc[j]] == h.txn_session[inc[i]]) m.so_before[i] |= 1u << j;
  }
  for (size_t i = 0; i < m.n; ++i)
    for (size_t j = 0; j < m.n; ++j)
      if (j != i && h.has_times(inc[j]) && h.has_times(inc[i]) && h.txn_end[inc[j]] < h.txn_begin[inc[i]])
        m.rt_before[i] |= 1u << j;
  OracleVerdict r;
  r.included = m.n;
  r.ser = ser_search(m, m.so_before, 0, {});
  std::vector<uint32_t> strict(m.n);
  for (size_t i = 0; i < m.n; ++i) strict[i] = m.so_before[i] | m.rt_before[i];
  r.sser = r.ser && ser_search(m, strict, 0, {});
  std::vector<State> prefix(m.n + 1);
  std::vector<size_t> pos(m.n, 0);
  r.si = si_search(m, 0, 0, prefix, pos);
  return r;
}

PredicateHistory random_predicate_history(uint64_t seed, const RandomPredicateOptions& opt) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return static_cast<int>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  auto chance = [&](int pct) { return pick(0, 99) < pct; };
  PredicateHistory ph;
  History& h = ph.base;
  const int n = pick(opt.min_txns, opt.max_txns);
  const int sessions = pick(1, opt.max_sessions);
  for (int s = 0; s < sessions; ++s) h.session_name.push_back(s);
  const bool deletes = chance(opt.delete_percent);
  Sym next_value = 1;
  std::vector<State> committed{State{}};  // states after each commit
  std::vector<int> last_commit(sessions, 0);  // a session sees its own commits
  for (int t = 0; t < n; ++t) {
    const int s = pick(0, sessions - 1);
    const bool aborted = chance(opt.aborted_percent);
    h.begin_txn(t + 1, static_cast<uint32_t>(s), aborted ? TxnStatus::aborted : TxnStatus::committed, kNoTime, kNoTime);
    int snap = static_cast<int>(committed.size()) - 1;
    if (chance(opt.stale_percent)) snap = pick(last_commit[s], snap);
    State view = committed[static_cast<size_t>(snap)];
    State eff;
    uint32_t pos = 0;
    const int actions = pick(1, opt.max_actions);
    for (int a = 0; a < actions; ++a, ++pos) {
      const int64_t k = pick(1, opt.keys);
      Version& v = view[k];
      auto read = [&] { h.add_op(OpKind::read, static_cast<Sym>(k), v.name); };
      // The transaction makes a new version of k (a row when `present`).
      auto new_version = [&](bool present) {
        v = {present, next_value++};
        eff[k] = v;
      };
      // ... by an insert or a delete.
      auto row_op = [&](PredicateOp::Kind op, bool present) {
        new_version(present);
        ph.ops.push_back({op, static_cast<TxnIdx>(t), pos, static_cast<Sym>(k), 0, v.name, {}});
      };
      switch (pick(0, deletes ? 5 : 4)) {
        case 0: case 1: {  // scan
          int64_t lo = pick(1, opt.keys), hi = pick(1, opt.keys);
          if (lo > hi) std::swap(lo, hi);
          PredicateOp p{PredicateOp::scan, static_cast<TxnIdx>(t), pos, static_cast<Sym>(lo), static_cast<Sym>(hi)};
          if (opt.where_percent > 0 && chance(opt.where_percent)) {  // (no draw at 0: old seeds stay)
            // Constants around the values written so far (1 .. next_value - 1).
            p.has_where = true;
            p.where.cmp = static_cast<ValuePredicate::Cmp>(pick(0, 6));
            p.where.a = static_cast<Sym>(pick(1, static_cast<int>(next_value) + 1));
            if (p.where.cmp == ValuePredicate::between) p.where.b = p.where.a + static_cast<Sym>(pick(0, 4));
          }
          if (opt.key_set_percent > 0 && chance(opt.key_set_percent)) {  // (no draw at 0: old seeds stay)
            // A declared key set: each key of 1..keys with probability 1/2.
            p.has_key_set = true;
            for (int64_t x = 1; x <= opt.keys; ++x)
              if (chance(50)) p.key_set.push_back(static_cast<Sym>(x));
            lo = 1, hi = opt.keys;
            if (!p.key_set.empty()) p.key = p.key_set.front(), p.hi = p.key_set.back();
          }
          auto in_set = [&](int64_t x) {
            return !p.has_key_set || std::find(p.key_set.begin(), p.key_set.end(), static_cast<Sym>(x)) != p.key_set.end();
          };
          for (auto it = view.lower_bound(lo); it != view.end() && it->first <= hi; ++it)
            if (it->second.present && (!p.has_where || satisfies(p.where, it->second.name)) && in_set(it->first))
              p.rows.push_back({static_cast<Sym>(it->first), it->second.name});
          ph.ops.push_back(std::move(p));
          break;
        }
        case 2:  // read-modify-write (a blind write a third of the time)
          if (!chance(33)) {
            read();
            ++pos;
          }
          new_version(true);
          h.add_op(OpKind::write, static_cast<Sym>(k), v.name);
          break;
        case 3:
        case 4:  // insert when absent in the view, else a point read
          if (!v.present) row_op(PredicateOp::insert, true);
          else read();
          break;
        case 5:  // delete a present row, reading it first half the time
          if (v.present) {
            if (chance(50)) {
              read();
              ++pos;
            }
            row_op(PredicateOp::del, false);
          } else {
            read();
          }
          break;
      }
    }
    h.end_txn();
    if (!aborted) {
      State next = committed.back();
      apply_effect(next, eff);
      committed.push_back(next);
      last_commit[s] = static_cast<int>(committed.size()) - 1;
    }
  }
  std::sort(ph.ops.begin(), ph.ops.end(), [](const PredicateOp& a, const PredicateOp& b) {
    return a.txn != b.txn ? a.txn < b.txn : a.pos < b.pos;
  });
  if (chance(opt.mutation_percent)) {
    std::vector<size_t> scans;
    for (size_t i = 0; i < ph.ops.size(); ++i)
      if (ph.ops[i].kind == PredicateOp::scan) scans.push_back(i);
    if (!scans.empty()) {
      PredicateOp& p = ph.ops[scans[static_cast<size_t>(pick(0, static_cast<int>(scans.size()) - 1))]];
      if (!p.rows.empty() && chance(50)) {
        p.rows.erase(p.rows.begin() + pick(0, static_cast<int>(p.rows.size()) - 1));  // a phantom row missed
      } else {
        // A row the range holds but the scan did not show: the latest value some
        // transaction wrote to a key in the range and the scan did not return.
        for (OpIdx o = 0; o < h.op_count(); ++o) {
          Sym k = h.op_key[o];
          if (h.op_kind[o] != OpKind::write || k < p.key || k > p.hi) continue;
          if (p.has_key_set && std::find(p.key_set.begin(), p.key_set.end(), k) == p.key_set.end()) continue;
          if (std::any_of(p.rows.begin(), p.rows.end(), [&](auto& r) { return r.first == k; })) continue;
          if (p.has_where && !satisfies(p.where, h.op_value[o])) continue;
          p.rows.push_back({k, h.op_value[o]});
          std::sort(p.rows.begin(), p.rows.end());
          break;
        }
      }
    }
  }
  // Times last (no draw at all when off), so that they change nothing else:
  // each transaction ends about where it stands in the file and began up to
  // two and a half places earlier, so real time orders some pairs, not all.
  if (opt.timed_percent > 0 && chance(opt.timed_percent))
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      h.txn_end[t] = 100 * (static_cast<int64_t>(t) + 1) + pick(-60, 60);
      h.txn_begin[t] = h.txn_end[t] - pick(0, 250);
    }
  return ph;
}

std::string predicate_history_text(const PredicateHistory& ph) {
  std::string s;
  const History& h = ph.base;
  auto val = [&](Sym v) { return v == kNullValue ? std::string("null") : std::to_string(static_cast<int64_t>(v)); };
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    s += "{\"id\":" + std::to_string(h.txn_id[t]) + ",\"session\":" + std::to_string(h.session_name[h.txn_session[t]]) +
         ",\"status\":\"" + to_string(h.txn_status[t]) + "\",\"ops\":[";
    bool first = true;
    OpIdx o = h.op_begin(t);
    auto p = std::find_if(ph.ops.begin(), ph.ops.end(), [&](const PredicateOp& x) { return x.txn == t; });
    for (uint32_t pos = 0;; ++pos) {
      std::string op;
      if (p != ph.ops.end() && p->txn == t && p->pos == pos) {
        if (p->kind == PredicateOp::scan) {
          if (p->has_key_set) {
            op = "[\"scan\",[";
            for (size_t i = 0; i < p->key_set.size(); ++i) op += (i ? "," : "") + std::to_string(p->key_set[i]);
            op += "],[";
          } else {
            op = "[\"scan\"," + std::to_string(p->key) + "," + std::to_string(p->hi) + ",[";
          }
          for (size_t i = 0; i < p->rows.size(); ++i)
            op += (i ? ",[" : "[") + std::to_string(p->rows[i].first) + "," + val(p->rows[i].second) + "]";
          op += "]";
          if (p->has_where) {
            static const char* const cmp[] = {"=", "!=", "<", "<=", ">", ">=", "between"};
            op += ",[\"" + std::string(cmp[p->where.cmp]) + "\"," + val(p->where.a) +
                  (p->where.cmp == ValuePredicate::between ? "," + val(p->where.b) : "") + "]";
          }
          op += "]";
        } else {
          op = std::string("[\"") + (p->kind == PredicateOp::insert ? "insert" : "delete") + "\"," +
               std::to_string(p->key) + "," + val(p->value) + "]";
        }
        ++p;
      } else if (o < h.op_end(t)) {
        op = std::string("[\"") + (h.op_kind[o] == OpKind::read ? "r" : "w") + "\"," + std::to_string(h.op_key[o]) + "," +
             val(h.op_value[o]) + "]";
        ++o;
      } else {
        break;
      }
      s += (first ? "" : ",") + op;
      first = false;
    }
    s += "]}\n";
  }
  return s;
}

}  // namespace isocheck

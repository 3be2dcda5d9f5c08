// The exhaustive oracle for the weak levels: Biswas–Enea's axioms checked on
// every commit order. Shares nothing with src/ but the History model.
//
// Observations. As in oracle.cpp a key holds a sequence (register: [] or [v];
// list: its appends). Inside an included transaction T, a read of k before
// T's first `w k` is external; a read after T's appends to k (and no `w k`)
// must end with them, and what comes before them is external; a read after a
// `w k` must equal T's own state (else internal inconsistency). An external
// observation O reads from the writer of its last value (the initial state
// when O is empty). An external observation holding a value T wrote is an
// internal inconsistency.
//
// Per-read anomalies: a value nobody wrote (thin air), a value T writes only
// later or an internal inconsistency, or one value written twice — every
// level fails. A value whose writer is not included (G1a) or which its writer
// overwrote or extended later (G1b) makes the read dirty: RC and above fail;
// RU sets dirty reads aside.
//
// A commit order co is a total order of the included transactions extending
// session order. Given co, a read of t2's version observes the state of k
// after t2 in co: the effects on k of the writers of k up to t2, in co order
// (for registers simply t2's value); every clean external read must equal it.
//   RU: that, and a transaction that read a version of k and writes k commits
//       after the version's writer (write follows read).
//   RC and above: no dirty read, wr ⊆ co, and for every external read of k by
//       t3 from t2 and every t1 ≠ t2 writing k with φ(t1, read): t1 co t2
//       (t2 the initial state: no such t1 may exist), where φ is
//       RC:  t3 read from t1 in an earlier operation;
//       RA:  t1 so t3, or t3 read from t1;
//       CC:  t1 (so ∪ wr)+ t3;
//       PC:  t1 co* t4 for some t4 with t4 so t3 or t3 read from t4;
//       SI:  PC's, or t1 co* t4 with t4 co t3 and t4, t3 writing a common key;
//       SER: t1 co t3.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "oracle/oracle.h"
#include "oracle/oracle_common.h"

namespace isocheck {
namespace {

using oracle_detail::Seq;

struct Eff {
  bool overwrite = false;
  Seq vals;
};

struct Read {
  int t;        // model index of the reader
  int key;      // dense key
  int from;     // model index of the writer read; -1 initial state; -2 not included (dirty)
  Seq ext;
  bool dirty;
};

}  // namespace

std::string WeakOracleVerdict::describe() const {
  return "ru=" + std::to_string(ru) + " rc=" + std::to_string(rc) + " ra=" + std::to_string(ra) +
         " cc=" + std::to_string(cc) + " pc=" + std::to_string(pc) + " si=" + std::to_string(si) +
         " ser=" + std::to_string(ser);
}

bool oracle_every_level(const History& h, OracleVerdict& ov, WeakOracleVerdict& wv) {
  try {
    WeakOracleVerdict w = oracle_weak_check(h);
    OracleVerdict o = oracle_check(h);
    wv = w, ov = o;
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

WeakOracleVerdict oracle_weak_check(const History& h) {
  const size_t N = h.txn_count();
  const oracle_detail::Writers writers = oracle_detail::writers_of(h);
  WeakOracleVerdict r;
  bool corrupt = false;
  for (auto& [kv, ws] : writers) corrupt |= ws.size() > 1;

  const std::vector<bool> included = oracle_detail::included_txns(h, writers);
  std::vector<TxnIdx> inc;
  std::vector<int> model(N, -1);
  for (TxnIdx t = 0; t < N; ++t)
    if (included[t]) model[t] = static_cast<int>(inc.size()), inc.push_back(t);

  std::map<Sym, int> dense;
  auto key = [&](Sym k) { return dense.try_emplace(k, static_cast<int>(dense.size())).first->second; };
  std::vector<Read> reads;
  std::vector<std::map<int, Eff>> eff(inc.size());
  bool any_dirty = false;
  for (size_t i = 0; i < inc.size(); ++i) {
    const TxnIdx t = inc[i];
    std::map<Sym, Eff> own;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      const Sym k = h.op_key[o];
      if (h.op_kind[o] == OpKind::write) { own[k].overwrite = true, own[k].vals = {h.op_value[o]}; continue; }
      if (h.op_kind[o] == OpKind::append) { own[k].vals.push_back(h.op_value[o]); continue; }
      Seq obs = oracle_detail::observation(h, o);
      bool bad = false, dirty = false;
      for (Sym v : obs) {
        auto it = writers.find({k, v});
        if (it == writers.end()) { bad = true; continue; }
        auto [w, wo] = it->second.front();
        if (w == t) { bad |= wo > o; continue; }
        if (!included[w]) { dirty = true; continue; }
        for (OpIdx o2 = wo + 1; o2 < h.op_end(w); ++o2)
          if (h.op_key[o2] == k && (h.op_kind[o2] == OpKind::write ||
                                    (h.op_kind[o2] == OpKind::append && std::find(obs.begin(), obs.end(), h.op_value[o2]) == obs.end())))
            dirty = true;
      }
      if (bad) { corrupt = true; continue; }
      auto it = own.find(k);
      if (it != own.end()) {
        const Seq& mine = it->second.vals;
        if (it->second.overwrite) { corrupt |= obs != mine; continue; }
        if (obs.size() < mine.size() || !std::equal(mine.begin(), mine.end(), obs.end() - static_cast<ptrdiff_t>(mine.size()))) {
          corrupt = true;
          continue;
        }
        obs.resize(obs.size() - mine.size());
      }
      bool own_value = false;  // an observation of others holding T's own values
      for (Sym v : obs) own_value |= writers.find({k, v})->second.front().txn == t;
      if (own_value) { corrupt = true; continue; }
      Read rd{static_cast<int>(i), key(k), -1, obs, dirty};
      if (!obs.empty()) {
        TxnIdx w = writers.find({k, obs.back()})->second.front().txn;
        rd.from = included[w] ? model[w] : -2;
      }
      any_dirty |= dirty;
      reads.push_back(rd);
    }
    for (auto& [k, e] : own) eff[i][key(k)] = e;
  }
  if (corrupt) return r;
  if (inc.size() > kOracleMaxTxns)
    throw std::invalid_argument("oracle_weak_check: " + std::to_string(inc.size()) + " included transactions (at most " +
                                std::to_string(kOracleMaxTxns) + ")");
  const int n = static_cast<int>(inc.size());
  const int K = static_cast<int>(dense.size());
  std::vector<uint32_t> writes_key(K, 0);  // writers of each key
  for (int i = 0; i < n; ++i)
    for (auto& [k, e] : eff[i]) writes_key[k] |= 1u << i;
  std::vector<uint32_t> so(n, 0), rf(n, 0);  // so predecessors; transactions each one read from
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      if (h.txn_session[inc[j]] == h.txn_session[inc[i]]) so[i] |= 1u << j;
  for (const Read& rd : reads)
    if (rd.from >= 0) rf[rd.t] |= 1u << rd.from;
  std::vector<uint32_t> hb(n);  // (so ∪ wr)+ predecessors
  for (int i = 0; i < n; ++i) hb[i] = so[i] | rf[i];
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < n; ++i) {
      uint32_t x = hb[i];
      for (int j = 0; j < n; ++j)
        if (hb[i] >> j & 1) x |= hb[j];
      if (x != hb[i]) hb[i] = x, changed = true;
    }
  }
  // Co-independent premises per read: RC, RA, CC.
  std::vector<uint32_t> m_rc(reads.size()), m_ra(reads.size()), m_cc(reads.size());
  {
    std::vector<uint32_t> earlier(n, 0);
    for (size_t q = 0; q < reads.size(); ++q) {
      const Read& rd = reads[q];
      uint32_t other = writes_key[rd.key] & ~(rd.from >= 0 ? 1u << rd.from : 0u) & ~(1u << rd.t);
      m_rc[q] = earlier[rd.t] & other;
      m_ra[q] = (rf[rd.t] | so[rd.t]) & other;
      m_cc[q] = hb[rd.t] & other;
      if (rd.from >= 0) earlier[rd.t] |= 1u << rd.from;
    }
  }
  std::vector<int> order;
  std::vector<uint32_t> before(n, 0);  // co predecessors
  std::vector<int> pos(n, 0);
  auto state_after = [&](int key, int t2) {
    Seq s;
    for (int j = 0; j <= pos[t2]; ++j) {
      auto it = eff[order[j]].find(key);
      if (it == eff[order[j]].end()) continue;
      if (it->second.overwrite) s = it->second.vals;
      else s.insert(s.end(), it->second.vals.begin(), it->second.vals.end());
    }
    return s;
  };
  auto leaf = [&] {
    bool states = true, clean_states = true, rmw = true, wr_in_co = true;
    bool ax[6] = {true, true, true, true, true, true};  // rc ra cc pc si ser
    for (size_t q = 0; q < reads.size(); ++q) {
      const Read& rd = reads[q];
      if (rd.from == -2) { states = false; continue; }
      bool st = rd.from < 0 || state_after(rd.key, rd.from) == rd.ext;
      states &= st;
      if (!rd.dirty) clean_states &= st;
      if (rd.from >= 0) {
        bool in_co = before[rd.t] >> rd.from & 1;
        wr_in_co &= in_co;
        if (!rd.dirty && (writes_key[rd.key] >> rd.t & 1)) rmw &= in_co;
      }
      uint32_t other = writes_key[rd.key] & ~(rd.from >= 0 ? 1u << rd.from : 0u) & ~(1u << rd.t);
      uint32_t pc = 0, conflict = 0;
      for (int j = 0; j < n; ++j) {
        uint32_t star = before[j] | 1u << j;
        if ((so[rd.t] | rf[rd.t]) >> j & 1) pc |= star;
        if ((before[rd.t] >> j & 1)) {
          bool common = false;
          for (auto& [k, e] : eff[j]) common |= eff[rd.t].count(k) > 0;
          if (common) conflict |= star;
        }
      }
      const uint32_t need[6] = {m_rc[q], m_ra[q], m_cc[q], pc & other, (pc | conflict) & other, before[rd.t] & other};
      const uint32_t have = rd.from >= 0 ? before[rd.from] : 0;
      for (int l = 0; l < 6; ++l) ax[l] &= (need[l] & ~have) == 0;
    }
    if (clean_states && rmw) r.ru = true;
    if (!any_dirty && states && wr_in_co) {
      r.rc |= ax[0], r.ra |= ax[1], r.cc |= ax[2], r.pc |= ax[3], r.si |= ax[4], r.ser |= ax[5];
    }
    return r.ru && r.rc && r.ra && r.cc && r.pc && r.si && r.ser;
  };
  // Depth-first over the orders extending session order.
  auto dfs = [&](auto& self, uint32_t placed) -> bool {
    if (static_cast<int>(order.size()) == n) return leaf();
    for (int i = 0; i < n; ++i) {
      if (placed >> i & 1 || (so[i] & ~placed)) continue;
      pos[i] = static_cast<int>(order.size());
      before[i] = placed;
      order.push_back(i);
      bool done = self(self, placed | 1u << i);
      order.pop_back();
      if (done) return true;
    }
    return false;
  };
  dfs(dfs, 0);
  return r;
}

}  // namespace isocheck

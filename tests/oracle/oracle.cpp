// The exhaustive oracle. Semantics (the contract the engines are tested against):
//
// State. Every key holds a sequence of values: a register is [] (initial,
// `null`) or [v]; a list is the sequence of its appends. `w k v` replaces the
// sequence by [v], `append k v` adds v at the end. A read observes a sequence:
// `r k null` = [], `r k v` = [v], `r k [..]` = that list.
//
// Included transactions: the committed ones, plus (fixpoint) every `unknown`
// one that wrote a value an included transaction read. Aborted transactions and
// excluded unknown ones neither take part nor have their reads looked at.
//
// Inside one transaction T, per key k:
//  * before T's first write/append of k a read is *external*: it observes the
//    state T saw;
//  * after a `w k`: the read must return exactly T's own state of k (the last
//    write plus T's later appends), else internal_read;
//  * after appends only: the read must end with T's own appends in order, else
//    internal_read; what comes before them is an external observation of k
//    (the state T saw);
//  * all external observations of k in T must be equal, else nonrepeatable_read.
// T's effect on k: its last `w k` (if any) followed by its later appends.
//
// Per-transaction anomalies (each makes every level fail), for reads of
// included transactions, per value v of key k observed:
//  * thin_air_read: no transaction (of any status) wrote v to k;
//  * aborted_read: v's writer aborted;
//  * intermediate_read: v's writer (another transaction) wrote k again after v,
//    or appended to k after v a value the read does not contain;
//  * internal_read also when T reads a value T itself writes only later;
//  * duplicate_write: one value written (or appended) twice to one key, by any
//    transactions of any status.
//
// SER: some total order of the included transactions, extending session order
// (file order within a session), in which every external observation of k by T
// equals the state of k after the transactions before T.
// SSER: SER whose order also puts T1 before T2 when both have times and
// end(T1) + clock_skew < begin(T2).
// --time-order: when two transactions write (or append to) a common key, both
// have times and end(T1) + clock_skew < begin(T2), T1's version of that key
// precedes T2's. Versions are ordered as their writers are (in the serial
// order; for SI, in the commit order), so this is "T1 before T2" in the
// orders below, for SER, SI and SSER alike (SSER already has it).
// SI: some commit order extending session order and, per T, a snapshot point
// sp(T) in [0, pos(T)] (T sees exactly the first sp(T) committed transactions)
// such that T's external observations equal the state after those, a session
// predecessor T1 of T has pos(T1) < sp(T), and two transactions writing a
// common key satisfy pos(T1) < pos(T2) => pos(T1) < sp(T2) (first committer wins).
#include "oracle/oracle.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "oracle/oracle_common.h"

namespace isocheck {
namespace {

using oracle_detail::is_read;
using oracle_detail::observation;
using oracle_detail::Seq;
using oracle_detail::Writer;

struct Effect {
  bool overwrite = false;  // a `w` happened: the state becomes `vals`
  Seq vals;                // else: `vals` are appended to the state
};

void apply(Seq& s, const Effect& e) {
  if (e.overwrite) s = e.vals;
  else s.insert(s.end(), e.vals.begin(), e.vals.end());
}

// What one transaction saw and did, per key.
struct TxnView {
  std::map<Sym, Seq> ext;
  std::map<Sym, Effect> eff;
};

TxnView analyse(const History& h, TxnIdx t, std::set<std::string>& anomalies) {
  TxnView v;
  auto record = [&](Sym k, Seq obs) {
    auto [it, fresh] = v.ext.emplace(k, obs);
    if (!fresh && it->second != obs) anomalies.insert("nonrepeatable_read");
  };
  for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
    Sym k = h.op_key[o];
    switch (h.op_kind[o]) {
      case OpKind::write: {
        Effect& e = v.eff[k];
        e.overwrite = true;
        e.vals = {h.op_value[o]};
        break;
      }
      case OpKind::append: v.eff[k].vals.push_back(h.op_value[o]); break;
      case OpKind::read:
      case OpKind::read_list: {
        Seq obs = observation(h, o);
        auto it = v.eff.find(k);
        if (it == v.eff.end()) {
          record(k, std::move(obs));
        } else if (it->second.overwrite) {
          if (obs != it->second.vals) anomalies.insert("internal_read");
        } else {
          const Seq& own = it->second.vals;
          if (obs.size() >= own.size() &&
              std::equal(own.begin(), own.end(), obs.end() - static_cast<ptrdiff_t>(own.size()))) {
            obs.resize(obs.size() - own.size());
            record(k, std::move(obs));
          } else {
            anomalies.insert("internal_read");
          }
        }
        break;
      }
    }
  }
  return v;
}

using State = std::vector<Seq>;  // per dense key

struct Model {
  size_t n = 0;                                         // included transactions
  std::vector<std::vector<std::pair<uint32_t, Seq>>> ext;  // dense key -> observation
  std::vector<std::vector<std::pair<uint32_t, Effect>>> eff;
  std::vector<std::vector<uint32_t>> wkeys;             // keys written, sorted
  std::vector<uint32_t> so_before, rt_before;           // bitmasks over model indices
  std::vector<uint32_t> to_before;                      // --time-order: writers of a common key
  size_t keys = 0;

  bool sees(const State& s, size_t i) const {
    for (const auto& [k, obs] : ext[i])
      if (s[k] != obs) return false;
    return true;
  }
  void step(State& s, size_t i) const {
    for (const auto& [k, e] : eff[i]) apply(s[k], e);
  }
  bool write_conflict(size_t i, size_t j) const {
    const auto& a = wkeys[i];
    const auto& b = wkeys[j];
    size_t x = 0, y = 0;
    while (x < a.size() && y < b.size()) {
      if (a[x] == b[y]) return true;
      if (a[x] < b[y]) ++x;
      else ++y;
    }
    return false;
  }
};

// A serial order extending `before` in which every transaction sees the state
// left by the ones before it.
bool serial_search(const Model& m, const std::vector<uint32_t>& before, uint32_t placed,
                   const State& s) {
  if (placed == (1u << m.n) - 1) return true;
  for (size_t i = 0; i < m.n; ++i) {
    if (placed >> i & 1) continue;
    if (before[i] & ~placed) continue;
    if (!m.sees(s, i)) continue;
    State next = s;
    m.step(next, i);
    if (serial_search(m, before, placed | 1u << i, next)) return true;
  }
  return false;
}

// Commit orders by position p; prefix[j] is the state after the first j
// commits; pos[i] the position of placed transaction i.
bool si_search(const Model& m, uint32_t placed, size_t p, std::vector<State>& prefix,
               std::vector<size_t>& pos) {
  if (p == m.n) return true;
  for (size_t i = 0; i < m.n; ++i) {
    if (placed >> i & 1) continue;
    if ((m.so_before[i] | m.to_before[i]) & ~placed) continue;
    size_t lo = 0;
    for (size_t j = 0; j < m.n; ++j) {
      if (!(placed >> j & 1)) continue;
      if ((m.so_before[i] >> j & 1) || m.write_conflict(i, j)) lo = std::max(lo, pos[j] + 1);
    }
    bool ok = false;
    for (size_t sp = lo; sp <= p && !ok; ++sp) ok = m.sees(prefix[sp], i);
    if (!ok) continue;
    pos[i] = p;
    prefix[p + 1] = prefix[p];
    m.step(prefix[p + 1], i);
    if (si_search(m, placed | 1u << i, p + 1, prefix, pos)) return true;
  }
  return false;
}

}  // namespace

std::string OracleVerdict::describe() const {
  std::string s = "ser=" + std::to_string(ser) + " si=" + std::to_string(si) +
                  " sser=" + std::to_string(sser) + " anomaly=";
  if (anomalies.empty()) return s + "-";
  for (size_t i = 0; i < anomalies.size(); ++i) s += (i ? "," : "") + anomalies[i];
  return s;
}

OracleVerdict oracle_check(const History& h, int64_t clock_skew, bool time_order) {
  const size_t n = h.txn_count();

  const oracle_detail::Writers writers = oracle_detail::writers_of(h);
  const std::vector<bool> included = oracle_detail::included_txns(h, writers);

  // Per-transaction anomalies.
  std::set<std::string> anomalies;
  for (const auto& [kv, ws] : writers)
    if (ws.size() > 1) anomalies.insert("duplicate_write");
  std::vector<TxnIdx> inc;
  std::vector<TxnView> views;
  for (TxnIdx t = 0; t < n; ++t) {
    if (!included[t]) continue;
    inc.push_back(t);
    views.push_back(analyse(h, t, anomalies));
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (!is_read(h.op_kind[o])) continue;
      Sym k = h.op_key[o];
      Seq obs = observation(h, o);
      for (Sym v : obs) {
        auto it = writers.find({k, v});
        if (it == writers.end()) {
          anomalies.insert("thin_air_read");
          continue;
        }
        const Writer& w = it->second.front();
        if (w.txn == t) {
          if (w.op > o) anomalies.insert("internal_read");
          continue;
        }
        if (h.txn_status[w.txn] == TxnStatus::aborted) {
          anomalies.insert("aborted_read");
          continue;
        }
        for (OpIdx o2 = w.op + 1; o2 < h.op_end(w.txn); ++o2) {
          if (h.op_key[o2] != k) continue;
          if (h.op_kind[o2] == OpKind::write ||
              (h.op_kind[o2] == OpKind::append &&
               std::find(obs.begin(), obs.end(), h.op_value[o2]) == obs.end()))
            anomalies.insert("intermediate_read");
        }
      }
    }
  }

  OracleVerdict r;
  r.included = inc.size();
  if (!anomalies.empty()) {
    r.anomaly = true;
    r.anomalies.assign(anomalies.begin(), anomalies.end());
    r.anomaly_kind = r.anomalies.front();
    return r;
  }
  if (inc.size() > kOracleMaxTxns)
    throw std::invalid_argument("oracle_check: " + std::to_string(inc.size()) +
                                " included transactions (at most " +
                                std::to_string(kOracleMaxTxns) + ")");

  // Dense keys and the model over included transactions.
  Model m;
  m.n = inc.size();
  std::map<Sym, uint32_t> dense;
  auto key = [&](Sym k) { return dense.try_emplace(k, static_cast<uint32_t>(dense.size())).first->second; };
  m.ext.resize(m.n);
  m.eff.resize(m.n);
  m.wkeys.resize(m.n);
  m.so_before.assign(m.n, 0);
  m.rt_before.assign(m.n, 0);
  m.to_before.assign(m.n, 0);
  for (size_t i = 0; i < m.n; ++i) {
    for (auto& [k, obs] : views[i].ext) m.ext[i].emplace_back(key(k), obs);
    for (auto& [k, e] : views[i].eff) {
      m.eff[i].emplace_back(key(k), e);
      m.wkeys[i].push_back(key(k));
    }
    std::sort(m.wkeys[i].begin(), m.wkeys[i].end());
    for (size_t j = 0; j < i; ++j) {
      TxnIdx a = inc[j], b = inc[i];  // a is before b in the file
      if (h.txn_session[a] == h.txn_session[b]) m.so_before[i] |= 1u << j;
    }
    for (size_t j = 0; j < m.n; ++j) {
      TxnIdx a = inc[j], b = inc[i];
      if (j != i && h.has_times(a) && h.has_times(b) &&
          static_cast<__int128>(h.txn_end[a]) + clock_skew < static_cast<__int128>(h.txn_begin[b]))
        m.rt_before[i] |= 1u << j;
    }
  }
  m.keys = dense.size();
  if (time_order)
    for (size_t i = 0; i < m.n; ++i)
      for (size_t j = 0; j < m.n; ++j)
        if ((m.rt_before[i] >> j & 1) && m.write_conflict(i, j)) m.to_before[i] |= 1u << j;

  State init(m.keys);
  std::vector<uint32_t> ordered(m.n);
  for (size_t i = 0; i < m.n; ++i) ordered[i] = m.so_before[i] | m.to_before[i];
  r.ser = serial_search(m, ordered, 0, init);
  std::vector<uint32_t> strict(m.n);
  for (size_t i = 0; i < m.n; ++i) strict[i] = m.so_before[i] | m.rt_before[i] | m.to_before[i];
  r.sser = r.ser && serial_search(m, strict, 0, init);
  std::vector<State> prefix(m.n + 1, init);
  std::vector<size_t> pos(m.n, 0);
  r.si = si_search(m, 0, 0, prefix, pos);
  return r;
}

}  // namespace isocheck

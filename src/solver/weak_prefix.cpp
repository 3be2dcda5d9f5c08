// Prefix consistency as serializability of the split history: every included
// transaction T becomes R_T (its external reads) followed in its session by
// W_T (its writes). Biswas–Enea (Theorem 4.8) show the history is prefix
// consistent iff the split history is serializable. The split check runs on
// the SER engines (serial witness, linear engine, general engine), and its
// witness is mapped back to the original transactions and operations.
#include <algorithm>
#include <unordered_map>

#include "graph/known_graph.h"
#include "solver/acyclic.h"
#include "solver/check.h"
#include "solver/weak_levels.h"
#include "solver/witness.h"

namespace isocheck {
namespace {

// Does splitting lose no version order? Every order known, no lost update,
// and no blind register write (an unread one may sit, in the split history,
// between a read-modify-write's read and its write).
bool split_keeps_orders(const History& h, const std::vector<uint8_t>& inc, const DependencyGraph& g) {
  if (!g.unordered.empty()) return false;
  for (const Anomaly& a : g.anomalies)
    if (a.kind == AnomalyKind::lost_update) return false;
  std::vector<Sym> read;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (!inc[t]) continue;
    read.clear();
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (h.op_kind[o] == OpKind::read) read.push_back(h.op_key[o]);
      if (h.op_kind[o] == OpKind::write && std::find(read.begin(), read.end(), h.op_key[o]) == read.end()) return false;
    }
  }
  return true;
}

// The split graph of `g`: commit node t, start node n + t; so and wr enter
// the start node, ww joins commit nodes, rw leaves the start node, and each
// start node precedes its commit node. Acyclic iff the split history is
// serializable with g's version orders.
WeakOutcome split_graph_prefix(const DependencyGraph& g) {
  const uint32_t n = g.n;
  EdgeList se;
  std::vector<uint64_t> orig;  // per split edge: its edge in g, or ~0 for start -> commit
  se.reserve(g.edges.size() + n);
  orig.reserve(g.edges.size() + n);
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const uint32_t a = g.edges.src[i], b = g.edges.dst[i];
    switch (g.edges.kind[i]) {
      case EdgeKind::ww: se.add(a, b, EdgeKind::ww); break;
      case EdgeKind::rw: se.add(n + a, b, EdgeKind::rw); break;
      default: se.add(a, n + b, g.edges.kind[i]); break;
    }
    orig.push_back(i);
  }
  for (uint32_t t = 0; t < n; ++t)
    if (g.included[t]) se.add(n + t, t, EdgeKind::aux), orig.push_back(~uint64_t{0});
  Csr c = build_csr(2 * n, se, true);
  std::vector<uint32_t> cyc = find_cycle(c, n);
  WeakOutcome out;
  if (cyc.empty()) return out;
  out.holds = false;
  Witness w;
  w.anomaly = weak_violation_name(Level::pc);
  for (size_t i = 0; i < cyc.size(); ++i) {
    const uint32_t u = cyc[i], v = cyc[(i + 1) % cyc.size()];
    uint64_t id = ~uint64_t{0};
    for (uint64_t s = c.offset[u]; s < c.offset[u + 1]; ++s)
      if (c.target[s] == v) { id = orig[c.edge_id[s]]; break; }
    if (id == ~uint64_t{0}) continue;  // start -> commit of one transaction
    w.cycle.add(g.edges.src[id], g.edges.dst[id], g.edges.kind[id], g.edges.why[id]);
  }
  out.witness = std::move(w);
  return out;
}

// The split history's SER check, its witness mapped back.
WeakOutcome prefix_by_split_history(const History& h, const std::vector<uint8_t>& inc, const CheckOptions& opt) {
  History s;
  s.keys = h.keys;
  s.values = h.values;
  s.session_name = h.session_name;
  std::vector<TxnIdx> orig_txn;    // per split transaction
  std::vector<uint32_t> orig_pos;  // per split operation: its position in the original transaction
  std::unordered_map<Sym, std::vector<Sym>> own;  // per key: the transaction's appends so far
  std::unordered_map<Sym, bool> overwritten;
  std::vector<Sym> ext;
  const uint32_t n = static_cast<uint32_t>(h.txn_count());
  for (TxnIdx t = 0; t < n; ++t) {
    const uint32_t sess = h.txn_session[t];
    if (inc[t]) {  // R_T: the reads of versions other transactions wrote
      own.clear();
      overwritten.clear();
      bool opened = false;
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        const Sym k = h.op_key[o];
        const OpKind kind = h.op_kind[o];
        if (kind == OpKind::write) { overwritten[k] = true; continue; }
        if (kind == OpKind::append) { own[k].push_back(h.op_value[o]); continue; }
        if (overwritten.count(k)) continue;  // a read of its own write
        auto open = [&] {
          if (!opened) s.begin_txn(2 * static_cast<int64_t>(t), sess, TxnStatus::committed, kNoTime, kNoTime), opened = true;
        };
        if (kind == OpKind::read) {
          open();
          s.add_op(OpKind::read, k, h.op_value[o]);
        } else {
          auto l = h.list(o);
          ext.assign(l.begin(), l.end());
          auto it = own.find(k);
          if (it != own.end()) {  // the read ends with its own appends (else an anomaly the other levels report)
            size_t m = std::min(ext.size(), it->second.size());
            ext.resize(ext.size() - m);
          }
          open();
          s.add_list_read(k, ext);
        }
        orig_txn.resize(s.txn_count(), t);
        orig_pos.push_back(static_cast<uint32_t>(o - h.op_begin(t)));
      }
      if (opened) s.end_txn();
    }
    bool opened = false;  // W_T: its writes, with the original status when not included
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (h.op_kind[o] != OpKind::write && h.op_kind[o] != OpKind::append) continue;
      if (!opened)
        s.begin_txn(2 * static_cast<int64_t>(t) + 1, sess, inc[t] ? TxnStatus::committed : h.txn_status[t], kNoTime, kNoTime),
            opened = true;
      s.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
      orig_txn.resize(s.txn_count(), t);
      orig_pos.push_back(static_cast<uint32_t>(o - h.op_begin(t)));
    }
    if (opened) s.end_txn();
  }
  CheckOptions so = opt;
  so.levels = {Level::ser};
  so.time_order = false;
  // No second local search here: where one ran (check() after a failed
  // replay), it already checked PC on regions around the failed reads; the
  // split history's own search repeated that work (twice the search's cost
  // on a valid 10^6-transaction blind-write history: 124 s against 78 s for
  // the graph path alone).
  so.localise = false;
  CheckResult r = check(s, so);
  WeakOutcome out;
  if (!r.anomalies.empty()) {
    out.holds = false;
    out.reason = std::string("the reads alone show ") + to_string(r.anomalies.front().kind);
    return out;
  }
  const LevelResult& lr = r.levels.front();
  out.holds = lr.holds, out.decided = lr.decided;
  if (!lr.decided) out.reason = "prefix (serializability of the reads-then-writes split): " + lr.reason;
  if (lr.holds || !lr.witness) return out;
  Witness w;
  w.anomaly = weak_violation_name(Level::pc);
  auto pos = [&](TxnIdx st, uint32_t why) {
    uint32_t p = orig_pos[s.op_begin(st) + why_pos(why)];
    return p | (why & kInferredBit);
  };
  const EdgeList& c = lr.witness->cycle;
  for (size_t i = 0; i < c.size(); ++i) {
    TxnIdx a = orig_txn[c.src[i]], b = orig_txn[c.dst[i]];
    if (a == b) continue;  // R_T -> W_T
    uint32_t why = 0;
    switch (c.kind[i]) {
      case EdgeKind::wr:
      case EdgeKind::ww: why = pos(c.dst[i], c.why[i]); break;
      case EdgeKind::rw: why = pos(c.src[i], c.why[i]); break;
      default: break;
    }
    w.cycle.add(a, b, c.kind[i], why);
  }
  for (const ConstraintRef& k : lr.witness->core) w.core.push_back({k.key, orig_txn[k.first_head], orig_txn[k.second_head]});
  w.core_minimal = lr.witness->core_minimal;
  out.witness = std::move(w);
  return out;
}

}  // namespace

WeakOutcome decide_prefix(const History& h, const std::vector<uint8_t>& inc, const CheckOptions& opt,
                          const DependencyGraph* g) {
  WeakOutcome out = g && split_keeps_orders(h, inc, *g) ? split_graph_prefix(*g) : prefix_by_split_history(h, inc, opt);
  // One cycle, one claim: a witness whose edges the history shows (no
  // inferred order) is named by its shape, as every other witness is — a
  // two-transaction wr/rw cycle is a fractured read, which rules out RA too,
  // not a long fork. One that leans on an inferred order keeps PC's name.
  if (out.witness && !out.witness->cycle.kind.empty() && !leans_on_inferred_order(out.witness->cycle))
    out.witness->anomaly = name_cycle(out.witness->cycle, h);
  return out;
}

}  // namespace isocheck

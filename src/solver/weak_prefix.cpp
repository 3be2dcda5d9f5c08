// Prefix consistency as serializability of the split history: every included
// transaction T becomes R_T (its external reads) followed in its session by
// W_T (its writes). Biswas–Enea (Theorem 4.8) show the history is prefix
// consistent iff the split history is serializable. The split check runs on
// the SER engines (serial witness, linear engine, general engine), and its
// witness is mapped back to the original transactions and operations.
#include <unordered_map>

#include "solver/check.h"
#include "solver/weak_levels.h"

namespace isocheck {

WeakOutcome decide_prefix(const History& h, const std::vector<uint8_t>& inc, const CheckOptions& opt) {
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

}  // namespace isocheck

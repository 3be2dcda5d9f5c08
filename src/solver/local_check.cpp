#include "solver/local_check.h"

#include <algorithm>

#include "core/errors.h"
#include "core/flat_hash.h"
#include "graph/known_graph.h"
#include "solver/witness.h"

namespace isocheck {
namespace {

// The region's keys: a byte per key below a bound (row numbers of a named
// table, most integer keys), a hash set for the keys above it. (All in the
// set when one key was huge, a generated plant's, every operation of every
// round's projection was a hash lookup: a tenth of `-l ser,si,sser` on 10^7
// transactions with a planted write skew.)
class KeySet {
 public:
  // The array's bound: above the history's largest key below
  // direct_limit(ops) (bytes, then, at most twice the operations).
  static uint64_t direct_limit(size_t ops) { return std::max<uint64_t>(1 << 20, 2 * ops); }
  explicit KeySet(Sym max_small_key) : bound_(max_small_key + 1), bytes_(bound_, 0) {}
  bool contains(Sym k) const { return k < bound_ ? bytes_[k] != 0 : set_.find(k) != nullptr; }
  bool insert(Sym k) {  // true when new
    if (k < bound_) {
      if (bytes_[k]) return false;
      bytes_[k] = 1, ++size_;
      return true;
    }
    bool ins;
    set_.get_or_insert(k, 0, ins);
    size_ += ins;
    return ins;
  }
  size_t size() const { return size_; }

 private:
  uint64_t bound_;
  std::vector<uint8_t> bytes_;
  FlatMap64 set_;
  size_t size_ = 0;
};

// The history projected onto the region's keys: the transactions with an
// operation on one of them (`txn` maps back), and only those operations
// (`global_op` maps back).
struct Region {
  History h;
  std::vector<TxnIdx> txn;
  std::vector<OpIdx> global_op;
};

Region project(const History& h, const KeySet& keys) {
  Region r;
  History& p = r.h;
  p.session_name = h.session_name;
  p.time_unit = h.time_unit;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    bool open = false;
    for (OpIdx o = h.op_begin(t), e = h.op_end(t); o < e; ++o) {
      if (!keys.contains(h.op_key[o])) continue;
      if (!open) {
        p.begin_txn(h.txn_id[t], h.txn_session[t], h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
        r.txn.push_back(t);
        open = true;
      }
      r.global_op.push_back(o);
      if (h.op_kind[o] == OpKind::read_list) p.add_list_read(h.op_key[o], h.list(o));
      else p.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
    }
    if (open) p.end_txn();
  }
  return r;
}

// A cycle of the region's graph in the whole history's terms: transactions
// and operation positions mapped back, and each session-order edge between
// transactions that are not neighbours in their session replaced by the
// whole graph's session-order edges between them.
EdgeList map_cycle(const EdgeList& c, const Region& r, const History& h) {
  EdgeList out;
  for (size_t i = 0; i < c.size(); ++i) {
    const TxnIdx s = r.txn[c.src[i]], d = r.txn[c.dst[i]];
    const EdgeKind k = c.kind[i];
    if (k == EdgeKind::so) {
      // (every transaction is committed or aborted here: included = committed)
      TxnIdx prev = s;
      for (TxnIdx t = s + 1; t < d; ++t)
        if (h.txn_session[t] == h.txn_session[s] && h.txn_status[t] == TxnStatus::committed)
          out.add(prev, t, EdgeKind::so), prev = t;
      out.add(prev, d, EdgeKind::so);
      continue;
    }
    uint32_t why = c.why[i];
    if (k == EdgeKind::wr || k == EdgeKind::ww || k == EdgeKind::rw) {
      // Relative to the transaction holding the operation: dst for wr/ww, src for rw.
      const uint32_t lt = k == EdgeKind::rw ? c.src[i] : c.dst[i];
      const TxnIdx gt = r.txn[lt];
      const OpIdx o = r.global_op[r.h.op_begin(lt) + why_pos(why)];
      why = static_cast<uint32_t>(o - h.op_begin(gt)) | (why & kInferredBit);
    }
    out.add(s, d, k, why);
  }
  return out;
}

}  // namespace

LocalSearch find_violations_locally(const History& h, const CheckOptions& opt, std::span<const OpIdx> seeds) {
  LocalSearch ls;
  if (seeds.empty()) return ls;
  if (std::find(h.txn_status.begin(), h.txn_status.end(), TxnStatus::unknown) != h.txn_status.end()) return ls;
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  // The region is checked for the requested levels, and for SER (unless
  // SSER, which a SER cycle violates too) when SI or PC is asked for: a
  // region with a SER cycle explains the failed replay, and a level the
  // region does not violate (SI beside a write skew) is left to the whole
  // graph rather than searched for ever wider. Not when only RU, RC, RA or CC
  // are asked for: their engines are polynomial, while SER on a region of
  // blind writes may need the SAT search (8 s of 9 for read-uncommitted
  // alone on a 20 000-transaction BlindW-RM history, whose whole graph
  // settles it in 1.6 s); the region's rounds are bounded anyway.
  CheckOptions ro = opt;
  if ((wants(Level::si) || wants(Level::pc)) && !wants(Level::ser) && !wants(Level::sser))
    ro.levels.insert(ro.levels.begin(), Level::ser);
  if (ro.closure == ClosureChoice::gpu) ro.closure = ClosureChoice::cpu;  // small problems: no device per round

  const size_t n = h.txn_count(), m = h.op_count();
  Sym max_small_key = 0;
  const uint64_t limit = KeySet::direct_limit(m);
  for (Sym k : h.op_key)
    if (k < limit) max_small_key = std::max(max_small_key, k);
  KeySet keys(max_small_key);
  TxnIdx first = static_cast<TxnIdx>(n), last = 0;
  for (OpIdx o : seeds) {
    keys.insert(h.op_key[o]);
    const TxnIdx t = h.txn_of_op(o);
    first = std::min(first, t), last = std::max(last, t);
  }
  // A sixteenth of the operations: past that, the whole graph costs little
  // more than another round (small histories: any region). And a failed
  // search must not cost much beside the whole graph it leaves the work to:
  // all rounds together project at most an eighth of the operations, in at
  // most 16 rounds (each also scans every operation once). (An eighth and a
  // quarter before: on a valid simulated-SI BlindW-RW history, whose regions
  // the general engine solves, the search added 15-40 % to the graph path.)
  const size_t max_ops = std::max<size_t>(m / 16, 4096), max_total = std::max<size_t>(m / 8, 8192);
  size_t total = 0;
  uint64_t half = 16;  // the window: [first - half, last + half]
  while (true) {
    Region r = project(h, keys);
    ++ls.rounds;
    ls.keys = keys.size(), ls.txns = r.txn.size(), ls.ops = r.global_op.size();
    total += r.global_op.size();
    if (r.global_op.size() > max_ops || total > max_total || ls.rounds > 16) return ls;
    KnownGraphOptions ko;
    ko.for_si = wants(Level::si);
    DependencyGraph g;
    try {
      g = build_known_graph(r.h, ko);
    } catch (const InputError&) {
      return ls;  // the whole graph reports it, with the whole history's positions
    }
    if (!g.anomalies.empty()) return ls;  // the whole graph lists every one
    CheckResult cr = check_graph(r.h, g, ro);
    ls.stats = cr.stats;
    bool any = false;
    for (const LevelResult& lr : cr.levels) any |= lr.decided && !lr.holds;
    if (any) {
      for (const LevelResult& lr : cr.levels)
        ls.ser_violated |= (lr.level == Level::ser || lr.level == Level::si) && lr.decided && !lr.holds;
      for (const LevelResult& lr : cr.levels) {
        if (!wants(lr.level) || !lr.decided || lr.holds || !lr.witness) continue;
        LevelResult out = lr;
        Witness& w = *out.witness;
        w.cycle = map_cycle(lr.witness->cycle, r, h);
        const std::string forced_name = w.anomaly;
        // (A weak level's witness keeps its level's name: solver/weak_saturation.cpp.)
        if (!is_weak(lr.level)) w.anomaly = name_cycle(w.cycle, h);
        for (ForcedOrder& f : w.forced) {
          f.other_cycle = map_cycle(f.other_cycle, r, h);
          f.anomaly = name_cycle(f.other_cycle, h);
        }
        // A G0 renamed by its forced orders (solver/forced_orders.h) keeps
        // the name of the forcing cycle it was given.
        if (!w.cycle_anomaly.empty()) {
          w.cycle_anomaly = w.anomaly;
          for (size_t i = 0; i < w.forced.size(); ++i)
            if (lr.witness->forced[i].anomaly == forced_name) { w.anomaly = w.forced[i].anomaly; break; }
        }
        for (ConstraintRef& c : w.core) c.first_head = r.txn[c.first_head], c.second_head = r.txn[c.second_head];
        ls.violated.push_back(std::move(out));
      }
      ls.stats = cr.stats;
      ls.stats.txns = n;
      ls.stats.committed = static_cast<size_t>(std::count(h.txn_status.begin(), h.txn_status.end(), TxnStatus::committed));
      // A region with a cycle stops here (the levels it violates are proven);
      // keep the levels in the caller's order.
      std::stable_sort(ls.violated.begin(), ls.violated.end(), [&](const LevelResult& a, const LevelResult& b) {
        auto pos = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) - opt.levels.begin(); };
        return pos(a.level) < pos(b.level);
      });
      return ls;
    }
    // Grow: the keys of the window's transactions that touch the region, the
    // window doubled; windows that add no key are skipped without a round.
    bool grew = false;
    while (!grew) {
      const TxnIdx lo = static_cast<TxnIdx>(first > half ? first - half : 0);
      const TxnIdx hi = static_cast<TxnIdx>(std::min<uint64_t>(n - 1, uint64_t{last} + half));
      for (auto it = std::lower_bound(r.txn.begin(), r.txn.end(), lo); it != r.txn.end() && *it <= hi; ++it)
        for (OpIdx o = h.op_begin(*it), e = h.op_end(*it); o < e; ++o) grew |= keys.insert(h.op_key[o]);
      const bool whole = lo == 0 && hi == n - 1;
      half *= 2;
      if (!grew && whole) return ls;  // the region stopped growing
    }
  }
}

}  // namespace isocheck

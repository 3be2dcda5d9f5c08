#include "graph/polygraph_build.h"

#include <algorithm>
#include <limits>

namespace isocheck {
namespace {

// Adds an edge of the level's graph for a transaction-level edge: in the split
// layout a non-RW edge a→b becomes a→b* and an RW edge b→c becomes b*→c.
struct Emitter {
  GraphLayout layout;
  uint32_t n;
  void operator()(EdgeList& out, uint32_t s, uint32_t d, EdgeKind k, uint32_t why) const {
    if (layout == GraphLayout::split) {
      if (k == EdgeKind::rw) out.add(n + s, d, k, why);
      else out.add(s, n + d, k, why);
    } else {
      out.add(s, d, k, why);
    }
  }
};

struct ChainTimes {
  int64_t min_end = std::numeric_limits<int64_t>::max();
  int64_t min_begin = std::numeric_limits<int64_t>::max();
  bool timed = false;
};

}  // namespace

LevelPolygraph build_level_polygraph(const DependencyGraph& g, const History& h, const PolygraphOptions& o) {
  LevelPolygraph lp;
  lp.layout = o.layout;
  lp.txn_count = g.n;
  const uint32_t n = g.n;
  Emitter emit{o.layout, n};
  Polygraph& pg = lp.pg;
  // Known edges of the level. Reserve what the per-key edges will need (a
  // chain: its tail, its readers, an init chain's edges, a node chain and its
  // head edge) so the big arrays grow once, not by doubling copies.
  {
    uint64_t extra = 0;
    for (const UnorderedKey& uk : g.unordered) {
      uint64_t init_out = 0;
      for (const auto& c : uk.chains)
        if (c.from_init) init_out = 1 + c.readers_of_tail.size();
      for (const auto& c : uk.chains) extra += 4 + 2 * c.readers_of_tail.size() + init_out;
    }
    pg.known.reserve(g.edges.size() + 3 * uint64_t{n} + extra);
  }
  for (size_t i = 0; i < g.edges.size(); ++i) emit(pg.known, g.edges.src[i], g.edges.dst[i], g.edges.kind[i], g.edges.why[i]);
  if (o.layout == GraphLayout::split) {
    pg.vertex_count = 2 * n;
    for (uint32_t v = 0; v < n; ++v) if (g.included[v]) pg.known.add(n + v, v, EdgeKind::aux);
  } else if (o.layout == GraphLayout::realtime) {
    std::vector<uint32_t> src, dst;
    lp.node_time = add_realtime_pairs(h, g.included, o.clock_skew, src, dst);
    for (size_t i = 0; i < src.size(); ++i) pg.known.add(src[i], dst[i], EdgeKind::rt);
    pg.vertex_count = n + static_cast<uint32_t>(lp.node_time.size());
  } else {
    pg.vertex_count = n;
  }
  const bool by_time = o.layout == GraphLayout::realtime || o.time_order;
  auto times_of = [&](const VersionChain& c) {
    ChainTimes t;
    for (TxnIdx x : c.txns) {
      if (!h.has_times(x)) return ChainTimes{};
      t.min_end = std::min(t.min_end, h.txn_end[x]);
      t.min_begin = std::min(t.min_begin, h.txn_begin[x]);
    }
    t.timed = !c.txns.empty();
    return t;
  };
  // "Chain a entirely before chain b" as edges: a's tail → b's head (WW) and
  // every reader of a's tail → b's head (RW).
  auto order_edges = [&](EdgeList& out, const VersionChain& a, const VersionChain& b) {
    TxnIdx head = b.txns.front();
    if (!a.txns.empty()) emit(out, a.txns.back(), head, EdgeKind::ww, b.write_pos.front());
    for (size_t r = 0; r < a.readers_of_tail.size(); ++r)
      if (a.readers_of_tail[r] != head) emit(out, a.readers_of_tail[r], head, EdgeKind::rw, a.reader_pos[r]);
  };
  auto add_constraint = [&](Sym key, const VersionChain& a, const VersionChain& b) {
    Constraint c;
    c.a_begin = pg.choice_edges.size();
    order_edges(pg.choice_edges, a, b);
    c.a_end = c.b_begin = pg.choice_edges.size();
    order_edges(pg.choice_edges, b, a);
    c.b_end = pg.choice_edges.size();
    pg.constraints.push_back(c);
    lp.origin.push_back({key, a.txns.front(), b.txns.front()});
  };
  // New auxiliary vertex (per-key time node).
  auto new_node = [&]() { return pg.vertex_count++; };
  for (const UnorderedKey& uk : g.unordered) {
    if (uk.si_only && !o.include_si_only) continue;
    // The init chain (if any) precedes every other chain: certain edges.
    std::vector<const VersionChain*> free;
    const VersionChain* init = nullptr;
    for (auto& c : uk.chains) {
      if (c.from_init) init = &c;
      else if (!c.txns.empty()) free.push_back(&c);
    }
    if (init)
      for (auto* c : free) order_edges(pg.known, *init, *c);
    std::vector<ChainTimes> times(free.size());
    bool all_timed = by_time;
    if (by_time)
      for (size_t i = 0; i < free.size(); ++i) times[i] = times_of(*free[i]), all_timed &= times[i].timed;
    if (!all_timed) {
      for (size_t i = 0; i < free.size(); ++i)
        for (size_t j = i + 1; j < free.size(); ++j) add_constraint(uk.key, *free[i], *free[j]);
      continue;
    }
    // Real time orders chain a before chain b when a write of a ended before
    // every write of b began: min_end(a) + δ < min_begin(b) (never a before
    // itself, since min_end(a) >= min_begin(a)). Those orders go in
    // through per-key time nodes (O(chains) edges, not O(chains²)): a's tail
    // and a's readers enter the node of min_end(a); nodes are chained by time;
    // b's head hangs below the last node before min_begin(b) - δ. In the split
    // layout WW and RW travel on separate node chains so each arrives as itself.
    const size_t m = free.size();
    std::vector<size_t> by_end(m);
    for (size_t i = 0; i < m; ++i) by_end[i] = i;
    std::sort(by_end.begin(), by_end.end(), [&](size_t a, size_t b) { return times[a].min_end < times[b].min_end; });
    std::vector<int64_t> node_end;
    std::vector<uint32_t> ww_node, rw_node;  // per distinct end time
    std::vector<size_t> node_of(m);
    for (size_t idx : by_end) {
      if (node_end.empty() || node_end.back() != times[idx].min_end) {
        node_end.push_back(times[idx].min_end);
        ww_node.push_back(new_node());
        rw_node.push_back(o.layout == GraphLayout::split ? new_node() : ww_node.back());
        if (ww_node.size() > 1) {
          pg.known.add(ww_node[ww_node.size() - 2], ww_node.back(), EdgeKind::aux);
          if (o.layout == GraphLayout::split) pg.known.add(rw_node[rw_node.size() - 2], rw_node.back(), EdgeKind::aux);
        }
      }
      node_of[idx] = node_end.size() - 1;
    }
    const uint32_t star = o.layout == GraphLayout::split ? n : 0;
    for (size_t i = 0; i < m; ++i) {
      const VersionChain& c = *free[i];
      pg.known.add(c.txns.back(), ww_node[node_of[i]], EdgeKind::ww);
      for (size_t r = 0; r < c.readers_of_tail.size(); ++r)
        pg.known.add(star + c.readers_of_tail[r], rw_node[node_of[i]], EdgeKind::rw, c.reader_pos[r]);
      auto it = std::lower_bound(node_end.begin(), node_end.end(), times[i].min_begin, [&](int64_t e, int64_t b) {
        return static_cast<__int128>(e) + o.clock_skew < b;
      });
      if (it != node_end.begin()) {
        size_t k = static_cast<size_t>(it - node_end.begin()) - 1;
        pg.known.add(ww_node[k], star + c.txns.front(), EdgeKind::ww, c.write_pos.front());
        if (o.layout == GraphLayout::split) pg.known.add(rw_node[k], c.txns.front(), EdgeKind::rw, c.write_pos.front());
      }
    }
    // Pairs real time leaves open (overlapping chains) need a constraint:
    // min_begin(j) <= min_end(i) + δ and min_begin(i) <= min_end(j) + δ.
    // Sweep by min_begin: from chain i only the chains after it in that
    // order whose min_begin <= min_end(i) + δ can pair with it (a pair is
    // found from whichever of the two begins first), so the work is
    // O(m log m + open pairs), not O(m²). Pairs go in in (i, j) order.
    std::vector<size_t> by_begin(m);
    for (size_t i = 0; i < m; ++i) by_begin[i] = i;
    std::sort(by_begin.begin(), by_begin.end(), [&](size_t a, size_t b) { return times[a].min_begin < times[b].min_begin; });
    std::vector<std::pair<size_t, size_t>> open_pairs;
    for (size_t p = 0; p < m; ++p) {
      const size_t i = by_begin[p];
      const __int128 limit = static_cast<__int128>(times[i].min_end) + o.clock_skew;
      for (size_t q = p + 1; q < m && times[by_begin[q]].min_begin <= limit; ++q) {
        const size_t j = by_begin[q];
        if (times[i].min_begin > static_cast<__int128>(times[j].min_end) + o.clock_skew) continue;
        open_pairs.push_back({std::min(i, j), std::max(i, j)});
      }
    }
    std::sort(open_pairs.begin(), open_pairs.end());
    for (auto [i, j] : open_pairs) add_constraint(uk.key, *free[i], *free[j]);
    const size_t open = open_pairs.size();
    lp.ordered_by_time += m * (m - 1) / 2 - open;
  }
  return lp;
}

EdgeList cycle_to_txn_edges(const EdgeList& cyc, const LevelPolygraph& lp) {
  const uint32_t n = lp.txn_count;
  const bool split = lp.layout == GraphLayout::split;
  auto txnish = [&](uint32_t v) { return v < n || (split && v < 2 * n); };
  auto txn = [&](uint32_t v) { return v < n ? v : v - n; };
  EdgeList out;
  const size_t k = cyc.size();
  if (k == 0) return out;
  // Start at an edge leaving a transaction (or its split copy).
  size_t start = 0;
  while (start < k && !txnish(cyc.src[start])) ++start;
  if (start == k) return out;
  for (size_t step = 0; step < k;) {
    size_t i = (start + step) % k;
    if (cyc.kind[i] == EdgeKind::aux && txnish(cyc.dst[i])) { ++step; continue; }  // T* → T
    if (txnish(cyc.dst[i])) {
      out.add(txn(cyc.src[i]), txn(cyc.dst[i]), cyc.kind[i], cyc.why[i]);
      ++step;
      continue;
    }
    // A run through auxiliary nodes (real-time or per-key time nodes).
    size_t j = step;
    while (!txnish(cyc.dst[(start + j) % k])) ++j;
    size_t last = (start + j) % k;
    EdgeKind kind = cyc.kind[i] == EdgeKind::rt ? EdgeKind::rt : cyc.kind[i];
    uint32_t why = kind == EdgeKind::rw ? cyc.why[i] : kind == EdgeKind::ww ? cyc.why[last] : 0;
    out.add(txn(cyc.src[i]), txn(cyc.dst[last]), kind, why);
    step = j + 1;
  }
  return out;
}

}  // namespace isocheck

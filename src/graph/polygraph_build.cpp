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
  int64_t max_begin = std::numeric_limits<int64_t>::min();
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
  // Known edges of the level.
  pg.known.reserve(g.edges.size() + n);
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
      t.max_begin = std::max(t.max_begin, h.txn_begin[x]);
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
    std::vector<ChainTimes> times;
    if (by_time) for (auto* c : free) times.push_back(times_of(*c));
    for (size_t i = 0; i < free.size(); ++i) {
      for (size_t j = i + 1; j < free.size(); ++j) {
        if (by_time && times[i].timed && times[j].timed) {
          // Some write of one chain ended before some write of the other began:
          // under real-time order the whole chains are ordered.
          bool ij = static_cast<__int128>(times[i].min_end) + o.clock_skew < times[j].max_begin;
          bool ji = static_cast<__int128>(times[j].min_end) + o.clock_skew < times[i].max_begin;
          if (ij) order_edges(pg.known, *free[i], *free[j]);
          if (ji) order_edges(pg.known, *free[j], *free[i]);
          if (ij || ji) { ++lp.ordered_by_time; continue; }
        }
        Constraint c;
        c.a_begin = pg.choice_edges.size();
        order_edges(pg.choice_edges, *free[i], *free[j]);
        c.a_end = c.b_begin = pg.choice_edges.size();
        order_edges(pg.choice_edges, *free[j], *free[i]);
        c.b_end = pg.choice_edges.size();
        pg.constraints.push_back(c);
        lp.origin.push_back({uk.key, free[i]->txns.front(), free[j]->txns.front()});
      }
    }
  }
  return lp;
}

EdgeList cycle_to_txn_edges(const EdgeList& cyc, const LevelPolygraph& lp) {
  const uint32_t n = lp.txn_count;
  EdgeList out;
  const size_t k = cyc.size();
  if (k == 0) return out;
  if (lp.layout == GraphLayout::split) {
    for (size_t i = 0; i < k; ++i) {
      uint32_t s = cyc.src[i], d = cyc.dst[i];
      if (cyc.kind[i] == EdgeKind::aux) continue;  // T* → T
      out.add(s >= n ? s - n : s, d >= n ? d - n : d, cyc.kind[i], cyc.why[i]);
    }
    return out;
  }
  if (lp.layout == GraphLayout::realtime) {
    // Start at an edge leaving a transaction; runs through time nodes collapse.
    size_t start = 0;
    while (start < k && cyc.src[start] >= n) ++start;
    for (size_t step = 0; step < k;) {
      size_t i = (start + step) % k;
      if (cyc.dst[i] < n) {
        out.add(cyc.src[i], cyc.dst[i], cyc.kind[i], cyc.why[i]);
        ++step;
        continue;
      }
      uint32_t s = cyc.src[i];
      size_t j = step;
      while (cyc.dst[(start + j) % k] >= n) ++j;
      out.add(s, cyc.dst[(start + j) % k], EdgeKind::rt, 0);
      step = j + 1;
    }
    return out;
  }
  return cyc;
}

}  // namespace isocheck

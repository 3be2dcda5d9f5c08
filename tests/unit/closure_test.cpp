#include <gtest/gtest.h>

#include <random>

#include "closure/closure.h"
#include "closure/graph_algos.h"
#include "closure/path_index.h"
#include "closure/windowed_closure.h"
#include "graph/known_graph.h"
#include "graph/polygraph_build.h"
#include "oracle/random_history.h"
#include "solver/prune.h"

using namespace isocheck;

namespace {

// Random graphs of several shapes: mostly-DAG with back edges (SCCs), chains,
// wide levels, self loops.
EdgeList random_graph(std::mt19937_64& rng, uint32_t n, int shape) {
  EdgeList e;
  std::uniform_int_distribution<uint32_t> V(0, n - 1);
  if (shape == 0) {  // random sparse with some back edges
    const uint32_t m = n * (1 + rng() % 3);
    for (uint32_t i = 0; i < m; ++i) {
      uint32_t a = V(rng), b = V(rng);
      if (a > b && rng() % 8) std::swap(a, b);
      e.add(a, b, EdgeKind::ww);
    }
  } else if (shape == 1) {  // chains, a few cross links
    for (uint32_t v = 0; v + 1 < n; ++v)
      if (rng() % 10) e.add(v, v + 1, EdgeKind::so);
    for (uint32_t i = 0; i < n / 8 + 1; ++i) e.add(V(rng), V(rng), EdgeKind::rw);
  } else {  // wide levels
    const uint32_t width = 1 + rng() % 16;
    for (uint32_t v = width; v < n; ++v)
      for (int k = 0; k < 2; ++k) e.add(v - width + rng() % width, v, EdgeKind::wr);
    if (rng() % 2) e.add(V(rng), V(rng), EdgeKind::rw);
    if (rng() % 4 == 0) { uint32_t v = V(rng); e.add(v, v, EdgeKind::aux); }
  }
  return e;
}

// A random graph (random_graph's `shape`) of min_n to min_n + span - 1
// vertices, with its CSR.
struct RandomCsr {
  uint32_t n;
  EdgeList e;
  Csr g;
};
RandomCsr random_csr(std::mt19937_64& rng, uint32_t min_n, uint32_t span, int shape) {
  RandomCsr r;
  r.n = min_n + static_cast<uint32_t>(rng() % span);
  r.e = random_graph(rng, r.n, shape);
  r.g = build_csr(r.n, r.e);
  return r;
}

}  // namespace

TEST(Csr, BuildsRows) {
  EdgeList e;
  e.add(2, 0, EdgeKind::so), e.add(0, 1, EdgeKind::wr), e.add(2, 1, EdgeKind::ww);
  Csr g = build_csr(3, e);
  ASSERT_EQ(g.vertex_count(), 3u);
  EXPECT_EQ(g.offset, (std::vector<uint64_t>{0, 1, 1, 3}));
  EXPECT_EQ(g.target, (std::vector<uint32_t>{1, 0, 1}));
  EXPECT_EQ(g.edge_id, (std::vector<uint64_t>{1, 0, 2}));
}

TEST(GraphAlgos, SccAndTopo) {
  EdgeList e;  // 0->1->2->0, 2->3, 3->3? no; 4 alone with self loop
  e.add(0, 1, EdgeKind::so), e.add(1, 2, EdgeKind::so), e.add(2, 0, EdgeKind::so), e.add(2, 3, EdgeKind::so);
  e.add(4, 4, EdgeKind::so);
  Csr g = build_csr(5, e);
  Scc s = strongly_connected(g);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.comp[0], s.comp[1]);
  EXPECT_EQ(s.comp[1], s.comp[2]);
  EXPECT_TRUE(s.cyclic[s.comp[0]]);
  EXPECT_FALSE(s.cyclic[s.comp[3]]);
  EXPECT_TRUE(s.cyclic[s.comp[4]]);
  EXPECT_GT(s.comp[0], s.comp[3]);  // edges go from higher to lower ids
  EXPECT_FALSE(is_acyclic(g));
  auto c = short_cycle(g);
  ASSERT_EQ(c.size(), 1u);  // the self loop
  EXPECT_EQ(c[0], 4u);
  auto p = find_path(g, 1, 3);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], 1u);
  EXPECT_EQ(p[1], 3u);
  EXPECT_TRUE(find_path(g, 3, 0).empty());
  EXPECT_EQ(find_path(g, 0, 0).size(), 3u);
}

TEST(GraphAlgos, ShortCycleIsACycle) {
  std::mt19937_64 rng(7);
  for (int it = 0; it < 300; ++it) {
    const auto [n, e, g] = random_csr(rng, 2, 60, it % 3);
    auto c = short_cycle(g);
    std::vector<uint32_t> order;
    const bool acyclic = topological_order(g, &order);
    ASSERT_EQ(acyclic, c.empty());
    if (acyclic) {
      std::vector<uint32_t> pos(n);
      for (uint32_t i = 0; i < n; ++i) pos[order[i]] = i;
      for (size_t i = 0; i < e.size(); ++i) ASSERT_LT(pos[e.src[i]], pos[e.dst[i]]);
    } else {
      for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(e.dst[c[i]], e.src[c[(i + 1) % c.size()]]);
    }
  }
}

TEST(Closure, CpuMatchesNaive) {
  std::mt19937_64 rng(1);
  for (int it = 0; it < 400; ++it) {
    const auto [n, e, g] = random_csr(rng, 1, 300, it % 3);
    std::vector<uint32_t> keys;
    const uint32_t k = 1 + rng() % std::min<uint32_t>(n + 5, 200);
    for (uint32_t i = 0; i < k; ++i) keys.push_back(rng() % n);  // duplicates allowed
    CpuClosureOptions o;
    o.chunk_columns = 64 << (rng() % 3);
    o.threads = 1 + it % 2;
    if (it % 5 == 0) o.memory_budget = 1024;  // forces the smallest chunk
    CpuClosure cpu(o);
    ReachMatrix a = cpu.reach_matrix(g, keys), b = reach_matrix_naive(g, keys);
    ASSERT_EQ(a, b) << "iteration " << it;
    // Query API agrees with the matrix.
    std::vector<ReachQuery> q;
    for (int i = 0; i < 200; ++i) q.push_back({keys[rng() % k], keys[rng() % k]});
    auto ans = cpu.reach_queries(g, q);
    std::vector<uint32_t> idx(n);
    for (uint32_t j = 0; j < k; ++j) idx[keys[j]] = j;
    for (size_t i = 0; i < q.size(); ++i) {
      ASSERT_EQ(ans[i], b.test(idx[q[i].from], idx[q[i].to]));
      ASSERT_EQ(ans[i] != 0, !find_path(g, q[i].from, q[i].to).empty());
    }
  }
}

TEST(Closure, LongChainNoRecursion) {
  const uint32_t n = 1'000'000;
  EdgeList e;
  for (uint32_t v = 0; v + 1 < n; ++v) e.add(v, v + 1, EdgeKind::so);
  e.add(n - 1, n / 2, EdgeKind::rw);
  Csr g = build_csr(n, e);
  CpuClosure cpu;
  std::vector<uint32_t> keys{0, n / 4, n / 2, n - 1};
  ReachMatrix m = cpu.reach_matrix(g, keys);
  EXPECT_TRUE(m.test(0, 3));
  EXPECT_FALSE(m.test(0, 0));
  EXPECT_FALSE(m.test(1, 0));
  EXPECT_TRUE(m.test(2, 2));
  EXPECT_TRUE(m.test(3, 2));
  EXPECT_FALSE(m.test(3, 1));
}

TEST(Closure, EngineByName) {
  EXPECT_NE(make_closure_engine("cpu"), nullptr);
  EXPECT_EQ(make_closure_engine("nonesuch"), nullptr);
}

// The windowed compact closure on real strict-serializability polygraphs
// (realtime layout, random timed blind-write histories): every query answered
// exactly as the plain CPU engine answers it, a good share of them by time
// alone, and pruning with it forces exactly the same sides.
TEST(Closure, WindowedEqualsCpuOnTimedPolygraphs) {
  uint64_t by_time = 0, computed = 0, graphs = 0, cyclic = 0;
  std::mt19937_64 rng(5);
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    RandomHistoryOptions ro;
    ro.mode = seed % 2 ? RandomMode::blind_writes : RandomMode::known_order;
    ro.times_percent = 100;
    ro.min_txns = 5, ro.max_txns = 7;
    History h = random_history(seed, ro);
    DependencyGraph g = build_known_graph(h, {false});
    if (!g.anomalies.empty()) continue;
    PolygraphOptions po;
    po.layout = GraphLayout::realtime;
    po.clock_skew = seed % 3 == 0 ? 3 : 0;
    po.decide_pairs = seed % 4 != 0;
    LevelPolygraph lp = build_level_polygraph(g, h, po);
    TimeWindows w;
    w.skew = po.clock_skew;
    w.lo.assign(lp.pg.vertex_count, TimeWindows::kUnknown);
    w.hi.assign(lp.pg.vertex_count, TimeWindows::kUnknown);
    for (TxnIdx t = 0; t < g.n; ++t)
      if (g.included[t] && h.has_times(t)) w.lo[t] = h.txn_begin[t], w.hi[t] = h.txn_end[t];
    CpuClosure cpu;
    WindowedClosure win(cpu, w);
    const Csr csr = build_csr(lp.pg.vertex_count, lp.pg.known);
    cyclic += !is_acyclic(csr);
    std::vector<ReachQuery> q;
    for (uint32_t u = 0; u < lp.pg.vertex_count; ++u)
      for (uint32_t v = 0; v < lp.pg.vertex_count; ++v) q.push_back({u, v});
    ASSERT_EQ(win.reach_queries(csr, q), cpu.reach_queries(csr, q)) << "seed " << seed;
    // Pruning through the closure method: the same sides forced.
    PruneOptions plain, windowed;
    plain.method = windowed.method = PruneMethod::closure;
    windowed.engine = &win;
    const PruneResult a = prune(lp.pg, plain), b = prune(lp.pg, windowed);
    ASSERT_EQ(a.state, b.state) << "seed " << seed;
    ASSERT_EQ(a.unsat, b.unsat) << "seed " << seed;
    by_time += win.by_time(), computed += win.computed();
    ++graphs;
  }
  std::printf("windowed closure: %llu graphs (%llu cyclic), %llu queries answered by time, %llu computed\n",
              (unsigned long long)graphs, (unsigned long long)cyclic, (unsigned long long)by_time,
              (unsigned long long)computed);
  EXPECT_GE(graphs, 300u);
  EXPECT_GT(by_time, computed / 10);
}

// The path-index answers of reach_queries (many targets, few paths: session-
// shaped graphs) against the bitset propagation: on session graphs with
// read-from and anti-dependency links (some closing cycles), with the session
// hint, with a wrong hint (random vertices, edges that do not exist) and with
// none; and small graphs where the cover is many paths (the index declines).
TEST(Closure, PathIndexEqualsPropagation) {
  std::mt19937_64 rng(7);
  int indexed = 0;
  for (int it = 0; it < 24; ++it) {
    const uint32_t sessions = 4 + rng() % 60, n = 6000 + static_cast<uint32_t>(rng() % 6000);
    EdgeList e;
    std::vector<uint32_t> session_next(n, UINT32_MAX), last(sessions, UINT32_MAX);
    for (uint32_t v = 0; v < n; ++v) {  // v's session: random; edges forward in v (a DAG) ...
      const uint32_t s = static_cast<uint32_t>(rng() % sessions);
      if (last[s] != UINT32_MAX) e.add(last[s], v, EdgeKind::so), session_next[last[s]] = v;
      last[s] = v;
      for (int k = 0; k < 2 && v > 0; ++k) {
        const uint32_t u = v - 1 - static_cast<uint32_t>(rng() % std::min<uint32_t>(v, 200));
        e.add(u, v, EdgeKind::wr);
      }
    }
    if (it % 3 == 0)  // ... and some back edges: SCCs
      for (int k = 0; k < 5; ++k) {
        const uint32_t v = static_cast<uint32_t>(rng() % n);
        e.add(v, v - std::min<uint32_t>(v, 1 + rng() % 50), EdgeKind::rw);
      }
    const Csr g = build_csr(n, e);
    std::vector<ReachQuery> q;
    for (int i = 0; i < 30000; ++i) q.push_back({static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)});
    CpuClosureOptions off;
    off.path_index = false;
    CpuClosure reference(off), plain, hinted, misled;
    const std::vector<uint8_t> want = reference.reach_queries(g, q);
    hinted.set_path_hint(session_next);
    std::vector<uint32_t> wrong(n);
    for (auto& w : wrong) w = rng() % 3 ? static_cast<uint32_t>(rng() % n) : UINT32_MAX;
    misled.set_path_hint(wrong);
    ASSERT_EQ(plain.reach_queries(g, q), want) << "no hint, iteration " << it;
    ASSERT_EQ(hinted.reach_queries(g, q), want) << "session hint, iteration " << it;
    ASSERT_EQ(misled.reach_queries(g, q), want) << "wrong hint, iteration " << it;
    // Spot-check the reference itself.
    for (int i = 0; i < 50; ++i) ASSERT_EQ(want[i] != 0, !find_path(g, q[i].from, q[i].to).empty());
    indexed += sessions * 128 <= 4096;
  }
  EXPECT_GE(indexed, 1);
}

// Pruning's rounds: a cover declined for its targets is not computed again
// for as many targets or fewer over the same vertices (it cost a third of a
// contended BlindW-RW run, found and declined every round), and the answers
// stay the propagation's; more targets, or a new sequence (set_path_hint),
// try a cover again.
TEST(Closure, DeclinedPathCoverIsNotRecomputedForFewerTargets) {
  std::mt19937_64 rng(5);
  const uint32_t n = 9000, sessions = 400;  // 400 paths: declined below 51,200 targets
  EdgeList e;
  std::vector<uint32_t> last(sessions, UINT32_MAX);
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t s = static_cast<uint32_t>(rng() % sessions);
    if (last[s] != UINT32_MAX) e.add(last[s], v, EdgeKind::so);
    last[s] = v;
    if (v > 0) e.add(v - 1 - static_cast<uint32_t>(rng() % std::min<uint32_t>(v, 300)), v, EdgeKind::wr);
  }
  const Csr g = build_csr(n, e);
  auto queries = [&](uint32_t targets) {  // distinct targets n-1, n-2, ..., sources anywhere below them
    std::vector<ReachQuery> q;
    for (uint32_t t = n - targets; t < n; ++t) q.push_back({static_cast<uint32_t>(rng() % t), t});
    return q;
  };
  CpuClosureOptions off;
  off.path_index = false;
  CpuClosure reference(off), engine;
  engine.set_path_hint({});
  for (uint32_t targets : {6000u, 5000u, 4500u}) {
    const std::vector<ReachQuery> q = queries(targets);
    ASSERT_EQ(engine.reach_queries(g, q), reference.reach_queries(g, q)) << targets << " targets";
  }
  EXPECT_EQ(engine.covers_tried(), 1u) << "the declined cover was computed again for fewer targets";
  const std::vector<ReachQuery> more = queries(7000);
  ASSERT_EQ(engine.reach_queries(g, more), reference.reach_queries(g, more));
  EXPECT_EQ(engine.covers_tried(), 2u) << "more targets than the declined cover's: tried again";
  engine.set_path_hint({});
  const std::vector<ReachQuery> again = queries(5000);
  ASSERT_EQ(engine.reach_queries(g, again), reference.reach_queries(g, again));
  EXPECT_EQ(engine.covers_tried(), 3u) << "a new sequence of rounds tries a cover again";
}

// The cover gives up early only when no cover under the caller's limit is
// possible or reachable: then it reports more paths than the limit; below it,
// the same cover as without a limit. (Before the limit, a layered graph of
// 10^6 vertices spent 2.2 s on a cover the engine then declined.)
TEST(Closure, PathCoverGivesUpOnlyAboveItsLimit) {
  std::mt19937_64 rng(11);
  for (int it = 0; it < 40; ++it) {
    const uint32_t n = 200 + static_cast<uint32_t>(rng() % 2000), chains = 1 + static_cast<uint32_t>(rng() % 40);
    // Successors smaller than v (sinks first), as PathIndex wants: `chains`
    // long chains plus random shortcuts; every fourth graph also has many
    // isolated vertices (each a path of its own).
    std::vector<std::vector<uint32_t>> s(n);
    const uint32_t isolated = it % 4 == 0 ? n / 3 : 0;
    for (uint32_t v = isolated + chains; v < n; ++v) {
      s[v].push_back(v - chains);
      if (rng() % 3 == 0) s[v].push_back(static_cast<uint32_t>(rng() % (v - chains + 1)));
      std::sort(s[v].begin(), s[v].end());
      s[v].erase(std::unique(s[v].begin(), s[v].end()), s[v].end());
    }
    std::vector<uint64_t> off(n + 1, 0);
    std::vector<uint32_t> succ;
    for (uint32_t v = 0; v < n; ++v) succ.insert(succ.end(), s[v].begin(), s[v].end()), off[v + 1] = succ.size();
    PathIndex free_cover;
    const uint32_t k = free_cover.cover(n, off, succ);
    for (uint32_t limit : {0u, k / 2, k - 1, k, k + 1, 2 * k + 5}) {
      PathIndex limited;
      const uint32_t got = limited.cover(n, off, succ, nullptr, limit);
      if (got <= limit) {
        EXPECT_EQ(got, k) << "iteration " << it << " limit " << limit;
      } else {
        EXPECT_LT(limit, k) << "gave up although a cover of " << k << " fits under " << limit;
      }
    }
  }
}

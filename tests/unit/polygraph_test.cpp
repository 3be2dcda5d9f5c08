#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "solver/polygraph_solver.h"
#include "solver/sat_core.h"
#include "solver/sat_random.h"
#include "solver/subproblems.h"
#include "gen/gen.h"
#include "graph/known_graph.h"
#include "graph/polygraph_build.h"

using namespace isocheck;

namespace {

// witness_cycle is a closed walk of edges of known ∪ the reported sides.
::testing::AssertionResult valid_witness(const Polygraph& pg, const PolygraphResult& r) {
  const EdgeList& c = r.witness_cycle;
  if (c.size() == 0) return ::testing::AssertionFailure() << "empty witness";
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.dst[i] != c.src[(i + 1) % c.size()]) return ::testing::AssertionFailure() << "not closed at " << i;
    bool found = false;
    for (size_t k = 0; k < pg.known.size() && !found; ++k)
      found = pg.known.src[k] == c.src[i] && pg.known.dst[k] == c.dst[i] && pg.known.kind[k] == c.kind[i] && pg.known.why[k] == c.why[i];
    for (size_t q = 0; q < pg.constraints.size() && !found; ++q) {
      const Constraint& k = pg.constraints[q];
      const uint64_t b = r.side[q] ? k.b_begin : k.a_begin, e = r.side[q] ? k.b_end : k.a_end;
      for (uint64_t j = b; j < e && !found; ++j)
        found = pg.choice_edges.src[j] == c.src[i] && pg.choice_edges.dst[j] == c.dst[i] && pg.choice_edges.kind[j] == c.kind[i];
    }
    if (!found) return ::testing::AssertionFailure() << "edge " << c.src[i] << "->" << c.dst[i] << " not in the graph";
  }
  return ::testing::AssertionSuccess();
}

// A generated BlindW-RW history (isolation, sessions, keys, txns, plants)
// and its known graph: anomaly-free, with many unordered write pairs.
struct BlindCase {
  History h;
  DependencyGraph g;
};
BlindCase blind_case(const char* isolation, uint32_t sessions, uint64_t keys, uint64_t txns,
                     std::vector<std::string> plant = {}) {
  GenOptions go;
  go.workload = "blindw-rw";
  go.isolation = isolation;
  go.txns = txns;
  go.sessions = sessions;
  go.keys = keys;
  go.plant = std::move(plant);
  BlindCase c{generate_history(go), {}};
  c.g = build_known_graph(c.h, {false});
  EXPECT_TRUE(c.g.anomalies.empty());
  EXPECT_GT(c.g.unordered_write_pairs, 100000u);
  return c;
}

bool same(const PolygraphResult& a, const PolygraphResult& b) {
  return a.acyclic == b.acyclic && a.side == b.side && a.witness_cycle.src == b.witness_cycle.src &&
         a.witness_cycle.dst == b.witness_cycle.dst && a.core_constraints == b.core_constraints;
}

}  // namespace

TEST(Polygraph, NoConstraints) {
  Polygraph pg;
  pg.vertex_count = 6;
  for (uint32_t v = 0; v < 5; ++v) pg.known.add(v, v + 1, EdgeKind::so);
  PolygraphResult r = solve_polygraph(pg);
  EXPECT_TRUE(r.acyclic);
  EXPECT_EQ(r.constraints, 0u);
  pg.known.add(5, 0, EdgeKind::rw);  // 6-cycle
  pg.known.add(3, 2, EdgeKind::rw);  // 2-cycle 2->3->2
  r = solve_polygraph(pg);
  EXPECT_FALSE(r.acyclic);
  EXPECT_EQ(r.witness_cycle.size(), 2u);
  EXPECT_TRUE(valid_witness(pg, r));
  EXPECT_TRUE(r.core_constraints.empty());
}

TEST(Polygraph, SplitsIndependentParts) {
  // Two copies of a 3-vertex "either order" gadget far apart, plus a
  // constraint whose sides only cross components.
  std::mt19937_64 rng(11);
  Polygraph pg;
  pg.vertex_count = 8;
  auto gadget = [&](uint32_t o) {
    pg.known.add(o, o + 1, EdgeKind::wr);
    Constraint c;
    c.a_begin = pg.choice_edges.size();
    pg.choice_edges.add(o + 1, o + 2, EdgeKind::ww), pg.choice_edges.add(o + 2, o, EdgeKind::rw);
    c.a_end = c.b_begin = pg.choice_edges.size();
    pg.choice_edges.add(o + 2, o + 1, EdgeKind::ww);
    c.b_end = pg.choice_edges.size();
    pg.constraints.push_back(c);
    c.a_begin = pg.choice_edges.size();
    pg.choice_edges.add(o + 2, o, EdgeKind::ww);
    c.a_end = c.b_begin = pg.choice_edges.size();
    pg.choice_edges.add(o, o + 2, EdgeKind::ww);
    c.b_end = pg.choice_edges.size();
    pg.constraints.push_back(c);
  };
  gadget(0), gadget(4);
  Constraint x;  // 3 -> 7 or 2 -> 7: always crossing
  x.a_begin = pg.choice_edges.size();
  pg.choice_edges.add(3, 7, EdgeKind::ww);
  x.a_end = x.b_begin = pg.choice_edges.size();
  pg.choice_edges.add(2, 7, EdgeKind::ww);
  x.b_end = pg.choice_edges.size();
  pg.constraints.push_back(x);
  const Split sp = split_polygraph(pg);
  EXPECT_EQ(sp.parts.size(), 2u);
  EXPECT_EQ(sp.fixed, 1u);
  EXPECT_EQ(sp.side[4], 0);
  PolygraphResult r = solve_polygraph(pg);
  EXPECT_TRUE(r.acyclic);
  EXPECT_TRUE(assignment_acyclic(pg, r.side));
  EXPECT_EQ(r.constraints, 5u);
}

TEST(Polygraph, SmallRandomAgainstBruteForce) {
  std::mt19937_64 rng(99);
  int unsat = 0, solver_unsat = 0;
  for (int it = 0; it < 1500; ++it) {
    RandomPolygraphSpec s;
    s.vertices = 3 + rng() % 12, s.known_edges = rng() % 24, s.constraints = rng() % 13;
    s.extra_per_side = rng() % 3, s.backward = 0.03 * (rng() % 3);
    // Every third one a 3-CNF near the threshold: only the search decides it.
    const uint32_t vars = 3 + rng() % 8;
    const Polygraph pg = it % 3 == 2 ? random_3sat_polygraph(rng, vars, vars * 4 + rng() % (vars + 1), rng() % 8)
                                     : random_polygraph(rng, s);
    const bool bf = brute_force_acyclic(pg);
    SolveOptions o;
    o.backend = it % 2 ? Backend::cadical : Backend::own;
    o.threads = 1;
    const PolygraphResult r = solve_polygraph(pg, o);
    o.threads = 3;
    const PolygraphResult r3 = solve_polygraph(pg, o);
    ASSERT_TRUE(same(r, r3)) << "thread count changed the answer, iteration " << it;
    ASSERT_EQ(r.acyclic, bf) << it;
    ASSERT_EQ(r.constraints, pg.constraints.size());
    ASSERT_LE(r.pruned + r.to_solver + r.fixed_by_split, r.constraints);
    if (bf) {
      ASSERT_TRUE(assignment_acyclic(pg, r.side)) << it;
      continue;
    }
    ++unsat;
    ASSERT_TRUE(valid_witness(pg, r)) << it;
    ASSERT_FALSE(brute_force_acyclic(restrict_constraints(pg, r.core_constraints))) << it;
    if (r.to_solver > 0) ++solver_unsat;
    if (r.core_minimal)
      for (size_t i = 0; i < r.core_constraints.size(); ++i) {
        auto less = r.core_constraints;
        less.erase(less.begin() + i);
        ASSERT_TRUE(brute_force_acyclic(restrict_constraints(pg, less))) << "core not minimal, iteration " << it;
      }
  }
  EXPECT_GT(unsat, 200);
  EXPECT_GT(solver_unsat, 20);  // refutations that needed the SAT search
}

TEST(Polygraph, MediumOwnEqualsCadical) {
  std::mt19937_64 rng(2024);
  int sat = 0, unsat = 0, searched = 0, searched_unsat = 0;
  double t_own = 0, t_cad = 0;
  for (int it = 0; it < 1000; ++it) {
    RandomPolygraphSpec s;
    s.vertices = 50 + rng() % 451;
    s.known_edges = s.vertices * (1 + rng() % 2);
    s.constraints = s.vertices / 2 + rng() % s.vertices;
    s.extra_per_side = rng() % 3;
    s.backward = (rng() % 3) * 0.002;
    s.locality = 3 + rng() % 12;
    const uint32_t vars = 15 + rng() % 30;
    const Polygraph pg = it % 3 == 2 ? random_3sat_polygraph(rng, vars, vars * 4 + rng() % (vars / 2), rng() % 50)
                                     : random_polygraph(rng, s);
    SolveOptions o;
    o.core_budget_s = 0;  // compare verdicts and witnesses, not cores
    auto t0 = std::chrono::steady_clock::now();
    const PolygraphResult a = solve_polygraph(pg, o);
    auto t1 = std::chrono::steady_clock::now();
    o.backend = Backend::cadical;
    const PolygraphResult b = solve_polygraph(pg, o);
    auto t2 = std::chrono::steady_clock::now();
    t_own += std::chrono::duration<double>(t1 - t0).count(), t_cad += std::chrono::duration<double>(t2 - t1).count();
    ASSERT_EQ(a.acyclic, b.acyclic) << "iteration " << it;
    ASSERT_TRUE(a.decided && b.decided);
    searched += a.to_solver > 0;
    if (a.acyclic) {
      ++sat;
      ASSERT_TRUE(assignment_acyclic(pg, a.side)) << it;
      ASSERT_TRUE(assignment_acyclic(pg, b.side)) << it;
    } else {
      ++unsat;
      searched_unsat += a.to_solver > 0;
      ASSERT_FALSE(a.core_constraints.empty() && a.to_solver > 0);
      ASSERT_TRUE(valid_witness(pg, a)) << it;
      ASSERT_TRUE(valid_witness(pg, b)) << it;
    }
  }
  std::printf("medium: %d sat, %d unsat, %d reached the SAT search (%d of them unsat); own %.2f s, cadical %.2f s\n", sat, unsat, searched, searched_unsat, t_own, t_cad);
  EXPECT_GT(sat, 100);
  EXPECT_GT(unsat, 100);
  EXPECT_GT(searched, 100);
  EXPECT_GT(searched_unsat, 50);
}

// Deciding chain pairs while building, on the level polygraphs of real
// blind-write histories: the 16-bit and the 32-bit reachability index give
// the same polygraph, and with or without the decisions the solver reaches
// the same verdict (pairs decided at build are exactly those pruning would
// force).
TEST(Polygraph, PairsDecidedAtBuildKeepVerdictsAndIndexWidthsAgree) {
  int compared = 0, decided_some = 0, violations = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    GenOptions go;
    go.workload = seed % 2 ? "blindw-rw" : "blindw-wh";
    go.txns = 100 + seed * 4;
    go.seed = seed;
    go.sessions = 4 + seed % 5;
    go.keys = 20 + seed % 7;
    if (seed % 3 == 0) go.plant = {seed % 2 ? "write-skew" : "g-single"};  // a violation on fresh keys
    History h = generate_history(go);
    DependencyGraph g = build_known_graph(h, {true});
    if (!g.anomalies.empty() || g.unordered.empty()) continue;
    for (GraphLayout layout : {GraphLayout::plain, GraphLayout::realtime, GraphLayout::split}) {
      PolygraphOptions narrow, wide, none;
      narrow.layout = wide.layout = none.layout = layout;
      narrow.include_si_only = wide.include_si_only = none.include_si_only = layout == GraphLayout::split;
      wide.narrow_index = false;
      none.decide_pairs = false;
      LevelPolygraph a = build_level_polygraph(g, h, narrow), b = build_level_polygraph(g, h, wide),
                     c = build_level_polygraph(g, h, none), a2 = build_level_polygraph(g, h, narrow);
      ASSERT_EQ(a.pg.known.src, a2.pg.known.src) << "not deterministic, seed " << seed;
      ASSERT_EQ(a.pg.known.src, b.pg.known.src) << "seed " << seed;
      ASSERT_EQ(a.pg.known.dst, b.pg.known.dst) << "seed " << seed;
      ASSERT_EQ(a.pg.constraints.size(), b.pg.constraints.size()) << "seed " << seed;
      ASSERT_EQ(a.decided_at_build, b.decided_at_build) << "seed " << seed;
      SolveOptions so;
      so.core_budget_s = 0;
      const PolygraphResult ra = solve_polygraph(a.pg, so), rc = solve_polygraph(c.pg, so);
      ASSERT_TRUE(ra.decided && rc.decided);
      ASSERT_EQ(ra.acyclic, rc.acyclic) << "seed " << seed << " layout " << static_cast<int>(layout);
      ++compared;
      decided_some += a.decided_at_build > 0;
      violations += !ra.acyclic;
    }
  }
  std::printf("compared %d level polygraphs; %d with pairs decided at build; %d violations\n", compared, decided_some,
              violations);
  EXPECT_GE(compared, 60);
  EXPECT_GE(decided_some, 30);
  EXPECT_GE(violations, 5);
}

// Regression: with many sessions the reachability index's path cover used to
// follow read-from edges and split into ~10× more paths than sessions (591
// for 64 sessions), which put the index over its budget; then no chain pair
// was decided while building and ~10^6 pairs became constraints (a 10^5
// transaction BlindW-RW history with 64 sessions ran for minutes). The cover
// now follows session order: nearly every pair is forced at build.
TEST(Polygraph, ManySessionsStillDecidePairsAtBuild) {
  const BlindCase c = blind_case("ser", 64, 0, 20000);
  const History& h = c.h;
  const DependencyGraph& g = c.g;
  for (GraphLayout layout : {GraphLayout::plain, GraphLayout::realtime}) {
    PolygraphOptions po;
    po.layout = layout;
    LevelPolygraph lp = build_level_polygraph(g, h, po);
    EXPECT_GT(lp.decided_at_build + lp.ordered_by_time, g.unordered_write_pairs * 9 / 10)
        << "layout " << static_cast<int>(layout) << ": " << lp.pg.constraints.size() << " constraints";
  }
}

// Regression: a simulated snapshot-isolation database on few keys records
// more aborted attempts than commits; each aborted attempt is a vertex
// without edges, and the reachability index's path cover gave each one a
// path of its own (5345 paths over 13431 vertices), which put the index over
// its budget: no chain pair was decided while building and millions became
// constraints (the local search's region of a 20 000-transaction BlindW-RW
// history took 2.6 GB and 9 s, even for read-uncommitted alone; this smaller
// case: 151 468 pairs, none decided). Edgeless vertices now share one path.
TEST(Polygraph, AbortedAttemptsDoNotWidenTheIndex) {
  const BlindCase c = blind_case("si", 16, 50, 1000);
  const History& h = c.h;
  const DependencyGraph& g = c.g;
  const auto aborted = std::count(h.txn_status.begin(), h.txn_status.end(), TxnStatus::aborted);
  ASSERT_GT(aborted, 500) << "the case needs many edgeless vertices";
  PolygraphOptions po;  // SER's layout
  LevelPolygraph lp = build_level_polygraph(g, h, po);
  EXPECT_GT(lp.decided_at_build, g.unordered_write_pairs * 8 / 10) << lp.pg.constraints.size() << " constraints";
  SolveOptions so;
  so.core_budget_s = 0;
  PolygraphOptions none = po;
  none.decide_pairs = false;
  LevelPolygraph all = build_level_polygraph(g, h, none);
  const PolygraphResult r = solve_polygraph(lp.pg, so), r_all = solve_polygraph(all.pg, so);
  ASSERT_TRUE(r.decided && r_all.decided);
  EXPECT_TRUE(r.acyclic);  // a snapshot-isolation execution of blind writes with reads: serializable here
  EXPECT_EQ(r.acyclic, r_all.acyclic);
}

// Regression: when the known graph already has a cycle (a long fork read
// from the initial state is one: both anti-dependencies are known), every
// choice contains it, so no chain pair matters; the index cannot be built
// over a cyclic graph and all pairs used to become constraints — quadratic
// in a key's writers (158 million pairs, out of memory, on 20 000
// transactions over 20 keys). Now none is built and pruning reports the cycle.
TEST(Polygraph, KnownCycleBuildsNoConstraints) {
  const BlindCase c = blind_case("si", 4, 20, 3000, {"long-fork"});
  const History& h = c.h;
  const DependencyGraph& g = c.g;
  for (GraphLayout layout : {GraphLayout::plain, GraphLayout::realtime}) {
    PolygraphOptions po;
    po.layout = layout;
    LevelPolygraph lp = build_level_polygraph(g, h, po);
    EXPECT_EQ(lp.pg.constraints.size(), 0u) << "layout " << static_cast<int>(layout);
    SolveOptions so;
    so.core_budget_s = 0;
    const PolygraphResult r = solve_polygraph(lp.pg, so);
    ASSERT_TRUE(r.decided);
    EXPECT_FALSE(r.acyclic);
    EXPECT_TRUE(valid_witness(lp.pg, r));
    const EdgeList cyc = cycle_to_txn_edges(r.witness_cycle, lp);
    EXPECT_EQ(cyc.size(), 4u);  // the planted long fork: wr, rw, wr, rw
  }
}

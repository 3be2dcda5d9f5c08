#include <gtest/gtest.h>

#include <random>

#include "solver/prune.h"
#include "solver/sat_random.h"

using namespace isocheck;

namespace {
// Adds a constraint with side A = {a}, side B = {b} (single edges).
void constrain(Polygraph& pg, std::pair<uint32_t, uint32_t> a, std::pair<uint32_t, uint32_t> b) {
  Constraint c;
  c.a_begin = pg.choice_edges.size();
  pg.choice_edges.add(a.first, a.second, EdgeKind::ww);
  c.a_end = c.b_begin = pg.choice_edges.size();
  pg.choice_edges.add(b.first, b.second, EdgeKind::ww);
  c.b_end = pg.choice_edges.size();
  pg.constraints.push_back(c);
}

// Four vertices, with the known path 0 -> 1 -> 2.
Polygraph path_0_1_2() {
  Polygraph pg;
  pg.vertex_count = 4;
  pg.known.add(0, 1, EdgeKind::wr), pg.known.add(1, 2, EdgeKind::wr);
  return pg;
}

using Side = std::pair<uint32_t, uint32_t>;

// prune() on path_0_1_2() with these constraints (side A, side B): not
// unsatisfiable, each constraint in `state`, `remaining` of them undecided.
PruneResult prune_path(const std::vector<std::pair<Side, Side>>& constraints, const std::vector<uint8_t>& state,
                       size_t remaining) {
  Polygraph pg = path_0_1_2();
  for (const auto& [a, b] : constraints) constrain(pg, a, b);
  const PruneResult r = prune(pg);
  EXPECT_FALSE(r.unsat);
  EXPECT_EQ(r.state, state);
  EXPECT_EQ(r.remaining, remaining);
  return r;
}
}  // namespace

TEST(Prune, ForcesTheOnlyPossibleSide) {
  const PruneResult r = prune_path({{{2, 0}, {0, 2}},   // A closes 0->1->2->0: B forced
                                    {{3, 1}, {1, 3}}},  // free
                                   {PruneResult::forced_b, PruneResult::undecided}, 1);
  EXPECT_EQ(r.constraints, 2u);
  EXPECT_EQ(r.pruned, 1u);
}

TEST(Prune, ChainsToAFixpoint) {
  // Forcing c0's side B adds 2 -> 3, which then forces c1 in the next round.
  const PruneResult r = prune_path({{{2, 0}, {2, 3}},
                                    {{3, 0}, {0, 3}}},  // A: 3->0 closes 0->1->2->3->0 once 2->3 known
                                   {PruneResult::forced_b, PruneResult::forced_b}, 0);
  EXPECT_GE(r.rounds, 2u);
}

TEST(Prune, BothSidesImpossible) {
  Polygraph pg;
  pg.vertex_count = 3;
  pg.known.add(0, 1, EdgeKind::wr), pg.known.add(1, 0, EdgeKind::rw);
  // Known graph itself is cyclic: reported first.
  PruneResult r = prune(pg);
  EXPECT_TRUE(r.unsat);
  EXPECT_EQ(r.cycle_a.size(), 2u);
  EXPECT_EQ(r.conflict_constraint, UINT32_MAX);

  Polygraph q;
  q.vertex_count = 4;
  q.known.add(0, 1, EdgeKind::wr), q.known.add(2, 3, EdgeKind::wr);
  constrain(q, {1, 0}, {3, 2});  // both close a 2-cycle
  r = prune(q);
  ASSERT_TRUE(r.unsat);
  EXPECT_EQ(r.conflict_constraint, 0u);
  std::vector<uint8_t> a{0}, b{1};
  EXPECT_TRUE(is_witness_cycle(q, a, r.cycle_a));
  EXPECT_TRUE(is_witness_cycle(q, b, r.cycle_b));
  EXPECT_EQ(r.cycle_a.size(), 2u);
  EXPECT_EQ(r.core, std::vector<uint32_t>{0});
}

TEST(Prune, ForcedSidesTogetherCloseACycle) {
  // Each side is forced on the round's starting graph; together they loop.
  Polygraph pg;
  pg.vertex_count = 4;
  pg.known.add(0, 1, EdgeKind::wr), pg.known.add(2, 3, EdgeKind::wr);
  constrain(pg, {1, 0}, {1, 2});  // forced B: 1->2
  constrain(pg, {3, 2}, {3, 0});  // forced B: 3->0  => 0->1->2->3->0
  PruneOptions o;
  o.method = PruneMethod::closure;
  const PruneResult r = prune(pg, o);
  ASSERT_TRUE(r.unsat);
  EXPECT_EQ(r.cycle_a.size(), 4u);
  EXPECT_EQ(r.core, (std::vector<uint32_t>{0, 1}));
  // Incrementally, c1 meets the graph with c0's forced edge: both its sides
  // close a cycle (3->2->3 and 3->0->1->2->3).
  o.method = PruneMethod::incremental;
  const PruneResult q = prune(pg, o);
  ASSERT_TRUE(q.unsat);
  EXPECT_EQ(q.conflict_constraint, 1u);
  EXPECT_EQ(q.cycle_a.size(), 2u);
  EXPECT_EQ(q.cycle_b.size(), 4u);
  EXPECT_EQ(q.core, (std::vector<uint32_t>{0, 1}));
}

TEST(Prune, IncrementalForcedSideClosesACycleByItself) {
  // Side B's two edges are each fine alone but loop together: 0->1 ... 2->3
  // with known 1->2 and 3->0. Side A is impossible (self loop).
  Polygraph pg;
  pg.vertex_count = 4;
  pg.known.add(1, 2, EdgeKind::wr), pg.known.add(3, 0, EdgeKind::wr);
  Constraint c;
  c.a_begin = 0;
  pg.choice_edges.add(1, 1, EdgeKind::ww);
  c.a_end = c.b_begin = 1;
  pg.choice_edges.add(0, 1, EdgeKind::ww), pg.choice_edges.add(2, 3, EdgeKind::ww);
  c.b_end = 3;
  pg.constraints.push_back(c);
  for (PruneMethod m : {PruneMethod::closure, PruneMethod::incremental}) {
    PruneOptions o;
    o.method = m;
    const PruneResult r = prune(pg, o);
    ASSERT_TRUE(r.unsat);
    std::vector<uint8_t> side{1};
    EXPECT_TRUE(is_witness_cycle(pg, side, r.cycle_a));
    EXPECT_EQ(r.core, std::vector<uint32_t>{0});
  }
}

TEST(Prune, IncrementalReordersOnLongChains) {
  // A long known path with constraints whose forced sides go against the
  // initial (Kahn) order: exercises Pearce–Kelly reordering; both methods
  // must agree on every forced side.
  std::mt19937_64 rng(11);
  for (int it = 0; it < 300; ++it) {
    RandomPolygraphSpec s;
    s.vertices = 20 + rng() % 200, s.known_edges = rng() % 300, s.constraints = rng() % 60;
    s.extra_per_side = rng() % 3, s.backward = 0.01 * (rng() % 3), s.locality = rng() % 2 ? 8 : 0;
    s.satisfiable = rng() % 2;
    const Polygraph pg = random_polygraph(rng, s);
    PruneOptions a, b;
    a.method = PruneMethod::closure, b.method = PruneMethod::incremental;
    const PruneResult ra = prune(pg, a), rb = prune(pg, b);
    ASSERT_EQ(ra.unsat, rb.unsat) << it;
    if (!ra.unsat) {
      EXPECT_EQ(ra.state, rb.state) << it;
      EXPECT_EQ(ra.pruned, rb.pruned) << it;
    }
  }
}

TEST(Prune, SelfLoopSide) {
  Polygraph pg;
  pg.vertex_count = 2;
  constrain(pg, {1, 1}, {0, 1});
  const PruneResult r = prune(pg);
  EXPECT_FALSE(r.unsat);
  EXPECT_EQ(r.state[0], PruneResult::forced_b);
}

TEST(Prune, SoundOnRandomPolygraphs) {
  // Pruning never changes satisfiability; forced sides agree with every
  // acyclic choice.
  std::mt19937_64 rng(3);
  for (int it = 0; it < 1500; ++it) {
    RandomPolygraphSpec s;
    s.vertices = 3 + rng() % 10, s.known_edges = rng() % 20, s.constraints = rng() % 10;
    s.extra_per_side = rng() % 3, s.backward = 0.02 * (rng() % 3);
    const Polygraph pg = random_polygraph(rng, s);
    std::vector<uint8_t> side;
    const bool bf = brute_force_acyclic(pg, &side);
    for (PruneMethod m : {PruneMethod::closure, PruneMethod::incremental}) {
    PruneOptions o;
    o.method = m;
    const PruneResult r = prune(pg, o);
    if (r.unsat) {
      ASSERT_FALSE(bf) << it;
      // The core is closed under reasons: unsatisfiable on its own.
      std::vector<uint32_t> core = r.core;
      Polygraph sub = pg;
      sub.constraints.clear();
      for (uint32_t c : core) sub.constraints.push_back(pg.constraints[c]);
      ASSERT_FALSE(brute_force_acyclic(sub)) << it;
      std::vector<uint8_t> sa(pg.constraints.size(), 0), sb(pg.constraints.size(), 0);
      for (uint32_t c = 0; c < pg.constraints.size(); ++c)
        if (r.state[c]) sa[c] = sb[c] = r.state[c] == PruneResult::forced_b;
      if (r.conflict_constraint != UINT32_MAX) sb[r.conflict_constraint] = 1;
      ASSERT_TRUE(is_witness_cycle(pg, sa, r.cycle_a)) << it;
      if (!r.cycle_b.empty()) { ASSERT_TRUE(is_witness_cycle(pg, sb, r.cycle_b)) << it; }
    } else if (bf) {
      // Fix the forced sides: still satisfiable.
      Polygraph f = pg;
      for (uint32_t c = 0; c < pg.constraints.size(); ++c) {
        if (!r.state[c]) continue;
        Constraint& k = f.constraints[c];
        if (r.state[c] == PruneResult::forced_a) k.b_begin = k.a_begin, k.b_end = k.a_end;
        else k.a_begin = k.b_begin, k.a_end = k.b_end;
      }
      ASSERT_TRUE(brute_force_acyclic(f)) << it;
    }
    }
  }
}

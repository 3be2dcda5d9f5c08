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
}  // namespace

TEST(Prune, ForcesTheOnlyPossibleSide) {
  Polygraph pg;
  pg.vertex_count = 4;
  pg.known.add(0, 1, EdgeKind::wr), pg.known.add(1, 2, EdgeKind::wr);
  constrain(pg, {2, 0}, {0, 2});  // A closes 0->1->2->0: B forced
  constrain(pg, {3, 1}, {1, 3});  // free
  const PruneResult r = prune(pg);
  EXPECT_FALSE(r.unsat);
  EXPECT_EQ(r.state[0], PruneResult::forced_b);
  EXPECT_EQ(r.state[1], PruneResult::undecided);
  EXPECT_EQ(r.constraints, 2u);
  EXPECT_EQ(r.pruned, 1u);
  EXPECT_EQ(r.remaining, 1u);
}

TEST(Prune, ChainsToAFixpoint) {
  // Forcing c0's side B adds 2 -> 3, which then forces c1 in the next round.
  Polygraph pg;
  pg.vertex_count = 4;
  pg.known.add(0, 1, EdgeKind::wr), pg.known.add(1, 2, EdgeKind::wr);
  constrain(pg, {2, 0}, {2, 3});
  constrain(pg, {3, 0}, {0, 3});  // A: 3->0 closes 0->1->2->3->0 once 2->3 known
  const PruneResult r = prune(pg);
  EXPECT_FALSE(r.unsat);
  EXPECT_EQ(r.state[0], PruneResult::forced_b);
  EXPECT_EQ(r.state[1], PruneResult::forced_b);
  EXPECT_GE(r.rounds, 2u);
  EXPECT_EQ(r.remaining, 0u);
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
  const PruneResult r = prune(pg);
  ASSERT_TRUE(r.unsat);
  EXPECT_EQ(r.cycle_a.size(), 4u);
  EXPECT_EQ(r.core, (std::vector<uint32_t>{0, 1}));
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
    const PruneResult r = prune(pg);
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
      if (!r.cycle_b.empty()) ASSERT_TRUE(is_witness_cycle(pg, sb, r.cycle_b)) << it;
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

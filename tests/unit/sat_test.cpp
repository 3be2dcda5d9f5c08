#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "solver/cadical_backend.h"
#include "solver/sat_core.h"
#include "solver/sat_random.h"
#include "solver/sat_solver.h"

using namespace isocheck;

namespace {

RandomPolygraphSpec small_spec(std::mt19937_64& rng) {
  RandomPolygraphSpec s;
  s.vertices = 3 + rng() % 12;
  s.known_edges = rng() % (2 * s.vertices);
  s.constraints = rng() % 13;
  s.extra_per_side = rng() % 3;
  s.backward = (rng() % 4) * 0.03;
  return s;
}

std::vector<uint32_t> all_constraints(const Polygraph& pg) {
  std::vector<uint32_t> v(pg.constraints.size());
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

void check_unsat_answer(const Polygraph& pg, const SatResult& r, const char* who) {
  // The reported core is unsatisfiable with the known graph.
  EXPECT_FALSE(brute_force_acyclic(restrict_constraints(pg, r.core))) << who;
  // The cycle is a cycle of known ∪ the reported sides.
  if (!r.cycle.empty()) { EXPECT_TRUE(is_witness_cycle(pg, r.side, r.cycle)) << who; }
}

}  // namespace

TEST(Sat, EmptyAndTrivial) {
  Polygraph pg;
  pg.vertex_count = 3;
  pg.known.add(0, 1, EdgeKind::wr);
  EXPECT_EQ(solve_own(pg).status, SatStatus::sat);
  EXPECT_EQ(solve_cadical(pg).status, SatStatus::sat);
  pg.known.add(1, 0, EdgeKind::rw);  // known cycle
  auto r = solve_own(pg);
  EXPECT_EQ(r.status, SatStatus::unsat);
  EXPECT_TRUE(r.core.empty());
  EXPECT_EQ(r.cycle.size(), 2u);
  EXPECT_EQ(solve_cadical(pg).status, SatStatus::unsat);
}

TEST(Sat, TwoConstraintsForcedContradiction) {
  // 0 -> 1 known. c0: A = {1->2}, B = {2->0}; c1: A = {2->1}, B = {0->2}.
  // Every choice closes a cycle.
  Polygraph pg;
  pg.vertex_count = 3;
  pg.known.add(0, 1, EdgeKind::wr);
  pg.choice_edges.add(1, 2, EdgeKind::ww), pg.choice_edges.add(2, 0, EdgeKind::ww);
  pg.choice_edges.add(2, 1, EdgeKind::ww), pg.choice_edges.add(0, 2, EdgeKind::ww);
  pg.constraints.push_back({0, 1, 1, 2});
  pg.constraints.push_back({2, 3, 3, 4});
  // side choices: (A,A): 1->2->1 cycle. (A,B): 0->1->2, 0->2 ok! so satisfiable.
  EXPECT_TRUE(brute_force_acyclic(pg));
  EXPECT_EQ(solve_own(pg).status, SatStatus::sat);
  pg.known.add(2, 0, EdgeKind::so);  // now 0->1, 2->0: A of c0 closes 0->1->2->0, B fine; ...
  const bool bf = brute_force_acyclic(pg);
  EXPECT_EQ(solve_own(pg).status == SatStatus::sat, bf);
  EXPECT_EQ(solve_cadical(pg).status == SatStatus::sat, bf);
}

TEST(Sat, OwnVsCadicalVsBruteForce) {
  std::mt19937_64 rng(20240601);
  int sat = 0, unsat = 0;
  for (int it = 0; it < 3000; ++it) {
    const uint32_t vars = 3 + rng() % 8;
    const Polygraph pg = it % 3 == 2 ? random_3sat_polygraph(rng, vars, vars * 4 + rng() % (vars + 1), rng() % 8)
                                     : random_polygraph(rng, small_spec(rng));
    std::vector<uint8_t> bside;
    const bool bf = brute_force_acyclic(pg, &bside);
    OwnSatOptions oo;
    oo.theory_propagation = it % 2 == 0;
    const SatResult a = solve_own(pg, {}, oo);
    const SatResult b = solve_cadical(pg);
    ASSERT_NE(a.status, SatStatus::unknown);
    ASSERT_EQ(a.status == SatStatus::sat, bf) << "own, iteration " << it;
    ASSERT_EQ(b.status == SatStatus::sat, bf) << "cadical, iteration " << it;
    if (bf) {
      ++sat;
      ASSERT_TRUE(assignment_acyclic(pg, a.side)) << it;
      ASSERT_TRUE(assignment_acyclic(pg, b.side)) << it;
    } else {
      ++unsat;
      check_unsat_answer(pg, a, "own");
      check_unsat_answer(pg, b, "cadical");
      // Shrunk cores are unsat and minimal, for both backends.
      for (int k = 0; k < 2; ++k) {
        SatBackendFn fn = k ? SatBackendFn([](const Polygraph& p, const SatLimits& l) { return solve_cadical(p, l); })
                            : SatBackendFn([](const Polygraph& p, const SatLimits& l) { return solve_own(p, l); });
        CoreResult cr = shrink_core(pg, all_constraints(pg), fn, 10.0);
        ASSERT_TRUE(cr.minimal);
        ASSERT_FALSE(brute_force_acyclic(restrict_constraints(pg, cr.core))) << it;
        for (size_t i = 0; i < cr.core.size(); ++i) {
          std::vector<uint32_t> less = cr.core;
          less.erase(less.begin() + i);
          ASSERT_TRUE(brute_force_acyclic(restrict_constraints(pg, less))) << "core not minimal, iteration " << it;
        }
        if (!cr.last.cycle.empty()) { ASSERT_TRUE(is_witness_cycle(pg, cr.last.side, cr.last.cycle)) << it; }
      }
    }
  }
  // The generator must exercise both outcomes.
  EXPECT_GT(sat, 300);
  EXPECT_GT(unsat, 300);
}

TEST(Sat, LimitsGiveUnknown) {
  // A random 3-SAT polygraph at the hard ratio: the own solver needs far more
  // conflicts than the 256 it runs between budget checks.
  std::mt19937_64 rng(5);
  const Polygraph pg = random_3sat_polygraph(rng, 160, 681);
  const SatResult full = solve_own(pg);
  ASSERT_NE(full.status, SatStatus::unknown);
  ASSERT_GT(full.stats.conflicts, 2000u) << "the instance is too easy to show a limit";
  const SatResult ref = solve_cadical(pg);
  ASSERT_NE(ref.status, SatStatus::unknown);
  ASSERT_EQ(full.status, ref.status) << "own and CaDiCaL disagree";
  // The answer is checked as far as this size allows: a sat side is acyclic;
  // an unsat core is unsat for CaDiCaL and the cycle is one of the graph.
  auto check_answer = [&](const SatResult& r, const char* who) {
    if (r.status == SatStatus::sat) {
      EXPECT_TRUE(assignment_acyclic(pg, r.side)) << who;
    } else {
      EXPECT_EQ(solve_cadical(restrict_constraints(pg, r.core)).status, SatStatus::unsat) << who;
      if (!r.cycle.empty()) { EXPECT_TRUE(is_witness_cycle(pg, r.side, r.cycle)) << who; }
    }
  };
  check_answer(full, "own");

  // A conflict budget far too small: undecided, and it stopped early.
  SatLimits few;
  few.conflicts = 1;
  const SatResult r1 = solve_own(pg, few);
  EXPECT_EQ(r1.status, SatStatus::unknown);
  EXPECT_LT(r1.stats.conflicts, full.stats.conflicts);

  // The stop flag raised: undecided, for both backends.
  std::atomic<bool> stop{true};
  SatLimits stopped;
  stopped.stop = &stop;
  const SatResult r2 = solve_own(pg, stopped);
  EXPECT_EQ(r2.status, SatStatus::unknown);
  EXPECT_LT(r2.stats.conflicts, full.stats.conflicts);
  EXPECT_EQ(solve_cadical(pg, stopped).status, SatStatus::unknown);

  // A generous budget (and a lowered flag): decided, with the same answer.
  stop = false;
  SatLimits generous = stopped;
  generous.conflicts = 2 * full.stats.conflicts + 1000;
  generous.time_s = 1e6;
  const SatResult r3 = solve_own(pg, generous);
  EXPECT_EQ(r3.status, ref.status);
  check_answer(r3, "own, generous limits");
  EXPECT_EQ(solve_cadical(pg, generous).status, ref.status);
}

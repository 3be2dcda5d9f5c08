// Regressions for histories of modest size on which the checker took far
// more memory or time than their size warrants (found by
// bench/blowup_hunt.sh). Each asserts on the work done (constraints built,
// pairs decided, search steps), never on wall-clock time.
#include <gtest/gtest.h>

#include <algorithm>

#include "gen/gen.h"
#include "graph/known_graph.h"
#include "graph/polygraph_build.h"
#include "solver/polygraph_solver.h"
#include "solver/local_check.h"
#include "solver/sat_solver.h"
#include "solver/serial_witness.h"

using namespace isocheck;

namespace {

// A simulated snapshot-isolation BlindW-RM history on 256 sessions and 2
// keys: every writer of a busy key, hundreds of index paths.
History hot_blind_history(uint64_t txns) {
  GenOptions go;
  go.workload = "blindw-rm";
  go.isolation = "si";
  go.txns = txns;
  go.sessions = 256;
  go.keys = 2;
  return generate_history(go);
}

}  // namespace

// Regression: with hundreds of sessions the reachability index's path cover
// needs hundreds of paths; the index's budget (64 words per vertex, or four
// per open pair) left it unbuilt on graphs of a few 10^4 vertices — an index
// of a few MiB — so no chain pair was decided while building and every pair
// became a constraint (the local search's region of a 20 000-transaction
// BlindW-RM history with 256 sessions: 651 631 constraints, 1 GB and 13 s
// for --level all). The index now may always take 2^24 words.
TEST(Blowup, ManySessionsSmallGraphStillDecidesPairsAtBuild) {
  const History h = hot_blind_history(4000);
  const DependencyGraph g = build_known_graph(h, {false});
  ASSERT_TRUE(g.anomalies.empty());
  PolygraphOptions po;  // SER's layout
  LevelPolygraph lp = build_level_polygraph(g, h, po);
  std::printf("%zu transactions, %llu unordered write pairs, %zu decided at build, %zu constraints\n", h.txn_count(),
              static_cast<unsigned long long>(g.unordered_write_pairs), static_cast<size_t>(lp.decided_at_build),
              lp.pg.constraints.size());
  // The case: more paths than 64 per vertex or 4 words per pair allow.
  ASSERT_GT(uint64_t{256} * h.txn_count(),
            std::max<uint64_t>(64 * uint64_t{h.txn_count()} + 4096, g.unordered_write_pairs * 4));
  // (Before: none decided, 138 756 constraints; now about a third decided.)
  EXPECT_GT(lp.decided_at_build, g.unordered_write_pairs / 4) << lp.pg.constraints.size() << " constraints";
  EXPECT_LT(lp.pg.constraints.size(), g.unordered_write_pairs * 3 / 4);
}

// Regression: theory propagation's searches were bounded in vertices
// expanded, but not in adjacency entries examined, nor in number per
// inserted edge; a writer of a busy key is an endpoint of thousands of choice
// edges, so one insertion tried thousands of searches, each scanning
// thousands of entries. A region of 30 000 transactions whose 30 000
// constraints the SAT solver satisfied without a single conflict took 20 s
// (the local search of the 20 000-transaction BlindW-RM history above).
// Now a propagation examines a bounded number of entries, and the answer is
// the same.
TEST(Blowup, TheoryPropagationWorkIsBoundedPerInsertion) {
  const History h = hot_blind_history(1500);
  const DependencyGraph g = build_known_graph(h, {false});
  ASSERT_TRUE(g.anomalies.empty());
  LevelPolygraph lp = build_level_polygraph(g, h, PolygraphOptions{});
  const SatResult r = solve_own(lp.pg);
  const uint64_t edges = lp.pg.known.size() + lp.pg.choice_edges.size();
  std::printf("%zu constraints, %llu edges: %llu decisions, %llu conflicts, %llu theory propagations, %llu work\n",
              lp.pg.constraints.size(), static_cast<unsigned long long>(edges),
              static_cast<unsigned long long>(r.stats.decisions), static_cast<unsigned long long>(r.stats.conflicts),
              static_cast<unsigned long long>(r.stats.theory_propagations),
              static_cast<unsigned long long>(r.stats.propagation_work));
  ASSERT_NE(r.status, SatStatus::unknown);
  // (Before: 1.6·10^9 steps on these 3.9·10^5 edges, 16 s; now 1.3·10^8.)
  EXPECT_LT(r.stats.propagation_work, 512 * edges);
  // The same answer as CaDiCaL's.
  PolygraphResult own = solve_polygraph(lp.pg), cad = solve_polygraph(lp.pg, {.backend = Backend::cadical});
  ASSERT_TRUE(own.decided && cad.decided);
  EXPECT_EQ(own.acyclic, cad.acyclic);
  EXPECT_EQ(r.status == SatStatus::sat, own.acyclic);
}

// Regression: when the serial-witness replay fails, the local search checks
// a region around the failed read, and it used to check SER there too, even
// when only weak levels were asked for. On a history of blind writes SER
// needs the general engine (a polygraph, pruning, the SAT search) while the
// weak levels' own engines are polynomial: read-uncommitted alone on a
// 20 000-transaction BlindW-RM history took 20 s and 1 GB in the region,
// where the whole graph settles it in 1.6 s. Now the region checks SER only
// with SI or PC; for RU, RC, RA and CC it builds no polygraph.
TEST(Blowup, LocalSearchForWeakLevelsBuildsNoPolygraph) {
  GenOptions go;
  go.workload = "blindw-rm";
  go.isolation = "si";
  go.txns = 1500;
  go.sessions = 256;
  go.keys = 2;
  History h = generate_history(go);
  const SerialWitness sw = find_serial_witness(h, false);
  ASSERT_FALSE(sw.found());
  ASSERT_FALSE(sw.failed_reads.empty());
  for (Level l : {Level::ru, Level::rc, Level::ra, Level::cc}) {
    CheckOptions opt;
    opt.levels = {l};
    const LocalSearch ls = find_violations_locally(h, opt, sw.failed_reads);
    EXPECT_GE(ls.rounds, 1) << to_string(l);
    EXPECT_EQ(ls.stats.constraints + ls.stats.decided_at_build, 0u) << to_string(l) << ": a polygraph was built";
    // The verdict with the search and without it.
    CheckOptions whole = opt;
    whole.localise = false;
    const CheckResult a = check(h, opt), b = check(h, whole);
    ASSERT_EQ(a.levels.size(), 1u);
    ASSERT_EQ(b.levels.size(), 1u);
    EXPECT_TRUE(a.levels[0].decided && b.levels[0].decided);
    EXPECT_EQ(a.levels[0].holds, b.levels[0].holds) << to_string(l);
  }
}

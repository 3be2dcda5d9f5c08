// Polygraph solver timings on random polygraphs of growing size (not a test).
// Usage: solver_bench [max_constraints=100000] [threads=1] [cadical_max=20000]
//        solver_bench --history FILE [ser|sser|si] [--time-order]
//   (the second form: the general engine's stages on one history, with CPU
//    seconds and peak memory after each stage)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <cstring>
#include <string>

#include "graph/known_graph.h"
#include "graph/polygraph_build.h"
#include "io/load.h"
#include "solver/polygraph_solver.h"
#include "solver/prune.h"
#include "solver/sat_random.h"
#include "solver/subproblems.h"

using namespace isocheck;

namespace {

double cpu_s() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}
double peak_mb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

int history_mode(int argc, char** argv) {
  const std::string level = argc > 3 ? argv[3] : "ser";
  const bool time_order = argc > 4 && std::strcmp(argv[4], "--time-order") == 0;
  double t = cpu_s();
  auto stage = [&](const char* name) {
    const double now = cpu_s();
    std::printf("%-16s %7.3f s cpu   peak %7.1f MB\n", name, now - t, peak_mb());
    t = now;
  };
  History h = load_history(argv[2]);
  stage("load");
  KnownGraphOptions ko;
  ko.for_si = level == "si";
  DependencyGraph g = build_known_graph(h, ko);
  stage("known graph");
  PolygraphOptions po;
  po.layout = level == "si" ? GraphLayout::split : level == "sser" ? GraphLayout::realtime : GraphLayout::plain;
  po.time_order = time_order;
  po.include_si_only = level == "si";
  LevelPolygraph lp = build_level_polygraph(g, h, po);
  stage("polygraph");
  std::printf("  vertices %u known %zu choice edges %zu constraints %zu ordered_by_time %zu\n", lp.pg.vertex_count,
              lp.pg.known.size(), lp.pg.choice_edges.size(), lp.pg.constraints.size(), lp.ordered_by_time);
  {
    size_t by_kind[6] = {};
    for (EdgeKind k : lp.pg.known.kind) ++by_kind[static_cast<int>(k)];
    std::printf("  known edges by kind: so %zu wr %zu ww %zu rt %zu rw %zu aux %zu\n", by_kind[0], by_kind[1], by_kind[2],
                by_kind[3], by_kind[4], by_kind[5]);
  }
  {
    PruneResult pr = prune(lp.pg);
    stage("prune alone");
    std::printf("  pruned %zu remaining %zu rounds %zu unsat %d\n", pr.pruned, pr.remaining, pr.rounds, pr.unsat);
    std::vector<uint8_t> fixed(pr.state.size(), 2);
    for (size_t c = 0; c < fixed.size(); ++c)
      if (pr.state[c]) fixed[c] = pr.state[c] == PruneResult::forced_b;
    for (uint32_t rounds : {1u, 8u}) {
      const Split sp = split_polygraph(lp.pg, rounds, &fixed);
      std::printf("  split (max %u rounds): fixed %zu parts %zu\n", rounds, sp.fixed, sp.parts.size());
      stage("split");
    }
  }
  PolygraphResult r = solve_polygraph(lp.pg);
  stage("solve (all)");
  std::printf("  acyclic %d pruned %zu fixed_by_split %zu to_solver %zu parts %zu conflicts %llu\n", r.acyclic, r.pruned,
              r.fixed_by_split, r.to_solver, r.subproblems, static_cast<unsigned long long>(r.conflicts));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 2 && std::strcmp(argv[1], "--history") == 0) return history_mode(argc, argv);
  const uint32_t max_c = argc > 1 ? static_cast<uint32_t>(std::atol(argv[1])) : 100'000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const uint32_t cadical_max = argc > 3 ? static_cast<uint32_t>(std::atol(argv[3])) : 20'000;
  std::printf("%-8s %9s %9s %8s %8s %8s %6s %9s %7s %9s\n", "kind", "vertices", "constr", "pruned", "fixed", "solver", "parts",
              "verdict", "backend", "seconds");
  for (uint32_t c = 1000; c <= max_c; c *= 10) {
    for (int kind = 0; kind < 3; ++kind) {
      std::mt19937_64 rng(c + kind);
      Polygraph pg;
      if (kind != 1) {  // history-like: local order, known chains; kind 2: serializable
        RandomPolygraphSpec s;
        s.vertices = c, s.known_edges = 2 * c, s.constraints = c, s.extra_per_side = 2, s.backward = 0, s.locality = 16;
        s.satisfiable = kind == 2;
        pg = random_polygraph(rng, s);
      } else {  // 3-CNF gadgets near the threshold, in blocks of 30 variables
        for (uint32_t b = 0; b < c / 30; ++b) {
          Polygraph part = random_3sat_polygraph(rng, 30, 118, 10);
          const uint32_t off = pg.vertex_count;
          const uint64_t eoff = pg.choice_edges.size();
          for (size_t i = 0; i < part.known.size(); ++i) pg.known.add(part.known.src[i] + off, part.known.dst[i] + off, part.known.kind[i]);
          for (size_t i = 0; i < part.choice_edges.size(); ++i) pg.choice_edges.add(part.choice_edges.src[i] + off, part.choice_edges.dst[i] + off, part.choice_edges.kind[i]);
          for (Constraint k : part.constraints) pg.constraints.push_back({k.a_begin + eoff, k.a_end + eoff, k.b_begin + eoff, k.b_end + eoff});
          pg.vertex_count += part.vertex_count;
        }
      }
      for (Backend be : {Backend::own, Backend::cadical}) {
        if (be == Backend::cadical && c > cadical_max) continue;
        SolveOptions o;
        o.backend = be, o.threads = threads, o.core_budget_s = 1.0;
        auto t0 = std::chrono::steady_clock::now();
        const PolygraphResult r = solve_polygraph(pg, o);
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-8s %9u %9zu %8zu %8zu %8zu %6zu %9s %7s %9.3f\n", kind == 1 ? "3cnf" : kind == 2 ? "serial" : "history", pg.vertex_count, r.constraints,
                    r.pruned, r.fixed_by_split, r.to_solver, r.subproblems, r.acyclic ? "acyclic" : "cycle",
                    be == Backend::own ? "own" : "cadical", dt);
      }
    }
  }
}

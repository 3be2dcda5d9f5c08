// End-to-end verify of one history file, per stage: read, graph, each level's
// acyclicity test. Prints transactions/s per core and peak memory per
// operation. Usage: verify_bench FILE [ser,si,sser]
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "io/load.h"
#include "solver/acyclic.h"
#include "solver/check.h"
#include "util/timer.h"

using namespace isocheck;

static double peak_mb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}
static double cpu_s() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: verify_bench FILE\n");
    return 2;
  }
  Timer wall;
  double c0 = cpu_s();
  History h = load_history(argv[1]);
  double t_read = cpu_s() - c0;
  double c1 = cpu_s();
  DependencyGraph g = build_known_graph(h, {true});
  double t_graph = cpu_s() - c1;
  double c2 = cpu_s();
  LevelGraph lg = sser_graph(g, h, 0);
  double t_sser_build = cpu_s() - c2;
  double c3 = cpu_s();
  auto cyc = find_cycle(lg.csr, lg.txn_count);
  double t_sser = cpu_s() - c3;
  double total = cpu_s() - c0;
  size_t n = h.txn_count(), ops = h.op_count();
  std::printf("file %s: %zu txns, %zu ops, %zu edges, %zu time nodes, %s\n", argv[1], n, ops, g.edges.size(),
              lg.node_time.size(), cyc.empty() ? "acyclic" : "CYCLE");
  std::printf("cpu seconds: read %.2f  graph %.2f  sser-graph %.2f  acyclicity %.2f  total %.2f (wall %.2f)\n", t_read,
              t_graph, t_sser_build, t_sser, total, wall.seconds());
  std::printf("throughput: %.2f M txn/s per core (SER+SI+SSER decided by one SSER test on a valid history)\n",
              n / total / 1e6);
  std::printf("peak memory: %.0f MB = %.1f bytes per operation; history resident %.1f bytes/op\n", peak_mb(),
              peak_mb() * 1048576.0 / ops, static_cast<double>(h.resident_bytes()) / ops);
  return 0;
}

// End-to-end verify of one history file for SER+SI+SSER: read, then check()
// as the CLI runs it (serial witness first), or with --graph the dependency
// graph path stage by stage (read, graph, SSER graph, acyclicity). Prints
// transactions/s per core and peak memory per operation. With --si: SI alone,
// stage by stage (the serial witness that fails on a non-serializable history,
// the SI replay) and check() for --level si with the SI replay and without.
// Usage: verify_bench FILE [--graph | --si]
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "io/load.h"
#include "solver/acyclic.h"
#include "solver/check.h"
#include "solver/serial_witness.h"
#include "solver/si_replay.h"
#include "core/timer.h"

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
  const bool graph = argc >= 3 && std::string(argv[2]) == "--graph";
  const bool si = argc >= 3 && std::string(argv[2]) == "--si";
  if (argc < 2 || (argc >= 3 && !graph && !si)) {
    std::fprintf(stderr, "usage: verify_bench FILE [--graph | --si]\n");
    return 2;
  }
  Timer wall;
  double c0 = cpu_s();
  History h = load_history(argv[1], Format::unknown, nullptr, true);  // as `isocheck verify` does
  double t_read = cpu_s() - c0;
  size_t n = h.txn_count(), ops = h.op_count();
  if (si) {
    double cw = cpu_s();
    SerialWitness sw = find_serial_witness(h, false);
    double t_witness = cpu_s() - cw;
    double cr = cpu_s();
    SiReplay sr = find_si_replay(h);
    double t_replay = cpu_s() - cr;
    // The parts the replays share: the plan, the time orders, the duplicate-write test.
    double cp = cpu_s();
    const WitnessPlan plan = plan_serial_witness(h, false);
    double t_plan = cpu_s() - cp;
    cp = cpu_s();
    const size_t begins = order_by_time(h, h.txn_begin).size(), ends = order_by_time(h, h.txn_end).size();
    double t_orders = cpu_s() - cp;
    cp = cpu_s();
    const bool unique = writes_unique(h, plan);
    double t_unique = cpu_s() - cp;
    std::printf("file %s: %zu txns, %zu ops\n", argv[1], n, ops);
    std::printf("plan %.2f cpu s; begin and end orders %.2f (%s, %s); duplicate-write test %.2f (%s)\n", t_plan,
                t_orders, begins ? "sorted" : "file order", ends ? "sorted" : "file order", t_unique,
                unique ? "unique" : "repeats");
    std::printf("serial witness: %s (%.2f cpu s); SI replay: %s (%.2f cpu s, %.2f M txn/s per core)\n",
                sw.found() ? "found" : "not found", t_witness, sr.found() ? to_string(sr.order) : sr.why_not.c_str(),
                t_replay, n / t_replay / 1e6);
    for (bool replay : {true, false}) {
      CheckOptions opt;
      opt.levels = {Level::si};
      opt.si_replay = replay;
      double c1 = cpu_s();
      CheckResult r = check(h, opt);
      double t_check = cpu_s() - c1;
      std::printf("check --level si%s: %s, cpu seconds read %.2f + check %.2f (%.2f M txn/s per core for the check, "
                  "%.2f with the read)\n", replay ? "" : " --no-si-replay", r.all_hold() ? "holds" : "violated",
                  t_read, t_check, n / t_check / 1e6, n / (t_read + t_check) / 1e6);
    }
  } else if (!graph) {
    // Exactly what `isocheck verify -l ser,si,sser` does after reading.
    CheckOptions opt;
    opt.levels = {Level::ser, Level::si, Level::sser};
    double c1 = cpu_s();
    CheckResult r = check(h, opt);
    double t_check = cpu_s() - c1;
    double total = cpu_s() - c0;
    std::printf("file %s: %zu txns, %zu ops, %s; decided by %s\n", argv[1], n, ops,
                r.all_hold() ? "SER, SI, SSER hold" : "not all levels hold",
                r.stats.witness != WitnessOrder::none ? to_string(r.stats.witness) : "the dependency graph");
    std::printf("cpu seconds: read %.2f  check %.2f  total %.2f (wall %.2f)\n", t_read, t_check, total, wall.seconds());
    std::printf("throughput: %.2f M txn/s per core (SER+SI+SSER)\n", n / total / 1e6);
  } else {
    // The dependency-graph path alone (what runs when no serial witness is found).
    double cw = cpu_s();
    SerialWitness sw = find_serial_witness(h, true);
    double t_witness = cpu_s() - cw;
    std::printf("serial witness (not used here): %s%s (%.2f cpu s)\n", sw.found() ? "found, " : "not found: ",
                sw.found() ? to_string(sw.order) : sw.why_not.c_str(), t_witness);
    double c1 = cpu_s();
    DependencyGraph g = build_known_graph(h, {true});
    double t_graph = cpu_s() - c1;
    double c2 = cpu_s();
    LevelGraph lg = sser_graph(g, h, 0);
    double t_sser_build = cpu_s() - c2;
    double c3 = cpu_s();
    auto cyc = find_cycle(lg.csr, lg.txn_count);
    double t_sser = cpu_s() - c3;
    double total = cpu_s() - c0 - t_witness;
    std::printf("file %s: %zu txns, %zu ops, %zu edges, %zu time nodes, %s\n", argv[1], n, ops, g.edges.size(),
                lg.node_time.size(), cyc.empty() ? "acyclic" : "CYCLE");
    std::printf("cpu seconds: read %.2f  graph %.2f  sser-graph %.2f  acyclicity %.2f  total %.2f\n", t_read, t_graph,
                t_sser_build, t_sser, total);
    std::printf("throughput: %.2f M txn/s per core (SER+SI+SSER decided by one SSER test on a valid history)\n",
                n / total / 1e6);
  }
  std::printf("peak memory: %.0f MB = %.1f bytes per operation; history resident %.1f bytes/op\n", peak_mb(),
              peak_mb() * 1048576.0 / ops, static_cast<double>(h.resident_bytes()) / ops);
  return 0;
}

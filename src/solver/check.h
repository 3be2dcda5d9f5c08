// The one entry point from a history to verdicts: builds the dependency graph
// once, then decides every requested level on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"
#include "solver/serial_witness.h"

namespace isocheck {


// Pruning's reachability engine: a GPU when the build and the machine have
// one and the problem is large (automatic), or the one named.
enum class ClosureChoice : uint8_t { automatic, cpu, gpu };
const char* to_string(ClosureChoice c);  // "auto", "cpu", "gpu"

struct CheckOptions {
  std::vector<Level> levels{Level::ser};
  int64_t clock_skew = 0;      // δ: RT edge when end(T1) + δ < begin(T2)
  bool time_order = false;     // assume conflicting writes ordered by real time
  bool linear_only = false;    // never run the general (blind-write) engine
  bool cadical = false;        // SAT backend: CaDiCaL instead of the own CDCL solver
  ClosureChoice closure = ClosureChoice::automatic;
  int threads = 1;
  // Try a serial witness (solver/serial_witness.h) before building any graph.
  bool serial_witness = true;
  // For SI, when no serial witness settles it: the SI replay
  // (solver/si_replay.h) before any graph is built for SI.
  bool si_replay = true;
  // Settle a level from another one's verdict along the lattice (a level that
  // holds proves the weaker ones; a weak level that fails fails the stronger
  // weak ones). Off only in tests that check each level on its own.
  bool lattice_shortcuts = true;
  // When the replay fails on a read, look for the violation around that read
  // first (solver/local_check.h); the whole graph decides what it leaves.
  bool localise = true;
  // The most checks run to decide scans' open reads by cases
  // (solver/open_reads.h, `--open-read-cases`); past it: not decided.
  uint64_t open_read_cases = 1024;
};

CheckResult check(const History& h, const CheckOptions& opt);

// What check() does once the dependency graph is built (no serial witness):
// anomalies, then the levels on `g`. For a graph assembled elsewhere — key
// shards merge per-key graphs into exactly build_known_graph(h)'s.
struct DependencyGraph;
CheckResult check_graph(const History& h, DependencyGraph& g, const CheckOptions& opt);

}  // namespace isocheck

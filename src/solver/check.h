// The one entry point from a history to verdicts: builds the dependency graph
// once, then decides every requested level on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/anomaly.h"
#include "graph/edges.h"
#include "io/history.h"
#include "solver/serial_witness.h"

namespace isocheck {

enum class Level : uint8_t { ser = 0, si = 1, sser = 2 };
const char* to_string(Level l);

struct CheckOptions {
  std::vector<Level> levels{Level::ser};
  int64_t clock_skew = 0;      // δ: RT edge when end(T1) + δ < begin(T2)
  bool time_order = false;     // assume conflicting writes ordered by real time
  bool linear_only = false;    // never run the general (blind-write) engine
  bool cadical = false;        // SAT backend: CaDiCaL instead of the own CDCL solver
  std::string closure = "auto";  // pruning's reachability engine: auto, cpu, gpu
  int threads = 1;
  // Try a serial witness (solver/serial_witness.h) before building any graph.
  bool serial_witness = true;
};

// A violation's proof: a cycle of edges, in order (dst of one = src of next).
// A constraint of the general engine, for explanations: the order of two
// chains of writes to `key` (each named by its first transaction).
struct ConstraintRef {
  Sym key;
  TxnIdx first_head, second_head;
};

struct Witness {
  std::string anomaly;  // G0, G1c, G-single, G2-item, lost update, ... (+ -realtime etc.)
  EdgeList cycle;       // over transaction indices; aux/time-node hops collapsed into rt
  // Refutations by the general engine: constraints that together with the
  // known edges admit no acyclic choice (the unsatisfiable core).
  std::vector<ConstraintRef> core;
  bool core_minimal = false;
};

struct LevelResult {
  Level level;
  bool holds = true;
  bool decided = true;              // false: cannot decide (reason says why)
  std::string reason;               // e.g. "12 unordered write pairs on 3 keys"
  std::optional<Witness> witness;   // when !holds and the violation is a cycle
};

struct CheckStats {
  size_t txns = 0, committed = 0, edges = 0;
  // General engine (the largest level polygraph): constraints built, chain
  // pairs real time ordered without a constraint, pairs the known graph forced
  // while building (never constraints), constraints pruning
  // decided, constraints left to the SAT solver, independent sub-problems.
  size_t constraints = 0, ordered_by_time = 0, decided_at_build = 0, pruned = 0, to_solver = 0, subproblems = 0;
  size_t unordered_write_pairs = 0;
  // Set when a serial witness decided every level (no graph was built).
  WitnessOrder witness = WitnessOrder::none;
};

struct CheckResult {
  std::vector<Anomaly> anomalies;  // make every level fail
  std::vector<LevelResult> levels;
  CheckStats stats;
  bool all_hold() const;
};

CheckResult check(const History& h, const CheckOptions& opt);

// What check() does once the dependency graph is built (no serial witness):
// anomalies, then the levels on `g`. For a graph assembled elsewhere — key
// shards merge per-key graphs into exactly build_known_graph(h)'s.
struct DependencyGraph;
CheckResult check_graph(const History& h, DependencyGraph& g, const CheckOptions& opt);

}  // namespace isocheck

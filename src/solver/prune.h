// Pruning a polygraph to a fixpoint (Cobra §4.3.3): a side with an edge a -> b
// such that b already reaches a in the known graph can never be chosen, so the
// other side becomes known. Both sides impossible: unsatisfiable, with the two
// cycles as evidence. Two methods, same fixpoint (forcing is monotone: a side
// impossible in a graph stays impossible in every supergraph, so the set of
// forced constraints at the fixpoint does not depend on the order):
//  - closure: rounds; decisions inside a round use the round's starting graph
//    and one batch of reach queries (ClosureEngine, bitsets); the grown known
//    graph is re-checked for a cycle between rounds. For many queries.
//  - incremental: one topological order of known ∪ forced edges kept up to
//    date (Pearce–Kelly insertion); a query d ⇝ a is answered "no" at once
//    when ord(d) > ord(a), else by a search bounded by ord(a). A forced side
//    takes effect immediately (later constraints of the same pass see it).
//    For few queries on a big graph (SSER, time-ordered, reduced SER).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "closure/closure.h"
#include "solver/sat_types.h"

namespace isocheck {

enum class PruneMethod : uint8_t { automatic, closure, incremental };

struct PruneOptions {
  PruneMethod method = PruneMethod::automatic;  // automatic: incremental unless queries are many
  ClosureEngine* engine = nullptr;  // closure method; nullptr: a CpuClosure with `threads`
  int threads = 1;
  uint32_t max_rounds = UINT32_MAX;
  size_t max_explanations = 100000;  // core building: path searches before falling back to all forced
};

struct PruneResult {
  enum : uint8_t { undecided = 0, forced_a = 1, forced_b = 2 };
  std::vector<uint8_t> state;  // per constraint
  size_t constraints = 0, pruned = 0, remaining = 0, rounds = 0;
  bool unsat = false;
  // unsat because both sides of one constraint close a cycle:
  uint32_t conflict_constraint = UINT32_MAX;
  std::vector<EdgeRef> cycle_a, cycle_b;  // its side-A (side-B) edge, then the path back
  // unsat because the known graph (with forced sides) is cyclic: cycle_a holds
  // that cycle, cycle_b is empty, conflict_constraint = UINT32_MAX.
  // unsat: a core closed under reasons: the contradicted constraint, the
  // forced constraints with edges on the cycles, and recursively those whose
  // forced edges made another's side impossible (the path found when it was
  // forced, over the graph of that round). Not necessarily minimal.
  std::vector<uint32_t> core;
};

PruneResult prune(const Polygraph& pg, const PruneOptions& o = {});

}  // namespace isocheck

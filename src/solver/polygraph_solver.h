// Deciding a polygraph: is there a side per constraint such that known ∪
// chosen edges is acyclic? Pipeline: acyclicity of the known graph (linear,
// and the whole answer when there are no constraints) -> pruning to a
// fixpoint -> split into independent sub-problems -> SAT modulo acyclicity
// per sub-problem (own CDCL solver or CaDiCaL), on a thread pool.
// Deterministic: the same answer for any thread count (the lowest-numbered
// unsatisfiable sub-problem is the one reported).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "closure/closure.h"
#include "core/edges.h"

namespace isocheck {

enum class Backend { own, cadical };

struct SolveOptions {
  Backend backend = Backend::own;
  int threads = 1;
  double core_budget_s = 5.0;   // shrinking an unsat core, per refutation
  double time_budget_s = std::numeric_limits<double>::infinity();  // SAT search, per sub-problem
  ClosureEngine* closure = nullptr;  // pruning's engine; nullptr = CPU
};

struct PolygraphResult {
  bool acyclic = true;      // satisfiable: some choice keeps the graph acyclic
  bool decided = true;      // false: the SAT search ran out of time_budget_s
  // per constraint: 0 = A chosen, 1 = B. Satisfiable: a full witness
  // assignment. Otherwise: the sides on witness_cycle (others 0).
  std::vector<uint8_t> side;
  // !acyclic: a cycle in known ∪ chosen edges, in order (dst of one = src of
  // the next), copies of the edges (src, dst, why, kind).
  EdgeList witness_cycle;
  // !acyclic: constraints that together with the known graph already admit
  // no acyclic choice (sorted). Pruning: the contradicted constraint and the
  // forced constraints on the cycle; SAT: a core, minimal when core_minimal.
  std::vector<uint32_t> core_constraints;
  bool core_minimal = false;
  size_t constraints = 0, pruned = 0, to_solver = 0, subproblems = 0;
  size_t fixed_by_split = 0;  // constraints whose side crosses components only
  uint64_t conflicts = 0;     // SAT conflicts, all sub-problems
};

PolygraphResult solve_polygraph(const Polygraph& pg, const SolveOptions& opt = {});

}  // namespace isocheck

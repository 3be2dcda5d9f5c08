// Own CDCL solver modulo graph acyclicity (docs/architecture.md, solver/): two watched
// literals, VSIDS with phase saving, Luby restarts, first-UIP learning with
// clause minimisation, LBD-based clause deletion; the theory keeps known ∪
// assigned sides acyclic with a Pearce–Kelly incremental topological order
// (backtracking removes edges without reordering). A cycle becomes a conflict
// clause; a side that would close a cycle through its own endpoints (b already
// reaches a, found by a bounded search) is propagated away.
#pragma once
#include "solver/sat_types.h"

namespace isocheck {

struct OwnSatOptions {
  bool theory_propagation = true;
  uint32_t propagation_budget = 64;  // vertices a propagation search may visit
};

SatResult solve_own(const Polygraph& pg, const SatLimits& limits = {}, const OwnSatOptions& o = {});

}  // namespace isocheck

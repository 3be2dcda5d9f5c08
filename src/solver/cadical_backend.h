// Cross-check backend: the same encoding (one variable per constraint, true =
// side A) solved lazily with CaDiCaL: solve, build known ∪ chosen, and for
// every cycle found add the clause forbidding its combination of literals;
// re-solve incrementally until acyclic (sat) or CaDiCaL says unsat.
#pragma once
#include "solver/sat_types.h"

namespace isocheck {

struct CadicalOptions {
  uint32_t cycles_per_round = 64;  // lemmas added per model (one per cyclic component, a few tries)
};

SatResult solve_cadical(const Polygraph& pg, const SatLimits& limits = {}, const CadicalOptions& o = {});

}  // namespace isocheck

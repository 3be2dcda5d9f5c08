// Shrinking an unsatisfiable core of constraints (deletion-based, with
// clause-set refinement: after a successful deletion the solver's own lemma
// set replaces the core). The known graph always stays.
#pragma once
#include <functional>

#include "solver/sat_types.h"

namespace isocheck {

using SatBackendFn = std::function<SatResult(const Polygraph&, const SatLimits&)>;

// The polygraph with only the listed constraints (their edges compacted).
Polygraph restrict_constraints(const Polygraph& pg, const std::vector<uint32_t>& keep,
                               std::vector<uint64_t>* choice_ref = nullptr);

struct CoreResult {
  std::vector<uint32_t> core;  // sorted constraint indices of pg
  bool minimal = false;        // every single deletion was tried (and failed)
  SatResult last;              // the solver's answer on the final core (unsat), refs into pg
};

// `core` must be unsatisfiable with pg.known. Budget in seconds, total.
CoreResult shrink_core(const Polygraph& pg, std::vector<uint32_t> core, const SatBackendFn& solve,
                       double budget_s, const std::atomic<bool>* stop = nullptr);

}  // namespace isocheck

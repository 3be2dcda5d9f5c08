// Splitting a polygraph into independent sub-problems (docs/architecture.md, solver/):
// strongly connected components of known ∪ every edge of every constraint.
// An edge between two components can never lie on a cycle, so
//  - a constraint with a side whose edges all cross components takes that
//    side (it adds nothing that can close a cycle); repeated while the
//    components shrink;
//  - every other constraint keeps only its inside edges, and components that
//    share a constraint are solved together (union-find);
// each resulting group is a Polygraph on its own, vertices renumbered.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/edges.h"
#include "solver/sat_types.h"

namespace isocheck {

struct Subproblem {
  Polygraph pg;                        // local vertices 0..n
  std::vector<uint32_t> vertex;        // local vertex -> parent vertex
  std::vector<uint32_t> constraint;    // local constraint -> parent constraint
  std::vector<EdgeRef> known_ref;      // local known edge -> parent edge (known, or a fixed side's choice edge)
  std::vector<uint64_t> choice_ref;    // local choice edge -> parent choice edge
};

struct Split {
  std::vector<Subproblem> parts;       // most constraints first (ties: smallest vertex)
  // per parent constraint: 0 / 1 = side fixed here (A / B), 2 = inside a part
  std::vector<uint8_t> side;
  size_t fixed = 0;                    // constraints decided by the free-side rule
};

// `pg.known` must be acyclic (prune checks it). With `fixed` (per constraint:
// 0 / 1 = that side is already decided and counts as known, 2 = open) the
// decided sides join the known graph without copying it; such constraints get
// side = their fixed side and are not counted in `fixed`.
Split split_polygraph(const Polygraph& pg, uint32_t max_rounds = 8, const std::vector<uint8_t>* fixed = nullptr);

}  // namespace isocheck

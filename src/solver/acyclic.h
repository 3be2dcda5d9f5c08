// The linear engine: one acyclicity test (Kahn, O(V + E)) and, when a cycle
// exists, a short cycle to show the user.
#pragma once
#include <cstdint>
#include <vector>

#include "core/edges.h"

namespace isocheck {

// Empty when the graph is acyclic. Otherwise a cycle v0 → v1 → … → v(k-1) → v0.
// Vertices >= `aux_from` are auxiliary (time nodes, split copies): entering
// them costs nothing, so the cycle returned is short in transactions. Among
// the cycles searched the shortest is returned; the search looks at the
// smallest strongly connected components first and is bounded in work.
std::vector<uint32_t> find_cycle(const Csr& g, uint32_t aux_from);

// Strongly connected components (iterative Tarjan): comp[v] per vertex,
// returns the number of components. Components are numbered in reverse
// topological order (a sink component gets 0).
uint32_t strongly_connected(const Csr& g, std::vector<uint32_t>& comp);

}  // namespace isocheck

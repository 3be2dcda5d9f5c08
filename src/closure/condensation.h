// The condensation of a graph as one flat CSR over its strongly connected
// components: the host plan of the GPU closure (gpu_plan.cpp) walks it several
// times in component order, so it is built once, with one random lookup per
// edge, instead of regrouping the vertices and mapping every edge in each pass.
#pragma once
#include <cstdint>
#include <vector>

#include "closure/graph_algos.h"
#include "graph/edges.h"

namespace isocheck {

// Successors of component c: succ[off[c] .. off[c+1]), the other components
// its vertices have edges to, without duplicates, in increasing id order (so
// all lower than c: Tarjan numbers components in reverse topological order).
struct Condensation {
  std::vector<uint64_t> off;  // components + 1
  std::vector<uint32_t> succ;
  uint32_t count() const { return off.empty() ? 0 : static_cast<uint32_t>(off.size() - 1); }
};

// Built on up to `threads` threads (same result for any count).
Condensation condense_graph(const Csr& g, const Scc& scc, int threads = 1);

// Height of every component (sinks 0): the longest path below it. Equal to
// component_heights(g, scc) for the graph the condensation came from.
std::vector<uint32_t> condensation_heights(const Condensation& cd);

}  // namespace isocheck

// The condensation of a graph as one flat CSR over its strongly connected
// components: the host plan of the GPU closure (gpu_plan.cpp) walks it several
// times in component order, so it is built once, with one random lookup per
// edge, instead of regrouping the vertices and mapping every edge in each pass.
#pragma once
#include <cstdint>
#include <vector>

#include "closure/graph_algos.h"
#include "closure/parallel_ranges.h"
#include "core/edges.h"

namespace isocheck {

// Successors of component c: succ[off[c] .. off[c+1]), the other components
// its vertices have edges to, without duplicates, in increasing id order (so
// all lower than c: Tarjan numbers components in reverse topological order).
struct Condensation {
  std::vector<uint64_t> off;  // components + 1
  std::vector<uint32_t> succ;
  std::vector<uint32_t> layers;  // Scc::layers: edge-free id ranges, or empty
  uint32_t count() const { return off.empty() ? 0 : static_cast<uint32_t>(off.size() - 1); }
};

// A pass over the components in which each one reads what its successors
// (ascending) or predecessors (descending) got: fn(t, begin, end) handles ids
// [begin, end) in that direction, t the thread's slot (< threads). The
// ranges come layer by layer in the pass's order; a large layer is split over
// threads (its components are independent). Without layers: one range.
template <class Fn>
void for_each_layer(const Condensation& cd, bool ascending, int threads, Fn&& fn) {
  const uint64_t nl = cd.layers.empty() ? 0 : cd.layers.size() - 1;
  if (nl == 0 || threads <= 1) {
    fn(0, uint64_t{0}, uint64_t{cd.count()});
    return;
  }
  for (uint64_t k = 0; k < nl; ++k) {
    const uint64_t i = ascending ? k : nl - 1 - k;
    const uint64_t b = cd.layers[i], e = cd.layers[i + 1];
    if (range_threads(threads, e - b) == 1) {
      fn(0, b, e);
      continue;
    }
    parallel_ranges(threads, e - b, [&](int t, uint64_t x, uint64_t y) { fn(t, b + x, b + y); });
  }
}

// Built on up to `threads` threads (same result for any count).
Condensation condense_graph(const Csr& g, const Scc& scc, int threads = 1);

// Height of every component (sinks 0): the longest path below it. Equal to
// component_heights(g, scc) for the graph the condensation came from.
std::vector<uint32_t> condensation_heights(const Condensation& cd, int threads = 1);

}  // namespace isocheck

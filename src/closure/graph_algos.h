// Whole-graph algorithms on a Csr, all iterative (graphs have 10^7+ vertices):
// strongly connected components, topological order, paths and short cycles.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/edges.h"

namespace isocheck {

// Tarjan's SCCs. Components are numbered in reverse topological order of the
// condensation: an edge between different components goes from a higher id to
// a lower one (so component 0 is a sink).
struct Scc {
  uint32_t count = 0;
  std::vector<uint32_t> comp;    // per vertex
  std::vector<uint32_t> size;    // per component
  std::vector<uint8_t> cyclic;   // per component: size > 1 or a self loop
  // Optional (acyclic_components sets it): component ids [layers[i],
  // layers[i+1]) have no edges among them, so a pass in id order may treat a
  // layer's components in parallel. Holds for the graph it was computed on
  // only; empty otherwise.
  std::vector<uint32_t> layers;
};
Scc strongly_connected(const Csr& g);

// When g is acyclic: every vertex its own component, numbered by Kahn's
// peeling: by depth (edges on the longest path from a source), then vertex
// id, from the highest id down. Not Tarjan's numbering, but the same
// contract: an edge goes from a higher id to a lower one. Returns false
// (*out untouched) when g has a cycle. Large peeling rounds run on up to
// `threads` threads; the result does not depend on the count.
bool acyclic_components(const Csr& g, Scc* out, int threads = 1);

// Kahn's algorithm. True iff acyclic; then *order (if given) is a topological
// order of all vertices.
bool topological_order(const Csr& g, std::vector<uint32_t>* order = nullptr);
inline bool is_acyclic(const Csr& g) { return topological_order(g, nullptr); }

// A shortest path u -> v with at least one edge (so u == v asks for a
// shortest cycle through u), as Csr edge ids in order; empty when none.
// When `allowed` is non-null only vertices w with (*allowed)[w] != 0 are
// entered (u itself is always the start).
std::vector<uint64_t> find_path(const Csr& g, uint32_t u, uint32_t v,
                                const std::vector<uint8_t>* allowed = nullptr);

// Some short cycle (edge ids in order) or empty when the graph is acyclic:
// a shortest cycle through each of a few vertices of the smallest cyclic
// component, the shortest of those. `tries` bounds the BFS runs.
std::vector<uint64_t> short_cycle(const Csr& g, uint32_t tries = 16);

// Vertices grouped by strongly connected component, and which components
// matter for reachability from `sources` to `targets`: those reachable from a
// source (down) that also reach a target (up). Both closure engines plan on it.
struct ComponentView {
  std::vector<uint64_t> offset;  // per component + 1: its vertices are verts[offset[c] .. offset[c+1])
  std::vector<uint32_t> verts;
  std::vector<uint8_t> down, up;
};
ComponentView component_view(const Csr& g, const Scc& scc, std::span<const uint32_t> sources,
                             std::span<const uint32_t> targets);

// Height of each component in the condensation (sinks 0): u can reach v in
// another component only if height(comp u) > height(comp v). A cheap filter
// before any bitset work.
std::vector<uint32_t> component_heights(const Csr& g, const Scc& scc);

}  // namespace isocheck

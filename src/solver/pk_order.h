// The reordering step of Pearce–Kelly's incremental topological order, shared
// by the SAT solver's order of assigned sides and pruning's order of known
// and forced edges.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace isocheck {

// After an edge x -> y with ord[y] < ord[x]: `bwd` (the vertices that reach
// x) goes before `fwd` (the vertices y reaches), each keeping its relative
// order, on the positions the two sets held together. Sorts fwd and bwd by
// their old positions; `pool` is scratch.
inline void pk_reorder(std::vector<uint32_t>& ord, std::vector<uint32_t>& fwd, std::vector<uint32_t>& bwd,
                       std::vector<uint32_t>& pool) {
  auto by_ord = [&](uint32_t a, uint32_t b) { return ord[a] < ord[b]; };
  std::sort(fwd.begin(), fwd.end(), by_ord);
  std::sort(bwd.begin(), bwd.end(), by_ord);
  pool.clear();
  for (uint32_t v : bwd) pool.push_back(ord[v]);
  for (uint32_t v : fwd) pool.push_back(ord[v]);
  std::sort(pool.begin(), pool.end());
  size_t k = 0;
  for (uint32_t v : bwd) ord[v] = pool[k++];
  for (uint32_t v : fwd) ord[v] = pool[k++];
}

}  // namespace isocheck

// build_csr: counting sort of an EdgeList by source vertex; edges_forward.
#include <algorithm>
#include <cstddef>  // edges.h uses size_t without including it
#include <stdexcept>

#include "core/edges.h"

namespace isocheck {

Csr build_csr(uint32_t n, const EdgeList& e, bool with_edge_ids) {
  Csr g;
  g.offset.assign(static_cast<size_t>(n) + 1, 0);
  const size_t m = e.size();
  for (size_t i = 0; i < m; ++i) {
    if (e.src[i] >= n || e.dst[i] >= n) throw std::out_of_range("build_csr: edge endpoint out of range");
    ++g.offset[e.src[i] + 1];
  }
  for (uint32_t v = 0; v < n; ++v) g.offset[v + 1] += g.offset[v];
  g.target.resize(m);
  if (with_edge_ids) g.edge_id.resize(m);
  std::vector<uint64_t> pos(g.offset.begin(), g.offset.end() - 1);
  for (size_t i = 0; i < m; ++i) {
    uint64_t p = pos[e.src[i]]++;
    g.target[p] = e.dst[i];
    if (with_edge_ids) g.edge_id[p] = i;
  }
  return g;
}

bool edges_forward(const EdgeList& e) {
  const uint32_t* s = e.src.data();
  const uint32_t* d = e.dst.data();
  // No early exit inside a block: the comparisons vectorise.
  constexpr size_t kBlock = 4096;
  for (size_t b = 0; b < e.size(); b += kBlock) {
    const size_t end = std::min(e.size(), b + kBlock);
    bool backward = false;
    for (size_t i = b; i < end; ++i) backward |= s[i] >= d[i];
    if (backward) return false;
  }
  return true;
}

}  // namespace isocheck

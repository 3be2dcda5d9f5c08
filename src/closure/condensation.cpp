#include "closure/condensation.h"

#include <algorithm>

#include "closure/parallel_ranges.h"

namespace isocheck {

namespace {

// Sorts a short successor list and drops duplicates; returns the new length.
// Lists are mostly a few entries (one per out-edge of a vertex), where an
// insertion sort beats std::sort's set-up.
uint32_t sort_unique(uint32_t* a, uint32_t n) {
  if (n <= 24) {
    for (uint32_t i = 1; i < n; ++i) {
      const uint32_t x = a[i];
      uint32_t j = i;
      for (; j > 0 && a[j - 1] > x; --j) a[j] = a[j - 1];
      a[j] = x;
    }
  } else {
    std::sort(a, a + n);
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (k == 0 || a[k - 1] != a[i]) a[k++] = a[i];
  return k;
}

// Vertices grouped by component, components in id order: a permutation when
// every component is one vertex (filled in parallel), else a counting sort.
void group_vertices(const Scc& scc, uint32_t n, int threads, std::vector<uint64_t>& voff,
                    std::vector<uint32_t>& verts) {
  const uint32_t nc = scc.count;
  verts.resize(n);
  if (nc == n) {
    voff.clear();  // component c is vertex verts[c]
    parallel_ranges(threads, n, [&](int, uint64_t b, uint64_t e) {
      for (uint64_t v = b; v < e; ++v) verts[scc.comp[v]] = static_cast<uint32_t>(v);
    });
    return;
  }
  voff.assign(uint64_t{nc} + 1, 0);
  for (uint32_t c = 0; c < nc; ++c) voff[c + 1] = voff[c] + scc.size[c];
  std::vector<uint64_t> pos(voff.begin(), voff.end() - 1);
  for (uint32_t v = 0; v < n; ++v) verts[pos[scc.comp[v]]++] = v;
}

}  // namespace

Condensation condense_graph(const Csr& g, const Scc& scc, int threads) {
  const uint32_t n = g.vertex_count(), nc = scc.count;
  const uint32_t* comp = scc.comp.data();
  std::vector<uint64_t> voff;
  std::vector<uint32_t> verts;
  group_vertices(scc, n, threads, voff, verts);
  const bool singletons = voff.empty();
  auto members = [&](uint32_t c, uint64_t& b, uint64_t& e) {
    if (singletons) b = c, e = uint64_t{c} + 1;
    else b = voff[c], e = voff[c + 1];
  };

  // Raw lists (every out-edge of every member) at raw offsets, then sorted,
  // deduplicated and compacted into the final CSR.
  std::vector<uint64_t> roff(uint64_t{nc} + 1, 0);
  parallel_ranges(threads, nc, [&](int, uint64_t cb, uint64_t ce) {
    for (uint64_t c = cb; c < ce; ++c) {
      uint64_t b, e, d = 0;
      members(static_cast<uint32_t>(c), b, e);
      for (uint64_t k = b; k < e; ++k) d += g.offset[verts[k] + 1] - g.offset[verts[k]];
      roff[c + 1] = d;
    }
  });
  for (uint32_t c = 0; c < nc; ++c) roff[c + 1] += roff[c];
  std::vector<uint32_t> raw(roff[nc]);
  std::vector<uint32_t> len(nc);
  parallel_ranges(threads, nc, [&](int, uint64_t cb, uint64_t ce) {
    for (uint64_t c = cb; c < ce; ++c) {
      uint64_t b, e, o = roff[c];
      members(static_cast<uint32_t>(c), b, e);
      for (uint64_t k = b; k < e; ++k) {
        const uint32_t v = verts[k];
        for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i) {
          const uint32_t w = comp[g.target[i]];
          if (w != c) raw[o++] = w;
        }
      }
      len[c] = sort_unique(raw.data() + roff[c], static_cast<uint32_t>(o - roff[c]));
    }
  });
  Condensation cd;
  cd.off.resize(uint64_t{nc} + 1);
  cd.off[0] = 0;
  for (uint32_t c = 0; c < nc; ++c) cd.off[c + 1] = cd.off[c] + len[c];
  cd.succ.resize(cd.off[nc]);
  parallel_ranges(threads, nc, [&](int, uint64_t cb, uint64_t ce) {
    for (uint64_t c = cb; c < ce; ++c)
      std::copy_n(raw.data() + roff[c], len[c], cd.succ.data() + cd.off[c]);
  });
  return cd;
}

std::vector<uint32_t> condensation_heights(const Condensation& cd) {
  const uint32_t nc = cd.count();
  std::vector<uint32_t> h(nc);
  // Successors have lower ids: in id order each one is final when read.
  for (uint32_t c = 0; c < nc; ++c) {
    uint32_t x = 0;
    for (uint64_t i = cd.off[c]; i < cd.off[c + 1]; ++i) x = std::max(x, h[cd.succ[i]] + 1);
    h[c] = x;
  }
  return h;
}

}  // namespace isocheck

#include "closure/condensation.h"

#include <algorithm>
#include <atomic>

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

}  // namespace

Condensation condense_graph(const Csr& g, const Scc& scc, int threads) {
  const uint32_t n = g.vertex_count(), nc = scc.count;
  const uint32_t* comp = scc.comp.data();
  const uint64_t* off = g.offset.data();
  const uint32_t* tgt = g.target.data();
  // Walked in vertex order: the graph is read sequentially and every vertex's
  // lookups (its component's slot, its targets' components) are independent
  // of the other vertices', so the memory system overlaps them; a walk in
  // component order would chain three cache misses per vertex. Members of
  // one component share its slot: atomics, only when several threads run
  // and some component has several vertices.
  const bool singletons = nc == n;
  const bool shared = !singletons && range_threads(threads, n) > 1;
  auto add = [shared](uint64_t& x, uint64_t k) {
    if (!shared) x += k;
    else std::atomic_ref<uint64_t>(x).fetch_add(k, std::memory_order_relaxed);
  };
  // 1. Raw list lengths (every out-edge of every member), then offsets.
  std::vector<uint64_t> roff(uint64_t{nc} + 1, 0);
  parallel_ranges(threads, n, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t v = b; v < e; ++v) add(roff[comp[v] + 1], off[v + 1] - off[v]);
  });
  for (uint32_t c = 0; c < nc; ++c) roff[c + 1] += roff[c];
  // 2. Raw lists: the components of the targets (self included, dropped
  //    below). Members of one component claim their places with a cursor, so
  //    the raw order inside a list may vary between runs on several threads;
  //    the sort below makes it canonical.
  std::vector<uint32_t> raw(roff[nc]);
  std::vector<uint64_t> fill;  // cursor per component, when members share one
  if (!singletons) fill.assign(roff.begin(), roff.end() - 1);
  parallel_ranges(threads, n, [&](int, uint64_t b, uint64_t e) {
    const uint64_t edges_end = off[e];
    for (uint64_t v = b; v < e; ++v) {
      // Ahead: the targets' components, the component slots of later vertices.
      if (off[v] + 32 < edges_end) __builtin_prefetch(&comp[tgt[off[v] + 32]]);
      if (v + 16 < e) __builtin_prefetch(&roff[comp[v + 16]]);
      if (singletons && v + 8 < e) __builtin_prefetch(raw.data() + roff[comp[v + 8]], 1);
      const uint32_t c = comp[v];
      const uint64_t d = off[v + 1] - off[v];
      if (d == 0) continue;
      uint64_t o = roff[c];
      if (shared) o = std::atomic_ref<uint64_t>(fill[c]).fetch_add(d, std::memory_order_relaxed);
      else if (!singletons) o = fill[c], fill[c] += d;
      for (uint64_t i = off[v]; i < off[v + 1]; ++i) raw[o++] = comp[tgt[i]];
    }
  });
  // 3. Per component: sort, drop duplicates and itself.
  std::vector<uint32_t> len(nc);
  parallel_ranges(threads, nc, [&](int, uint64_t cb, uint64_t ce) {
    for (uint64_t c = cb; c < ce; ++c) {
      uint32_t* a = raw.data() + roff[c];
      const uint32_t k = sort_unique(a, static_cast<uint32_t>(roff[c + 1] - roff[c]));
      // The list is sorted: c itself, if present, is one entry.
      uint32_t* self = std::lower_bound(a, a + k, static_cast<uint32_t>(c));
      if (self != a + k && *self == c) {
        std::copy(self + 1, a + k, self);
        len[c] = k - 1;
      } else {
        len[c] = k;
      }
    }
  });
  // Compacted in place (lists only move left; offsets are rewritten behind
  // the reads): no second edge array to allocate, and nothing moves before
  // the first list that shrank (none, in a simple DAG).
  uint64_t to = 0, from = 0;
  for (uint32_t c = 0; c < nc; ++c) {
    const uint64_t next = roff[c + 1];
    if (to != from) std::copy_n(raw.data() + from, len[c], raw.data() + to);
    roff[c] = to;
    to += len[c], from = next;
  }
  roff[nc] = to;
  raw.resize(to);
  Condensation cd;
  cd.layers = scc.layers;
  cd.off = std::move(roff);
  cd.succ = std::move(raw);
  return cd;
}

std::vector<uint32_t> condensation_heights(const Condensation& cd, int threads) {
  std::vector<uint32_t> h(cd.count());
  // Successors have lower ids: in id order each one is final when read.
  for_each_layer(cd, true, threads, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t c = b; c < e; ++c) {
      uint32_t x = 0;
      for (uint64_t i = cd.off[c]; i < cd.off[c + 1]; ++i) x = std::max(x, h[cd.succ[i]] + 1);
      h[c] = x;
    }
  });
  return h;
}

}  // namespace isocheck

#include "closure/graph_algos.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>

#include "closure/counting_sort.h"
#include "closure/parallel_ranges.h"

namespace isocheck {

namespace {
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
}

Scc strongly_connected(const Csr& g) {
  // Tarjan's algorithm, iterative, with one word of state per vertex: low[v]
  // is kNone (unvisited), a DFS low-link (on the stack), or kDone (assigned).
  // Reading low[w] instead of index[w] for an on-stack w finds the same roots,
  // and kDone is above every index, so an edge to a finished vertex needs no
  // separate on-stack test: one random read per edge. The numbering is the
  // classic one (components in completion order).
  constexpr uint32_t kDone = kNone - 1;
  const uint32_t n = g.vertex_count();
  Scc r;
  r.comp.resize(n);
  std::vector<uint32_t> low(n, kNone);
  // Stacks of at most n entries, allocated untouched (pages only on use).
  struct Frame {
    uint64_t next, end;  // edge slots of v still to scan
    uint32_t v, index;   // v and its DFS index
  };
  std::unique_ptr<Frame[]> call(new Frame[n ? n : 1]);
  std::unique_ptr<uint32_t[]> stack(new uint32_t[n ? n : 1]);
  std::vector<uint32_t> loops;  // vertices with a self loop
  const uint64_t* off = g.offset.data();
  const uint32_t* tgt = g.target.data();
  uint32_t counter = 0, top = 0, depth = 0;
  auto enter = [&](uint32_t v) {
    low[v] = counter;
    stack[top++] = v;
    const uint64_t b = off[v], e = off[v + 1];
    // The vertex's targets are read next, each a likely cache miss: ask for
    // their state and offsets together.
    for (uint64_t i = b; i < e && i < b + 8; ++i) {
      __builtin_prefetch(&low[tgt[i]]);
      __builtin_prefetch(&off[tgt[i]]);
    }
    call[depth++] = {b, e, v, counter++};
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (low[root] != kNone) continue;
    enter(root);
    while (depth) {
      Frame& f = call[depth - 1];
      const uint32_t v = f.v;
      bool descended = false;
      while (f.next < f.end) {
        const uint32_t w = tgt[f.next++];
        const uint32_t lw = low[w];
        if (lw == kNone) {
          enter(w);
          descended = true;
          break;
        }
        if (w == v) loops.push_back(v);
        if (lw < low[v]) low[v] = lw;
      }
      if (descended) continue;
      const uint32_t lv = low[v];
      if (lv == f.index) {
        const uint32_t c = r.count++;
        uint32_t sz = 0, w;
        do {
          w = stack[--top];
          low[w] = kDone;
          r.comp[w] = c;
          ++sz;
        } while (w != v);
        r.size.push_back(sz);
        r.cyclic.push_back(sz > 1);
      }
      --depth;
      if (depth) {
        const uint32_t p = call[depth - 1].v;
        if (lv < low[p]) low[p] = lv;  // a root's index is above low[p]: no change
      }
    }
  }
  for (uint32_t v : loops) r.cyclic[r.comp[v]] = 1;
  return r;
}

namespace {

// One round of Kahn's peeling: the vertices freed by removing `frontier`
// (their last in-edge came from it) go to `next`, in any order. With several
// threads each takes a contiguous piece of the frontier; counters are
// decremented atomically, so exactly one thread frees each vertex.
// count[v]: in-edges of v not yet removed, then, once v is freed (0), its
// depth: no edge is removed from a freed vertex, so the word is free; one
// cache line per target instead of two. Freed vertices get depth round + 1.
void peel_round(const Csr& g, std::vector<uint32_t>& count, const std::vector<uint32_t>& frontier,
                std::vector<uint32_t>& next, uint32_t round, int threads,
                std::vector<std::vector<uint32_t>>& part_next) {
  const uint64_t* off = g.offset.data();
  const uint32_t* tgt = g.target.data();
  next.clear();
  const uint64_t f = frontier.size();
  // The frontier is known ahead of its turn: what each vertex will touch
  // (offsets, targets, targets' counters) is prefetched a few entries early,
  // so the cache misses of many vertices overlap.
  auto peel = [&](uint64_t b, uint64_t e, bool shared, std::vector<uint32_t>& out) {
    for (uint64_t h = b; h < e; ++h) {
      if (h + 16 < e) __builtin_prefetch(&off[frontier[h + 16]]);
      if (h + 8 < e) __builtin_prefetch(&tgt[off[frontier[h + 8]]]);
      if (h + 4 < e) {
        const uint32_t u = frontier[h + 4];
        for (uint64_t i = off[u]; i < off[u + 1] && i < off[u] + 4; ++i) __builtin_prefetch(&count[tgt[i]], 1);
      }
      const uint32_t v = frontier[h];
      for (uint64_t i = off[v]; i < off[v + 1]; ++i) {
        const uint32_t t = tgt[i];
        if (shared) {
          std::atomic_ref<uint32_t> c(count[t]);
          if (c.fetch_sub(1, std::memory_order_relaxed) == 1)
            c.store(round + 1, std::memory_order_relaxed), out.push_back(t);
        } else if (--count[t] == 0) {
          count[t] = round + 1, out.push_back(t);
        }
      }
    }
  };
  if (range_threads(threads, f) == 1) {
    peel(0, f, false, next);
    return;
  }
  part_next.resize(static_cast<size_t>(range_threads(threads, f)));
  parallel_ranges(threads, f, [&](int t, uint64_t b, uint64_t e) {
    part_next[t].clear();
    peel(b, e, true, part_next[t]);
  });
  for (const auto& p : part_next) next.insert(next.end(), p.begin(), p.end());
}

}  // namespace

bool acyclic_components(const Csr& g, Scc* out, int threads) {
  const int counting_threads = atomic_pass_threads(threads);  // passes sharing counters
  const uint32_t n = g.vertex_count();
  const uint64_t* off = g.offset.data();
  const uint32_t* tgt = g.target.data();
  std::vector<uint32_t> indeg(n, 0);
  const bool shared = range_threads(counting_threads, n) > 1;
  parallel_ranges(counting_threads, n, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t i = off[b]; i < off[e]; ++i) {
      if (shared) std::atomic_ref<uint32_t>(indeg[tgt[i]]).fetch_add(1, std::memory_order_relaxed);
      else ++indeg[tgt[i]];
    }
  });
  // Kahn's peeling in rounds: round d frees the vertices whose longest path
  // from a source has d edges (their depth). Large rounds run on several
  // threads; the depths do not depend on how a round was split.
  std::vector<uint32_t> frontier, next;
  std::vector<std::vector<uint32_t>> part_next;
  for (uint32_t v = 0; v < n; ++v)
    if (indeg[v] == 0) frontier.push_back(v);  // depth 0: the word already says so
  uint64_t peeled = 0;
  uint32_t rounds = 0;
  while (!frontier.empty()) {
    peeled += frontier.size();
    peel_round(g, indeg, frontier, next, rounds++, counting_threads, part_next);
    frontier.swap(next);
  }
  const std::vector<uint32_t>& depth = indeg;  // every vertex freed: all depths
  if (peeled != n) return false;  // a cycle (a self loop too) never frees its vertices
  // Numbered by (depth, vertex id), highest ids first: an edge goes to a
  // deeper vertex, so from a higher id to a lower one. Depth d holds ids
  // [n - off[d+1], n - off[d]): the layers, deepest (lowest ids) first.
  Scc& r = *out;
  r.count = n;
  r.comp.resize(n);
  const std::vector<uint64_t> off_by_depth = stable_counting_sort(
      threads, n, rounds, [&](uint64_t v) { return depth[v]; },
      [&](uint64_t v, uint64_t rank) { r.comp[v] = static_cast<uint32_t>(n - 1 - rank); });
  r.layers.resize(uint64_t{rounds} + 1);
  for (uint32_t i = 0; i <= rounds; ++i) r.layers[i] = static_cast<uint32_t>(n - off_by_depth[rounds - i]);
  r.size.assign(n, 1);
  r.cyclic.assign(n, 0);
  return true;
}

bool topological_order(const Csr& g, std::vector<uint32_t>* order) {
  const uint32_t n = g.vertex_count();
  std::vector<uint32_t> indeg(n, 0);
  for (uint32_t t : g.target) ++indeg[t];
  std::vector<uint32_t> q;
  q.reserve(n);
  for (uint32_t v = 0; v < n; ++v)
    if (indeg[v] == 0) q.push_back(v);
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t v = q[h];
    for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
      if (--indeg[g.target[i]] == 0) q.push_back(g.target[i]);
  }
  const bool ok = q.size() == n;
  if (order) *order = std::move(q);
  return ok;
}

std::vector<uint64_t> find_path(const Csr& g, uint32_t u, uint32_t v,
                                const std::vector<uint8_t>* allowed) {
  const uint32_t n = g.vertex_count();
  std::vector<uint64_t> via(n, std::numeric_limits<uint64_t>::max());  // slot that reached w
  std::vector<uint32_t> q;
  // BFS whose start is "after leaving u": seed with u's out-slots.
  auto visit_from = [&](uint32_t x) -> bool {
    for (uint64_t i = g.offset[x]; i < g.offset[x + 1]; ++i) {
      const uint32_t w = g.target[i];
      if (via[w] != std::numeric_limits<uint64_t>::max()) continue;
      if (allowed && !(*allowed)[w] && w != v) continue;
      via[w] = i;
      if (w == v) return true;
      q.push_back(w);
    }
    return false;
  };
  bool found = visit_from(u);
  for (size_t h = 0; !found && h < q.size(); ++h) found = visit_from(q[h]);
  if (!found) return {};
  // Walk back: slot -> its source vertex via offsets (binary search).
  std::vector<uint64_t> slots;
  uint32_t w = v;
  do {
    const uint64_t s = via[w];
    slots.push_back(s);
    w = static_cast<uint32_t>(std::upper_bound(g.offset.begin(), g.offset.end(), s) - g.offset.begin() - 1);
  } while (w != u);
  std::reverse(slots.begin(), slots.end());
  std::vector<uint64_t> ids;
  ids.reserve(slots.size());
  for (uint64_t s : slots) ids.push_back(g.edge_id[s]);
  return ids;
}

std::vector<uint64_t> short_cycle(const Csr& g, uint32_t tries) {
  const uint32_t n = g.vertex_count();
  // Self loop first: the shortest possible.
  for (uint32_t v = 0; v < n; ++v)
    for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
      if (g.target[i] == v) return {g.edge_id[i]};
  if (is_acyclic(g)) return {};
  const Scc scc = strongly_connected(g);
  uint32_t best = kNone;
  for (uint32_t c = 0; c < scc.count; ++c)
    if (scc.cyclic[c] && (best == kNone || scc.size[c] < scc.size[best])) best = c;
  std::vector<uint8_t> inside(n, 0);
  std::vector<uint32_t> members;
  for (uint32_t v = 0; v < n; ++v)
    if (scc.comp[v] == best) inside[v] = 1, members.push_back(v);
  std::vector<uint64_t> shortest;
  const size_t step = std::max<size_t>(1, members.size() / std::max<uint32_t>(1, tries));
  for (size_t k = 0; k < members.size() && k / step < tries; k += step) {
    auto p = find_path(g, members[k], members[k], &inside);
    if (!p.empty() && (shortest.empty() || p.size() < shortest.size())) shortest = std::move(p);
    if (shortest.size() == 2) break;
  }
  return shortest;
}

ComponentView component_view(const Csr& g, const Scc& scc, std::span<const uint32_t> sources,
                             std::span<const uint32_t> targets) {
  ComponentView m;
  const uint32_t n = g.vertex_count(), nc = scc.count;
  const auto& comp = scc.comp;
  m.offset.assign(uint64_t{nc} + 1, 0);
  for (uint32_t v = 0; v < n; ++v) ++m.offset[comp[v] + 1];
  for (uint32_t c = 0; c < nc; ++c) m.offset[c + 1] += m.offset[c];
  m.verts.resize(n);
  {
    std::vector<uint64_t> pos(m.offset.begin(), m.offset.end() - 1);
    for (uint32_t v = 0; v < n; ++v) m.verts[pos[comp[v]]++] = v;
  }
  m.down.assign(nc, 0), m.up.assign(nc, 0);
  for (uint32_t s : sources) m.down[comp[s]] = 1;
  for (uint32_t t : targets) m.up[comp[t]] = 1;
  for (uint32_t c = nc; c-- > 0;) {  // component ids are reverse topological: high ids first
    if (!m.down[c]) continue;
    for (uint64_t k = m.offset[c]; k < m.offset[c + 1]; ++k)
      for (uint64_t i = g.offset[m.verts[k]]; i < g.offset[m.verts[k] + 1]; ++i) m.down[comp[g.target[i]]] = 1;
  }
  for (uint32_t c = 0; c < nc; ++c) {  // reverse topological order
    if (m.up[c]) continue;
    for (uint64_t k = m.offset[c]; k < m.offset[c + 1] && !m.up[c]; ++k)
      for (uint64_t i = g.offset[m.verts[k]]; i < g.offset[m.verts[k] + 1]; ++i)
        if (m.up[comp[g.target[i]]]) { m.up[c] = 1; break; }
  }
  return m;
}

std::vector<uint32_t> component_heights(const Csr& g, const Scc& scc) {
  std::vector<uint32_t> height(scc.count, 0);
  const ComponentView m = component_view(g, scc, {}, {});
  // Component ids are reverse topological: successors are already final.
  for (uint32_t c = 0; c < scc.count; ++c)
    for (uint64_t k = m.offset[c]; k < m.offset[c + 1]; ++k)
      for (uint64_t i = g.offset[m.verts[k]]; i < g.offset[m.verts[k] + 1]; ++i) {
        const uint32_t d = scc.comp[g.target[i]];
        if (d != c) height[c] = std::max(height[c], height[d] + 1);
      }
  return height;
}

}  // namespace isocheck

#include "closure/graph_algos.h"

#include <algorithm>
#include <limits>

namespace isocheck {

namespace {
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
}

Scc strongly_connected(const Csr& g) {
  const uint32_t n = g.vertex_count();
  Scc r;
  r.comp.assign(n, kNone);
  std::vector<uint32_t> index(n, kNone), low(n, 0);
  std::vector<uint32_t> stack;  // Tarjan stack
  std::vector<uint8_t> on_stack(n, 0);
  struct Frame { uint32_t v; uint64_t next; };
  std::vector<Frame> call;
  uint32_t counter = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kNone) continue;
    index[root] = low[root] = counter++;
    stack.push_back(root), on_stack[root] = 1;
    call.push_back({root, g.offset[root]});
    while (!call.empty()) {
      Frame& f = call.back();
      const uint32_t v = f.v;
      if (f.next < g.offset[v + 1]) {
        const uint32_t w = g.target[f.next++];
        if (index[w] == kNone) {
          index[w] = low[w] = counter++;
          stack.push_back(w), on_stack[w] = 1;
          call.push_back({w, g.offset[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        const uint32_t c = r.count++;
        uint32_t sz = 0, w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          r.comp[w] = c;
          ++sz;
        } while (w != v);
        r.size.push_back(sz);
        r.cyclic.push_back(sz > 1);
      }
      call.pop_back();
      if (!call.empty()) {
        const uint32_t p = call.back().v;
        low[p] = std::min(low[p], low[v]);
      }
    }
  }
  for (uint32_t v = 0; v < n; ++v)
    for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
      if (g.target[i] == v) r.cyclic[r.comp[v]] = 1;
  return r;
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

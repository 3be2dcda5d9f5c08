#include "solver/acyclic.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace isocheck {

uint32_t strongly_connected(const Csr& g, std::vector<uint32_t>& comp) {
  const uint32_t n = g.vertex_count();
  constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> index(n, kUnset), low(n, 0);
  std::vector<uint32_t> stack, call;  // call stack of vertices; edge cursor in `cursor`
  std::vector<uint64_t> cursor(n, 0);
  std::vector<uint8_t> on_stack(n, 0);
  comp.assign(n, kUnset);
  uint32_t next_index = 0, ncomp = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnset) continue;
    call.push_back(root);
    index[root] = low[root] = next_index++;
    cursor[root] = g.offset[root];
    stack.push_back(root), on_stack[root] = 1;
    while (!call.empty()) {
      uint32_t v = call.back();
      if (cursor[v] < g.offset[v + 1]) {
        uint32_t w = g.target[cursor[v]++];
        if (index[w] == kUnset) {
          index[w] = low[w] = next_index++;
          cursor[w] = g.offset[w];
          stack.push_back(w), on_stack[w] = 1;
          call.push_back(w);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      call.pop_back();
      if (!call.empty()) low[call.back()] = std::min(low[call.back()], low[v]);
      if (low[v] == index[v]) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp[w] = ncomp;
        } while (w != v);
        ++ncomp;
      }
    }
  }
  return ncomp;
}

namespace {

// Kahn's algorithm; returns true when every vertex was ordered.
bool topologically_sortable(const Csr& g, std::vector<uint32_t>& indeg) {
  const uint32_t n = g.vertex_count();
  indeg.assign(n, 0);
  for (uint32_t t : g.target) indeg[t]++;
  std::vector<uint32_t> queue;
  queue.reserve(n);
  for (uint32_t v = 0; v < n; ++v) if (indeg[v] == 0) queue.push_back(v);
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t v = queue[head];
    for (uint64_t e = g.offset[v]; e < g.offset[v + 1]; ++e)
      if (--indeg[g.target[e]] == 0) queue.push_back(g.target[e]);
  }
  return queue.size() == n;
}

}  // namespace

std::vector<uint32_t> find_cycle(const Csr& g, uint32_t aux_from) {
  const uint32_t n = g.vertex_count();
  std::vector<uint32_t> indeg;
  if (topologically_sortable(g, indeg)) return {};
  // Restrict to the vertices Kahn could not order (cycles and what they reach).
  std::vector<uint32_t> keep_id(n, UINT32_MAX), keep;
  for (uint32_t v = 0; v < n; ++v) if (indeg[v] > 0) keep_id[v] = static_cast<uint32_t>(keep.size()), keep.push_back(v);
  std::vector<uint32_t> src, dst;
  Csr sub;
  sub.offset.assign(keep.size() + 1, 0);
  for (size_t i = 0; i < keep.size(); ++i) {
    uint32_t v = keep[i];
    for (uint64_t e = g.offset[v]; e < g.offset[v + 1]; ++e)
      if (keep_id[g.target[e]] != UINT32_MAX) sub.target.push_back(keep_id[g.target[e]]);
    sub.offset[i + 1] = sub.target.size();
  }
  std::vector<uint32_t> comp;
  uint32_t ncomp = strongly_connected(sub, comp);
  std::vector<uint32_t> comp_size(ncomp, 0);
  for (uint32_t c : comp) comp_size[c]++;
  // Components with a cycle, smallest first.
  std::vector<uint32_t> order;
  for (uint32_t c = 0; c < ncomp; ++c) if (comp_size[c] > 1) order.push_back(c);
  for (uint32_t v = 0; v < sub.vertex_count(); ++v)  // self-loops
    for (uint64_t e = sub.offset[v]; e < sub.offset[v + 1]; ++e)
      if (sub.target[e] == v) return {keep[v]};
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return comp_size[a] < comp_size[b]; });

  // 0-1 BFS for the shortest way back to the source inside one component.
  const uint32_t m = sub.vertex_count();
  std::vector<uint32_t> dist(m, UINT32_MAX), parent(m, UINT32_MAX), touched;
  std::vector<uint32_t> best;
  uint32_t best_len = UINT32_MAX;
  uint64_t budget = 40'000'000;  // edge visits over all searches
  int sources_left = 64;
  std::vector<std::vector<uint32_t>> members(order.size());
  {
    std::vector<int32_t> slot(ncomp, -1);
    for (size_t i = 0; i < order.size(); ++i) slot[order[i]] = static_cast<int32_t>(i);
    for (uint32_t v = 0; v < m; ++v) if (slot[comp[v]] >= 0) members[slot[comp[v]]].push_back(v);
  }
  for (size_t ci = 0; ci < order.size() && sources_left > 0 && budget > 0; ++ci) {
    uint32_t c = order[ci];
    if (best_len != UINT32_MAX && comp_size[c] > 64 * best_len && ci > 0) break;
    // Sources: transaction vertices of this component, a few of them.
    int per_comp = std::max(1, std::min(sources_left, 16));
    int used = 0;
    for (uint32_t s : members[ci]) {
      if (used >= per_comp || budget == 0) break;
      if (keep[s] >= aux_from) continue;
      ++used, --sources_left;
      for (uint32_t v : touched) dist[v] = UINT32_MAX, parent[v] = UINT32_MAX;
      touched.clear();
      std::deque<uint32_t> dq;
      dist[s] = 0, touched.push_back(s), dq.push_back(s);
      uint32_t closing = UINT32_MAX, closing_len = UINT32_MAX;
      while (!dq.empty() && budget > 0) {
        uint32_t v = dq.front();
        dq.pop_front();
        if (dist[v] >= best_len || dist[v] >= closing_len) continue;
        for (uint64_t e = sub.offset[v]; e < sub.offset[v + 1]; ++e) {
          uint32_t w = sub.target[e];
          // (Edges leaving the component cost nothing: the search, budget
          // included, then depends only on the components with a cycle, so
          // that the core of the graph gives the cycle the whole graph gives.)
          if (comp[w] != c) continue;
          --budget;
          uint32_t cost = keep[w] >= aux_from ? 0 : 1;
          if (w == s) {
            if (dist[v] + 1 < closing_len) closing_len = dist[v] + 1, closing = v;
            continue;
          }
          if (dist[w] != UINT32_MAX && dist[w] <= dist[v] + cost) continue;
          if (dist[w] == UINT32_MAX) touched.push_back(w);
          dist[w] = dist[v] + cost, parent[w] = v;
          if (cost == 0) dq.push_front(w); else dq.push_back(w);
        }
      }
      if (closing != UINT32_MAX && closing_len < best_len) {
        best_len = closing_len;
        best.clear();
        for (uint32_t v = closing; v != s; v = parent[v]) best.push_back(keep[v]);
        best.push_back(keep[s]);
        std::reverse(best.begin(), best.end());
      }
    }
  }
  if (best.empty()) {
    // Budget exhausted before closing a cycle: walk inside the smallest
    // component until a vertex repeats (always terminates, always a cycle).
    uint32_t c = order.front();
    std::vector<uint32_t> seen_at(m, UINT32_MAX), path;
    uint32_t v = members[0].front();
    while (seen_at[v] == UINT32_MAX) {
      seen_at[v] = static_cast<uint32_t>(path.size());
      path.push_back(v);
      for (uint64_t e = sub.offset[v]; e < sub.offset[v + 1]; ++e)
        if (comp[sub.target[e]] == c) { v = sub.target[e]; break; }
    }
    for (size_t i = seen_at[v]; i < path.size(); ++i) best.push_back(keep[path[i]]);
  }
  // Start the cycle at a transaction vertex.
  auto it = std::find_if(best.begin(), best.end(), [&](uint32_t v) { return v < aux_from; });
  if (it != best.end()) std::rotate(best.begin(), it, best.end());
  return best;
}

}  // namespace isocheck

// The GPU closure's host plan (and Tarjan) as first written, before the
// speed-up: several passes over the whole graph, per-component sorts, one
// thread. Kept for the tests only (gpu_plan_test.cpp), as the reference the
// fast plan (gpu_plan.cpp) must equal field for field.
#pragma once
#include <algorithm>
#include <span>
#include <vector>

#include "closure/gpu_plan.h"
#include "closure/graph_algos.h"

namespace isocheck::reference {

// Tarjan as first written (index, low-link and on-stack arrays; self loops in
// a second pass): strongly_connected must number components exactly so.
inline Scc reference_strongly_connected(const Csr& g) {
  constexpr uint32_t kNone = 0xffffffffu;
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

inline LevelPlan reference_level_plan(const Csr& g, std::span<const uint32_t> sources, std::span<const uint32_t> targets,
                          Scc scc) {
  LevelPlan p;
  p.scc = std::move(scc);
  const uint32_t nc = p.scc.count;
  const auto& comp = p.scc.comp;
  ComponentView view = component_view(g, p.scc, sources, targets);
  const auto& voff = view.offset;
  const auto& verts = view.verts;
  const auto& down = view.down;
  const auto& up = view.up;
  // Provisional dense numbering in comp order (successors first), succ lists.
  std::vector<uint32_t> prov(nc, kNoDense);
  uint32_t r = 0;
  for (uint32_t c = 0; c < nc; ++c)
    if (down[c] && up[c]) prov[c] = r++;
  p.relevant = r;
  std::vector<uint64_t> soff(uint64_t{r} + 1, 0);
  std::vector<uint32_t> succ, tmp;
  std::vector<uint32_t> height(r, 0), comp_of(r);
  for (uint32_t c = 0; c < nc; ++c) {
    const uint32_t d = prov[c];
    if (d == kNoDense) continue;
    comp_of[d] = c;
    tmp.clear();
    for (uint64_t k = voff[c]; k < voff[c + 1]; ++k)
      for (uint64_t i = g.offset[verts[k]]; i < g.offset[verts[k] + 1]; ++i) {
        const uint32_t cw = comp[g.target[i]];
        if (cw != c && prov[cw] != kNoDense) tmp.push_back(prov[cw]);
      }
    std::sort(tmp.begin(), tmp.end());
    tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
    uint32_t h = 0;
    for (uint32_t s : tmp) h = std::max(h, height[s] + 1);
    height[d] = h;
    succ.insert(succ.end(), tmp.begin(), tmp.end());
    soff[d + 1] = succ.size();
  }
  // Level order (counting sort by height, stable).
  uint32_t levels = 0;
  for (uint32_t d = 0; d < r; ++d) levels = std::max(levels, height[d] + 1);
  p.level_off.assign(uint64_t{levels} + 1, 0);
  for (uint32_t d = 0; d < r; ++d) ++p.level_off[height[d] + 1];
  for (uint32_t l = 0; l < levels; ++l) p.level_off[l + 1] += p.level_off[l];
  std::vector<uint32_t> fin(r);
  {
    std::vector<uint32_t> pos(p.level_off.begin(), p.level_off.end() - (levels ? 1 : 0));
    for (uint32_t d = 0; d < r; ++d) fin[d] = pos[height[d]]++;
  }
  p.dense.assign(nc, kNoDense);
  for (uint32_t d = 0; d < r; ++d) p.dense[comp_of[d]] = fin[d];
  std::vector<uint32_t> inv(r);
  for (uint32_t d = 0; d < r; ++d) inv[fin[d]] = d;
  p.succ_off.assign(uint64_t{r} + 1, 0);
  p.succ.resize(succ.size());
  for (uint32_t f = 0; f < r; ++f) {
    const uint32_t d = inv[f];
    uint64_t o = p.succ_off[f];
    for (uint64_t i = soff[d]; i < soff[d + 1]; ++i) p.succ[o++] = fin[succ[i]];
    p.succ_off[f + 1] = o;
  }
  p.columns = static_cast<uint32_t>(targets.size());
  for (uint32_t j = 0; j < targets.size(); ++j) {
    const uint32_t d = p.dense[comp[targets[j]]];
    if (d != kNoDense) p.col_dense.push_back(d), p.col_index.push_back(j);
  }
  return p;
}

inline QueryPlan reference_query_plan(const Csr& g, std::span<const ReachQuery> q, Scc scc) {
  QueryPlan qp;
  qp.ans.assign(q.size(), 0);
  const uint32_t n = g.vertex_count();
  // Heights in the whole condensation (sinks 0): u reaches v in another
  // component only if height(u) > height(v). Cheap filter before the bits.
  const std::vector<uint32_t> height = component_heights(g, scc);
  std::vector<uint32_t> col_of(n, kNoDense), targets, sources;
  std::vector<uint8_t> is_src(n, 0);
  for (const auto& x : q) {
    const uint32_t cu = scc.comp[x.from], cv = scc.comp[x.to];
    if (cu == cv || height[cu] <= height[cv]) continue;
    if (col_of[x.to] == kNoDense) col_of[x.to] = 0, targets.push_back(x.to);
    if (!is_src[x.from]) is_src[x.from] = 1, sources.push_back(x.from);
  }
  // Targets in vertex order (a scan of the marks, no sort).
  targets.clear();
  for (uint32_t v = 0; v < n; ++v)
    if (col_of[v] != kNoDense) col_of[v] = static_cast<uint32_t>(targets.size()), targets.push_back(v);
  qp.plan = reference_level_plan(g, sources, targets, std::move(scc));
  const auto& p = qp.plan;
  const auto& comp = p.scc.comp;
  for (uint32_t i = 0; i < q.size(); ++i) {
    const uint32_t cu = comp[q[i].from], cv = comp[q[i].to];
    if (cu == cv) qp.ans[i] = p.scc.cyclic[cu];
    else if (height[cu] > height[cv] && p.dense[cu] != kNoDense && p.dense[cv] != kNoDense) qp.order.push_back(i);
  }
  {  // by column, stable: a counting sort (columns are dense 0..targets-1)
    std::vector<uint64_t> start(targets.size() + 1, 0);
    for (uint32_t i : qp.order) ++start[col_of[q[i].to] + 1];
    for (size_t c = 0; c < targets.size(); ++c) start[c + 1] += start[c];
    std::vector<uint32_t> sorted(qp.order.size());
    for (uint32_t i : qp.order) sorted[start[col_of[q[i].to]]++] = i;
    qp.order.swap(sorted);
  }
  qp.row.resize(qp.order.size()), qp.col.resize(qp.order.size());
  for (size_t k = 0; k < qp.order.size(); ++k) {
    qp.row[k] = p.dense[comp[q[qp.order[k]].from]];
    qp.col[k] = col_of[q[qp.order[k]].to];
  }
  return qp;
}

inline MatrixPlan reference_matrix_plan(const Csr& g, std::span<const uint32_t> keys, Scc scc) {
  MatrixPlan mp;
  mp.plan = reference_level_plan(g, keys, keys, std::move(scc));
  mp.row.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) mp.row[i] = mp.plan.dense[mp.plan.scc.comp[keys[i]]];
  return mp;
}

}  // namespace isocheck::reference

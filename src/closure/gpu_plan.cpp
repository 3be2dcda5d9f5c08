#include "closure/gpu_plan.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "io/errors.h"

namespace isocheck {

uint64_t LevelPlan::col_lower(uint32_t c) const {
  return static_cast<uint64_t>(std::lower_bound(col_index.begin(), col_index.end(), c) - col_index.begin());
}

LevelPlan make_level_plan(const Csr& g, std::span<const uint32_t> sources, std::span<const uint32_t> targets,
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

bool scc_still_valid(const Csr& g, const Scc& prev) {
  const uint32_t n = g.vertex_count();
  if (prev.comp.size() != n || prev.count != n) return false;
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t cv = prev.comp[v];
    for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
      if (prev.comp[g.target[i]] >= cv) return false;
  }
  return true;
}

QueryPlan make_query_plan(const Csr& g, std::span<const ReachQuery> q, Scc scc) {
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
  qp.plan = make_level_plan(g, sources, targets, std::move(scc));
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

MatrixPlan make_matrix_plan(const Csr& g, std::span<const uint32_t> keys, Scc scc) {
  MatrixPlan mp;
  mp.plan = make_level_plan(g, keys, keys, std::move(scc));
  mp.row.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) mp.row[i] = mp.plan.dense[mp.plan.scc.comp[keys[i]]];
  return mp;
}

void clear_irreflexive(const MatrixPlan& mp, std::span<const uint32_t> keys, ReachMatrix& m, uint64_t w0,
                       uint64_t wn) {
  // Columns grouped by component: only keys sharing an acyclic component.
  const auto& comp = mp.plan.scc.comp;
  const uint64_t c0 = w0 * 64, c1 = std::min<uint64_t>(m.n, (w0 + wn) * 64);
  std::vector<std::pair<uint32_t, uint32_t>> by_comp;  // (comp, column)
  for (uint64_t j = c0; j < c1; ++j) {
    const uint32_t c = comp[keys[j]];
    if (!mp.plan.scc.cyclic[c]) by_comp.push_back({c, static_cast<uint32_t>(j)});
  }
  std::sort(by_comp.begin(), by_comp.end());
  for (uint32_t i = 0; i < m.n; ++i) {
    const uint32_t c = comp[keys[i]];
    if (mp.plan.scc.cyclic[c]) continue;
    auto it = std::lower_bound(by_comp.begin(), by_comp.end(), std::pair<uint32_t, uint32_t>{c, 0});
    for (; it != by_comp.end() && it->first == c; ++it)
      m.bits[uint64_t{i} * m.words + it->second / 64] &= ~(uint64_t{1} << (it->second % 64));
  }
}

uint32_t HostSliceBackend::chunk_words(const LevelPlan& p, uint32_t c0, uint32_t c1) const {
  const uint64_t need = (uint64_t{c1 - c0} + 63) / 64;
  const uint64_t cap = std::max<uint64_t>(1, budget_ / (uint64_t{std::max<uint32_t>(1, p.relevant)} * 8));
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(need, cap)));
}

void HostSliceBackend::propagate(const LevelPlan& p, uint32_t c0, uint32_t words, std::vector<uint64_t>& buf) const {
  buf.assign(uint64_t{p.relevant} * words, 0);
  const uint64_t c1 = uint64_t{c0} + 64ull * words;
  for (uint64_t i = p.col_lower(c0); i < p.col_index.size() && p.col_index[i] < c1; ++i) {
    const uint32_t j = p.col_index[i] - c0;
    buf[uint64_t{p.col_dense[i]} * words + j / 64] |= uint64_t{1} << (j % 64);
  }
  for (uint32_t d = 0; d < p.relevant; ++d) {  // dense order is level order
    uint64_t* row = buf.data() + uint64_t{d} * words;
    for (uint64_t i = p.succ_off[d]; i < p.succ_off[d + 1]; ++i) {
      const uint64_t* s = buf.data() + uint64_t{p.succ[i]} * words;
      for (uint32_t x = 0; x < words; ++x) row[x] |= s[x];
    }
  }
}

void HostSliceBackend::rows(const LevelPlan& p, std::span<const uint32_t> rows, uint32_t c0, uint32_t c1,
                            uint64_t* out) {
  const uint64_t total = (uint64_t{c1 - c0} + 63) / 64;
  std::memset(out, 0, rows.size() * total * 8);
  if (c1 <= c0 || p.relevant == 0) return;
  const uint32_t w = chunk_words(p, c0, c1);
  std::vector<uint64_t> buf;
  for (uint64_t k = 0; k < total; k += w) {
    const uint32_t words = static_cast<uint32_t>(std::min<uint64_t>(w, total - k));
    propagate(p, static_cast<uint32_t>(c0 + 64 * k), words, buf);
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r] != kNoDense) std::memcpy(out + r * total + k, buf.data() + uint64_t{rows[r]} * words, words * 8);
  }
  // Bits past c1 in the last word belong to no column.
  if ((c1 - c0) % 64)
    for (size_t r = 0; r < rows.size(); ++r) out[r * total + total - 1] &= (uint64_t{1} << ((c1 - c0) % 64)) - 1;
}

void HostSliceBackend::queries(const LevelPlan& p, std::span<const uint32_t> row, std::span<const uint32_t> col,
                               uint32_t c0, uint32_t c1, uint8_t* out) {
  if (c1 <= c0 || p.relevant == 0) return;
  const uint64_t total = (uint64_t{c1 - c0} + 63) / 64;
  const uint32_t w = chunk_words(p, c0, c1);
  std::vector<uint64_t> buf;
  auto lo = std::lower_bound(col.begin(), col.end(), c0) - col.begin();
  for (uint64_t k = 0; k < total; k += w) {
    const uint32_t words = static_cast<uint32_t>(std::min<uint64_t>(w, total - k));
    const uint64_t a = c0 + 64 * k, b = std::min<uint64_t>(c1, a + 64ull * words);
    propagate(p, static_cast<uint32_t>(a), words, buf);
    for (; lo < static_cast<int64_t>(col.size()) && col[lo] < b; ++lo) {
      const uint64_t j = col[lo] - a;
      out[lo] = (buf[uint64_t{row[lo]} * words + j / 64] >> (j % 64)) & 1;
    }
  }
}

std::string gib(uint64_t bytes) {
  char s[64];
  std::snprintf(s, sizeof s, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return s;
}

GpuMemoryPlan plan_gpu_memory_counts(uint64_t relevant, uint64_t succ_edges, uint64_t col_pairs, uint64_t levels,
                                     uint64_t rows_out, uint64_t queries, uint64_t columns, uint64_t available,
                                     uint64_t device_total) {
  GpuMemoryPlan m;
  // succ_off (8 per row + 1), succ (4 per edge), column pairs (8 each), the
  // level offsets, queries (row 4, column 4, answer 1), 1 MiB for alignment.
  m.fixed = 8 * (relevant + 1) + 4 * succ_edges + 8 * col_pairs + 4 * (levels + 1) + 9 * queries + (1ull << 20);
  // A chunk of w words: the rows of every relevant component, and the rows
  // gathered for the output (reach_matrix).
  m.per_word = 8 * (relevant + rows_out);
  const uint64_t need_words = std::max<uint64_t>(1, (columns + 63) / 64);
  if (m.needed_min() > available)
    throw ResourceError("GPU closure needs " + gib(m.needed_min()) + ", device has " + gib(available) +
                        " usable of " + gib(device_total) + " (" + std::to_string(relevant) + " components, " +
                        std::to_string(succ_edges) + " edges): use --closure cpu");
  m.words = std::min<uint64_t>(need_words, (available - m.fixed) / m.per_word);
  m.chunks = (need_words + m.words - 1) / m.words;
  return m;
}

GpuMemoryPlan plan_gpu_memory(const LevelPlan& p, uint64_t rows_out, uint64_t queries, uint32_t c0, uint32_t c1,
                              uint64_t available, uint64_t device_total) {
  return plan_gpu_memory_counts(p.relevant, p.succ.size(), p.col_index.size(), p.levels(), rows_out, queries,
                                c1 > c0 ? c1 - c0 : 0, available, device_total);
}

}  // namespace isocheck

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>

#include "closure/closure.h"
#include "closure/gpu_closure.h"
#include "closure/graph_algos.h"
#include "closure/path_index.h"
#include "core/threads.h"

namespace isocheck {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// The condensation restricted to components that are reachable from a source
// and reach a target; everything else has an empty reach set for our columns.
struct Plan {
  Scc scc;
  std::vector<uint32_t> dense;      // comp -> dense index (kNone: irrelevant)
  uint32_t relevant = 0;            // dense indices are in increasing comp id
  std::vector<uint64_t> succ_off;   // per dense index
  std::vector<uint32_t> succ;       // dense successors (other components)
  std::vector<uint64_t> col_off;    // per dense index: its target columns
  std::vector<uint32_t> cols;
};

Plan make_plan(const Csr& g, std::span<const uint32_t> sources, std::span<const uint32_t> targets, Scc scc) {
  Plan p;
  p.scc = std::move(scc);
  const uint32_t nc = p.scc.count;
  const auto& comp = p.scc.comp;
  ComponentView view = component_view(g, p.scc, sources, targets);
  const auto& voff = view.offset;
  const auto& verts = view.verts;
  const auto& down = view.down;
  const auto& up = view.up;
  p.dense.assign(nc, kNone);
  for (uint32_t c = 0; c < nc; ++c)
    if (down[c] && up[c]) p.dense[c] = p.relevant++;
  p.succ_off.assign(p.relevant + 1, 0);
  std::vector<uint32_t> tmp;
  for (uint32_t c = 0; c < nc; ++c) {
    const uint32_t d = p.dense[c];
    if (d == kNone) continue;
    tmp.clear();
    for (uint64_t k = voff[c]; k < voff[c + 1]; ++k) {
      const uint32_t v = verts[k];
      for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i) {
        const uint32_t cw = comp[g.target[i]];
        if (cw != c && p.dense[cw] != kNone) tmp.push_back(p.dense[cw]);
      }
    }
    std::sort(tmp.begin(), tmp.end());
    tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
    p.succ.insert(p.succ.end(), tmp.begin(), tmp.end());
    p.succ_off[d + 1] = p.succ.size();
  }
  p.col_off.assign(p.relevant + 1, 0);
  for (uint32_t t : targets)
    if (p.dense[comp[t]] != kNone) ++p.col_off[p.dense[comp[t]] + 1];
  for (uint32_t d = 0; d < p.relevant; ++d) p.col_off[d + 1] += p.col_off[d];
  p.cols.resize(p.col_off[p.relevant]);
  std::vector<uint64_t> pos(p.col_off.begin(), p.col_off.end() - 1);
  for (uint32_t j = 0; j < targets.size(); ++j)
    if (p.dense[comp[targets[j]]] != kNone) p.cols[pos[p.dense[comp[targets[j]]]]++] = j;
  return p;
}

// Runs the chunked propagation; `sink(c0, words, buf)` sees, for every dense
// component d, row buf + d * words = its reflexive reach set over columns
// [c0, c0 + 64 * words). Called concurrently for different chunks.
void propagate(const Plan& p, uint32_t columns, const CpuClosureOptions& opt,
               const std::function<void(uint32_t, uint32_t, const uint64_t*)>& sink) {
  if (columns == 0 || p.relevant == 0) return;
  const int threads = std::max(1, opt.threads);
  uint64_t w = std::max<uint32_t>(64, opt.chunk_columns / 64 * 64);
  w = std::min<uint64_t>(w, (uint64_t{columns} + 63) / 64 * 64);
  const uint64_t cap = opt.memory_budget * 8 / (uint64_t{p.relevant} * threads);
  if (cap < w) w = std::max<uint64_t>(64, cap / 64 * 64);
  const uint32_t words = static_cast<uint32_t>(w / 64);
  const uint32_t chunks = static_cast<uint32_t>((columns + w - 1) / w);
  std::atomic<uint32_t> next{0};
  auto work = [&](int, ThreadErrors& errors) {
    std::vector<uint64_t> buf(uint64_t{p.relevant} * words);
    for (uint32_t k; !errors.failed() && (k = next.fetch_add(1)) < chunks;) {
      const uint32_t c0 = static_cast<uint32_t>(k * w), c1 = static_cast<uint32_t>(std::min<uint64_t>(columns, c0 + w));
      std::fill(buf.begin(), buf.end(), 0);
      for (uint32_t d = 0; d < p.relevant; ++d) {
        uint64_t* row = buf.data() + uint64_t{d} * words;
        for (uint64_t i = p.col_off[d]; i < p.col_off[d + 1]; ++i) {
          const uint32_t j = p.cols[i];
          if (j >= c0 && j < c1) row[(j - c0) / 64] |= uint64_t{1} << ((j - c0) % 64);
        }
        for (uint64_t i = p.succ_off[d]; i < p.succ_off[d + 1]; ++i) {
          const uint64_t* s = buf.data() + uint64_t{p.succ[i]} * words;
          for (uint32_t x = 0; x < words; ++x) row[x] |= s[x];
        }
      }
      sink(c0, words, buf.data());
    }
  };
  run_threads(std::min<int>(threads, chunks), work);
}

}  // namespace

ReachMatrix CpuClosure::reach_matrix(const Csr& g, std::span<const uint32_t> keys) {
  ReachMatrix m;
  m.reset(static_cast<uint32_t>(keys.size()));
  const Plan p = make_plan(g, keys, keys, strongly_connected(g));
  const auto& comp = p.scc.comp;
  propagate(p, m.n, opt_, [&](uint32_t c0, uint32_t words, const uint64_t* buf) {
    const uint64_t w0 = c0 / 64;
    const uint64_t wn = std::min<uint64_t>(words, m.words - w0);
    for (uint32_t i = 0; i < m.n; ++i) {
      const uint32_t c = comp[keys[i]], d = p.dense[c];
      if (d == kNone) continue;
      uint64_t* out = m.bits.data() + i * m.words + w0;
      std::memcpy(out, buf + uint64_t{d} * words, wn * 8);
      if (!p.scc.cyclic[c])  // a lone vertex does not reach itself
        for (uint64_t x = p.col_off[d]; x < p.col_off[d + 1]; ++x) {
          const uint32_t j = p.cols[x];
          if (j >= c0 && j < c0 + 64 * wn) out[(j - c0) / 64] &= ~(uint64_t{1} << ((j - c0) % 64));
        }
    }
  });
  return m;
}

std::vector<uint8_t> CpuClosure::reach_queries(const Csr& g, std::span<const ReachQuery> q) {
  std::vector<uint8_t> ans(q.size(), 0);
  if (q.empty()) return ans;
  const uint32_t n = g.vertex_count();
  Scc scc = strongly_connected(g);
  // Height of each component in the condensation (sinks 0): u can reach v in
  // another component only if height(u) > height(v). Cheap filter before the
  // bitsets; components are numbered so successors come first.
  const std::vector<uint32_t> height = component_heights(g, scc);
  auto candidate = [&](const ReachQuery& x) {
    const uint32_t cu = scc.comp[x.from], cv = scc.comp[x.to];
    return cu != cv && height[cu] > height[cv];
  };
  std::vector<uint32_t> col_of(n, kNone), targets, sources;
  std::vector<uint8_t> is_src(n, 0);
  for (const auto& x : q) {
    if (!candidate(x)) continue;
    if (col_of[x.to] == kNone) col_of[x.to] = 0, targets.push_back(x.to);
    if (!is_src[x.from]) is_src[x.from] = 1, sources.push_back(x.from);
  }
  std::sort(targets.begin(), targets.end());
  for (uint32_t j = 0; j < targets.size(); ++j) col_of[targets[j]] = j;
  const Plan p = make_plan(g, sources, targets, std::move(scc));
  const auto& comp = p.scc.comp;
  // Queries ordered by column, so a chunk answers a contiguous range.
  std::vector<uint32_t> order;
  order.reserve(q.size());
  for (uint32_t i = 0; i < q.size(); ++i) {
    const uint32_t cu = comp[q[i].from], cv = comp[q[i].to];
    if (cu == cv) ans[i] = p.scc.cyclic[cu];
    else if (height[cu] > height[cv] && p.dense[cu] != kNone && p.dense[cv] != kNone) order.push_back(i);
  }
  // Many target columns over a graph that few paths cover (sessions): a path
  // index answers every query for k words per component instead of
  // columns / 64 (path_index.h). Same answers; chosen by the cost estimate.
  const bool declined_before = cover_declined_.vertices == n && targets.size() <= cover_declined_.targets;
  if (opt_.path_index && targets.size() >= 4096 && !declined_before) {
    PathIndex idx;
    ++covers_tried_;
    std::vector<uint32_t> hint;
    if (hint_.size() == n) {  // per component: a member's preferred successor's component
      hint.assign(p.relevant, kNone);
      for (uint32_t v = 0; v < n; ++v) {
        const uint32_t d = p.dense[comp[v]], w = hint_[v];
        if (d == kNone || w == kNone || w >= n || comp[w] == comp[v] || p.dense[comp[w]] == kNone) continue;
        if (hint[d] == kNone) hint[d] = p.dense[comp[w]];
      }
    }
    const uint64_t k = idx.cover(p.relevant, p.succ_off, p.succ, hint.empty() ? nullptr : &hint,
                                 static_cast<uint32_t>(targets.size() / 128));
    if (k * 128 <= targets.size() && k * p.relevant * 4 <= opt_.memory_budget) {
      idx.build(p.succ_off, p.succ);
      for (uint32_t i : order) ans[i] = idx.reaches(p.dense[comp[q[i].from]], p.dense[comp[q[i].to]]);
      return ans;
    }
    cover_declined_ = {n, static_cast<uint32_t>(targets.size())};
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return col_of[q[a].to] < col_of[q[b].to]; });
  propagate(p, static_cast<uint32_t>(targets.size()), opt_, [&](uint32_t c0, uint32_t words, const uint64_t* buf) {
    auto lo = std::lower_bound(order.begin(), order.end(), c0, [&](uint32_t i, uint32_t c) { return col_of[q[i].to] < c; });
    const uint64_t c1 = uint64_t{c0} + 64 * words;
    for (; lo != order.end() && col_of[q[*lo].to] < c1; ++lo) {
      const uint32_t i = *lo, j = col_of[q[i].to] - c0;
      const uint64_t* row = buf + uint64_t{p.dense[comp[q[i].from]]} * words;
      ans[i] = (row[j / 64] >> (j % 64)) & 1;
    }
  });
  return ans;
}

ReachMatrix reach_matrix_naive(const Csr& g, std::span<const uint32_t> keys) {
  ReachMatrix m;
  m.reset(static_cast<uint32_t>(keys.size()));
  const uint32_t n = g.vertex_count();
  std::vector<uint32_t> seen(n, 0), q;
  uint32_t stamp = 0;
  std::vector<std::vector<uint32_t>> cols_of(n);
  for (uint32_t j = 0; j < keys.size(); ++j) cols_of[keys[j]].push_back(j);
  for (uint32_t i = 0; i < keys.size(); ++i) {
    ++stamp;
    q.clear();
    auto expand = [&](uint32_t v) {
      for (uint64_t e = g.offset[v]; e < g.offset[v + 1]; ++e) {
        const uint32_t w = g.target[e];
        if (seen[w] == stamp) continue;
        seen[w] = stamp;
        q.push_back(w);
        for (uint32_t j : cols_of[w]) m.set(i, j);
      }
    };
    expand(keys[i]);
    for (size_t h = 0; h < q.size(); ++h) expand(q[h]);
  }
  return m;
}

std::unique_ptr<ClosureEngine> make_closure_engine(const char* name, int threads) {
  if (std::string_view(name) == "cpu") {
    CpuClosureOptions o;
    o.threads = threads;
    return std::make_unique<CpuClosure>(o);
  }
  // The CUDA engine on device 0 when this build has CUDA and the machine a
  // device (gpu_closure.h); nullptr otherwise.
  if (std::string_view(name) == "gpu") {
    GpuClosureOptions o;
    o.threads = threads;  // the host plan's threads
    return make_gpu_closure(o);
  }
  return nullptr;
}

}  // namespace isocheck

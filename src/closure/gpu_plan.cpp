#include "closure/gpu_plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>

#include "closure/condensation.h"
#include "closure/counting_sort.h"
#include "closure/parallel_ranges.h"
#include "core/errors.h"

namespace isocheck {

uint64_t LevelPlan::col_lower(uint32_t c) const {
  return static_cast<uint64_t>(std::lower_bound(col_index.begin(), col_index.end(), c) - col_index.begin());
}

namespace {

// Adds the time since the last lap to a step's total, when timing: wall and
// process CPU seconds (the latter steadier on a shared machine).
class StepClock {
 public:
  StepClock(PlanStepTimes* wall, PlanStepTimes* cpu) : wall_(wall), cpu_(cpu) {
    if (wall_) wall_at_ = std::chrono::steady_clock::now();
    if (cpu_) cpu_at_ = std::clock();
  }
  void lap(double PlanStepTimes::*step) {
    if (wall_) {
      const auto now = std::chrono::steady_clock::now();
      wall_->*step += std::chrono::duration<double>(now - wall_at_).count();
      wall_at_ = now;
    }
    if (cpu_) {
      const std::clock_t now = std::clock();
      cpu_->*step += static_cast<double>(now - cpu_at_) / CLOCKS_PER_SEC;
      cpu_at_ = now;
    }
  }

 private:
  PlanStepTimes *wall_, *cpu_;
  std::chrono::steady_clock::time_point wall_at_;
  std::clock_t cpu_at_ = 0;
};

// The level plan from the condensation and per-component seeds: down[c] = 1
// for a source's component, up[c] = 1 for a target's (both are consumed).
// Passes, each one flat walk over the condensation CSR:
//   1. down, in decreasing id order (ancestors first): reachable from a source;
//   2. in increasing id order (successors first), for the down components
//      only: relevant (a target's component, or a relevant successor: below a
//      down component everything is down, so "reaches a target" is exactly
//      "has a relevant successor") and the level (height among the relevant
//      components), in one array: kNoDense or the level;
//   3. counting sort by level, stable in id order (the dense numbering);
//   4. successor CSR in dense order (in parallel over dense ranges), each
//      row's successors in increasing component id, as the kernels read them.
LevelPlan plan_from_condensation(const Condensation& cd, Scc scc, std::vector<uint8_t>& down,
                                 std::span<const uint8_t> up, std::span<const uint32_t> targets, int threads,
                                 StepClock& clock) {
  LevelPlan p;
  p.scc = std::move(scc);
  const uint32_t nc = cd.count();
  const uint64_t* off = cd.off.data();
  const uint32_t* succ = cd.succ.data();
  // Layer by layer when the numbering has layers (see for_each_layer); the
  // down marks another thread may also store are plain relaxed byte stores.
  for_each_layer(cd, false, threads, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t c = e; c-- > b;)
      if (down[c])
        for (uint64_t i = off[c]; i < off[c + 1]; ++i)
          std::atomic_ref<uint8_t>(down[succ[i]]).store(1, std::memory_order_relaxed);
  });
  std::vector<uint32_t>& level = p.dense;  // becomes the dense index below
  level.assign(nc, kNoDense);
  std::vector<uint32_t> nsucc(nc, 0);  // relevant successors, per relevant component
  std::vector<uint64_t> count_of(static_cast<size_t>(std::max(1, threads)), 0);  // per thread slot
  std::vector<uint32_t> levels_of(count_of.size(), 0);
  for_each_layer(cd, true, threads, [&](int t, uint64_t b, uint64_t e) {
    for (uint64_t c = b; c < e; ++c) {
      if (!down[c]) continue;
      uint32_t h = 0, k = 0;
      for (uint64_t i = off[c]; i < off[c + 1]; ++i) {
        const uint32_t l = level[succ[i]];
        if (l != kNoDense) h = std::max(h, l + 1), ++k;
      }
      if (k == 0 && !up[c]) continue;
      level[c] = h, nsucc[c] = k, ++count_of[t];
      levels_of[t] = std::max(levels_of[t], h + 1);
    }
  });
  uint32_t r = 0, levels = 0;
  for (size_t t = 0; t < count_of.size(); ++t)
    r += static_cast<uint32_t>(count_of[t]), levels = std::max(levels, levels_of[t]);
  p.relevant = r;
  // Dense numbering: by level, stable in component order.
  std::vector<uint32_t> comp_at(r);  // dense index -> component
  const std::vector<uint64_t> level_off = stable_counting_sort(
      threads, nc, levels, [&](uint64_t c) { return level[c] == kNoDense ? kNoKey : level[c]; },
      [&](uint64_t c, uint64_t d) { level[c] = static_cast<uint32_t>(d), comp_at[d] = static_cast<uint32_t>(c); });
  p.level_off.assign(level_off.begin(), level_off.end());
  clock.lap(&PlanStepTimes::levels);
  const std::vector<uint32_t>& dense = p.dense;
  p.succ_off.assign(uint64_t{r} + 1, 0);
  parallel_ranges(threads, r, [&](int, uint64_t b, uint64_t e) {  // random lookups: in parallel
    for (uint64_t d = b; d < e; ++d) p.succ_off[d + 1] = nsucc[comp_at[d]];
  });
  for (uint32_t d = 0; d < r; ++d) p.succ_off[d + 1] += p.succ_off[d];
  p.succ.resize(p.succ_off[r]);
  parallel_ranges(threads, r, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t d = b; d < e; ++d) {
      const uint32_t c = comp_at[d];
      uint64_t o = p.succ_off[d];
      for (uint64_t i = off[c]; i < off[c + 1]; ++i)
        if (dense[succ[i]] != kNoDense) p.succ[o++] = dense[succ[i]];
    }
  });
  p.columns = static_cast<uint32_t>(targets.size());
  const auto& comp = p.scc.comp;
  for (uint32_t j = 0; j < targets.size(); ++j) {
    const uint32_t d = dense[comp[targets[j]]];
    if (d != kNoDense) p.col_dense.push_back(d), p.col_index.push_back(j);
  }
  clock.lap(&PlanStepTimes::succ);
  return p;
}

}  // namespace

LevelPlan make_level_plan(const Csr& g, std::span<const uint32_t> sources, std::span<const uint32_t> targets,
                          Scc scc, int threads) {
  const Condensation cd = condense_graph(g, scc, threads);
  std::vector<uint8_t> down(scc.count, 0), up(scc.count, 0);
  for (uint32_t s : sources) down[scc.comp[s]] = 1;
  for (uint32_t t : targets) up[scc.comp[t]] = 1;
  StepClock untimed(nullptr, nullptr);
  return plan_from_condensation(cd, std::move(scc), down, up, targets, threads, untimed);
}

Scc plan_components(const Csr& g, int threads) {
  Scc s;
  if (acyclic_components(g, &s, threads)) return s;
  return strongly_connected(g);
}

bool scc_still_valid(const Csr& g, const Scc& prev, int threads) {
  const uint32_t n = g.vertex_count();
  if (prev.comp.size() != n || prev.count != n) return false;
  std::atomic<bool> ok{true};
  parallel_ranges(threads, n, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t v = b; v < e && ok.load(std::memory_order_relaxed); ++v) {
      const uint32_t cv = prev.comp[v];
      for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
        if (prev.comp[g.target[i]] >= cv) {
          ok.store(false, std::memory_order_relaxed);
          return;
        }
    }
  });
  return ok.load();
}

QueryPlan make_query_plan(const Csr& g, std::span<const ReachQuery> q, Scc scc, int threads,
                          PlanStepTimes* wall, PlanStepTimes* cpu) {
  StepClock clock(wall, cpu);
  QueryPlan qp;
  qp.ans.assign(q.size(), 0);
  const uint32_t n = g.vertex_count(), nc = scc.count;
  const Condensation cd = condense_graph(g, scc, threads);
  clock.lap(&PlanStepTimes::condense);
  // Heights in the whole condensation (sinks 0): u reaches v in another
  // component only if height(u) > height(v). Cheap filter before the bits.
  const std::vector<uint32_t> height = condensation_heights(cd, threads);
  clock.lap(&PlanStepTimes::heights);
  const uint32_t* comp = scc.comp.data();
  // Marks (every writer stores 1, so relaxed atomic stores suffice): target
  // vertices, and the components of sources. Same-component queries are
  // answered here; the others' component pair is kept (kSkip: decided no),
  // so that picking them later reads one sequential word instead of four
  // random ones.
  constexpr uint64_t kSkip = ~uint64_t{0};
  std::vector<uint8_t> is_target(n, 0), down(nc, 0);
  std::vector<uint64_t> pair(q.size());
  parallel_ranges(threads, q.size(), [&](int, uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i) {
      const uint32_t cu = comp[q[i].from], cv = comp[q[i].to];
      pair[i] = kSkip;
      if (cu == cv) {
        qp.ans[i] = scc.cyclic[cu];
        continue;
      }
      if (height[cu] <= height[cv]) continue;
      pair[i] = uint64_t{cu} << 32 | cv;
      std::atomic_ref<uint8_t>(is_target[q[i].to]).store(1, std::memory_order_relaxed);
      std::atomic_ref<uint8_t>(down[cu]).store(1, std::memory_order_relaxed);
    }
  });
  // Targets in vertex order (a scan of the marks, no sort): column numbers.
  std::vector<uint32_t> col_of(n, kNoDense), targets;
  std::vector<uint8_t> up(nc, 0);
  for (uint32_t v = 0; v < n; ++v)
    if (is_target[v]) col_of[v] = static_cast<uint32_t>(targets.size()), targets.push_back(v), up[comp[v]] = 1;
  clock.lap(&PlanStepTimes::marks);
  qp.plan = plan_from_condensation(cd, std::move(scc), down, up, targets, threads, clock);
  const auto& p = qp.plan;
  const uint32_t* dense = p.dense.data();
  // Queries needing a bit, per thread range (ranges in order: the same list
  // for any thread count), with their column and row.
  struct Picked { std::vector<uint32_t> id, col, row; };
  std::vector<Picked> picked(static_cast<size_t>(range_threads(threads, q.size())));
  parallel_ranges(threads, q.size(), [&](int t, uint64_t b, uint64_t e) {
    Picked& k = picked[t];
    for (uint64_t i = b; i < e; ++i) {
      if (pair[i] == kSkip) continue;
      const uint32_t du = dense[pair[i] >> 32], dv = dense[static_cast<uint32_t>(pair[i])];
      if (du != kNoDense && dv != kNoDense)
        k.id.push_back(static_cast<uint32_t>(i)), k.col.push_back(col_of[q[i].to]), k.row.push_back(du);
    }
  });
  // By column, stable: a counting sort (columns are dense 0..targets-1). Each
  // range's entries go after the earlier ranges' in their column, so the
  // order is the sequential one; per-range counts need ranges x columns
  // words, so very many columns on many threads sort on one thread.
  const uint64_t cols = targets.size(), parts = picked.size();
  uint64_t m = 0;
  for (const Picked& k : picked) m += k.id.size();
  qp.order.resize(m), qp.row.resize(m), qp.col.resize(m);
  if (parts > 1 && cols * parts <= (uint64_t{1} << 24)) {
    std::vector<uint64_t> pos(parts * cols, 0);  // [range][column]: first place
    parallel_ranges(threads, q.size(), [&](int t, uint64_t, uint64_t) {
      uint64_t* h = pos.data() + t * cols;
      for (uint32_t c : picked[t].col) ++h[c];
    });
    uint64_t at = 0;
    for (uint64_t c = 0; c < cols; ++c)
      for (uint64_t t = 0; t < parts; ++t) {
        const uint64_t k = pos[t * cols + c];
        pos[t * cols + c] = at, at += k;
      }
    parallel_ranges(threads, q.size(), [&](int t, uint64_t, uint64_t) {
      uint64_t* h = pos.data() + t * cols;
      const Picked& k = picked[t];
      for (size_t j = 0; j < k.id.size(); ++j) {
        const uint64_t to = h[k.col[j]]++;
        qp.order[to] = k.id[j], qp.row[to] = k.row[j], qp.col[to] = k.col[j];
      }
    });
  } else {
    std::vector<uint64_t> start(cols + 1, 0);
    for (const Picked& k : picked)
      for (uint32_t c : k.col) ++start[c + 1];
    for (uint64_t c = 0; c < cols; ++c) start[c + 1] += start[c];
    for (const Picked& k : picked)
      for (size_t j = 0; j < k.id.size(); ++j) {
        const uint64_t to = start[k.col[j]]++;
        qp.order[to] = k.id[j], qp.row[to] = k.row[j], qp.col[to] = k.col[j];
      }
  }
  clock.lap(&PlanStepTimes::queries);
  return qp;
}

MatrixPlan make_matrix_plan(const Csr& g, std::span<const uint32_t> keys, Scc scc, int threads) {
  MatrixPlan mp;
  mp.plan = make_level_plan(g, keys, keys, std::move(scc), threads);
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

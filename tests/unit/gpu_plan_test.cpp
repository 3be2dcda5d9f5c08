// The GPU closure's host plan (docs/gpu.md "Host plan"): the fast
// plan must equal the first, straightforward one (tests/common/
// gpu_plan_reference.h) field for field, for every thread count, and its
// pieces (Tarjan, Kahn numbering, condensation) must keep their contracts.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "closure/closure.h"
#include "closure/condensation.h"
#include "closure/counting_sort.h"
#include "closure/gpu_closure.h"
#include "closure/gpu_plan.h"
#include "common/gpu_testgraphs.h"
#include "closure/graph_algos.h"
#include "closure/parallel_ranges.h"
#include "common/expect_fields.h"
#include "common/gpu_plan_reference.h"

using namespace isocheck;
using namespace isocheck::gputest;

namespace {

// Graph t of a family: every shape, small to large (large enough, from
// kParallelMinItems up, that several threads really split the passes).
struct Case {
  Shape shape;
  uint32_t n;
  Csr g;
};
Case make_case(int t, uint64_t seed) {
  const Shape shape = static_cast<Shape>(t % 4);
  static const uint32_t sizes[] = {1, 2, 17, 300, 5000, 3 * static_cast<uint32_t>(kParallelMinItems), 200000};
  const uint32_t n = sizes[t % 7];
  const double degree = 0.5 + (t % 5) * 0.75;
  const uint32_t width = 1 + n / (2 + t % 40);  // layered: from wide levels to near-chains
  return {shape, n, random_graph(shape, n, degree, seed + t, width)};
}

std::vector<ReachQuery> random_queries(uint32_t n, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ReachQuery> q(count);
  for (auto& x : q) x = {static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)};
  return q;
}

void expect_same_scc(const Scc& a, const Scc& b) {
  testkit::expect_same_fields(a, b, "count comp size cyclic", &Scc::count, &Scc::comp, &Scc::size, &Scc::cyclic);
}

void expect_same_plan(const LevelPlan& a, const LevelPlan& b) {
  expect_same_scc(a.scc, b.scc);
  testkit::expect_same_fields(a, b, "relevant dense level_off succ_off succ columns col_dense col_index",
                              &LevelPlan::relevant, &LevelPlan::dense, &LevelPlan::level_off, &LevelPlan::succ_off, &LevelPlan::succ, &LevelPlan::columns, &LevelPlan::col_dense,
                              &LevelPlan::col_index);
}

void expect_same_query_plan(const QueryPlan& a, const QueryPlan& b) {
  expect_same_plan(a.plan, b.plan);
  testkit::expect_same_fields(a, b, "ans order row col", &QueryPlan::ans, &QueryPlan::order, &QueryPlan::row, &QueryPlan::col);
}

}  // namespace

TEST(GpuPlanBuild, TarjanNumbersAsTheReference) {
  for (int t = 0; t < 42; ++t) {
    const Case c = make_case(t, 100);
    SCOPED_TRACE(std::string(to_string(c.shape)) + " n=" + std::to_string(c.n));
    expect_same_scc(strongly_connected(c.g), reference::reference_strongly_connected(c.g));
  }
  // Self loops, a two-cycle, an isolated vertex.
  EdgeList e;
  e.add(0, 0, EdgeKind::aux), e.add(1, 2, EdgeKind::aux), e.add(2, 1, EdgeKind::aux), e.add(3, 1, EdgeKind::aux);
  const Csr g = build_csr(5, e);
  const Scc s = strongly_connected(g);
  expect_same_scc(s, reference::reference_strongly_connected(g));
  EXPECT_EQ(s.count, 4u);
  EXPECT_TRUE(s.cyclic[s.comp[0]]);
  EXPECT_TRUE(s.cyclic[s.comp[1]]);
  EXPECT_EQ(s.comp[1], s.comp[2]);
  EXPECT_FALSE(s.cyclic[s.comp[3]]);
  EXPECT_FALSE(s.cyclic[s.comp[4]]);
}

TEST(GpuPlanBuild, KahnNumberingIsTopologicalAndThreadIndependent) {
  int acyclic = 0;
  for (int t = 0; t < 42; ++t) {
    const Case c = make_case(t, 200);
    SCOPED_TRACE(std::string(to_string(c.shape)) + " n=" + std::to_string(c.n));
    Scc one, four;
    const bool ok = acyclic_components(c.g, &one, 1);
    EXPECT_EQ(ok, is_acyclic(c.g));
    EXPECT_EQ(acyclic_components(c.g, &four, 4), ok);
    if (!ok) {
      // plan_components falls back to Tarjan.
      expect_same_scc(plan_components(c.g, 4), strongly_connected(c.g));
      continue;
    }
    ++acyclic;
    expect_same_scc(one, four);
    expect_same_scc(plan_components(c.g, 3), one);
    ASSERT_EQ(one.count, c.n);
    std::vector<uint8_t> seen(c.n, 0);
    for (uint32_t v = 0; v < c.n; ++v) {
      ASSERT_LT(one.comp[v], c.n);
      EXPECT_FALSE(seen[one.comp[v]]) << "component " << one.comp[v] << " twice";
      seen[one.comp[v]] = 1;
      for (uint64_t i = c.g.offset[v]; i < c.g.offset[v + 1]; ++i)
        EXPECT_GT(one.comp[v], one.comp[c.g.target[i]]) << "edge " << v << " -> " << c.g.target[i];
    }
    EXPECT_EQ(one.size, std::vector<uint32_t>(c.n, 1));
    EXPECT_EQ(one.cyclic, std::vector<uint8_t>(c.n, 0));
    // Layers: increasing id ranges covering all, no edge inside one.
    ASSERT_GE(one.layers.size(), 2u);
    EXPECT_EQ(one.layers.front(), 0u);
    EXPECT_EQ(one.layers.back(), c.n);
    std::vector<uint32_t> layer_of(c.n);
    for (size_t k = 0; k + 1 < one.layers.size(); ++k) {
      ASSERT_LT(one.layers[k], one.layers[k + 1]);
      for (uint32_t x = one.layers[k]; x < one.layers[k + 1]; ++x) layer_of[x] = static_cast<uint32_t>(k);
    }
    for (uint32_t v = 0; v < c.n; ++v)
      for (uint64_t i = c.g.offset[v]; i < c.g.offset[v + 1]; ++i)
        EXPECT_GT(layer_of[one.comp[v]], layer_of[one.comp[c.g.target[i]]]);
    EXPECT_EQ(one.layers, four.layers);
  }
  EXPECT_GT(acyclic, 20);
}

TEST(GpuPlanBuild, CondensationIsTheComponentGraph) {
  for (int t = 0; t < 28; ++t) {
    const Case c = make_case(t, 300);
    SCOPED_TRACE(std::string(to_string(c.shape)) + " n=" + std::to_string(c.n));
    for (const Scc& scc : {strongly_connected(c.g), plan_components(c.g)}) {
      // Reference: a set of (component, successor) pairs.
      std::vector<std::set<uint32_t>> want(scc.count);
      for (uint32_t v = 0; v < c.n; ++v)
        for (uint64_t i = c.g.offset[v]; i < c.g.offset[v + 1]; ++i)
          if (scc.comp[c.g.target[i]] != scc.comp[v]) want[scc.comp[v]].insert(scc.comp[c.g.target[i]]);
      const Condensation one = condense_graph(c.g, scc, 1);
      ASSERT_EQ(one.count(), scc.count);
      for (uint32_t k = 0; k < scc.count; ++k) {
        const std::vector<uint32_t> got(one.succ.begin() + one.off[k], one.succ.begin() + one.off[k + 1]);
        ASSERT_EQ(got, std::vector<uint32_t>(want[k].begin(), want[k].end())) << "component " << k;
      }
      const Condensation four = condense_graph(c.g, scc, 4);
      EXPECT_EQ(four.off, one.off);
      EXPECT_EQ(four.succ, one.succ);
      EXPECT_EQ(condensation_heights(one), component_heights(c.g, scc));
      EXPECT_EQ(condensation_heights(four, 4), component_heights(c.g, scc));
    }
  }
}

TEST(GpuPlanBuild, LevelAndMatrixPlansEqualTheReference) {
  for (int t = 0; t < 56; ++t) {
    const Case c = make_case(t, 400);
    SCOPED_TRACE(std::string(to_string(c.shape)) + " n=" + std::to_string(c.n) + " case " + std::to_string(t));
    // Few, many, and duplicate endpoints; sources and targets apart or equal.
    const uint32_t k = 1 + static_cast<uint32_t>((t * 7919ull) % std::max<uint32_t>(1, c.n / (1 + t % 3)));
    const auto sources = random_keys(c.n, k, 500 + t);
    const auto targets = t % 2 ? sources : random_keys(c.n, 1 + k / 2, 600 + t);
    for (const Scc& scc : {strongly_connected(c.g), plan_components(c.g)}) {
      const LevelPlan ref = reference::reference_level_plan(c.g, sources, targets, scc);
      for (int threads : {1, 2, 5}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        expect_same_plan(make_level_plan(c.g, sources, targets, scc, threads), ref);
      }
      const MatrixPlan mref = reference::reference_matrix_plan(c.g, sources, scc);
      for (int threads : {1, 3}) {
        const MatrixPlan m = make_matrix_plan(c.g, sources, scc, threads);
        expect_same_plan(m.plan, mref.plan);
        EXPECT_EQ(m.row, mref.row);
      }
    }
  }
}

TEST(GpuPlanBuild, QueryPlansEqualTheReference) {
  for (int t = 0; t < 56; ++t) {
    const Case c = make_case(t, 700);
    SCOPED_TRACE(std::string(to_string(c.shape)) + " n=" + std::to_string(c.n) + " case " + std::to_string(t));
    // Queries among a few endpoints (as pruning asks) or anywhere.
    std::vector<ReachQuery> q;
    if (t % 2) {
      const auto keys = random_keys(c.n, 1 + static_cast<uint32_t>(c.n / 20), 800 + t, false);
      std::mt19937_64 rng(900 + t);
      q.resize(1 + (t * 977) % 120000);
      for (auto& x : q) x = {keys[rng() % keys.size()], keys[rng() % keys.size()]};
    } else {
      q = random_queries(c.n, 1 + (t * 977) % 120000, 1000 + t);
    }
    for (const Scc& scc : {strongly_connected(c.g), plan_components(c.g)}) {
      const QueryPlan ref = reference::reference_query_plan(c.g, q, scc);
      for (int threads : {1, 2, 7}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        expect_same_query_plan(make_query_plan(c.g, q, scc, threads), ref);
      }
    }
  }
}

TEST(GpuPlanBuild, StillValidCheckIsThreadIndependent) {
  for (int t = 0; t < 28; ++t) {
    const Case c = make_case(t, 1100);
    Scc s;
    if (!acyclic_components(c.g, &s)) continue;
    EXPECT_TRUE(scc_still_valid(c.g, s, 1));
    EXPECT_TRUE(scc_still_valid(c.g, s, 4));
    if (c.n < 2 || c.g.target.empty()) continue;
    // Swap the numbers of an edge's ends: that edge now goes up.
    const uint32_t v = static_cast<uint32_t>(
        std::upper_bound(c.g.offset.begin(), c.g.offset.end(), c.g.target.size() / 2) - c.g.offset.begin() - 1);
    const uint32_t w = c.g.target[c.g.offset[v]];
    std::swap(s.comp[v], s.comp[w]);
    EXPECT_FALSE(scc_still_valid(c.g, s, 1));
    EXPECT_FALSE(scc_still_valid(c.g, s, 4));
  }
}

TEST(GpuPlanBuild, ReusedNumberingDropsItsLayers) {
  // Round 1: a two-layer DAG (top -> bottom), large enough that layers are
  // split over threads. Round 2 adds edges inside the bottom layer that still
  // go down the numbering: the numbering is reused, its layers no longer hold
  // and must not be used.
  const uint32_t n = 4 * static_cast<uint32_t>(kParallelMinItems);
  std::mt19937_64 rng(5);
  EdgeList e;
  for (uint32_t i = 0; i < n; ++i) e.add(rng() % (n / 2), n / 2 + rng() % (n / 2), EdgeKind::aux);
  const Scc first = plan_components(build_csr(n, e), 4);
  ASSERT_GE(first.layers.size(), 3u);
  std::vector<uint32_t> bottom;  // bottom-layer vertices with an in-edge: depth 1
  for (uint32_t v = n / 2; v < n; ++v)
    if (first.comp[v] < first.layers[1]) bottom.push_back(v);
  ASSERT_GT(bottom.size(), kParallelMinItems);
  std::vector<ReachQuery> q;
  for (int i = 0; i < 20000; ++i) q.push_back({static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)});
  PlannedClosure eng(std::make_unique<HostSliceBackend>(), "host", 4);
  CpuClosure cpu;
  ASSERT_EQ(eng.reach_queries(build_csr(n, e), q), cpu.reach_queries(build_csr(n, e), q));
  for (int i = 0; i < 50000; ++i) {
    uint32_t a = bottom[rng() % bottom.size()], b = bottom[rng() % bottom.size()];
    if (first.comp[a] == first.comp[b]) continue;
    if (first.comp[a] < first.comp[b]) std::swap(a, b);
    e.add(a, b, EdgeKind::aux);  // higher id -> lower id: the numbering stays valid
  }
  const Csr g = build_csr(n, e);
  ASSERT_EQ(eng.reach_queries(g, q), cpu.reach_queries(g, q));
  EXPECT_EQ(eng.stats().scc_reused, 1u);
  // What the plan got: the reused numbering, without layers.
  const Scc reused = eng.condense(g);
  EXPECT_EQ(eng.stats().scc_reused, 2u);
  EXPECT_EQ(reused.comp, first.comp);
  EXPECT_TRUE(reused.layers.empty());
}

TEST(GpuPlanBuild, ParallelRangesCoverOnceAndRethrow) {
  const uint64_t n = 5 * kParallelMinItems + 3;
  std::vector<int> hits(n, 0);
  const int parts = parallel_ranges(4, n, [&](int, uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i) ++hits[i];
  });
  EXPECT_EQ(parts, 4);
  EXPECT_EQ(hits, std::vector<int>(n, 1));
  // Few items: one range, on the calling thread.
  uint64_t seen_b = 1, seen_e = 0;
  int seen_t = -1;
  EXPECT_EQ(parallel_ranges(8, 100, [&](int t, uint64_t b, uint64_t e) { seen_t = t, seen_b = b, seen_e = e; }), 1);
  EXPECT_EQ(seen_t, 0);
  EXPECT_EQ(seen_b, 0u);
  EXPECT_EQ(seen_e, 100u);
  // A worker's exception reaches the caller (as bad_alloc must, for exit 3).
  EXPECT_THROW(parallel_ranges(4, n,
                               [](int t, uint64_t, uint64_t) {
                                 if (t == 2) throw std::bad_alloc();
                               }),
               std::bad_alloc);
}

TEST(GpuPlanBuild, StableCountingSortIsStableForAnyThreadCount) {
  std::mt19937_64 rng(17);
  for (uint32_t keys : {1u, 7u, 300u, 5000000u}) {  // the last: too many keys to count per range
    const uint64_t n = 3 * kParallelMinItems + 11;
    std::vector<uint32_t> key(n);
    for (auto& k : key) k = rng() % 5 == 0 ? kNoKey : static_cast<uint32_t>(rng() % keys);
    // Reference: indices of kept items, stably sorted by key.
    std::vector<uint64_t> want;
    for (uint64_t i = 0; i < n; ++i)
      if (key[i] != kNoKey) want.push_back(i);
    std::stable_sort(want.begin(), want.end(), [&](uint64_t a, uint64_t b) { return key[a] < key[b]; });
    for (int threads : {1, 3}) {
      std::vector<uint64_t> got(want.size(), ~uint64_t{0});
      const auto off = stable_counting_sort(
          threads, n, keys, [&](uint64_t i) { return key[i]; }, [&](uint64_t i, uint64_t pos) { got[pos] = i; });
      EXPECT_EQ(got, want) << keys << " keys, " << threads << " threads";
      ASSERT_EQ(off.size(), uint64_t{keys} + 1);
      EXPECT_EQ(off.back(), want.size());
      for (uint64_t j = 0; j < want.size(); ++j) {
        if (keys <= 300) {
          EXPECT_TRUE(off[key[want[j]]] <= j && j < off[key[want[j]] + 1]);
        }
      }
    }
  }
}

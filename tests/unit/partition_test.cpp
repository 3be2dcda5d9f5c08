// partition/: biconnected components against a brute force, keys inside one
// block, and the decomposition theorem (Biswas–Enea 5.2) on glued random
// histories: SER / SI hold on the whole iff on every projection.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <tuple>

#include "dist/glue.h"
#include "oracle/random_history.h"
#include "partition/partition.h"
#include "solver/check.h"

namespace isocheck {
namespace {

// Connected? a and b in graph (n vertices, edges) with vertex `removed` gone.
bool connected(uint32_t n, const std::vector<UEdge>& edges, uint32_t a, uint32_t b, uint32_t removed) {
  std::vector<uint32_t> parent(n);
  for (uint32_t i = 0; i < n; ++i) parent[i] = i;
  std::function<uint32_t(uint32_t)> find = [&](uint32_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  for (auto [u, v] : edges)
    if (u != removed && v != removed) parent[find(u)] = find(v);
  return find(a) == find(b);
}

// Reference: distinct edges e, f share a block iff they lie on a common
// cycle iff, after subdividing both (new vertices xe, xf), no single original
// vertex separates xe from xf (Menger), and they are connected.
std::vector<std::vector<uint32_t>> reference_edge_classes(uint32_t n, const std::vector<UEdge>& edges) {
  size_t m = edges.size();
  std::vector<uint32_t> cls(m, ~0u);
  std::vector<std::vector<uint32_t>> out;
  for (size_t e = 0; e < m; ++e) {
    if (cls[e] != ~0u) continue;
    cls[e] = static_cast<uint32_t>(out.size());
    out.push_back({static_cast<uint32_t>(e)});
    for (size_t f = e + 1; f < m; ++f) {
      if (cls[f] != ~0u) continue;
      std::vector<UEdge> g;
      uint32_t xe = n, xf = n + 1;
      for (size_t i = 0; i < m; ++i) {
        if (i == e) g.push_back({edges[i].first, xe}), g.push_back({xe, edges[i].second});
        else if (i == f) g.push_back({edges[i].first, xf}), g.push_back({xf, edges[i].second});
        else g.push_back(edges[i]);
      }
      bool same = connected(n + 2, g, xe, xf, ~0u);
      for (uint32_t w = 0; w < n && same; ++w) same = connected(n + 2, g, xe, xf, w);
      if (same) cls[f] = cls[e], out.back().push_back(static_cast<uint32_t>(f));
    }
  }
  return out;
}

// Random graph: small blocks (cycles, cliques, single edges) glued at shared
// vertices (articulation points in several blocks), plus random extra edges.
std::vector<UEdge> random_graph(std::mt19937_64& rng, uint32_t& n) {
  n = 2 + rng() % 12;
  std::set<UEdge> es;
  auto add = [&](uint32_t u, uint32_t v) {
    if (u == v) return;
    es.insert({std::min(u, v), std::max(u, v)});
  };
  int shape = rng() % 3;
  if (shape == 0) {  // random density
    for (uint32_t u = 0; u < n; ++u)
      for (uint32_t v = u + 1; v < n; ++v)
        if (rng() % 100 < 25) add(u, v);
  } else {  // blocks hanging off shared vertices
    uint32_t used = 1;
    while (used < n) {
      uint32_t anchor = rng() % used;
      uint32_t size = 1 + rng() % 3;
      std::vector<uint32_t> vs{anchor};
      for (uint32_t i = 0; i < size && used < n; ++i) vs.push_back(used++);
      if (vs.size() == 2 || rng() % 2) {
        for (size_t i = 0; i + 1 < vs.size(); ++i) add(vs[i], vs[i + 1]);
        if (vs.size() >= 3) add(vs.front(), vs.back());
      } else {
        for (size_t i = 0; i < vs.size(); ++i)
          for (size_t j = i + 1; j < vs.size(); ++j) add(vs[i], vs[j]);
      }
    }
    if (shape == 2 && n > 3) add(rng() % n, rng() % n);
  }
  std::vector<UEdge> v(es.begin(), es.end());
  std::shuffle(v.begin(), v.end(), rng);
  for (auto& e : v)
    if (rng() % 2) std::swap(e.first, e.second);
  return v;
}

TEST(Partition, BiconnectedComponentsMatchBruteForce) {
  std::mt19937_64 rng(7);
  int with_shared_articulation = 0;
  for (int iter = 0; iter < 400; ++iter) {
    uint32_t n;
    std::vector<UEdge> edges = random_graph(rng, n);
    Blocks b = biconnected_components(n, edges);
    auto ref = reference_edge_classes(n, edges);
    // Same edge partition.
    for (auto& cls : ref)
      for (uint32_t e : cls) ASSERT_EQ(b.edge_block[e], b.edge_block[cls[0]]) << "iter " << iter;
    std::set<uint32_t> distinct;
    for (auto& cls : ref) distinct.insert(b.edge_block[cls[0]]);
    ASSERT_EQ(distinct.size(), ref.size()) << "iter " << iter;
    // Blocks: one per edge class plus one per isolated vertex.
    std::vector<int> degree(n, 0);
    for (auto [u, v] : edges) degree[u]++, degree[v]++;
    size_t isolated = std::count(degree.begin(), degree.end(), 0);
    ASSERT_EQ(b.vertices.size(), ref.size() + isolated);
    // Articulation: removal of v disconnects two of its neighbours' sides.
    for (uint32_t v = 0; v < n; ++v) {
      bool cut = false;
      for (auto [a, c] : edges)
        for (auto [d, e] : edges) {
          uint32_t x = a == v ? c : a, y = d == v ? e : d;
          if ((a == v || c == v) && (d == v || e == v) && !connected(n, edges, x, y, v)) cut = true;
        }
      ASSERT_EQ(b.articulation[v] != 0, cut) << "iter " << iter << " vertex " << v;
      size_t in = 0;
      for (auto& vs : b.vertices) in += std::binary_search(vs.begin(), vs.end(), v);
      if (in >= 3) ++with_shared_articulation;
    }
  }
  EXPECT_GT(with_shared_articulation, 20);  // the generator exercises vertices in >= 3 blocks
}

TEST(Partition, LongPathIsIterative) {
  // 200k vertices on a path: a recursive DFS would overflow the stack.
  uint32_t n = 200000;
  std::vector<UEdge> e;
  for (uint32_t i = 0; i + 1 < n; ++i) e.push_back({i, i + 1});
  Blocks b = biconnected_components(n, e);
  EXPECT_EQ(b.vertices.size(), n - 1);
  e.push_back({0, n - 1});
  b = biconnected_components(n, e);
  EXPECT_EQ(b.vertices.size(), 1u);
}

TEST(Partition, KeyOfThreeSessionsIsInsideOneBlock) {
  // Sessions 0,1,2 share key 1 (a triangle); 2,3 share key 2; 3 alone has key 3;
  // 4 is alone. Blocks: {0,1,2} (key 1), {2,3} (key 2, plus key 3 — session 3's
  // first block in the numbering), {4}.
  History h;
  for (int s = 0; s < 5; ++s) h.session_name.push_back(s);
  auto txn = [&](uint32_t s, std::vector<std::pair<Sym, Sym>> writes) {
    h.begin_txn(static_cast<int64_t>(h.txn_count()) + 1, s, TxnStatus::committed, kNoTime, kNoTime);
    for (auto [k, v] : writes) h.add_op(OpKind::write, k, v);
    h.end_txn();
  };
  txn(0, {{1, 1}});
  txn(1, {{1, 2}});
  txn(2, {{1, 3}, {2, 1}});
  txn(3, {{2, 2}, {3, 1}});
  txn(4, {{4, 1}});
  Partition p = partition_history(h);
  ASSERT_EQ(p.comp_sessions.size(), 3u);
  EXPECT_EQ(p.comp_sessions[0], (std::vector<uint32_t>{0, 1, 2}));  // 4 ops
  EXPECT_EQ(p.comp_sessions[1], (std::vector<uint32_t>{2, 3}));     // 3 ops
  EXPECT_EQ(p.comp_sessions[2], (std::vector<uint32_t>{4}));
  EXPECT_EQ(p.component_of_key(1), 0u);
  EXPECT_EQ(p.component_of_key(2), 1u);
  EXPECT_EQ(p.component_of_key(3), 1u);
  EXPECT_EQ(p.component_of_key(4), 2u);
  auto inc = included_transactions(h);
  Projection pr = project(h, p, 1, inc);
  ASSERT_EQ(pr.txn, (std::vector<TxnIdx>{2, 3}));
  EXPECT_EQ(pr.h.op_count(), 3u);  // T3's write of key 1 is not in block 1
}

// A projection keeps the range-scan marks of the reads it keeps, renumbered
// (the distributed driver names phantoms on projected pieces by them).
TEST(Partition, ProjectionKeepsRangeScanMarks) {
  History h;
  for (int s = 0; s < 4; ++s) h.session_name.push_back(s);
  auto txn = [&](uint32_t s, std::vector<std::tuple<OpKind, Sym, Sym>> ops) {
    h.begin_txn(static_cast<int64_t>(h.txn_count()) + 1, s, TxnStatus::committed, kNoTime, kNoTime);
    for (auto [k, key, v] : ops) h.add_op(k, key, v);
    h.end_txn();
  };
  // Block {0, 1} on key 1, block {2, 3} on key 9.
  txn(0, {{OpKind::write, 1, 1}, {OpKind::write, 1, 2}});  // ops 0, 1
  txn(1, {{OpKind::read, 1, 2}});                          // op 2: a scan that saw key 1
  txn(2, {{OpKind::write, 9, 3}, {OpKind::read, 9, 0}});   // ops 3, 4: 4 a scan, key 9 absent
  txn(3, {{OpKind::read, 9, 0}, {OpKind::write, 9, 5}});   // ops 5, 6: 5 a scan, key 9 absent
  h.scan_ops = {2, 4, 5};
  h.scan_absent_ops = {4, 5};
  Partition p = partition_history(h);
  auto inc = included_transactions(h);
  bool saw_absent = false;
  for (uint32_t c = 0; c < p.comp_sessions.size(); ++c) {
    Projection pr = project(h, p, c, inc);
    std::vector<OpIdx> want_scan, want_absent;
    for (OpIdx l = 0; l < pr.op.size(); ++l) {
      if (std::binary_search(h.scan_ops.begin(), h.scan_ops.end(), pr.op[l])) want_scan.push_back(l);
      if (std::binary_search(h.scan_absent_ops.begin(), h.scan_absent_ops.end(), pr.op[l])) want_absent.push_back(l);
    }
    EXPECT_EQ(pr.h.scan_ops, want_scan) << "block " << c;
    EXPECT_EQ(pr.h.scan_absent_ops, want_absent) << "block " << c;
    saw_absent |= !want_absent.empty();
  }
  EXPECT_GE(p.comp_sessions.size(), 2u);
  EXPECT_TRUE(saw_absent);
}

// For every key, all sessions touching it lie in its block.
void expect_keys_inside(const History& h, const Partition& p) {
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      uint32_t c = p.component_of_key(h.op_key[o]);
      ASSERT_LT(c, p.comp_sessions.size());
      ASSERT_TRUE(std::binary_search(p.comp_sessions[c].begin(), p.comp_sessions[c].end(), h.txn_session[t]));
    }
}

// One to four random histories (known order, or blind writes for every
// third seed) glued at shared sessions (half of the seeds): several blocks.
History glued_random_history(uint64_t seed) {
  RandomHistoryOptions ro;
  ro.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
  std::vector<History> parts;
  for (uint64_t i = 0; i < 1 + seed % 4; ++i) parts.push_back(random_history(seed * 10 + i, ro));
  return testing_glue::glue(parts, seed % 2 == 0);
}

TEST(Partition, DecompositionTheoremOnGluedRandomHistories) {
  int multi = 0, violations = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    History h = glued_random_history(seed);
    Partition p = partition_history(h);
    expect_keys_inside(h, p);
    multi += p.comp_sessions.size() > 1;
    CheckOptions opt;
    opt.levels = {Level::ser, Level::si};
    // Whole graphs: a violation found around a failed replay leaves anomalies
    // elsewhere unlisted, and the theorem is about every component's anomalies.
    opt.localise = false;
    CheckResult whole = check(h, opt);
    auto inc = included_transactions(h);
    bool anomalies = false, ser = true, si = true;
    size_t txns = 0;
    for (uint32_t c = 0; c < p.comp_sessions.size(); ++c) {
      Projection pr = project(h, p, c, inc);
      txns += pr.h.txn_count();
      CheckResult r = check(pr.h, opt);
      anomalies |= !r.anomalies.empty();
      ser &= r.levels[0].holds;
      si &= r.levels[1].holds;
    }
    ASSERT_EQ(anomalies, !whole.anomalies.empty()) << "seed " << seed;
    ASSERT_EQ(ser, whole.levels[0].holds) << "seed " << seed << "\n" << history_jsonl(h);
    ASSERT_EQ(si, whole.levels[1].holds) << "seed " << seed << "\n" << history_jsonl(h);
    violations += !ser;
  }
  EXPECT_GT(multi, 100);
  EXPECT_GT(violations, 20);
}

// The same theorem for the weak levels (Biswas–Enea Thm 5.2 states it for
// RC, RA, CC and PC; RU's cycles of write dependencies and session order
// stay inside a block by the same minimal-path argument, every write
// dependency joining two sessions that share a key): each level holds on
// the whole history iff it holds on every block's projection — the
// distributed driver decides them block by block.
TEST(Partition, DecompositionTheoremForTheWeakLevels) {
  const std::vector<Level> levels{Level::ru, Level::rc, Level::ra, Level::cc, Level::pc};
  int multi = 0;
  std::vector<int> violated(levels.size(), 0);
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    History h = glued_random_history(seed);
    Partition p = partition_history(h);
    multi += p.comp_sessions.size() > 1;
    CheckOptions opt;
    opt.levels = levels;
    opt.localise = false;
    opt.lattice_shortcuts = seed % 2 == 0;  // each level by its own engine, half of the time
    CheckResult whole = check(h, opt);
    auto inc = included_transactions(h);
    std::vector<bool> holds(levels.size(), true);
    for (uint32_t c = 0; c < p.comp_sessions.size(); ++c) {
      Projection pr = project(h, p, c, inc);
      CheckResult r = check(pr.h, opt);
      for (size_t l = 0; l < levels.size(); ++l) {
        ASSERT_TRUE(r.levels[l].decided) << "seed " << seed;
        holds[l] = holds[l] && r.levels[l].holds;
      }
    }
    for (size_t l = 0; l < levels.size(); ++l) {
      ASSERT_TRUE(whole.levels[l].decided) << "seed " << seed;
      ASSERT_EQ(holds[l], whole.levels[l].holds)
          << level_short(levels[l]) << ", seed " << seed << "\n" << history_jsonl(h);
      violated[l] += !holds[l];
    }
  }
  EXPECT_GT(multi, 100);
  for (size_t l = 0; l < levels.size(); ++l) EXPECT_GT(violated[l], 10) << level_short(levels[l]);
}

TEST(Partition, LargestFirst) {
  EXPECT_EQ(assign_largest_first({5, 9, 1, 4}, 2), (std::vector<int>{1, 0, 0, 1}));
  EXPECT_EQ(assign_largest_first({3, 3, 3}, 4), (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace isocheck

// KeyComponents (the distributed driver's per-operation lookup) answers as
// component_of_key does, for keys in the partition and keys outside it, in
// its direct-table mode (small integer keys) and its hashed mode (large or
// sparse keys, ~0 included).
TEST(Partition, KeyComponentsAgreesWithBinarySearch) {
  using namespace isocheck;
  for (int mode = 0; mode < 2; ++mode) {
    History h;
    for (int s = 0; s < 6; ++s) h.session_name.push_back(s);
    const Sym stride = mode == 0 ? 3 : 0x9e3779b97f4a7c15ULL;
    std::vector<Sym> keys;
    for (Sym i = 1; i <= (mode == 0 ? 40 : 39); ++i) keys.push_back(i * stride);
    if (mode == 1) keys.push_back(~Sym{0});
    // Keys of even index are touched by sessions 0-2, odd ones by 3-5: two
    // blocks at least.
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint32_t s = static_cast<uint32_t>(3 * (i % 2) + (i / 2) % 3);
      h.begin_txn(static_cast<int64_t>(h.txn_count()) + 1, s, TxnStatus::committed, kNoTime, kNoTime);
      h.add_op(OpKind::write, keys[i], 1);
      if (i % 3 == 0) h.add_op(OpKind::write, keys[(i + 2) % keys.size()], 2);
      h.end_txn();
    }
    Partition p = partition_history(h);
    ASSERT_GE(p.comp_sessions.size(), 2u) << "mode " << mode;
    const KeyComponents comp_of(p);
    for (Sym k : keys) {
      EXPECT_NE(p.component_of_key(k), ~0u);
      EXPECT_EQ(comp_of(k), p.component_of_key(k)) << "mode " << mode << " key " << k;
    }
    for (Sym k : {Sym{0}, Sym{2}, stride + 1, Sym{1} << 40, ~Sym{0} - 1}) {
      EXPECT_EQ(comp_of(k), p.component_of_key(k)) << "mode " << mode << " absent key " << k;
      EXPECT_EQ(comp_of(k), ~0u);
    }
  }
}

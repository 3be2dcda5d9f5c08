#include "graph/level_graphs.h"

#include <algorithm>

namespace isocheck {

// CSR from one or two lists of (src, dst) pairs, by counting sort; two lists
// so that the SSER graph needs no copy of the dependency edges.
static Csr csr_from_two(uint32_t n, const std::vector<uint32_t>& s1, const std::vector<uint32_t>& d1,
                        const std::vector<uint32_t>& s2, const std::vector<uint32_t>& d2) {
  Csr c;
  c.offset.assign(static_cast<size_t>(n) + 1, 0);
  for (uint32_t s : s1) c.offset[s + 1]++;
  for (uint32_t s : s2) c.offset[s + 1]++;
  for (uint32_t v = 0; v < n; ++v) c.offset[v + 1] += c.offset[v];
  c.target.resize(s1.size() + s2.size());
  // Fill from the back of each row: `offset` doubles as the cursor, no extra array.
  for (size_t i = s2.size(); i-- > 0;) c.target[--c.offset[s2[i] + 1]] = d2[i];
  for (size_t i = s1.size(); i-- > 0;) c.target[--c.offset[s1[i] + 1]] = d1[i];
  // Each offset[v + 1] now holds the start of row v; shift back.
  for (uint32_t v = 0; v < n; ++v) c.offset[v] = c.offset[v + 1];
  c.offset[n] = c.target.size();
  return c;
}

Csr csr_from_pairs(uint32_t n, const std::vector<uint32_t>& src, const std::vector<uint32_t>& dst) {
  static const std::vector<uint32_t> none;
  return csr_from_two(n, src, dst, none, none);
}

// LSD radix sort on the time (16-bit digits, only as many passes as the time
// span needs): O(n) where std::sort's O(n log n) dominated the SSER stage.
static void sort_by_time(std::vector<std::pair<int64_t, uint32_t>>& v) {
  if (v.size() < 2 || std::is_sorted(v.begin(), v.end())) return;
  int64_t lo = v[0].first, hi = v[0].first;
  for (auto& p : v) lo = std::min(lo, p.first), hi = std::max(hi, p.first);
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  std::vector<std::pair<int64_t, uint32_t>> tmp(v.size());
  std::vector<size_t> count(1 << 16);
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    auto digit = [&](const std::pair<int64_t, uint32_t>& p) {
      return ((static_cast<uint64_t>(p.first) - static_cast<uint64_t>(lo)) >> shift) & 0xffff;
    };
    for (auto& p : v) count[digit(p)]++;
    size_t sum = 0;
    for (auto& c : count) { size_t x = c; c = sum; sum += x; }
    for (auto& p : v) tmp[count[digit(p)]++] = p;  // stable: equal times keep index order
    v.swap(tmp);
  }
}

bool forward_in_file_order(const DependencyGraph& g) { return edges_forward(g.edges); }

LevelGraph ser_graph(const DependencyGraph& g) {
  LevelGraph lg;
  lg.layout = GraphLayout::plain;
  lg.txn_count = g.n;
  lg.csr = csr_from_pairs(g.n, g.edges.src, g.edges.dst);
  return lg;
}

std::vector<int64_t> add_realtime_pairs(const History& h, const std::vector<uint8_t>& included, int64_t skew,
                                        std::vector<uint32_t>& src, std::vector<uint32_t>& dst) {
  uint32_t n = static_cast<uint32_t>(h.txn_count());
  std::vector<std::pair<int64_t, uint32_t>> ends;
  for (uint32_t t = 0; t < n; ++t)
    if (included[t] && h.has_times(t)) ends.push_back({h.txn_end[t], t});
  if (ends.empty()) return {};
  sort_by_time(ends);
  std::vector<int64_t> node_time;
  for (auto& [e, t] : ends) {
    if (node_time.empty() || node_time.back() != e) {
      if (!node_time.empty()) {  // chain the time nodes
        src.push_back(n + static_cast<uint32_t>(node_time.size() - 1));
        dst.push_back(n + static_cast<uint32_t>(node_time.size()));
      }
      node_time.push_back(e);
    }
    src.push_back(t);
    dst.push_back(n + static_cast<uint32_t>(node_time.size() - 1));
  }
  // Each transaction hangs below the last time node strictly before begin - δ.
  for (uint32_t t = 0; t < n; ++t) {
    if (!included[t] || !h.has_times(t)) continue;
    // e + skew < begin  <=>  e < begin - skew (guarding overflow)
    int64_t b = h.txn_begin[t];
    auto it = std::lower_bound(node_time.begin(), node_time.end(), b, [&](int64_t e, int64_t bb) {
      return static_cast<__int128>(e) + skew < static_cast<__int128>(bb);
    });
    if (it == node_time.begin()) continue;
    src.push_back(n + static_cast<uint32_t>(it - node_time.begin() - 1));
    dst.push_back(t);
  }
  return node_time;
}

LevelGraph sser_graph(const DependencyGraph& g, const History& h, int64_t skew) {
  LevelGraph lg;
  lg.layout = GraphLayout::realtime;
  lg.txn_count = g.n;
  std::vector<uint32_t> src, dst;
  lg.node_time = add_realtime_pairs(h, g.included, skew, src, dst);
  lg.csr = csr_from_two(g.n + static_cast<uint32_t>(lg.node_time.size()), g.edges.src, g.edges.dst, src, dst);
  return lg;
}

LevelGraph si_graph(const DependencyGraph& g) {
  LevelGraph lg;
  lg.layout = GraphLayout::split;
  lg.txn_count = g.n;
  const uint32_t n = g.n;
  // Straight into CSR, without the (src, dst) pairs of the split graph:
  // the same rows, in the same order, as csr_from_pairs over the dependency
  // edges mapped (a non-RW a→b as a→b*, an RW b→c as b*→c) followed by
  // v*→v for each included v.
  const EdgeList& e = g.edges;
  auto from = [&](size_t i) { return e.kind[i] == EdgeKind::rw ? n + e.src[i] : e.src[i]; };
  auto to = [&](size_t i) { return e.kind[i] == EdgeKind::rw ? e.dst[i] : n + e.dst[i]; };
  Csr& c = lg.csr;
  c.offset.assign(2 * static_cast<size_t>(n) + 1, 0);
  for (size_t i = 0; i < e.size(); ++i) c.offset[from(i) + 1]++;
  size_t extra = 0;
  for (uint32_t v = 0; v < n; ++v) if (g.included[v]) c.offset[n + v + 1]++, ++extra;
  for (size_t v = 0; v < 2 * static_cast<size_t>(n); ++v) c.offset[v + 1] += c.offset[v];
  c.target.resize(e.size() + extra);
  // Fill each row from its back, last pair first (as csr_from_two does).
  for (uint32_t v = n; v-- > 0;) if (g.included[v]) c.target[--c.offset[n + v + 1]] = v;
  for (size_t i = e.size(); i-- > 0;) c.target[--c.offset[from(i) + 1]] = to(i);
  for (size_t v = 0; v < 2 * static_cast<size_t>(n); ++v) c.offset[v] = c.offset[v + 1];
  c.offset[2 * static_cast<size_t>(n)] = c.target.size();
  return lg;
}

}  // namespace isocheck

#include "solver/witness.h"

#include <algorithm>
#include <map>

namespace isocheck {
namespace {

// Lower is preferred when several edges join the same two transactions: the
// most specific anomaly wins (a write-write cycle is G0 even if reads exist).
int preference(EdgeKind k) {
  switch (k) {
    case EdgeKind::ww: return 0;
    case EdgeKind::wr: return 1;
    case EdgeKind::so: return 2;
    case EdgeKind::rt: return 3;
    case EdgeKind::rw: return 4;
    default: return 5;
  }
}

enum class Want : uint8_t { any, non_rw, rw, rt };

}  // namespace

EdgeList label_cycle(const std::vector<uint32_t>& cyc, const LevelGraph& lg, const DependencyGraph& g) {
  struct Hop { uint32_t u, v; Want want; };
  std::vector<Hop> hops;
  const uint32_t n = lg.txn_count;
  const size_t k = cyc.size();
  if (lg.layout == GraphLayout::split) {
    for (size_t i = 0; i < k; ++i) {
      uint32_t x = cyc[i], y = cyc[(i + 1) % k];
      if (x < n && y >= n) hops.push_back({x, y - n, Want::non_rw});
      else if (x >= n && y < n && y != x - n) hops.push_back({x - n, y, Want::rw});
      // x* -> x is plumbing
    }
  } else if (lg.layout == GraphLayout::realtime) {
    // Start at a transaction; a run through time nodes is one real-time edge.
    size_t i = 0;
    while (i < k && cyc[i] >= n) ++i;
    for (size_t step = 0; step < k;) {
      uint32_t x = cyc[(i + step) % k];
      size_t j = step + 1;
      while (cyc[(i + j) % k] >= n) ++j;
      uint32_t y = cyc[(i + j) % k];
      hops.push_back({x, y, j == step + 1 ? Want::any : Want::rt});
      step = j;
    }
  } else {
    for (size_t i = 0; i < k; ++i) hops.push_back({cyc[i], cyc[(i + 1) % k], Want::any});
  }
  // One scan over all edges picks the preferred label of each hop.
  std::vector<int64_t> chosen(hops.size(), -1);
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> wanted;
  for (size_t i = 0; i < hops.size(); ++i) wanted[{hops[i].u, hops[i].v}].push_back(i);
  for (size_t e = 0; e < g.edges.size(); ++e) {
    auto it = wanted.find({g.edges.src[e], g.edges.dst[e]});
    if (it == wanted.end()) continue;
    EdgeKind kind = g.edges.kind[e];
    for (size_t hi : it->second) {
      Want w = hops[hi].want;
      if (w == Want::rt) continue;
      if (w == Want::non_rw && kind == EdgeKind::rw) continue;
      if (w == Want::rw && kind != EdgeKind::rw) continue;
      if (chosen[hi] < 0 || preference(kind) < preference(g.edges.kind[chosen[hi]])) chosen[hi] = static_cast<int64_t>(e);
    }
  }
  EdgeList out;
  for (size_t i = 0; i < hops.size(); ++i) {
    if (chosen[i] >= 0) {
      size_t e = static_cast<size_t>(chosen[i]);
      out.add(g.edges.src[e], g.edges.dst[e], g.edges.kind[e], g.edges.why[e]);
    } else {
      out.add(hops[i].u, hops[i].v, EdgeKind::rt, 0);  // only real-time hops lack a stored edge
    }
  }
  return out;
}

std::string name_cycle(const EdgeList& c, const History& h) {
  size_t n = c.size(), rw = 0, wr = 0, ww = 0, so = 0, rt = 0;
  for (EdgeKind k : c.kind) {
    rw += k == EdgeKind::rw, wr += k == EdgeKind::wr, ww += k == EdgeKind::ww;
    so += k == EdgeKind::so, rt += k == EdgeKind::rt;
  }
  auto key_of = [&](size_t i) {
    // why is relative to the txn holding the justifying op: dst for wr/ww, src for rw.
    uint32_t t = c.kind[i] == EdgeKind::rw ? c.src[i] : c.dst[i];
    return h.op_key[h.op_begin(t) + why_pos(c.why[i])];
  };
  std::string base, common;
  // No data edge at all (Elle has no name for it): a session whose later
  // transaction ended before its earlier one began — clocks or logs disagree.
  if (rw == 0 && wr == 0 && ww == 0) return "session order contradicts real time";
  if (rw == 0) {
    base = (wr == 0) ? "G0" : "G1c";
  } else if (rw == 1) {
    base = "G-single";
    if (n == 2) {
      size_t r = c.kind[0] == EdgeKind::rw ? 0 : 1, o = 1 - r;
      if (c.kind[o] == EdgeKind::ww && key_of(o) == key_of(r)) common = "lost update";
      else if (c.kind[o] == EdgeKind::wr) common = "fractured read";
      else if (c.kind[o] == EdgeKind::rt) common = "stale read";
      else if (c.kind[o] == EdgeKind::so) common = "read-your-writes violation";
    } else if (wr + so == n - 1) {
      // T ->(wr|so)+ T' -rw-> T: T' saw something that depended on T, yet
      // not T's own write (Biswas–Enea's causal axiom).
      common = "causality violation";
    } else if (rt == 0 && so == 0) {
      common = "read skew";
    }
  } else {
    bool adjacent = false;
    for (size_t i = 0; i < n; ++i)
      adjacent |= c.kind[i] == EdgeKind::rw && c.kind[(i + 1) % n] == EdgeKind::rw;
    base = adjacent ? "G2-item" : "G-nonadjacent";
    if (n == 2 && rw == 2) common = "write skew";
    else if (!adjacent && n == 4 && wr == 2) common = "long fork";
  }
  // Anti-dependencies out of range scans (core/predicates.h): one from a key
  // the scan saw absent, overwritten by a later insert or write, is a phantom;
  // otherwise a G2 cycle through scans is a predicate write skew.
  if (!h.scan_ops.empty()) {
    bool phantom = false, scanned = false;
    for (size_t i = 0; i < n; ++i) {
      if (c.kind[i] != EdgeKind::rw) continue;
      OpIdx o = h.op_begin(c.src[i]) + why_pos(c.why[i]);
      phantom |= std::binary_search(h.scan_absent_ops.begin(), h.scan_absent_ops.end(), o);
      scanned |= h.scan_ops.contains(o);
    }
    if (phantom) common = "phantom";
    else if (scanned && rw >= 2) common = "predicate write skew";
  }
  std::string name = base;
  if (rt > 0) name += "-realtime";
  else if (so > 0) name += "-process";
  if (!common.empty()) name += " (" + common + ")";
  return name;
}


}  // namespace isocheck

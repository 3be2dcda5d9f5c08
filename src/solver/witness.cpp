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
  std::string name = base;
  if (rt > 0) name += "-realtime";
  else if (so > 0) name += "-process";
  if (!common.empty()) name += " (" + common + ")";
  return name;
}

const char* model_name(Model m) {
  switch (m) {
    case Model::read_committed: return "read-committed";
    case Model::read_atomic: return "read-atomic";
    case Model::causal: return "causal";
    case Model::prefix: return "prefix";
    case Model::snapshot_isolation: return "snapshot-isolation";
    case Model::serializable: return "serializable";
    case Model::strict_serializable: return "strict-serializable";
  }
  return "?";
}

const char* model_short(Model m) {
  switch (m) {
    case Model::read_committed: return "RC";
    case Model::read_atomic: return "RA";
    case Model::causal: return "CC";
    case Model::prefix: return "PC";
    case Model::snapshot_isolation: return "SI";
    case Model::serializable: return "SER";
    case Model::strict_serializable: return "SSER";
  }
  return "?";
}

Model weakest_ruled_out(const EdgeList& c) {
  const size_t n = c.size();
  size_t rw = 0;
  for (size_t i = 0; i < n; ++i) {
    if (c.kind[i] == EdgeKind::rt || c.kind[i] == EdgeKind::aux) return Model::strict_serializable;
    rw += c.kind[i] == EdgeKind::rw;
  }
  if (n == 0) return Model::strict_serializable;
  if (rw == 0) return Model::read_committed;
  auto prev = [&](size_t i) { return (i + n - 1) % n; };
  auto so_or_wr = [&](size_t i) { return c.kind[i] == EdgeKind::so || c.kind[i] == EdgeKind::wr; };
  if (n == 2 && rw == 1) {
    size_t r = c.kind[0] == EdgeKind::rw ? 0 : 1, o = 1 - r;
    // T_c -wr-> T_b -rw-> T_c: T_b read from T_c (op why[o] of T_b), then read
    // an older version of a key T_c wrote (op why[r] of T_b).
    if (c.kind[o] == EdgeKind::wr && why_pos(c.why[o]) < why_pos(c.why[r])) return Model::read_committed;
    if (so_or_wr(o)) return Model::read_atomic;
  }
  bool others_hb = true, each_rw_after_hb = true, adjacent = false;
  for (size_t i = 0; i < n; ++i) {
    if (c.kind[i] == EdgeKind::rw) {
      each_rw_after_hb &= so_or_wr(prev(i));
      adjacent |= c.kind[prev(i)] == EdgeKind::rw;
    } else {
      others_hb &= so_or_wr(i);
    }
  }
  if (rw == 1 && others_hb) return Model::causal;
  if (each_rw_after_hb) return Model::prefix;
  if (!adjacent) return Model::snapshot_isolation;
  return Model::serializable;
}

Model weakest_ruled_out(AnomalyKind k) {
  switch (k) {
    case AnomalyKind::nonrepeatable_read: return Model::read_atomic;
    case AnomalyKind::lost_update: return Model::snapshot_isolation;
    default: return Model::read_committed;
  }
}

Model weakest_ruled_out(const std::string& a) {
  auto has = [&](const char* s) { return a.find(s) != std::string::npos; };
  if (has("-realtime") || has("stale read") || has("real time")) return Model::strict_serializable;
  if (a.rfind("G0", 0) == 0 || a.rfind("G1", 0) == 0) return Model::read_committed;
  if (has("fractured read") || has("read-your-writes")) return Model::read_atomic;
  if (has("long fork")) return Model::prefix;
  if (a.rfind("G-single", 0) == 0 || a.rfind("G-nonadjacent", 0) == 0 || has("lost update")) return Model::snapshot_isolation;
  if (has("non-repeatable")) return Model::read_atomic;
  if (a.rfind("G2", 0) == 0) return Model::serializable;
  return Model::read_committed;  // per-transaction anomalies: thin air, internal, duplicate write, ...
}

}  // namespace isocheck

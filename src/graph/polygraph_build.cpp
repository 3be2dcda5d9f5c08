#include "graph/polygraph_build.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <unistd.h>

// The chain index's per-path minimum loops vectorize at -O3 (a third faster).
#pragma GCC optimize("O3")

namespace isocheck {
namespace {

// Adds an edge of the level's graph for a transaction-level edge: in the split
// layout a non-RW edge a→b becomes a→b* and an RW edge b→c becomes b*→c.
struct Emitter {
  GraphLayout layout;
  uint32_t n;
  void operator()(EdgeList& out, uint32_t s, uint32_t d, EdgeKind k, uint32_t why) const {
    if (layout == GraphLayout::split) {
      if (k == EdgeKind::rw) out.add(n + s, d, k, why);
      else out.add(s, n + d, k, why);
    } else {
      out.add(s, d, k, why);
    }
  }
};

struct ChainTimes {
  int64_t min_end = std::numeric_limits<int64_t>::max();
  int64_t min_begin = std::numeric_limits<int64_t>::max();
  bool timed = false;
};

constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();

// A key's chains whose pairwise order is open: every pair (i < j), or only
// the listed pairs (those real time leaves open).
struct Work {
  uint32_t key;  // index into DependencyGraph::unordered
  bool all_pairs;
  std::vector<uint32_t> free;  // chain ids in DependencyGraph::chains
  std::vector<std::pair<uint32_t, uint32_t>> open;
};
struct PairRef {
  uint32_t work, i, j;
};
template <class Fn>
void for_each_pair(const std::vector<Work>& works, Fn fn) {
  for (uint32_t w = 0; w < works.size(); ++w) {
    const Work& x = works[w];
    if (x.all_pairs) {
      for (uint32_t i = 0; i < x.free.size(); ++i)
        for (uint32_t j = i + 1; j < x.free.size(); ++j) fn(PairRef{w, i, j});
    } else {
      for (auto [i, j] : x.open) fn(PairRef{w, i, j});
    }
  }
}

// Kahn's algorithm; false when cyclic.
bool topo_order(const Csr& g, std::vector<uint32_t>& order) {
  const uint32_t n = g.vertex_count();
  std::vector<uint32_t> indeg(n, 0);
  for (uint32_t t : g.target) ++indeg[t];
  order.clear();
  order.reserve(n);
  for (uint32_t v = 0; v < n; ++v)
    if (indeg[v] == 0) order.push_back(v);
  for (size_t h = 0; h < order.size(); ++h)
    for (uint64_t i = g.offset[order[h]]; i < g.offset[order[h] + 1]; ++i)
      if (--indeg[g.target[i]] == 0) order.push_back(g.target[i]);
  return order.size() == n;
}

// Exact reachability on a DAG from a chain cover (Jagadish): vertices are
// split into paths of graph edges (greedily, in topological order: a vertex
// extends the path of a predecessor that has not been extended yet, so a
// session's transactions usually form one path); first[v * k + c] = the
// lowest position on path c that v reaches (v itself included). Then, for
// u != w, u reaches w iff first[u * k + path(w)] <= pos(w): u reaches some
// vertex of w's path at or before w, which reaches w along the path; and a
// path u ⇝ w enters w's path at or before w. O(k (V + E)) time, k·V words.
class ChainIndex {
 public:
  // false: the graph is cyclic (cyclic() then says so) or the index would
  // exceed `max_words`.
  // `next` (optional): per vertex a preferred successor (kInf: none), an
  // edge of g — session order — that the cover follows when it can.
  bool build(const Csr& g, uint64_t max_words, bool allow_narrow = true, const std::vector<uint32_t>* next = nullptr) {
    const uint32_t n = g.vertex_count();
    std::vector<uint32_t> topo;
    cyclic_ = !topo_order(g, topo);
    if (cyclic_) return false;
    // Vertices without any edge (aborted attempts: a snapshot-isolation
    // history may hold more of them than committed transactions) share one
    // path, on which nothing is reached: a path each would make the index
    // k·V words with k above the number of such vertices.
    std::vector<uint8_t> touched(n, 0);
    for (uint32_t v = 0; v < n; ++v)
      if (g.offset[v + 1] > g.offset[v]) touched[v] = 1;
    for (uint32_t t : g.target) touched[t] = 1;
    if (path_.empty()) {  // the cover stays valid when edges are added
      path_.assign(n, kInf), pos_.assign(n, 0);
      std::vector<uint32_t> len, rank(n);
      for (uint32_t i = 0; i < n; ++i) rank[topo[i]] = i;
      for (uint32_t v : topo) {
        if (!touched[v]) {
          if (isolated_ == kInf) isolated_ = static_cast<uint32_t>(len.size()), len.push_back(1);
          path_[v] = isolated_;
          continue;
        }
        if (path_[v] == kInf) path_[v] = static_cast<uint32_t>(len.size()), len.push_back(1);
        if (len[path_[v]] != pos_[v] + 1) continue;
        // Extend v's path by its earliest unassigned successor: keeps paths
        // dense (fewer of them) on session-shaped graphs.
        uint32_t best = kInf;
        // A session's next transaction first: with many sessions, taking the
        // earliest successor lets read-from edges steal sessions' successors
        // and splits the cover into ~10× more paths (index words grow with them).
        if (next && (*next)[v] != kInf && path_[(*next)[v]] == kInf) best = (*next)[v];
        for (uint64_t i = g.offset[v]; i < g.offset[v + 1] && best == kInf; ++i) {
          const uint32_t w = g.target[i];
          if (path_[w] == kInf && (best == kInf || rank[w] < rank[best])) best = w;
        }
        if (best != kInf) path_[best] = path_[v], pos_[best] = len[path_[v]]++;
      }
      k_ = static_cast<uint32_t>(len.size());
    } else {
      // A vertex of the shared path that gained an edge: a path of its own.
      for (uint32_t v = 0; v < n; ++v)
        if (path_[v] == isolated_ && touched[v]) path_[v] = k_++, pos_[v] = 0;
    }
    // Positions fit 16 bits on most graphs (paths shorter than 65535): half
    // the memory and half the bandwidth of the dynamic program below.
    uint32_t longest = 0;
    for (uint32_t v = 0; v < n; ++v) longest = std::max(longest, pos_[v] + 1);
    narrow_ = allow_narrow && longest < 0xFFFF;
    if (uint64_t{k_} * n > max_words) return false;  // in 32-bit words whatever the width: same answers either way
    rank_.resize(n);
    for (uint32_t i = 0; i < n; ++i) rank_[topo[i]] = i;
    if (narrow_) fill(g, topo, first16_, uint16_t{0xFFFF}), std::vector<uint32_t>().swap(first32_);
    else fill(g, topo, first32_, kInf), std::vector<uint16_t>().swap(first16_);
    return true;
  }
  bool reaches(uint32_t u, uint32_t w) const {
    if (u == w) return false;
    const uint64_t i = uint64_t{u} * k_ + path_[w];
    return (narrow_ ? first16_[i] : first32_[i]) <= pos_[w];
  }
  // The parts of reaches() for tight loops: u ⇝ w (u != w) iff
  // row(u)[path(w)] <= pos(w), with 16-bit rows when narrow().
  bool narrow() const { return narrow_; }
  bool cyclic() const { return cyclic_; }
  const uint16_t* row16(uint32_t u) const { return first16_.data() + uint64_t{u} * k_; }
  const uint32_t* row32(uint32_t u) const { return first32_.data() + uint64_t{u} * k_; }
  uint32_t path(uint32_t v) const { return path_[v]; }
  uint32_t pos(uint32_t v) const { return pos_[v]; }
  uint32_t paths() const { return k_; }
  // Position in the topological order of the last build: u ⇝ w implies rank(u) < rank(w).
  uint32_t rank(uint32_t v) const { return rank_[v]; }

 private:
  // first[v * k + c] = lowest position on path c that v reaches, in reverse topological order.
  template <class T>
  void fill(const Csr& g, const std::vector<uint32_t>& topo, std::vector<T>& first, T inf) {
    const uint32_t n = g.vertex_count();
    first.assign(uint64_t{k_} * n, inf);
    for (uint32_t t = n; t-- > 0;) {
      const uint32_t v = topo[t];
      T* fv = first.data() + uint64_t{v} * k_;
      for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i) {
        const T* fw = first.data() + uint64_t{g.target[i]} * k_;
        for (uint32_t c = 0; c < k_; ++c) fv[c] = std::min(fv[c], fw[c]);
      }
      // (No vertex reaches the shared path of edgeless vertices: each stays
      // at infinity there, itself included.)
      if (path_[v] != isolated_) fv[path_[v]] = std::min<T>(fv[path_[v]], static_cast<T>(pos_[v]));
    }
  }
  uint32_t k_ = 0;
  bool narrow_ = false, cyclic_ = false;
  uint32_t isolated_ = kInf;  // the path of the vertices without edges (kInf: none)
  std::vector<uint32_t> path_, pos_, rank_;
  std::vector<uint16_t> first16_;
  std::vector<uint32_t> first32_;
};

// Pruning's rule applied while building (Cobra §4.3.3), so that the pairs it
// decides are never materialised as constraints: a side with an edge x -> y
// where y already reaches x can never be chosen. Sound for the same reason as
// pruning: every acyclic choice contains the known graph, and the known graph
// only grows by sides that every acyclic choice takes. A pair with exactly one
// impossible side puts the other side's edges into the known graph — only
// those the graph does not already imply (x -> y with x ⇝ y is redundant: the
// graph of the round is a subgraph of every later one). A pair with both sides
// impossible stays a constraint (pruning reports it with its cycles), as does
// every pair still open at the fixpoint. Rounds repeat while they decide
// something (the index is rebuilt over the grown graph).
//
// Chains the known graph already orders are settled without the full test
// (`compact`, for layouts whose vertices are the transactions themselves):
// when tail(i) ⇝ head(j), "j before i" would close tail(j) → head(i) ⇝
// tail(i) ⇝ head(j) ⇝ tail(j), so "i before j" is forced; its WW edge is
// implied, and its RW edges (readers of i's tail → head(j)) are implied by
// those to any head(k) with i before k forced and head(k) ⇝ head(j). So per
// chain i only its minimal forced successors get edges (a key's chains are
// scanned in topological order of their heads). If a forced side is itself
// impossible (a reader of i reachable from head(j)), the added edges close a
// cycle in the known graph: the violation surfaces as that cycle rather than
// as a pair with both sides impossible — the same verdict. Pairs neither way
// ordered (concurrent chains) get the full test.
template <class SidesFn, class EmitFn>
void decide_pairs_at_build(LevelPolygraph& lp, const std::vector<Work>& works, const ChainStore& chains, SidesFn sides,
                           EmitFn emit, bool compact, bool narrow_index) {
  Polygraph& pg = lp.pg;
  if (works.empty()) return;
  ChainIndex idx;
  EdgeList a, b;
  // The index may take 64 paths' worth of words per vertex, or, when more
  // pairs are open, up to a quarter of what materialising them as
  // constraints would cost (about 64 bytes a pair), and in any case 2^24
  // words (64 MiB) — never more than 2^29 words (2 GiB) nor a quarter of the
  // machine's memory. Beyond that every pair is left to pruning (and the
  // caller's memory check). (The floor: a graph of a few 10^4 vertices with
  // hundreds of sessions needs hundreds of paths, a few MiB; without the
  // index its pairs all became constraints, and pruning them took a GiB.)
  uint64_t pairs = 0;
  for (const Work& x : works)
    pairs += x.all_pairs ? uint64_t{x.free.size()} * (x.free.size() - (x.free.empty() ? 0 : 1)) / 2 : x.open.size();
  const uint64_t phys_words = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) / 4;
  const uint64_t budget =
      std::min({std::max({64 * uint64_t{pg.vertex_count} + 4096, pairs * 64 / 4 / 4, uint64_t{1} << 24}),
                uint64_t{1} << 29, phys_words / 4});
  // Round 0 walks every pair without storing it; later rounds only the
  // pairs still open (in the same order, so constraints keep their order).
  std::vector<PairRef> open;
  bool first = true;
  // Later rounds only pay off while many pairs are open: each rebuilds the
  // index over the whole graph, and pruning applies the same rule to the
  // constraints that remain, incrementally.
  // (The split layout keeps rounding to the fixpoint: SI refutations then
  // come from pairs with both sides impossible, whose cycles name the reads,
  // rather than from a cycle of inferred orders.)
  const size_t worth_another_round = compact ? size_t{1} << 20 : 1;
  for (int round = 0; round < 16 && (first || open.size() >= worth_another_round); ++round) {
    std::vector<uint32_t> next;
    if (first) {  // the cover is chosen once: follow session order and node chains
      next.assign(pg.vertex_count, kInf);
      for (size_t i = 0; i < pg.known.size(); ++i) {
        const uint32_t u = pg.known.src[i], v = pg.known.dst[i];
        const bool chain = pg.known.kind[i] == EdgeKind::so || (u >= lp.txn_count && v >= lp.txn_count) ||
                           (pg.known.kind[i] == EdgeKind::aux && u >= lp.txn_count);
        if (chain && next[u] == kInf) next[u] = v;
      }
    }
    const bool built = idx.build(build_csr(pg.vertex_count, pg.known, false), budget, narrow_index, first ? &next : nullptr);
    // A cycle of known edges is in every choice: the level is violated
    // whatever the open pairs say, and pruning reports that cycle. Building
    // the pairs as constraints would only cost memory — quadratic in a key's
    // writers when none was decided yet (a long fork read from the initial
    // state on a history of few, busy keys took gigabytes).
    if (!built && idx.cyclic()) return;
    if (!built) break;
    first = false;
    auto impossible = [&](const EdgeList& e) {
      for (size_t i = 0; i < e.size(); ++i)
        if (e.src[i] == e.dst[i] || idx.reaches(e.dst[i], e.src[i])) return true;
      return false;
    };
    std::vector<PairRef> still;
    size_t decided = 0;
    auto decide = [&](const PairRef& p) {
      sides(p, a, b);
      const bool ia = impossible(a), ib = impossible(b);
      if (ia == ib) { still.push_back(p); return; }
      const EdgeList& f = ia ? b : a;
      for (size_t i = 0; i < f.size(); ++i)
        if (!idx.reaches(f.src[i], f.dst[i])) pg.known.add(f.src[i], f.dst[i], f.kind[i], f.why[i] | kInferredBit);
      ++decided;
    };
    if (round == 0 && compact) {
      // Per key, in topological order of heads: head/tail vertices and the
      // heads' index coordinates in flat arrays, so that the inner loop over
      // (often 10^8–10^9) ordered pairs reads one row and two arrays.
      std::vector<uint32_t> by_rank, hv, tv, hpath, hpos;
      for (uint32_t w = 0; w < works.size(); ++w) {
        const Work& x = works[w];
        if (!x.all_pairs) {
          for (auto [i, j] : x.open) decide(PairRef{w, i, j});
          continue;
        }
        const uint32_t m = static_cast<uint32_t>(x.free.size());
        by_rank.resize(m), hv.resize(m), tv.resize(m), hpath.resize(m), hpos.resize(m);
        for (uint32_t i = 0; i < m; ++i) {
          const VersionChain c = chains.chain(x.free[i]);
          hv[i] = c.txns.front(), tv[i] = c.txns.back(), by_rank[i] = i;
        }
        std::sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return idx.rank(hv[a]) < idx.rank(hv[b]); });
        {  // permute into sorted order
          std::vector<uint32_t> h2(m), t2(m);
          for (uint32_t b = 0; b < m; ++b) h2[b] = hv[by_rank[b]], t2[b] = tv[by_rank[b]];
          hv.swap(h2), tv.swap(t2);
        }
        for (uint32_t b = 0; b < m; ++b) hpath[b] = idx.path(hv[b]), hpos[b] = idx.pos(hv[b]);
        // tail(j) ⇝ head(i) needs rank(head(j)) < rank(head(i)): only later chains can follow i.
        // The heads by index path: along a path positions grow with rank (its
        // vertices are joined by edges), so the heads tail(i) reaches on a
        // path are a suffix of that path's heads, found by binary search —
        // not a test per pair, which made a key's m writers cost m² (a hot
        // key of a skewed blind-write history: 10^10 pairs and more). The
        // shared path of edgeless vertices is never reached: its heads all
        // get the full test.
        std::vector<uint32_t> paths_used;  // distinct hpath values, in first-seen order
        std::vector<std::vector<uint32_t>> on_path;  // per used path: its heads' b, ascending
        {
          std::unordered_map<uint32_t, uint32_t> slot;
          for (uint32_t b = 0; b < m; ++b) {
            auto [it, fresh] = slot.try_emplace(hpath[b], static_cast<uint32_t>(paths_used.size()));
            if (fresh) paths_used.push_back(hpath[b]), on_path.emplace_back();
            on_path[it->second].push_back(b);
          }
        }
        // Per chain a, the events in b order: an open pair (full test) or the
        // first forced head of a path (a candidate minimal successor; the
        // path's later heads are forced and implied by it).
        std::vector<std::pair<uint32_t, bool>> events;  // (b, forced)
        auto scan = [&](auto row_of) {
          using Row = decltype(row_of(0u));
          std::vector<Row> minimal;  // index rows of i's minimal forced successors' heads
          for (uint32_t a = 0; a < m; ++a) {
            const uint32_t i = by_rank[a];
            const Row tail_row = row_of(tv[a]);
            minimal.clear();
            events.clear();
            for (size_t p = 0; p < paths_used.size(); ++p) {
              const std::vector<uint32_t>& hs = on_path[p];
              const auto later = std::upper_bound(hs.begin(), hs.end(), a);
              const uint32_t reach_from = tail_row[paths_used[p]];  // lowest position tail(i) reaches there
              const auto reached = std::partition_point(later, hs.end(), [&](uint32_t b) { return hpos[b] < reach_from; });
              for (auto it = later; it != reached; ++it) events.push_back({*it, false});
              if (reached != hs.end()) {
                decided += static_cast<size_t>(hs.end() - reached);  // i before each of them is forced
                events.push_back({*reached, true});
              }
            }
            std::sort(events.begin(), events.end());
            for (const auto& [b, forced] : events) {
              const uint32_t j = by_rank[b];
              if (!forced) {  // tail(i) does not reach head(j)
                decide(PairRef{w, std::min(i, j), std::max(i, j)});
                continue;
              }
              bool implied = false;
              for (const Row row : minimal)
                if (row[hpath[b]] <= hpos[b]) { implied = true; break; }
              if (implied) continue;
              minimal.push_back(row_of(hv[b]));
              const VersionChain ci = chains.chain(x.free[i]);
              for (size_t q = 0; q < ci.readers_of_tail.size(); ++q) {
                const TxnIdx rd = ci.readers_of_tail[q];
                if (rd != hv[b] && !idx.reaches(rd, hv[b]))
                  pg.known.add(rd, hv[b], EdgeKind::rw, ci.reader_pos[q] | kInferredBit);
              }
            }
          }
        };
        if (idx.narrow()) scan([&](uint32_t v) { return idx.row16(v); });
        else scan([&](uint32_t v) { return idx.row32(v); });
      }
    } else if (round == 0) {
      for_each_pair(works, decide);
    } else {
      for (const PairRef& p : open) decide(p);
    }
    lp.decided_at_build += decided;
    open.swap(still);
    if (decided == 0) break;
  }
  if (first) for_each_pair(works, emit);  // no index: every pair is a constraint
  else for (const PairRef& p : open) emit(p);
}

// A write of a key by a transaction with times (--time-order), at op `pos`.
struct TimedWrite {
  Sym key;
  TxnIdx t;
  uint32_t pos;
};

// Per key, its timed included writers, each once with its last write of the
// key (the version), grouped by key; none for the keys in `skip` (sorted).
std::vector<TimedWrite> timed_versions(const History& h, const std::vector<uint8_t>& included,
                                       const std::vector<Sym>& skip) {
  using W = TimedWrite;
  std::vector<W> w;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (!included[t] || !h.has_times(t)) continue;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
      if ((h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) &&
          (skip.empty() || !std::binary_search(skip.begin(), skip.end(), h.op_key[o])))
        w.push_back({h.op_key[o], t, static_cast<uint32_t>(o - h.op_begin(t))});
  }
  // One record per (key, writer): its last write of the key (the version).
  std::sort(w.begin(), w.end(), [](const W& a, const W& b) {
    return a.key != b.key ? a.key < b.key : a.t != b.t ? a.t < b.t : a.pos < b.pos;
  });
  size_t m = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (m > 0 && w[m - 1].key == w[i].key && w[m - 1].t == w[i].t) w[m - 1] = w[i];
    else w[m++] = w[i];
  }
  w.resize(m);
  return w;
}

// add_time_order_edges adds at most this many known edges (a node per writer at worst).
uint64_t time_order_edge_bound(const std::vector<TimedWrite>& w) { return 3 * uint64_t{w.size()}; }

// --time-order for SER and SI: every key's versions in the order of their
// writers' times, whether anybody read them or not. Two included transactions
// that write a common key (their last write or append of it), both with
// times, with end(T1) + δ < begin(T2): T1's version precedes T2's, a WW edge.
// This orders unread blind writes, whose order SER otherwise leaves free (and
// SI leaves to constraints), and checks known orders (read-modify-write
// chains, list order) against the times: a contradiction closes a cycle.
// (SSER's real-time edges already order every such pair.) Per key, as for
// real time: T → node(end(T)), nodes chained by time, and the last node with
// end + δ < begin(T2) → T2 (T2* in the split layout, where WW edges enter the
// starred copy): O(writes) edges, never one per pair.
// `w`: timed_versions(); each key's records are sorted here by end time.
void add_time_order_edges(const History& h, std::vector<TimedWrite>& w, int64_t skew, LevelPolygraph& lp) {
  using W = TimedWrite;
  const uint32_t star = lp.layout == GraphLayout::split ? lp.txn_count : 0;
  Polygraph& pg = lp.pg;
  std::vector<int64_t> node_end;
  std::vector<uint32_t> node;
  for (size_t a = 0; a < w.size();) {
    size_t b = a;
    int64_t min_end = std::numeric_limits<int64_t>::max();
    int64_t max_begin = std::numeric_limits<int64_t>::min();
    for (; b < w.size() && w[b].key == w[a].key; ++b) {
      min_end = std::min(min_end, h.txn_end[w[b].t]);
      max_begin = std::max(max_begin, h.txn_begin[w[b].t]);
    }
    // Keys whose writers real time leaves all concurrent need nothing.
    if (b - a < 2 || !(static_cast<__int128>(min_end) + skew < static_cast<__int128>(max_begin))) {
      a = b;
      continue;
    }
    std::sort(w.begin() + static_cast<ptrdiff_t>(a), w.begin() + static_cast<ptrdiff_t>(b),
              [&](const W& x, const W& y) {
                return h.txn_end[x.t] != h.txn_end[y.t] ? h.txn_end[x.t] < h.txn_end[y.t] : x.t < y.t;
              });
    node_end.clear(), node.clear();
    for (size_t i = a; i < b; ++i) {
      const int64_t e = h.txn_end[w[i].t];
      if (node_end.empty() || node_end.back() != e) {
        node_end.push_back(e);
        node.push_back(pg.vertex_count++);
        if (node.size() > 1) pg.known.add(node[node.size() - 2], node.back(), EdgeKind::aux);
      }
      pg.known.add(w[i].t, node.back(), EdgeKind::ww);
    }
    for (size_t i = a; i < b; ++i) {
      auto it = std::lower_bound(node_end.begin(), node_end.end(), h.txn_begin[w[i].t],
                                 [&](int64_t e, int64_t bg) {
                                   return static_cast<__int128>(e) + skew < static_cast<__int128>(bg);
                                 });
      if (it == node_end.begin()) continue;
      const uint32_t before = node[static_cast<size_t>(it - node_end.begin()) - 1];
      pg.known.add(before, star + w[i].t, EdgeKind::ww, w[i].pos);
    }
    a = b;
  }
}

// --time-order's write order (SER and SI; SSER's real time has it): the
// timed versions to order, less the keys whose chains already are.
std::vector<TimedWrite> time_order_writes(const DependencyGraph& g, const History& h) {
  // Keys of unknown order whose chains (every version of the key: not an
  // SI-only key, whose chains are only its unread tails) are single
  // writers, all timed, none after the initial state: their chains' time
  // order (below) is already the writers' own, and a second set of time
  // nodes would only grow the graph (blind-write logs are mostly such keys).
  std::vector<Sym> skip;
  for (const UnorderedKey& uk : g.unordered) {
    if (uk.si_only) continue;
    bool single = true;
    for (uint32_t c = uk.first_chain; c < uk.end_chain && single; ++c) {
      const VersionChain vc = g.chains.chain(c);
      single = vc.from_init ? vc.txns.empty() : vc.txns.size() == 1 && h.has_times(vc.txns.front());
    }
    if (single) skip.push_back(uk.key);
  }
  std::sort(skip.begin(), skip.end());
  return timed_versions(h, g.included, skip);
}

}  // namespace

namespace {

// The scans' open absences (graph/known_graph.h AbsentChoice) into lp, after
// every other known edge and constraint.
template <class Emit>
void add_absent_choices(LevelPolygraph& lp, const DependencyGraph& g, const PolygraphOptions& o, const Emit& emit) {
  Polygraph& pg = lp.pg;
  // The scans' open absences: before the run's first writer, or after the
  // delete that ends it. Either edge is an order the engine chooses, not one
  // the history shows (kInferredBit). Most are settled by the known graph
  // (a scan long after the row's insert runs after its delete): with a
  // reachability index over it, a choice one of whose places closes a cycle
  // takes the other as a known edge (pruning's rule, once, at build), so a
  // scan of wide ranges over many deleted rows does not leave a constraint
  // per (scan, row). The others become constraints.
  ChainIndex idx;
  bool indexed = false;
  if (!g.absent_choices.empty() && o.decide_pairs) {
    // The cover follows session order, node chains and split copies (as decide_pairs_at_build's).
    std::vector<uint32_t> next(pg.vertex_count, kInf);
    for (size_t i = 0; i < pg.known.size(); ++i) {
      const uint32_t u = pg.known.src[i], v = pg.known.dst[i];
      const bool chain = pg.known.kind[i] == EdgeKind::so || (u >= lp.txn_count && v >= lp.txn_count) ||
                         (pg.known.kind[i] == EdgeKind::aux && u >= lp.txn_count);
      if (chain && next[u] == kInf) next[u] = v;
    }
    const uint64_t phys_words = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) / 4;
    const uint64_t budget = std::min({std::max({64 * uint64_t{pg.vertex_count} + 4096,
                                                uint64_t{g.absent_choices.size()} * 64 / 4 / 4, uint64_t{1} << 24}),
                                      uint64_t{1} << 29, phys_words / 4});
    indexed = idx.build(build_csr(pg.vertex_count, pg.known, false), budget, o.narrow_index, &next);
  }
  // A cycle of known edges is in every choice (as for the chain pairs): the
  // level is violated whatever the scans saw, and constraints would only
  // cost memory.
  if (!indexed && idx.cyclic()) return;
  EdgeList side_a, side_b;
  for (const AbsentChoice& a : g.absent_choices) {
    if (indexed) {
      side_a.clear(), side_b.clear();
      emit(side_a, a.reader, a.first, EdgeKind::rw, a.read_pos | kInferredBit);
      emit(side_b, a.end, a.reader, EdgeKind::wr, a.read_pos | kInferredBit);
      const bool ia = idx.reaches(side_a.dst[0], side_a.src[0]), ib = idx.reaches(side_b.dst[0], side_b.src[0]);
      if (ia != ib) {
        const EdgeList& f = ia ? side_b : side_a;
        if (!idx.reaches(f.src[0], f.dst[0])) pg.known.add(f.src[0], f.dst[0], f.kind[0], f.why[0]);
        ++lp.decided_at_build;
        continue;
      }
    }
    Constraint c;
    c.a_begin = pg.choice_edges.size();
    emit(pg.choice_edges, a.reader, a.first, EdgeKind::rw, a.read_pos | kInferredBit);
    c.a_end = c.b_begin = pg.choice_edges.size();
    emit(pg.choice_edges, a.end, a.reader, EdgeKind::wr, a.read_pos | kInferredBit);
    c.b_end = pg.choice_edges.size();
    pg.constraints.push_back(c);
    lp.origin.push_back({a.key, a.reader, a.first, true});
  }
}

}  // namespace

LevelPolygraph build_level_polygraph(const DependencyGraph& g, const History& h, const PolygraphOptions& o,
                                     EdgeList* donated) {
  LevelPolygraph lp;
  lp.layout = o.layout;
  lp.txn_count = g.n;
  const uint32_t n = g.n;
  Emitter emit{o.layout, n};
  Polygraph& pg = lp.pg;
  // --time-order's write order (SER and SI; SSER's real time has it).
  std::vector<TimedWrite> time_writes;
  if (o.time_order && o.layout != GraphLayout::realtime) time_writes = time_order_writes(g, h);
  // Known edges of the level. Reserve what the per-key edges will need (a
  // chain: its tail, its readers, an init chain's edges, a node chain and its
  // head edge) so the big arrays grow once, not by doubling copies.
  {
    uint64_t extra = 0;
    const bool timed_layout = o.layout == GraphLayout::realtime || o.time_order;
    for (const UnorderedKey& uk : g.unordered) {
      uint64_t init_out = 0;
      for (uint32_t c = uk.first_chain; c < uk.end_chain; ++c)
        if (g.chains.chain(c).from_init) init_out = 1 + g.chains.chain(c).readers_of_tail.size();
      for (uint32_t c = uk.first_chain; c < uk.end_chain; ++c)
        extra += init_out + (timed_layout ? 4 + 2 * g.chains.chain(c).readers_of_tail.size() : 0);
    }
    const uint64_t want =
        g.edges.size() + 3 * uint64_t{n} + extra + time_order_edge_bound(time_writes);
    if (donated && donated == &g.edges && o.layout != GraphLayout::split) {
      pg.known = std::move(*donated);  // the edges are the level's known edges as they are
      donated->clear();
    } else {
      donated = nullptr;
    }
    pg.known.reserve(want);
  }
  if (!donated)
    for (size_t i = 0; i < g.edges.size(); ++i) emit(pg.known, g.edges.src[i], g.edges.dst[i], g.edges.kind[i], g.edges.why[i]);
  if (o.layout == GraphLayout::split) {
    pg.vertex_count = 2 * n;
    for (uint32_t v = 0; v < n; ++v) if (g.included[v]) pg.known.add(n + v, v, EdgeKind::aux);
  } else if (o.layout == GraphLayout::realtime) {
    std::vector<uint32_t> src, dst;
    lp.node_time = add_realtime_pairs(h, g.included, o.clock_skew, src, dst);
    for (size_t i = 0; i < src.size(); ++i) pg.known.add(src[i], dst[i], EdgeKind::rt);
    pg.vertex_count = n + static_cast<uint32_t>(lp.node_time.size());
  } else {
    pg.vertex_count = n;
  }
  if (!time_writes.empty()) add_time_order_edges(h, time_writes, o.clock_skew, lp);
  std::vector<TimedWrite>().swap(time_writes);
  const bool by_time = o.layout == GraphLayout::realtime || o.time_order;
  auto times_of = [&](const VersionChain& c) {
    ChainTimes t;
    for (TxnIdx x : c.txns) {
      if (!h.has_times(x)) return ChainTimes{};
      t.min_end = std::min(t.min_end, h.txn_end[x]);
      t.min_begin = std::min(t.min_begin, h.txn_begin[x]);
    }
    t.timed = !c.txns.empty();
    return t;
  };
  // "Chain a entirely before chain b" as edges: a's tail → b's head (WW) and
  // every reader of a's tail → b's head (RW).
  auto order_edges = [&](EdgeList& out, const VersionChain& a, const VersionChain& b) {
    TxnIdx head = b.txns.front();
    if (!a.txns.empty()) emit(out, a.txns.back(), head, EdgeKind::ww, b.write_pos.front());
    for (size_t r = 0; r < a.readers_of_tail.size(); ++r)
      if (a.readers_of_tail[r] != head) emit(out, a.readers_of_tail[r], head, EdgeKind::rw, a.reader_pos[r]);
  };
  auto add_constraint = [&](Sym key, const VersionChain& a, const VersionChain& b) {
    Constraint c;
    c.a_begin = pg.choice_edges.size();
    order_edges(pg.choice_edges, a, b);
    c.a_end = c.b_begin = pg.choice_edges.size();
    order_edges(pg.choice_edges, b, a);
    c.b_end = pg.choice_edges.size();
    pg.constraints.push_back(c);
    lp.origin.push_back({key, a.txns.front(), b.txns.front()});
  };
  // Candidate pairs (key, its free chains, i < j), decided or made
  // constraints once every known edge is in.
  std::vector<Work> works;
  // New auxiliary vertex (per-key time node).
  auto new_node = [&]() { return pg.vertex_count++; };
  for (const UnorderedKey& uk : g.unordered) {
    if (uk.si_only && !o.include_si_only) continue;
    // The init chain (if any) precedes every other chain: certain edges.
    uint32_t init;  // kInf: none
    std::vector<uint32_t> free = free_chains(g.chains, uk, init);
    if (init != kInf)
      for (uint32_t c : free) order_edges(pg.known, g.chains.chain(init), g.chains.chain(c));
    std::vector<ChainTimes> times(free.size());
    bool all_timed = by_time;
    if (by_time)
      for (size_t i = 0; i < free.size(); ++i) times[i] = times_of(g.chains.chain(free[i])), all_timed &= times[i].timed;
    if (!all_timed) {
      works.push_back({static_cast<uint32_t>(&uk - g.unordered.data()), true, std::move(free), {}});
      continue;
    }
    // Real time orders chain a before chain b when a write of a ended before
    // every write of b began: min_end(a) + δ < min_begin(b) (never a before
    // itself, since min_end(a) >= min_begin(a)). Those orders go in
    // through per-key time nodes (O(chains) edges, not O(chains²)): a's tail
    // and a's readers enter the node of min_end(a); nodes are chained by time;
    // b's head hangs below the last node before min_begin(b) - δ. In the split
    // layout WW and RW travel on separate node chains so each arrives as itself.
    const size_t m = free.size();
    std::vector<size_t> by_end(m);
    for (size_t i = 0; i < m; ++i) by_end[i] = i;
    std::sort(by_end.begin(), by_end.end(), [&](size_t a, size_t b) { return times[a].min_end < times[b].min_end; });
    std::vector<int64_t> node_end;
    std::vector<uint32_t> ww_node, rw_node;  // per distinct end time
    std::vector<size_t> node_of(m);
    for (size_t idx : by_end) {
      if (node_end.empty() || node_end.back() != times[idx].min_end) {
        node_end.push_back(times[idx].min_end);
        ww_node.push_back(new_node());
        rw_node.push_back(o.layout == GraphLayout::split ? new_node() : ww_node.back());
        if (ww_node.size() > 1) {
          pg.known.add(ww_node[ww_node.size() - 2], ww_node.back(), EdgeKind::aux);
          if (o.layout == GraphLayout::split) pg.known.add(rw_node[rw_node.size() - 2], rw_node.back(), EdgeKind::aux);
        }
      }
      node_of[idx] = node_end.size() - 1;
    }
    const uint32_t star = o.layout == GraphLayout::split ? n : 0;
    for (size_t i = 0; i < m; ++i) {
      const VersionChain c = g.chains.chain(free[i]);
      pg.known.add(c.txns.back(), ww_node[node_of[i]], EdgeKind::ww);
      for (size_t r = 0; r < c.readers_of_tail.size(); ++r)
        pg.known.add(star + c.readers_of_tail[r], rw_node[node_of[i]], EdgeKind::rw, c.reader_pos[r]);
      auto it = std::lower_bound(node_end.begin(), node_end.end(), times[i].min_begin, [&](int64_t e, int64_t b) {
        return static_cast<__int128>(e) + o.clock_skew < b;
      });
      if (it != node_end.begin()) {
        size_t k = static_cast<size_t>(it - node_end.begin()) - 1;
        pg.known.add(ww_node[k], star + c.txns.front(), EdgeKind::ww, c.write_pos.front());
        if (o.layout == GraphLayout::split) pg.known.add(rw_node[k], c.txns.front(), EdgeKind::rw, c.write_pos.front());
      }
    }
    // Pairs real time leaves open (overlapping chains) need a constraint:
    // min_begin(j) <= min_end(i) + δ and min_begin(i) <= min_end(j) + δ.
    // Sweep by min_begin: from chain i only the chains after it in that
    // order whose min_begin <= min_end(i) + δ can pair with it (a pair is
    // found from whichever of the two begins first), so the work is
    // O(m log m + open pairs), not O(m²). Pairs go in in (i, j) order.
    std::vector<size_t> by_begin(m);
    for (size_t i = 0; i < m; ++i) by_begin[i] = i;
    std::sort(by_begin.begin(), by_begin.end(), [&](size_t a, size_t b) { return times[a].min_begin < times[b].min_begin; });
    std::vector<std::pair<size_t, size_t>> open_pairs;
    for (size_t p = 0; p < m; ++p) {
      const size_t i = by_begin[p];
      const __int128 limit = static_cast<__int128>(times[i].min_end) + o.clock_skew;
      for (size_t q = p + 1; q < m && times[by_begin[q]].min_begin <= limit; ++q) {
        const size_t j = by_begin[q];
        if (times[i].min_begin > static_cast<__int128>(times[j].min_end) + o.clock_skew) continue;
        open_pairs.push_back({std::min(i, j), std::max(i, j)});
      }
    }
    std::sort(open_pairs.begin(), open_pairs.end());
    if (!open_pairs.empty()) {
      Work w{static_cast<uint32_t>(&uk - g.unordered.data()), false, std::move(free), {}};
      for (auto [i, j] : open_pairs) w.open.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(j)});
      works.push_back(std::move(w));
    }
    const size_t open = open_pairs.size();
    lp.ordered_by_time += m * (m - 1) / 2 - open;
  }
  auto sides = [&](const PairRef& x, EdgeList& side_a, EdgeList& side_b) {
    const auto& f = works[x.work].free;
    side_a.clear(), side_b.clear();
    order_edges(side_a, g.chains.chain(f[x.i]), g.chains.chain(f[x.j]));
    order_edges(side_b, g.chains.chain(f[x.j]), g.chains.chain(f[x.i]));
  };
  auto emit_pair = [&](const PairRef& x) {
    const auto& f = works[x.work].free;
    add_constraint(g.unordered[works[x.work].key].key, g.chains.chain(f[x.i]), g.chains.chain(f[x.j]));
  };
  if (o.decide_pairs) decide_pairs_at_build(lp, works, g.chains, sides, emit_pair, o.layout != GraphLayout::split, o.narrow_index);
  else for_each_pair(works, emit_pair);
  add_absent_choices(lp, g, o, emit);
  return lp;
}

EdgeList cycle_to_txn_edges(const EdgeList& cyc, const LevelPolygraph& lp) {
  const uint32_t n = lp.txn_count;
  const bool split = lp.layout == GraphLayout::split;
  auto txnish = [&](uint32_t v) { return v < n || (split && v < 2 * n); };
  auto txn = [&](uint32_t v) { return v < n ? v : v - n; };
  EdgeList out;
  const size_t k = cyc.size();
  if (k == 0) return out;
  // Start at an edge leaving a transaction (or its split copy).
  size_t start = 0;
  while (start < k && !txnish(cyc.src[start])) ++start;
  if (start == k) return out;
  for (size_t step = 0; step < k;) {
    size_t i = (start + step) % k;
    if (cyc.kind[i] == EdgeKind::aux && txnish(cyc.dst[i])) { ++step; continue; }  // T* → T
    if (txnish(cyc.dst[i])) {
      out.add(txn(cyc.src[i]), txn(cyc.dst[i]), cyc.kind[i], cyc.why[i]);
      ++step;
      continue;
    }
    // A run through auxiliary nodes (real-time or per-key time nodes).
    size_t j = step;
    while (!txnish(cyc.dst[(start + j) % k])) ++j;
    size_t last = (start + j) % k;
    EdgeKind kind = cyc.kind[i] == EdgeKind::rt ? EdgeKind::rt : cyc.kind[i];
    uint32_t why = kind == EdgeKind::rw ? cyc.why[i] : kind == EdgeKind::ww ? cyc.why[last] : 0;
    out.add(txn(cyc.src[i]), txn(cyc.dst[last]), kind, why);
    step = j + 1;
  }
  return out;
}

}  // namespace isocheck

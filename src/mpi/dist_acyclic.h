// Distributed acyclicity test of a level graph (docs/dist.md, "Key shards").
//
// The vertices are split into two segments — transactions [0, n) and a second
// segment [n, n + m) (SI's starred copies, m = n; SSER's time nodes) — and
// each segment into P consecutive blocks, one per rank: a rank owns its
// transactions' block and the matching block of the second segment, so a
// history in time order keeps most paths inside a block. Every (src, dst)
// pair travels to the rank owning its source (MPI_Alltoallv), which keeps the
// out-edges of its vertices as a CSR; in-degrees are counted where the
// destination lives.
//
// Then Kahn's peeling in supersteps: each rank removes its vertices without
// remaining in-edges, as far as it can locally, and sends one decrement per
// removed cross-rank edge to the destination's owner. The graph is acyclic
// iff every vertex is removed; a superstep in which no rank can remove
// anything and none is left to receive means a cycle (the vertices left are
// exactly those reachable from a cycle, whatever the rank count). When the
// file follows time, edges mostly run from lower to higher blocks, and the
// peel takes about P supersteps; each vertex and edge is handled once.
//
// When a cycle exists and `core` is given, what is left is then peeled
// backwards in the same supersteps (a vertex goes once no out-edge leads to a
// vertex left), leaving the core: the vertices reachable from a cycle that
// also reach one. Every cycle lies in it, and every edge between two cycle
// vertices too. The caller gathers the core's edges to choose the witness
// (find_cycle gives the same cycle on the core as on the whole graph).
#pragma once
#include <cstdint>
#include <vector>

namespace isocheck::dist {

struct PeelStats {
  bool acyclic = true;
  uint32_t supersteps = 0;
  uint64_t edges = 0;        // all ranks' pairs
  uint64_t cross_edges = 0;  // pairs whose ends live on different ranks
  uint64_t left = 0;         // vertices not removed (0 when acyclic)
  uint64_t core = 0;         // vertices in the core (when asked for)
};

// The two-segment block ownership (every rank computes the same).
struct VertexBlocks {
  uint32_t n = 0, m = 0;
  int ranks = 1;
  // Block r of a segment of size s: [s*r/P, s*(r+1)/P).
  static uint32_t lo(uint32_t s, int r, int P) { return static_cast<uint32_t>(uint64_t{s} * r / P); }
  static int block_of(uint32_t x, uint32_t s, int P);
  int owner(uint32_t v) const { return v < n ? block_of(v, n, ranks) : block_of(v - n, m, ranks); }
  // This rank's vertices: local ids [0, mine_n) for its transactions, then
  // its second-segment block.
  uint32_t count(int r) const { return lo(n, r + 1, ranks) - lo(n, r, ranks) + lo(m, r + 1, ranks) - lo(m, r, ranks); }
  uint32_t local(uint32_t v, int r) const {
    if (v < n) return v - lo(n, r, ranks);
    return lo(n, r + 1, ranks) - lo(n, r, ranks) + (v - n - lo(m, r, ranks));
  }
};

// Collective. A proof of acyclicity from the file order, tried before the
// peel: Kahn's supersteps follow the file's blocks one after another (rank
// r + 1 peels once rank r has), so on a history in time order the peel is
// serial however many ranks there are. Instead: number the vertices in file
// order (SI's split layout, `split`: a transaction's copy n + t just before
// t; no other second segment) and call a pair "backward" when it does not go
// from a lower to a higher number. Every cycle has backward pairs, and the
// span between its lowest and highest vertex is covered by its backward
// pairs' spans (the cycle climbs over each point of it and must come back
// down), so every cycle lies inside one interval of the union of backward
// spans, with all its pairs inside it. Only the pairs inside one interval
// are peeled; the rest cannot be on a cycle. True: the graph is acyclic
// (`st` filled). False: undecided — too many backward pairs (over
// 2^21 on all ranks), an interval union over half the vertices, or a cycle
// inside (the caller peels the whole graph, which also finds the core);
// `src`/`dst` are left as they were.
bool acyclic_by_file_order(uint32_t n, uint32_t m, bool split, const std::vector<uint32_t>& src,
                           const std::vector<uint32_t>& dst, PeelStats& st);

// Collective. `src`/`dst`: this rank's pairs, any sources (emptied on
// return). Vertices [0, n + m). `core` (optional): when not acyclic, this
// rank's vertices of the core, ascending (global ids).
PeelStats peel_acyclic(uint32_t n, uint32_t m, std::vector<uint32_t>& src, std::vector<uint32_t>& dst,
                       std::vector<uint32_t>* core = nullptr);

}  // namespace isocheck::dist

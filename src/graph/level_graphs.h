// The graph each level tests for cycles, as CSR, built from one DependencyGraph.
//   SER:  vertices = transactions; SO ∪ WR ∪ WW ∪ RW.
//   SSER: SER plus real-time edges through auxiliary "time nodes" (O(n log n)
//         edges instead of O(n^2)): T → node(end(T)), node_i → node_{i+1},
//         node(last end e with e + δ < begin(T2)) → T2.
//   SI:   the split graph: T and T* per transaction; a non-RW edge a→b becomes
//         a→b*, b*→b always, an RW edge b→c becomes b*→c. It is acyclic iff
//         (SO ∪ WR ∪ WW) ; RW? is (only cycles with two adjacent RW are allowed).
#pragma once
#include <cstdint>
#include <vector>

#include "core/edges.h"
#include "graph/known_graph.h"
#include "core/history.h"

namespace isocheck {

enum class GraphLayout : uint8_t { plain, realtime, split };

struct LevelGraph {
  GraphLayout layout = GraphLayout::plain;
  uint32_t txn_count = 0;  // vertices [0, txn_count) are transactions
  Csr csr;
  // realtime: the end time of each time node (vertex txn_count + i).
  std::vector<int64_t> node_time;
  bool is_txn(uint32_t v) const { return v < txn_count; }
};

// CSR over n vertices from (src, dst) pairs, by counting sort (stable).
Csr csr_from_pairs(uint32_t n, const std::vector<uint32_t>& src, const std::vector<uint32_t>& dst);

// Does every dependency edge go from an earlier to a later transaction in
// the file? Then the file order is a topological order of the SER graph, and
// of SI's split graph numbered with T* just before T (a non-RW a→b* and an RW
// b*→c go forward exactly when a < b and b < c; T*→T always does): both are
// acyclic, without a CSR or a search. Histories logged in commit order
// mostly are. (Not for SSER: its time nodes need an order of their own.)
bool forward_in_file_order(const DependencyGraph& g);

LevelGraph ser_graph(const DependencyGraph& g);
LevelGraph sser_graph(const DependencyGraph& g, const History& h, int64_t clock_skew);
LevelGraph si_graph(const DependencyGraph& g);

// Real-time edges, appended as (src, dst) pairs over vertices [0, n) + time
// nodes numbered from n; returns the time of each node. Transactions without
// both times, or not included, get none.
std::vector<int64_t> add_realtime_pairs(const History& h, const std::vector<uint8_t>& included, int64_t clock_skew,
                                        std::vector<uint32_t>& src, std::vector<uint32_t>& dst);

}  // namespace isocheck

// From a dependency graph with keys of unknown version order to the polygraph
// each level asks about (Cobra §4.3, Vbox §4.3–4.5): one constraint per pair of
// chains of a key, coalesced over the readers of each chain's tail; chains
// that real time already orders (under SSER or the --time-order assumption)
// get their edges directly and no constraint.
#pragma once
#include <cstdint>
#include <vector>

#include "core/edges.h"
#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "core/history.h"

namespace isocheck {

struct PolygraphOptions {
  GraphLayout layout = GraphLayout::plain;  // plain = SER, realtime = SSER, split = SI
  int64_t clock_skew = 0;
  bool time_order = false;   // order non-overlapping writes by real time (assumption)
  bool include_si_only = false;
  // Decide chain pairs whose order the known graph already forces while
  // building (pruning's rule, with a chain-cover reachability index), so
  // only open pairs become constraints. Same verdicts; an unsat core then
  // names only the constraints that remained.
  bool decide_pairs = true;
  // The reachability index keeps 16-bit positions when paths are short
  // enough; false forces 32-bit ones (tests compare the two).
  bool narrow_index = true;
};

// Which chains of which key a constraint orders: side A = `first` before `second`.
struct ConstraintOrigin {
  Sym key;
  TxnIdx first_head, second_head;  // the chains' first transactions
  bool absence = false;            // an AbsentChoice: the scan, the run's first writer
};

struct LevelPolygraph {
  Polygraph pg;
  GraphLayout layout = GraphLayout::plain;
  uint32_t txn_count = 0;
  std::vector<int64_t> node_time;          // realtime layout: time of node txn_count + i
  std::vector<ConstraintOrigin> origin;    // per constraint
  size_t ordered_by_time = 0;              // chain pairs real time ordered without a constraint
  size_t decided_at_build = 0;             // chain pairs the known graph forced (no constraint built)
};

// `donated`: g.edges itself, when the caller needs g's edges no more — the
// known edges are then moved, not copied (layouts whose vertices are the
// transactions: plain and realtime). g.edges is left empty.
LevelPolygraph build_level_polygraph(const DependencyGraph& g, const History& h, const PolygraphOptions& o,
                                     EdgeList* donated = nullptr);

// A cycle over the polygraph's vertices (split copies, time nodes) as edges
// between transactions: split copies undone, time-node runs become rt edges.
EdgeList cycle_to_txn_edges(const EdgeList& cycle, const LevelPolygraph& lp);

}  // namespace isocheck

// Explaining a refutation whose cycle holds version orders the general engine
// inferred (pruning at build time: the other order would close a cycle with
// certain edges). Each such edge is traced back to the observed cycle its
// other order would close, so the anomaly can be named by what the clients
// saw (e.g. a fractured read) instead of by the inferred edges (e.g. G0).
#pragma once
#include "core/history.h"
#include "core/verdict.h"
#include "graph/known_graph.h"
#include "graph/polygraph_build.h"

namespace isocheck {

// Fills w.forced for the inferred ww/rw edges of w.cycle (lp: the level
// polygraph the cycle came from, with its certain and inferred known edges).
// When the cycle is a G0 (write orders only) and every inferred edge is
// explained, w.anomaly becomes the name of the explaining cycle that rules out
// the weakest level (shortest among those) and w.cycle_anomaly keeps G0. An SI explanation must be an
// SI cycle (no two adjacent anti-dependencies); an edge without one is left
// unexplained and the names stay as they were.
void explain_forced_orders(Witness& w, const LevelPolygraph& lp, const DependencyGraph& g, const History& h);

}  // namespace isocheck

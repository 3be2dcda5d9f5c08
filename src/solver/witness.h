// Turning a vertex cycle of a level graph back into explained edges between
// transactions, and naming the anomaly it shows (Adya/Elle vocabulary).
#pragma once
#include <string>
#include <vector>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "core/anomaly.h"
#include "core/history.h"

namespace isocheck {

// Cycle over the level graph's vertices -> cycle of labelled edges between
// transactions (time-node runs become one rt edge; split copies are undone).
EdgeList label_cycle(const std::vector<uint32_t>& cycle, const LevelGraph& lg, const DependencyGraph& g);

// G0, G1c, G-single, G2-item, G-nonadjacent, with -process / -realtime when
// the cycle needs session or real-time order, and the common names
// (lost update, write skew, fractured read, long fork, stale read).
std::string name_cycle(const EdgeList& cycle, const History& h);

}  // namespace isocheck

// Turning a vertex cycle of a level graph back into explained edges between
// transactions, and naming the anomaly it shows (Adya/Elle vocabulary).
#pragma once
#include <string>
#include <vector>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "graph/anomaly.h"
#include "io/history.h"

namespace isocheck {

// Cycle over the level graph's vertices -> cycle of labelled edges between
// transactions (time-node runs become one rt edge; split copies are undone).
EdgeList label_cycle(const std::vector<uint32_t>& cycle, const LevelGraph& lg, const DependencyGraph& g);

// G0, G1c, G-single, G2-item, G-nonadjacent, with -process / -realtime when
// the cycle needs session or real-time order, and the common names
// (lost update, write skew, fractured read, long fork, stale read).
std::string name_cycle(const EdgeList& cycle, const History& h);

// Isolation levels from weakest to strongest, for "rules out" lists. The weak
// levels are Biswas–Enea's session-based axioms (read committed, read atomic,
// causal, prefix); SI is strong-session SI (Cerone–Gotsman's (SO∪WR∪WW);RW?).
enum class Model : uint8_t {
  read_committed = 0, read_atomic, causal, prefix, snapshot_isolation, serializable, strict_serializable
};
inline constexpr int kModelCount = 7;
// "read-committed", "read-atomic", "causal", "prefix", "snapshot-isolation",
// "serializable", "strict-serializable".
const char* model_name(Model m);
// Short forms for text: RC, RA, CC, PC, SI, SER, SSER.
const char* model_short(Model m);

// The weakest level a cycle of *certain* edges rules out; every stronger level
// is ruled out too (the list is upward closed). Derived from the edge kinds:
//   any rt edge                      -> strict-serializable only
//   no rw (G0, G1c, also -process)   -> read-committed (co ⊇ so ∪ wr ∪ ww)
//   wr then rw between two txns, the wr-read before the stale read
//                                    -> read-committed (RC axiom)
//   so/wr then rw between two txns   -> read-atomic (fractured read)
//   one rw, every other edge so/wr   -> causal (T ->hb T' -rw-> T)
//   every rw right after an so/wr    -> prefix (each such pair is in co)
//   no two adjacent rw               -> snapshot-isolation
//   otherwise                        -> serializable
Model weakest_ruled_out(const EdgeList& cycle);
// The same for the per-transaction anomalies: G1a, G1b, thin-air, internal,
// duplicate write, incompatible order -> read-committed; non-repeatable read
// -> read-atomic (RC allows it); lost update -> snapshot-isolation (PC allows it).
Model weakest_ruled_out(AnomalyKind k);
// The weakest level by the anomaly name alone (what docs/report.md tabulates):
// G0*, G1* -> RC; "(fractured read)" -> RA; "(long fork)" -> PC; G-single*,
// G-nonadjacent* -> SI; G2-item* -> SER; any *-realtime -> SSER.
Model weakest_ruled_out(const std::string& anomaly_name);

}  // namespace isocheck

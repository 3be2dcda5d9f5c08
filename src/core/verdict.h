// The verdict vocabulary every stage after the solver shares: the levels, a
// violation's witness, the result of checking a history. The solver produces
// these; report/, audit/ and mpi/ read them without depending on the solver.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/anomaly.h"
#include "core/edges.h"
#include "core/history.h"

namespace isocheck {

// The weak levels (ru .. pc) come after the original three so that stored
// numbers keep their meaning; lattice_rank() gives their order. lin:
// linearizability of lightweight-transaction histories (solver/linearizability.h),
// decided apart from the lattice.
enum class Level : uint8_t { ser = 0, si = 1, sser = 2, ru = 3, rc = 4, ra = 5, cc = 6, pc = 7, lin = 8 };
const char* to_string(Level l);
// "RU", "RC", "RA", "CC", "PC", "SI", "SER", "SSER".
const char* level_short(Level l);
// The lattice, weakest first: RU < RC < RA < CC < PC < SI < SER < SSER; a
// level that holds implies every level of lower rank holds.
int lattice_rank(Level l);
// RU, RC, RA, CC, PC: decided by the weak-level engines (solver/weak_levels.h).
inline bool is_weak(Level l) { return l >= Level::ru && l <= Level::pc; }
// Every level, weakest first (`--level all`).
inline constexpr Level kAllLevels[] = {Level::ru, Level::rc, Level::ra, Level::cc,
                                       Level::pc, Level::si, Level::ser, Level::sser};

// How a serial witness was found (solver/serial_witness.h), or none.
enum class WitnessOrder : uint8_t { none = 0, begin_time, end_time, file };
const char* to_string(WitnessOrder o);

// A violation's proof: a cycle of edges, in order (dst of one = src of next).
// A constraint of the general engine, for explanations: the order of two
// chains of writes to `key` (each named by its first transaction); or, with
// `absence`, where a range scan that saw `key` absent falls (first_head the
// scanning transaction, second_head the one whose write made the key present
// again before a delete: graph/known_graph.h AbsentChoice).
struct ConstraintRef {
  Sym key;
  TxnIdx first_head, second_head;
  bool absence = false;
};

// Why the general engine inferred one version order of a witness: had the
// writes gone the other way, `other_cycle` would be a cycle. Its first edge is
// the other order (hypothetical); the rest are edges the history shows.
struct ForcedOrder {
  size_t edge = 0;       // index of the inferred edge in the witness cycle
  EdgeList other_cycle;  // over transaction indices
  std::string anomaly;   // the other cycle's name (name_cycle)
};

struct Witness {
  std::string anomaly;  // G0, G1c, G-single, G2-item, lost update, ... (+ -realtime etc.)
  EdgeList cycle;       // over transaction indices; aux/time-node hops collapsed into rt
  // The cycle's inferred version orders, each with the observed cycle its
  // other order would close (solver/forced_orders.h); empty without them.
  std::vector<ForcedOrder> forced;
  // The name the cycle's own edge kinds give, when `anomaly` is instead the
  // name of the observed cycles that forced its inferred orders; else empty.
  std::string cycle_anomaly;
  // Refutations by the general engine: constraints that together with the
  // known edges admit no acyclic choice (the unsatisfiable core).
  std::vector<ConstraintRef> core;
  bool core_minimal = false;
};

struct LevelResult {
  Level level;
  bool holds = true;
  bool decided = true;              // false: cannot decide (reason says why)
  std::string reason;               // e.g. "12 unordered write pairs on 3 keys"
  std::optional<Witness> witness;   // when !holds and the violation is a cycle
  // Violated in every case of the scans' open reads (solver/open_reads.h):
  // the witness is one case's, so it shows this level violated and no more.
  bool by_cases = false;
};

struct CheckStats {
  size_t txns = 0, committed = 0, edges = 0;
  // General engine (the largest level polygraph): constraints built, chain
  // pairs real time ordered without a constraint, pairs the known graph forced
  // while building (never constraints), constraints pruning
  // decided, constraints left to the SAT solver, independent sub-problems.
  size_t constraints = 0, ordered_by_time = 0, decided_at_build = 0, pruned = 0, to_solver = 0, subproblems = 0;
  size_t unordered_write_pairs = 0;
  // Set when a serial witness decided every level (no graph was built).
  WitnessOrder witness = WitnessOrder::none;
  // Set when the SI replay (solver/si_replay.h) decided SI (no graph for SI),
  // and which: 0 the time replay (snapshots at the recorded begins), 1 or 2
  // an order replay (commits in begin- or end-time order, latest snapshots).
  bool si_replay = false;
  uint8_t si_replay_order = 0;
  // Ranks only: blocks (of `blocks`) not checked, because every level had
  // failed in a lower-numbered one (without --all-violations). Their
  // anomalies are not in CheckResult::anomalies, which one process lists.
  size_t blocks = 0, blocks_unchecked = 0;
  // Checks run to decide scans' open reads by cases (solver/open_reads.h);
  // 0 when none was needed.
  size_t open_read_checks = 0;
};

struct CheckResult {
  std::vector<Anomaly> anomalies;  // make every level fail
  std::vector<LevelResult> levels;
  CheckStats stats;
  bool all_hold() const;
};

// Isolation levels from weakest to strongest, for "rules out" lists: the
// lattice of `--level all`. Read uncommitted is Adya's PL-1 (no G0); the weak
// levels are Biswas–Enea's session-based axioms (read committed, read atomic,
// causal, prefix); SI is strong-session SI (Cerone–Gotsman's (SO∪WR∪WW);RW?).
enum class Model : uint8_t {
  read_uncommitted = 0, read_committed, read_atomic, causal, prefix, snapshot_isolation, serializable,
  strict_serializable
};
inline constexpr int kModelCount = 8;
// "read-uncommitted", "read-committed", "read-atomic", "causal", "prefix",
// "snapshot-isolation", "serializable", "strict-serializable".
const char* model_name(Model m);
// Short forms for text: RU, RC, RA, CC, PC, SI, SER, SSER.
const char* model_short(Model m);
// The level of the same name (lin: strict-serializable, SSER of one-key
// transactions).
Model model_of(Level l);

// The weakest level a cycle of *certain* edges rules out; every stronger level
// is ruled out too (the list is upward closed). Derived from the edge kinds:
//   any rt edge                      -> strict-serializable only
//   only ww and so (G0, G0-process)  -> read-uncommitted (co ⊇ so ∪ ww)
//   no rw (G1c, also -process)       -> read-committed (co ⊇ so ∪ wr ∪ ww)
//   wr then rw between two txns, the wr-read before the stale read
//                                    -> read-committed (RC axiom)
//   so/wr then rw between two txns   -> read-atomic (fractured read)
//   one rw, every other edge so/wr   -> causal (T ->hb T' -rw-> T)
//   every rw right after an so/wr    -> prefix (each such pair is in co)
//   no two adjacent rw               -> snapshot-isolation
//   otherwise                        -> serializable
Model weakest_ruled_out(const EdgeList& cycle);
// The same for the per-transaction anomalies: the model of
// weakest_level_violated(k) (thin-air, internal, duplicate write ->
// read-uncommitted; G1a, G1b, incompatible order, duplicate elements ->
// read-committed; non-repeatable read -> read-atomic, RC allows it; lost update
// -> snapshot-isolation, PC allows it).
Model weakest_ruled_out(AnomalyKind k);
// The same with read-uncommitted: the weakest Level a per-transaction anomaly
// violates. Thin-air, internal, duplicate write: RU (no level allows them);
// G1a, G1b, and list reads with an incompatible order or an element twice: RC
// (RU sets dirty reads aside and checks the other list reads itself);
// non-repeatable read: RA; lost update: SI (PC allows it).
Level weakest_level_violated(AnomalyKind k);
// Whether an anomaly of kind k fails level l (a lost update fails SI and
// above, not read committed); check(), the audit's rounds and the
// distributed merge all judge a level's anomalies by it.
bool anomaly_fails(AnomalyKind k, Level l);
// A weak level's reason when an anomaly fails it: "the history contains lost
// update, which SI does not allow".
std::string anomaly_fails_reason(AnomalyKind k, Level l);
// The per-transaction anomalies that fail a level violated without a witness
// (a level failed by them has no cycle): `first` is the first of r.anomalies
// that anomaly_fails(kind, level), the one a weak level's reason names;
// `count` how many of r.anomalies fail it. Empty for a level that holds, is
// undecided, has a witness, or is lin (decided apart, by its own rules).
struct LevelAnomalies {
  const Anomaly* first = nullptr;
  size_t count = 0;
};
LevelAnomalies anomalies_failing(const CheckResult& r, const LevelResult& lr);
// The weakest level by the anomaly name alone (what docs/report.md tabulates):
// G0* -> RU; G1*, incompatible order, duplicate elements -> RC; "(fractured read)" -> RA; "(long fork)" -> PC; G-single*,
// G-nonadjacent* -> SI; G2-item* -> SER; any *-realtime -> SSER; other
// per-transaction anomalies (thin air, internal, duplicate write) -> RU.
Model weakest_ruled_out(const std::string& anomaly_name);

}  // namespace isocheck

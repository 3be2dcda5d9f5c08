// The weak isolation levels, read-uncommitted to prefix consistency
// (docs/checking.md, "Weak levels", states the definitions).
//
// Biswas–Enea define RC, RA, CC and PC by axioms over a commit order co that
// extends session order and read-from: each axiom names transactions t1 that
// must commit before the writer t2 a read of t3 read from (t1 also writes the
// key, and t3 "observed" t1). For RC, RA and CC what t3 observed does not
// depend on co, so saturating so ∪ wr with those edges and testing the result
// for a cycle decides the level in polynomial time, whether or not the
// history reveals its version orders (blind writes need no constraints).
// Prefix consistency is decided as serializability of the history with every
// transaction split into its reads and then its writes (their Theorem 4.8),
// through the same engines as SER — the general engine when orders are unknown.
// Read-uncommitted is Adya's PL-1: no G0, a cycle of session order and the
// version orders the history shows.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"

namespace isocheck {

struct CheckOptions;
struct DependencyGraph;

struct WeakOutcome {
  bool holds = true, decided = true;
  std::string reason;
  std::optional<Witness> witness;
};

// Reads resolved once for RU, RC, RA and CC. `included`: the transactions
// taking part (committed, or unknown and read), as the known graph has them.
class WeakChecker {
 public:
  WeakChecker(const History& h, const std::vector<uint8_t>& included);
  // The same, with the known graph of h: the graph's included transactions,
  // and, when the graph comes whole from build_known_graph, found no anomaly
  // and h has no list operations, the reads resolved from its WR edges
  // instead of a second time (the outcome is the same either way).
  WeakChecker(const History& h, const DependencyGraph& g);
  ~WeakChecker();
  WeakChecker(const WeakChecker&) = delete;
  WeakChecker& operator=(const WeakChecker&) = delete;
  // level: ru, rc, ra or cc.
  WeakOutcome decide(Level level);
  // What fails `level` (any weak level, pc included) before any graph: a read
  // of a value nobody wrote, an internal inconsistency, a duplicate write, list
  // reads that admit no order, or (RC and above) a G1a/G1b read. "" if none.
  std::string precondition(Level level) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Prefix consistency: serializability of the split history (general engine
// when version orders are unknown; `opt.linear_only` then leaves it undecided).
// With `g` (the known dependency graph) PC is decided in linear time on its
// split graph when the split loses no version order: every version order
// known, no lost update, and every register write preceded in its
// transaction by a read of that key (docs/checking.md says why).
WeakOutcome decide_prefix(const History& h, const std::vector<uint8_t>& included, const CheckOptions& opt,
                          const DependencyGraph* g = nullptr);

// The anomaly name of a weak level's violation: "G0", "non-monotonic read",
// "fractured read", "causality violation", "long fork".
const char* weak_violation_name(Level l);

}  // namespace isocheck

// Shared vocabulary of the SAT-modulo-acyclicity backends (own CDCL solver
// and the CaDiCaL cross-check). One Boolean variable per constraint: true =
// side A. Both take a Polygraph whose known graph is the fixed part.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/edges.h"

namespace isocheck {

// An edge of a Polygraph: known[index] or choice_edges[index].
struct EdgeRef {
  bool choice = false;
  uint64_t index = 0;
  bool operator==(const EdgeRef&) const = default;
};

struct SatLimits {
  double time_s = std::numeric_limits<double>::infinity();
  uint64_t conflicts = std::numeric_limits<uint64_t>::max();
  const std::atomic<bool>* stop = nullptr;  // polled; true = give up (unknown)
};

enum class SatStatus : uint8_t { sat, unsat, unknown };

struct SatStats {
  uint64_t decisions = 0, conflicts = 0, propagations = 0, restarts = 0;
  uint64_t theory_conflicts = 0, theory_propagations = 0, reorders = 0, solver_calls = 0;
  uint64_t propagation_work = 0;  // theory propagation: choice edges looked at + adjacency entries searched
};

struct SatResult {
  SatStatus status = SatStatus::unknown;
  // sat: the chosen side per constraint (0 = A, 1 = B). unsat: the sides of
  // the constraints on `cycle` (others 0).
  std::vector<uint8_t> side;
  // unsat: every constraint that took part in some cycle lemma. The lemmas
  // alone are propositionally unsatisfiable, so this is an unsat core
  // (with the known graph), not necessarily minimal.
  std::vector<uint32_t> core;
  // unsat: a shortest cycle among the conflicts met, in order; its choice
  // edges belong to `side`. Empty when the known graph alone was cyclic and
  // no cycle was recorded (then see short_cycle on the known graph).
  std::vector<EdgeRef> cycle;
  SatStats stats;
};

// Checks an assignment: known ∪ chosen edges acyclic.
bool assignment_acyclic(const Polygraph& pg, const std::vector<uint8_t>& side);

}  // namespace isocheck

// The exhaustive linearizability oracle for lightweight-transaction histories
// (each transaction [r k v] or [r k v, w k v']), and a random generator of
// such histories. Shares nothing with src/solver: it searches every order.
#pragma once
#include <cstdint>

#include "core/history.h"

namespace isocheck {

inline constexpr size_t kLinOracleMaxTxns = 9;

// Linearizable: some set S of transactions — every committed one, any of the
// unknown ones, no aborted one — has a total order in which (1) T1 comes
// before T2 when end(T1) + clock_skew < begin(T2) (an unknown transaction
// has no end: it may take effect at any time after it began), and (2) every
// transaction's read of k returns the value of the last write of k before it
// in the order (`null` when there is none). Found by depth-first search over
// every order (orders whose prefix already breaks (1) or (2) are cut).
// Throws std::invalid_argument above kLinOracleMaxTxns transactions.
bool lin_oracle(const History& h, int64_t clock_skew = 0);

// A random lightweight-transaction history of 2..max_txns transactions on 1..2
// keys: a simulated linearizable execution (each operation takes effect at a
// point inside its [begin, end]) that then, in some histories, gets one
// mutation: a stale or future read, a write moved in time (reordering the
// chain against real time), two compare-and-sets on one version, a
// read of an aborted write. Some transactions are `unknown` (with or without
// an end time), some aborted.
History random_lwt_history(uint64_t seed, int max_txns = 7);

}  // namespace isocheck

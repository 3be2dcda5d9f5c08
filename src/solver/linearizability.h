// Linearizability of lightweight-transaction histories (`--level lin`): each
// transaction is one compare-and-set or insert-if-absent on one key, values
// unique per key. How such a history is written (docs/formats.md):
//   successful CAS(k, old -> new):  [r k old, w k new]
//   insert-if-absent(k, v):         [r k null, w k v]
//   failed CAS / plain read of k:   [r k seen]   (the value that made it fail)
// With unique values each key's successful writes form one chain from the
// initial state (each read the previous value), so the version order is
// known and linearizability is a pairwise real-time check along the chain,
// done in linear (expected) time. See docs/checking.md.
#pragma once
#include <cstdint>

#include "core/history.h"
#include "core/verdict.h"

namespace isocheck {

// Decides linearizability. Throws InputError("transaction T<id>", problem)
// when the history is not one of lightweight transactions (more than one key,
// more than one read or write, a write without a read of its key first, a
// value written twice to one key, missing times). `clock_skew` as for sser:
// T1 precedes T2 in real time only when end(T1) + clock_skew < begin(T2).
// `included` (optional) receives the number of transactions taking part.
LevelResult check_linearizable(const History& h, int64_t clock_skew = 0, size_t* included = nullptr);

}  // namespace isocheck

// The partition stage on key shards: keys are hashed to ranks; each rank sees
// every (key, session) of its keys and contributes its keys' cycle edges and
// (key, ops, s1, s2) rows; the rows are gathered everywhere and the same
// Partition (partition/) comes out on every rank. Collective.
#pragma once
#include "core/history.h"
#include "partition/partition.h"

namespace isocheck::dist {

Partition sharded_partition(const History& h);

// One rank's (key, session, operations) rows, deduplicated per (key, session).
struct KeyTriple {
  uint64_t key, session, ops;
};
// The same Partition on every rank from every rank's rows (any split of the
// history's operations among the ranks; sessions are global dense indices).
// comp_txns is left zero (the caller counts them). Collective.
Partition partition_from_triples(std::vector<KeyTriple> local, uint32_t sessions);

}  // namespace isocheck::dist

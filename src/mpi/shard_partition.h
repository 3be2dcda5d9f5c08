// The partition stage on key shards: keys are hashed to ranks; each rank sees
// every (key, session) of its keys and contributes its keys' cycle edges and
// (key, ops, s1, s2) rows; the rows are gathered everywhere and the same
// Partition (partition/) comes out on every rank. Collective.
#pragma once
#include "core/history.h"
#include "partition/partition.h"

namespace isocheck::dist {

Partition sharded_partition(const History& h);

}  // namespace isocheck::dist

// Transaction ids repeated across the ranks' ranges. Each rank reads a range
// of the file and its reader refuses an id repeated inside what it read, but
// not one that comes back in another rank's range (or, with key shards, in
// another slice of its own): this collective finds those, as one process
// reading the whole file would.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/unique_ids.h"

namespace isocheck::dist {

// Collective. `ids`: (transaction id, whole-history index) of this rank's
// transactions, the ranks' ranges consecutive in file order. Returns, the same
// on every rank, the first repeat in the file (core/unique_ids.h), which is
// where one process reading the file in order stops. Ids increasing over the
// file (generators, collectors) cost one all-gather of a few numbers per
// rank; otherwise the ids travel to the rank their hash picks.
FirstRepeat first_repeated_id(std::vector<std::pair<int64_t, uint64_t>> ids);

}  // namespace isocheck::dist

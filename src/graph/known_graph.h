// The known dependency graph of a history: WR from unique values, WW from
// read-modify-write links and list prefixes, RW derived from both, SO from
// sessions — plus the per-transaction anomalies found on the way (MTC §IV,
// Adya's G1a/G1b). Keys whose version order the history does not reveal
// (blind writes) are listed for the general engine, never guessed.
#pragma once
#include <vector>

#include "graph/edges.h"
#include "io/history.h"
#include "graph/anomaly.h"

namespace isocheck {

struct KnownGraphOptions {
  // Snapshot isolation needs the order between two unread blind writes of a
  // key (serializability does not): with `for_si` such keys count as unknown.
  bool for_si = false;
};

// One chain of versions of a key linked by read-modify-write (or list order):
// its transactions in version order. `readers_of_tail` read its last version.
struct VersionChain {
  std::vector<TxnIdx> txns;
  std::vector<uint32_t> write_pos;  // position of each txn's final write of the key
  std::vector<TxnIdx> readers_of_tail;
  std::vector<uint32_t> reader_pos;
  bool from_init = false;  // the chain starts by reading the initial state
};

// A key whose chains' relative order is unknown.
struct UnorderedKey {
  Sym key;
  // Only snapshot isolation needs this order: two or more writes nobody read,
  // after a known chain. Serializability places them freely; SER's certain
  // edges to them are already in the graph.
  bool si_only = false;
  std::vector<VersionChain> chains;  // chains[0] is the init chain when from_init
};

struct DependencyGraph {
  uint32_t n = 0;                   // transactions = vertices
  std::vector<uint8_t> included;    // committed, or unknown and read by someone
  EdgeList edges;                   // so, wr, ww, rw (all certain)
  std::vector<Anomaly> anomalies;
  std::vector<UnorderedKey> unordered;  // need constraints (general engine)
  uint64_t unordered_write_pairs = 0;   // pairs of writes whose order is unknown
};

// Throws InputError for histories that cannot be interpreted (a key used both
// as a register and as a list).
DependencyGraph build_known_graph(const History& h, const KnownGraphOptions& opt);

}  // namespace isocheck

// Key shards inside one large component (docs/dist.md, "Key shards").
//
// Every rank takes the operations of its keys (hash(key) % P) — selected
// locally when every rank holds the history, or exchanged with MPI_Alltoallv
// from per-rank reads (check_key_sharded_ranges) — and builds
// the per-key part of the dependency graph on a projection that keeps every
// transaction (status, session, times) but only its keys' operations:
// WR/WW/RW edges and the per-key anomalies are key-local. The "included" set
// (committed, or unknown and read by an included transaction, transitively
// across keys) is computed first, by rounds of local propagation and an
// MPI_Allreduce(BOR) of the bitmap until no rank adds a transaction; the
// projections then see it as plain committed/aborted statuses. Session-order
// edges are taken from rank 0's shard only (every shard has all of them).
//
// The acyclicity test runs on the sharded graph (dist_acyclic.h): each
// level graph's edges are routed to the rank owning their source transaction
// and peeled there in supersteps; when every level asked holds, nothing is
// gathered. When one fails, its witness is chosen on the whole graph: every
// edge and anomaly carries an order key that reproduces the position
// build_known_graph gives it on the whole history (phase, transaction or key,
// operation position, then the shard's own order); rank 0 gathers the edges
// (only while they fit --history-budget; past it a ResourceError, exit 3),
// merges them in that order and runs the same level graphs, acyclicity test,
// witness labelling and naming as check() — so verdicts, witnesses and
// anomalies are identical to one-process check() for every rank count.
//
// Blind writes: for SER and SI the general engine runs on the shards
// (dist_prune.h) and settles a history whose SER polygraph is satisfiable
// without gathering; otherwise (a violation, SSER) the unknown-order keys and
// their version chains are gathered with the edges (within the same budget)
// and rank 0 runs the general engine on the rebuilt whole-history graph
// (check_graph), for the one-process witness.
//
// Refused (the caller falls back to the normal path, with a note): list keys
// whose append order is unknown, and histories build_known_graph rejects
// (InputError: the normal path reports it with the right positions).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/history.h"
#include "solver/check.h"
#include "mpi/dist_prune.h"

namespace isocheck::dist {

struct KeyShardOptions {
  uint64_t history_budget = 0;  // bytes rank 0 may hold: history + gathered graph (0 = no limit)
  // Called (collectively) at the end of each stage: "shard", "acyclic", and
  // when a level fails "gather", "witness".
  std::function<void(const char*)> end_stage;
  // Called (collectively) after the shard and the acyclic stages: true when
  // a signal asks the job to stop (the same answer on every rank); the check
  // then returns `interrupted` (the gather and the general engine on rank 0
  // are not interrupted once started).
  std::function<bool()> stop;
  // Rank 0, per-rank reads: when `whole` is nullptr, called for the whole
  // history only if the gather needs it (a level fails or orders are unknown).
  std::function<const History*()> whole_on_demand;
};

struct KeyShardOutcome {
  bool refused = false;  // the same on every rank: use the normal path
  std::string why;       // why it was refused
  CheckResult r;         // rank 0: the result (as check(h, opt), stats apart)
  uint64_t edges = 0;        // dependency edges (rank 0)
  uint32_t supersteps = 0;   // of the distributed peels, all levels
  uint64_t cross_edges = 0;  // level-graph edges between ranks (largest level)
  bool gathered = false;     // rank 0 gathered the graph (a level failed)
  bool interrupted = false;  // stopped between stages by KeyShardOptions::stop
  GeneralOnShards general;   // unknown version orders: the general engine on the shards (dist_prune.h)
};

// Collective: every rank calls it with the whole history. Throws
// ResourceError on every rank when the gathered graph exceeds the budget.
KeyShardOutcome check_key_sharded(const History& h, const CheckOptions& opt, const KeyShardOptions& ko);

// The same from per-rank reads (HDF5 hyperslabs), without any rank holding
// the whole history but rank 0: `mine` holds a consecutive range of
// transactions (ranks in file order), the transaction columns are
// all-gathered (about 40 bytes a transaction), and every operation travels to
// the rank owning its key with MPI_Alltoallv. `whole` is the whole history on
// rank 0 (its final level graphs and the report need it), nullptr elsewhere
// (then KeyShardOptions::whole_on_demand). Refused for histories with list
// operations (then `mine` is untouched); otherwise `mine`'s operations are
// freed once they are packed for the exchange, so that a rank never holds
// its range, the records in flight and its shard at once (a caller that falls
// back after a refusal reads its range again).
KeyShardOutcome check_key_sharded_ranges(History& mine, const History* whole, const CheckOptions& opt,
                                         const KeyShardOptions& ko);

// The rank owning a key (the same hash as the partition stage's key shards).
int key_owner(Sym key, int ranks);

}  // namespace isocheck::dist

// Key shards inside one large component (docs/dist.md, "Key shards").
//
// Every rank holds owned data only: the records (session, status, times,
// operation count) of a consecutive range of transactions, and the
// operations of its keys (hash buckets, balanced on a sample's operations)
// with their transactions' status and times — taken from the whole history
// when every rank holds it, or
// exchanged slice by slice from per-rank reads (check_key_sharded_read,
// check_key_sharded_ranges). Each shard builds the per-key part of the
// dependency graph on a projection keeping only its transactions (global ids
// beside them): WR/WW/RW edges and the per-key anomalies are key-local.
// Session-order edges are built by the range owners. The "included" set is
// the committed one unless unknown statuses exist (then a bitmap is
// propagated across ranks until no rank adds a transaction).
//
// The serial witness replays every shard in the candidate time order (its
// transactions' times, which it holds) while the range owners check session
// order. The acyclicity test runs on the sharded graph (dist_acyclic.h: a
// proof from the file order first, the distributed peel when it does not decide);
// SSER's real-time pairs come from a distributed sort (realtime_pairs.h).
// When every level asked holds, nothing is gathered. When one fails, the peel
// leaves its core (every cycle); only the core's edges go to rank 0, each
// with an order key reproducing the position build_known_graph gives it on
// the whole history (phase, transaction or key, operation position, then the
// shard's own order), and rank 0 runs find_cycle and label_cycle on the
// core's level graph with the one-process row order: the one-process witness.
// The transactions a report names are fetched from their owners. Verdicts,
// witnesses and anomalies are identical to one-process check() for every
// rank count.
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
#include "mpi/range_names.h"

namespace isocheck::dist {

struct KeyShardOptions {
  uint64_t history_budget = 0;  // bytes rank 0 may gather: a core, or the graph for the general engine (0 = no limit)
  // Called (collectively) at the end of each stage: "shard", "acyclic", and
  // when a level fails "gather", "witness".
  std::function<void(const char*)> end_stage;
  // Called (collectively) after the shard and the acyclic stages: true when
  // a signal asks the job to stop (the same answer on every rank); the check
  // then returns `interrupted` (the gather and the general engine on rank 0
  // are not interrupted once started).
  std::function<bool()> stop;
  // Rank 0, per-rank reads: when `whole` is nullptr, called for the whole
  // history only if the general engine needs it (version orders unknown).
  std::function<const History*()> whole_on_demand;
  // Rank 0, per-rank reads: fills the symbol tables (keys, values) of the
  // small history a report gets (KeyShardOutcome::report_h).
  std::function<void(History&)> symbol_tables;
  // Per-rank reads: throws the InputError one process reading the file gives
  // for transaction b repeating the id of transaction a (whole-history
  // indices); called on the rank whose range holds b.
  std::function<void(int64_t id, uint64_t a, uint64_t b)> duplicate_id;
  // Per-rank reads of a file whose names were numbered across ranks
  // (mpi/range_names.h): each round's slice renumbered (collectively, every
  // rank with its slice or none) before anything uses its symbols.
  RangeNames* names = nullptr;
};

// Why check_key_sharded_read refuses slices with string keys or values (a
// reader numbering them per slice, as JSONL's does): the slices' symbols do
// not agree. The caller numbers the names across ranks
// (KeyShardOptions::names) or reads the history another way.
inline constexpr const char* kNamedSymbolsRefused =
    "string keys or values read in slices (each slice numbers its own names)";

struct KeyShardOutcome {
  bool refused = false;  // the same on every rank: use the normal path
  std::string why;       // why it was refused
  int named_tables = 0;  // kNamedSymbolsRefused: the tables slices had names in (keys 1, values 2)
  CheckResult r;         // rank 0: the result (as check(h, opt), stats apart)
  uint64_t edges = 0;        // dependency edges (rank 0)
  uint32_t supersteps = 0;   // of the distributed peels, all levels
  uint64_t cross_edges = 0;  // level-graph edges between ranks (largest level)
  bool gathered = false;     // rank 0 gathered the graph (a level failed)
  bool interrupted = false;  // stopped between stages by KeyShardOptions::stop
  uint64_t txns = 0, ops = 0;  // the history's size (every rank)
  uint64_t core_vertices = 0;  // the largest core gathered for a witness
  // Rank 0, when it did not hold the whole history and the result names
  // transactions: those transactions alone (fetched from their owners), and
  // the result renumbered to them, for the report (text and JSON equal the
  // one-process report).
  bool has_report = false;
  History report_h;
  CheckResult report_r;
  GeneralOnShards general;   // unknown version orders: the general engine on the shards (dist_prune.h)
};

// Collective: every rank calls it with the whole history. Throws
// ResourceError on every rank when the gathered graph exceeds the budget.
KeyShardOutcome check_key_sharded(const History& h, const CheckOptions& opt, const KeyShardOptions& ko);

// The same from per-rank ranges: `mine` holds a consecutive range of
// transactions (ranks in file order). No rank holds every transaction's
// records: each keeps its range's (session, status, times, operation count),
// and each operation travels with its transaction's status and times to the
// rank owning its key, slice by slice (MPI_Scatterv from the slice's owner).
// `whole` is the whole history on rank 0 when it has it, nullptr elsewhere
// (then KeyShardOptions::whole_on_demand, for the general engine). Refused
// for histories with list operations (then `mine` is untouched); otherwise
// `mine` is freed once exchanged (a caller that falls back after a refusal
// reads its range again).
KeyShardOutcome check_key_sharded_ranges(History& mine, const History* whole, const CheckOptions& opt,
                                         const KeyShardOptions& ko);

// The same reading the range itself, slice by slice: `count` transactions,
// read(lo, hi) gives transactions [lo, hi) of this rank's range (e.g.
// Hdf5RangeReader::range), so a rank never holds its whole range's
// operations next to its shard.
KeyShardOutcome check_key_sharded_read(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read,
                                       const CheckOptions& opt, const KeyShardOptions& ko);

}  // namespace isocheck::dist

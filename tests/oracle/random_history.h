// Seeded random small histories for property tests. A history comes from a
// simulated execution: transactions get real-time intervals per session and a
// commit point inside their interval; in commit order each one reads from a
// snapshot (its own commit point, or with some probability an older one, per
// transaction or per key) and applies its writes at its commit point. So many
// histories are serializable and many are not. A few get one "mutation" that
// plants a per-transaction anomaly or a random read-from.
//
// Same seed and options => same history (only std::mt19937_64 output is used).
#pragma once
#include <cstdint>
#include <string>

#include "core/history.h"

namespace isocheck {

enum class RandomMode : uint8_t {
  known_order,   // read-modify-write registers and list-append, unique values
  blind_writes,  // registers with blind writes, many writers per key, few keys
};

struct RandomHistoryOptions {
  RandomMode mode = RandomMode::known_order;
  int min_txns = 2, max_txns = 7;
  int max_sessions = 4;
  int max_keys = 3;          // blind_writes uses at most 2
  int max_actions = 4;       // actions per transaction (an RMW is one action)
  int times_percent = 60;    // histories with begin/end on every transaction
  int aborted_percent = 8;   // per transaction
  int unknown_percent = 8;   // per transaction; half of them really committed
  int stale_percent = 45;    // transactions reading an older snapshot
  int si_engine_percent = 40;  // histories from a simulated SI database: snapshots
                               // respect sessions, first committer wins (losers
                               // abort), stale_si_percent of txns read old snapshots
  int stale_si_percent = 70;
  int per_key_snapshot_percent = 30;  // of stale ones: each key its own snapshot
  int final_reader_percent = 40;      // known_order: a last txn reading every key
  int mutation_percent = 12;          // histories with one planted oddity
  int run_mutation_percent = 0;       // histories whose list read shows some writer's run of
                                      // appends cut, split, reordered or repeated (when one exists)
  int int_key_offset = 1;    // integer keys (a quarter of the histories) are k + this, k = 0, 1, ...
  int value_offset = 0;      // integer values (most histories) are v + this, v = 1, 2, ...
  // Histories (with times) in which one or two pairs of transactions swap
  // the [begin, end] they show, after the execution ran: times that need not
  // agree with the order the writes took effect in (--time-order tests).
  // File and session order stay the execution's.
  int time_swap_percent = 0;
  int untimed_txn_percent = 0;  // in histories with times: transactions shown without them
  // Histories (with times) shown with each transaction's begin just after the
  // last commit its snapshot saw and its end at its commit point (the times
  // an SI database's snapshot and commit would give), for the SI replay.
  int snapshot_times_percent = 0;
  bool serial = false;       // no staleness, no mutation, no aborted/unknown:
                             // always SER and SSER (oracle self-test)
};

History random_history(uint64_t seed, const RandomHistoryOptions& opt = {});

// JSONL text of a history (write_jsonl), for failure messages.
std::string history_jsonl(const History& h);

}  // namespace isocheck

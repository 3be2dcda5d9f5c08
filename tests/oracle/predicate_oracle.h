// The exhaustive oracle for histories with range scans, inserts and deletes,
// by definition (it does not use the expansion in core/predicates.h).
//
// State: every key is absent (initially, with no version name, or deleted,
// named by its tombstone) or present with a value. Executing a transaction on
// a state, operation by operation, on its own copy:
//  * `r k null` needs k in its initial state; `r k v` needs k's version to be
//    v (present, or the tombstone v);
//  * `w k v` makes k present with v; `insert k v` needs k absent and makes it
//    present with v; `delete k v` makes k absent with tombstone v;
//  * `scan lo hi rows` needs rows to be exactly the present (k, v) with
//    lo <= k <= hi, in key order; with a value predicate, exactly those
//    whose value v satisfies it (integer comparison, computed here).
// Its effect is its final copy of the keys it wrote, inserted or deleted.
// Included transactions: the committed ones (the generator below makes no
// unknown ones). SER: a total order extending session order in which every
// transaction executes on the state the ones before it left. SI: a commit
// order extending session order and per transaction a snapshot point, with
// session predecessors and earlier committers of a common written key before
// the snapshot (first committer wins), each executing on its snapshot.
// Integer keys only.
#pragma once
#include <cstdint>

#include "core/predicates.h"
#include "oracle/oracle.h"

namespace isocheck {

OracleVerdict predicate_oracle_check(const PredicateHistory& ph);

struct RandomPredicateOptions {
  int min_txns = 2, max_txns = 6;
  int max_sessions = 3;
  int keys = 4;                 // keys 1..keys
  int max_actions = 4;
  int delete_percent = 15;      // histories that may delete rows
  int stale_percent = 70;       // transactions reading an older snapshot
  int aborted_percent = 8;
  int mutation_percent = 15;    // histories with one scan's rows changed
  int where_percent = 0;        // scans with a value predicate (v < c, v between a and b, ...)
  int key_set_percent = 0;      // scans of a declared key set instead of a range
  int timed_percent = 0;        // histories with begin/end times (drawn after the rest: the same seed
                                // gives the same operations at any value)
};

// A history from a simulated execution with snapshots (many serializable,
// many not), or a mutated one.
PredicateHistory random_predicate_history(uint64_t seed, const RandomPredicateOptions& opt = {});

// JSONL text of a predicate history as stated (for failure messages).
std::string predicate_history_text(const PredicateHistory& ph);

}  // namespace isocheck

// The snapshot-isolation replay witness: before any graph is built for SI,
// replay the committed transactions' begin and commit events in time order
// against one table of committed key states. At its begin a transaction takes
// its snapshot and every read it makes of a key it has not written itself is
// answered from that snapshot; at its commit its last write to each key is
// installed, and it is refused when another transaction committed a write to
// one of its keys after its snapshot (first committer wins). A session's
// transaction must begin after the previous one of its session committed
// (strong session SI). A clean replay is an explicit SI execution — a commit
// order, a snapshot point per transaction, no concurrent writers — so it
// proves SI, and every level SI implies, without a dependency graph. A failed
// replay concludes nothing: the graph engines decide.
//
// When the time replays fail (a database's snapshot and commit need not fall
// at the recorded begin and end; a serial execution recorded with overlapping
// intervals reads what committed after its begin), the order replays keep
// only an order of the commits (begin-time, then end-time order) and give
// each transaction the latest snapshot point its reads allow: every read must
// see the version current at that point — one of the key's last two versions
// before the transaction's commit (older ones fail the replay), no earlier
// than the previous commit of its session — and no other transaction may
// have committed a write to one of its keys after it. The latest point is
// the best one for the write check and does not concern other transactions,
// so for that commit order the replay fails only where no SI execution
// exists, or where a read saw an older version.
//
// Registers only (like the serial witness: lists and null writes need the
// graph), every committed transaction timed, begin <= end.
#pragma once
#include <cstdint>
#include <string>

#include "core/history.h"
#include "solver/serial_witness.h"

namespace isocheck {

// The replay that succeeded. Time replays: where a begin and a commit fall
// at the same time, the commit first (the snapshot taken at time t sees what
// committed at t) or the begin first. Order replays (no snapshot at the
// recorded begin): the commits in begin-time or end-time order, each
// transaction's snapshot the latest commit point its reads allow.
enum class SiTies : uint8_t { none = 0, commits_first, begins_first, begin_order, end_order };
const char* to_string(SiTies t);  // "commits first on ties", ...

struct SiReplay {
  SiTies order = SiTies::none;  // none: no clean replay
  uint64_t committed = 0;       // transactions replayed
  std::string why_not;          // when not found: the first failed check of each candidate
  bool found() const { return order != SiTies::none; }
};

// time_order/clock_skew: the checker's --time-order assumption (writers whose
// intervals do not overlap wrote in time order), which a time-order replay
// respects whenever clock_skew >= 0; with a negative skew nothing is tried.
// order_replays: try the order replays when the time replays fail.
// shared: the plan, time orders and duplicate-write test to reuse (and to
// fill) across replays of h (serial_witness.h); none: its own.
SiReplay find_si_replay(const History& h, bool time_order = false, int64_t clock_skew = 0, bool order_replays = true,
                        ReplayInputs* shared = nullptr);

}  // namespace isocheck

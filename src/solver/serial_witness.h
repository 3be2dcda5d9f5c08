// The serial-witness fast path: before any graph is built, replay the
// committed transactions one after another in a candidate serial order and
// check that every read returns the latest write to its key. If it does, that
// order is a serialization of the history, which proves SER and SI (and SSER
// when the order is the begin- or end-time order, either of which respects
// real time for any clock skew δ ≥ 0). If any check fails the answer is "no witness" and the
// graph engines decide; nothing is concluded from a failure.
//
// Why it is cheap: one pass over the operations with one small hash table
// (key → latest value), plus a duplicate-write test over fingerprints of
// (key, value) that stays in cache (partitioned by hash).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"

namespace isocheck {


struct SerialWitness {
  WitnessOrder order = WitnessOrder::none;  // none: not found
  bool respects_realtime = false;           // the order settles SSER too
  uint64_t committed = 0;                   // transactions replayed
  std::string why_not;                      // when not found: the first failed check
  // When not found: the read each candidate failed on (one per candidate
  // that failed on a read; a session-order failure names none). Where to
  // start looking for a violation (solver/local_check.h).
  std::vector<OpIdx> failed_reads;
  bool found() const { return order != WitnessOrder::none; }
};

// need_realtime: the caller wants SSER decided, so only time orders (every
// committed transaction has begin/end) are tried.
class ReplayInputs;
// shared: the inputs to reuse (and to fill) across replays of h; none: its own.
SerialWitness find_serial_witness(const History& h, bool need_realtime, ReplayInputs* shared = nullptr);

// The pieces, for callers that split a history by key (mpi/key_shards):
// reads only ever see writes to their own key, so a candidate replays
// cleanly on the whole history iff it does on every key shard, and a repeated
// (key, value) lies inside one shard. Every shard keeps all transactions, so
// the candidates are the same on each.
struct WitnessPlan {
  std::string why_not;                    // not empty: no witness possible (lists, null writes, times)
  std::vector<WitnessOrder> candidates;   // to try in this order
  uint64_t writes = 0, committed = 0;
  Sym max_key = 0;
  // Replays keep per-key state in an array for keys below direct_keys() and
  // in a hash map, sized for hashed_writes(), for the others. Keys below
  // direct_bound go to the array unless most writes are to keys above it
  // (a few huge keys, a generated plant's, leave the others in the array).
  uint64_t direct_bound = 0, big_key_writes = 0;
  Sym max_small_key = 0;  // the largest key below direct_bound
  bool mostly_small() const { return big_key_writes * 2 <= writes; }
  size_t direct_keys() const { return mostly_small() ? static_cast<size_t>(max_small_key) + 1 : 0; }
  size_t hashed_writes() const { return mostly_small() ? big_key_writes : writes; }
};
WitnessPlan plan_serial_witness(const History& h, bool need_realtime);
// "" = clean; otherwise the failed check, and the read it failed on in *failed_read (if given and it was a read).
std::string replay_candidate(const History& h, const WitnessPlan& p, WitnessOrder c, OpIdx* failed_read = nullptr);
bool writes_unique(const History& h, const WitnessPlan& p);
// What the serial witness and the SI replay of one history share, each part
// computed when first asked for and then kept: the plan, the begin- and
// end-time orders and the duplicate-write test. check() runs both replays on
// every history that is not serializable; computing these twice cost about a
// tenth of `--level si` on 10^7 transactions.
class ReplayInputs {
 public:
  explicit ReplayInputs(const History& h) : h_(h) {}
  const History& history() const { return h_; }
  const WitnessPlan& plan(bool need_realtime);
  // order_by_time(h, h.txn_begin), order_by_time(h, h.txn_end): empty when
  // file order is that order.
  const std::vector<TxnIdx>& by_begin();
  const std::vector<TxnIdx>& by_end();
  bool writes_unique();

 private:
  const History& h_;
  std::optional<WitnessPlan> plan_, plan_realtime_;
  std::optional<std::vector<TxnIdx>> by_begin_, by_end_;
  std::optional<bool> unique_;
};

// The first of `candidates` that replay(c) ("" = clean, else the failed
// check) replays cleanly, when no (key, value) is written twice (only then
// does a read name one write); else none. why_not: the failed checks, "; "
// between them, or why a clean replay does not count; "" when one is found.
template <class Candidate, class Replay>
std::optional<Candidate> first_clean_replay(ReplayInputs& in, const std::vector<Candidate>& candidates, Replay replay,
                                            std::string& why_not) {
  for (Candidate c : candidates) {
    const std::string failed = replay(c);
    if (!failed.empty()) {
      why_not += (why_not.empty() ? "" : "; ") + failed;
      continue;
    }
    if (!in.writes_unique()) {
      why_not = "some (key, value) is written twice (or two fingerprints collide)";
      return std::nullopt;
    }
    why_not.clear();
    return c;
  }
  return std::nullopt;
}
// Committed transactions ordered by `time` (h.txn_begin or h.txn_end), ties by
// file position; empty when file order already is that order.
std::vector<TxnIdx> order_by_time(const History& h, const std::vector<int64_t>& time);

}  // namespace isocheck

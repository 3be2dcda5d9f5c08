// The report's replay lines on many ranks (docs/dist.md, "Replay lines").
// One process prints "serial witness: …" when check()'s serial-witness replay
// of the whole history succeeds, else "SI replay: …" when the SI replay
// settles SI. The ranks never replay the whole history; the pieces do, and
// what a replay of the whole history would give is put together from them:
// - a piece that is the whole history (SSER's piece 0; one block) replays it
//   as check() does (included transactions only, so the facts below decide
//   what the transactions it leaves out change);
// - blocks: a replay's reads only see writes to their own key and every key
//   lies in one block, so a candidate order replays on the whole history iff
//   it replays on every block and keeps every session's order across the
//   blocks (the first pass's session check below). So each block reports,
//   per candidate the whole history would try, whether it replays, and the
//   merge takes the first candidate every block replays.
#pragma once
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"
#include "mpi/messages.h"
#include "solver/check.h"

namespace isocheck::dist {

// What only the whole history shows, the same on every rank.
struct ReplayFacts {
  // No replay can succeed: list operations or a null write in some
  // transaction (any status), or an included transaction of unknown status
  // (one process replays only committed ones, so a committed read of an
  // unknown write fails there).
  bool none = false;
  bool untimed = false;           // a committed transaction without begin/end times
  bool ends_before_begin = false;  // a committed transaction with end < begin
  // Per session, consecutive committed transactions (pred, t) in file order
  // with begin(pred) > begin(t), end(pred) > end(t), end(pred) > begin(t),
  // end(pred) >= begin(t): the session checks of the begin- and end-order
  // witnesses and of the SI time replays (commits first / begins first).
  bool bad_begin = false, bad_end = false, bad_commits_first = false, bad_begins_first = false;
  // The writes (key, value) of transactions that are not committed (pieces
  // hold included transactions only; one process's duplicate-write test sees
  // every write), sorted; `outside_repeats`: one of them is written twice.
  std::vector<std::pair<Sym, Sym>> outside;
  bool outside_repeats = false;
};

// The first pass's part: fed every chunk of a rank's range in file order,
// then finish() (collective) agrees the facts over the ranks.
class ReplayScan {
 public:
  void add(const History& chunk);
  // `included_unknown`: this rank's range has an included transaction of
  // unknown status.
  ReplayFacts finish(bool included_unknown);

 private:
  struct Span {
    int64_t first_begin = 0, first_end = 0, last_begin = 0, last_end = 0;
    bool any = false;
  };
  std::unordered_map<int64_t, Span> sessions_;  // by the user's session name
  std::vector<int64_t> order_;                  // sessions by first appearance
  bool none_ = false, untimed_ = false, ends_before_ = false;
  bool bad_[4] = {false, false, false, false};
  std::vector<std::pair<Sym, Sym>> outside_;
};

// Replays of the whole history `h` (every rank holds it): the facts above.
ReplayFacts replay_facts(const History& h, const std::vector<uint8_t>& included);

// Bits of PieceResult::replays.
enum : uint8_t {
  kReplayKnown = 1,          // the piece filled the bits below
  kWitnessBegin = 2, kWitnessEnd = 4, kWitnessFile = 8,  // serial-witness candidates that replay
  kSiCommitsFirst = 16, kSiBeginsFirst = 32,             // SI time replays that replay
};

// The SI time replays (SiTies commits_first, begins_first) that replay on
// `local`, as bits: reads see only their own key's writes and each key's
// writes are all in `local` (a block, a key shard), so a time replay holds on
// the whole history iff on every part and every session's transactions begin
// after the previous one commits (ReplayFacts). (The order replays do not
// split so: a transaction's snapshot point is bounded by its reads of every
// key, and by the ones before it in its session.)
uint8_t si_time_replays(const History& local, const CheckOptions& opt);
// The same on `h`, whose end times it moves and puts back (no copy).
uint8_t si_time_replays(History& h, const CheckOptions& opt);

// The SI order replays on key shards (solver/si_replay.h: the commits in
// begin- or end-time order, each transaction's snapshot the latest commit
// point its reads allow). A commit point is a position (time, global index)
// in that order; INT64_MIN: the initial state. Per committed transaction of a
// shard `local` (`gtxn`: global indices), from its reads of the shard's keys:
// the snapshot must be at or after `lo` and before `hi`, and `w` is the
// latest earlier writer of a key it writes (which must be before the
// snapshot). Returns false when a read sees neither of its key's last two
// versions (no snapshot at all). A transaction's bounds from every shard, its
// session predecessor (lo) and itself (hi) decide it: lo < hi and w < hi.
// (40 bytes: the largest records of the replay, two or so per transaction.)
struct OrderBounds {
  int64_t lo_t, hi_t, w_t;
  uint32_t txn, lo_g, hi_g, w_g;  // global transaction indices (key shards: below 2^32)
};
static_assert(sizeof(OrderBounds) == 40);
bool si_order_bounds(const History& local, const std::vector<TxnIdx>& gtxn, bool by_end, std::vector<OrderBounds>& out);

// Fills out.replays (and, for a piece that is the whole history, its
// whole_witness / whole_si) from check()'s result `r` on the piece's history
// `local` checked with `piece_levels`; `opt`: the run's options (every level).
void piece_replays(const History& local, bool whole, const std::vector<Level>& piece_levels, const CheckOptions& opt,
                   const ReplayFacts& facts, const CheckResult& r, PieceResult& out);

// Rank 0: r.stats.witness / si_replay / si_replay_order as check() on the
// whole history sets them, from the pieces below `cutoff`. `whole_piece`: the
// piece that is the whole history (-1: none, blocks only).
void merge_replays(const std::map<int32_t, PieceResult>& done, uint32_t cutoff, int32_t whole_piece,
                   const CheckOptions& opt, const ReplayFacts& facts, CheckResult& r);

}  // namespace isocheck::dist

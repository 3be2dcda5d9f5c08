// `isocheck audit`: a long log checked in rounds of N transactions with
// bounded memory. Each round checks (summary + retained + new transactions)
// with check(), then forgets what no future transaction can still depend on.
// Forgetting rules, their proofs and limits: docs/audit.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "solver/check.h"

namespace isocheck {

// Which forgetting rule a log is audited under.
//   fence: fence transactions (docs/audit.md "Fences") order every transaction
//          two fences back before every later one; valid for ser, si, sser.
//   time:  begin/end on every transaction and only sser requested: a
//          transaction that ended before every later one begins precedes them.
//   none:  the log fits neither rule: nothing is forgotten (memory grows; the
//          whole log is checked once at the end, with a warning).
enum class ForgetRule : uint8_t { none = 0, fence = 1, time = 2 };
const char* to_string(ForgetRule r);

struct AuditOptions {
  CheckOptions check;              // levels, clock skew, engine options
  uint64_t round_txns = 100000;    // transactions read per round
  std::string rule = "auto";       // auto, fence, time, none
  std::string format = "auto";     // auto (by extension, then content), jsonl, hdf5
  std::string fence_key = "__fence";
  std::string checkpoint_dir;      // "" = no checkpoints
  bool resume = false;             // --requeue: resume from a matching checkpoint
  // Tests: stop (as if SIGTERM arrived) after this many rounds of this run.
  uint64_t stop_after_rounds = 0;
  // Set by a signal handler: finish the round, write its checkpoint, stop.
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> log;  // progress lines ("" = none)
  std::function<void(const char*)> stage;       // names the step now running (resource-limit messages)
  // Duplicate writes across rounds: a fingerprint of every (key, value)
  // written (docs/audit.md, "Duplicate writes"); off = not detected when the
  // first writer was already forgotten (saves ~16 bytes per write).
  bool duplicate_check = true;
  uint64_t fingerprint_mask = ~0ULL;  // tests: fewer bits force collisions
  // Threads for the audit's own split stages (pass 1's pieces, forget's
  // final writes and per-key frontier test); 0 = the hardware threads. The
  // read-ahead thread (next round and its fingerprints) runs whatever the
  // number. Results do not depend on it (docs/audit.md, "Threads").
  unsigned threads = 0;
  // Checks are deferred (docs/audit.md, "Deferred checks") only once this
  // many transactions are kept: below it a round's check is cheap anyway.
  // Tests lower it to exercise deferral on small logs.
  uint64_t defer_min_txns = 1 << 16;
  // Tests: forget indexes the old summary's pieces like every transaction
  // (the general pass) instead of taking their writes from their ops.
  bool index_summary = false;
  // Logs with blind writes: settle ambiguous frontiers (concurrent last
  // blind writes of a key), and tell which frontiers later rounds still read,
  // by what later rounds read (docs/audit.md, "Ambiguous frontiers", "Kept
  // writers and the frontier"): an index of every read, 12 bytes a read
  // (key, value) pair. Off (tests): every frontier counts as read, ambiguous
  // writers are kept, and what they reach.
  bool later_reads = true;
};

struct RoundStat {
  uint64_t round = 0, first_txn = 0, txns = 0;  // file rows [first_txn, first_txn + txns)
  uint64_t checked = 0;     // transactions in this round's check (summary + retained + new)
  uint64_t kept = 0;        // transactions carried to the next round (summary included)
  uint64_t forgotten = 0;   // forgotten at the end of this round
  uint64_t pending = 0;     // transactions with a read whose writer is not (yet) present
  uint64_t frontier = 0;    // (key, version) pairs in the summary
  uint64_t peak_rss = 0;    // bytes, peak during the round
  double seconds = 0;
  uint32_t run = 0;         // which run (0 = first, 1 = first resumption, ...)
  bool deferred = false;    // not checked, nothing forgotten: checks deferred (docs/audit.md)
};

struct AuditLevel {
  Level level;
  std::string verdict = "holds";  // holds, violated, undecided
  uint64_t round = 0;             // round that decided a violation / undecided
  std::string anomaly;            // G-single, G1a, unresolved read, ...
  std::vector<std::string> explanation;  // witness edges / anomaly lines, in words
};

struct AuditResult {
  std::string log;
  uint64_t txns = 0, rounds = 0;
  uint32_t resumptions = 0;
  ForgetRule rule = ForgetRule::none;
  std::string rule_reason;         // why this rule (or why no rule)
  std::vector<std::string> warnings;
  std::vector<AuditLevel> levels;
  uint64_t anomalies = 0;          // anomalies no level allows (incl. unresolved reads at the end)
  uint64_t max_kept = 0, final_kept = 0, forgotten = 0, max_checked = 0;
  uint64_t peak_rss = 0;
  // Duplicate writes across rounds (docs/audit.md): whether checked, how many
  // fingerprints are held and their bytes, re-reads of the log to confirm
  // fingerprint matches.
  bool duplicate_check = true;
  uint64_t fingerprints = 0, fingerprint_bytes = 0, duplicate_rereads = 0;
  // The later-reads index (docs/audit.md, "Ambiguous frontiers"): whether it
  // was built, its (key, value) pairs and bytes; ambiguous frontiers it
  // settled, and the checks that found a later read impossible (writers kept).
  bool later_reads = false;
  uint64_t later_read_pairs = 0, later_read_bytes = 0, settled_frontiers = 0, unsettled_checks = 0;
  double seconds = 0;              // over all runs
  bool complete = false;           // false: stopped (signal) with a checkpoint written
  std::vector<RoundStat> round_stats;
  // 0 every level holds, 1 a violation, 3 undecided.
  int exit_code() const;
};

// Throws InputError / UsageError like verify.
AuditResult run_audit(const std::string& log, const AuditOptions& opt);

void write_audit_text(std::ostream& out, const AuditResult& r);
void write_audit_json(std::ostream& out, const AuditResult& r);

// Tests and `audit --write-fenced`: a copy of `h` in which every session
// starts with a fence and issues one after every `every` of its
// transactions, fences numbered in file order (valid when the file order is
// a serialization order, as for `isocheck generate`).
History add_fences(const History& h, uint64_t every, const std::string& fence_key = "__fence");

// `audit --write-fenced`: the same as add_fences on the whole log, streamed
// (src/audit/fences.cpp): the log is read `chunk_txns` transactions at a time
// (twice: first for the largest id, which fence ids follow) and written
// through a sink, so a day log of 10^8 transactions never sits in memory.
// Returns the transactions written, fences included, and the fences.
struct FencedCounts {
  uint64_t txns = 0, fences = 0;
};
FencedCounts write_fenced(const std::string& log, const std::string& out, uint64_t every,
                          const std::string& fence_key = "__fence", uint64_t chunk_txns = 1000000);

}  // namespace isocheck

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
  // Profiling (hidden --debug-timing): per-round stage times, forget's
  // phases, pass 1 and the later-reads index on stderr.
  bool debug_timing = false;
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
  // Soundness state on disk (docs/audit.md, "Soundness state on disk"): the
  // duplicate-write fingerprints and the later-reads index go to sorted
  // files in scratch_dir ("" = the checkpoint folder, else a temporary one)
  // when they would take more than spill_above bytes in memory (0: always).
  // 128 MiB: a log of a few million writes keeps them in memory (faster);
  // at 10^7 read-modify-write transactions (about 220 MB of fingerprints)
  // they spill, which costs about a quarter more CPU there (docs/audit.md,
  // "Soundness state on disk"; it was 256 MiB, when spilling JSONL cost more).
  std::string scratch_dir;
  uint64_t spill_above = uint64_t{128} << 20;
  // Tests: records sorted in memory per run, runs merged at once, records
  // read at once per run.
  size_t spill_run_records = size_t{1} << 22, spill_fan_in = 64, spill_block_records = size_t{1} << 14;
};

// The audit's statistics are declared once, in the tables below, and every
// use expands them: the structs' members, the checkpoint's serializer
// (src/audit/checkpoint.cpp, table order) and the JSON report
// (src/audit/report.cpp, table order, the row's key). A row is
//   F(type, member, "json key", default)  a member, or
//   D("json key", expression of r)        a value the JSON report derives
//                                         (no member, not checkpointed).
// Adding, removing or reordering a member row changes the checkpoint's
// bytes: bump AuditState::kVersion (src/audit/state.h).

// One round (file rows [first_txn, first_txn + txns)).
#define ISOCHECK_ROUND_STAT_FIELDS(F)                                                                \
  F(uint64_t, round, "round", 0)                                                                     \
  F(uint64_t, first_txn, "first_txn", 0)                                                             \
  F(uint64_t, txns, "txns", 0)                                                                       \
  F(uint64_t, checked, "checked", 0)     /* transactions in the check (summary + retained + new) */  \
  F(uint64_t, kept, "kept", 0)           /* carried to the next round (summary included) */          \
  F(uint64_t, forgotten, "forgotten", 0) /* forgotten at the end of this round */                    \
  F(uint64_t, pending, "pending", 0)     /* with a read whose writer is not (yet) present */         \
  F(uint64_t, frontier, "frontier", 0)   /* (key, version) pairs in the summary */                   \
  F(uint64_t, peak_rss, "peak_rss", 0)   /* bytes, peak during the round */                          \
  F(double, seconds, "seconds", 0)                                                                   \
  F(uint32_t, run, "run", 0)             /* which run (0 = first, 1 = first resumption, ...) */      \
  F(bool, deferred, "deferred", false)   /* not checked, nothing forgotten (docs/audit.md) */

#define ISOCHECK_STAT_MEMBER(type, member, key, init) type member = init;
#define ISOCHECK_STAT_NO_MEMBER(key, expr)

struct RoundStat {
  ISOCHECK_ROUND_STAT_FIELDS(ISOCHECK_STAT_MEMBER)
};

struct AuditLevel {
  Level level;
  std::string verdict = "holds";  // holds, violated, undecided
  uint64_t round = 0;             // round that decided a violation / undecided
  std::string anomaly;            // G-single, G1a, unresolved read, ...
  std::vector<std::string> explanation;  // witness edges / anomaly lines, in words
};

// The whole audit. Duplicate writes across rounds (docs/audit.md): whether
// checked, how many fingerprints are held and their bytes, re-reads of the
// log to confirm fingerprint matches. The later-reads index (docs/audit.md,
// "Ambiguous frontiers"): whether it was built, its (key, value) pairs and
// bytes; ambiguous frontiers it settled, and the checks that found a later
// read impossible (writers kept).
#define ISOCHECK_AUDIT_RESULT_FIELDS(F, D)                                                                  \
  F(std::string, log, "log", {})                                                                            \
  F(uint64_t, txns, "transactions", 0)                                                                      \
  F(uint64_t, rounds, "rounds", 0)                                                                          \
  F(uint32_t, resumptions, "resumptions", 0)                                                                \
  F(bool, complete, "complete", false)     /* false: stopped (signal) with a checkpoint written */          \
  F(ForgetRule, rule, "rule", ForgetRule::none)                                                             \
  F(std::string, rule_reason, "rule_reason", {}) /* why this rule (or why no rule) */                       \
  F(uint64_t, max_kept, "max_kept", 0)                                                                      \
  F(uint64_t, final_kept, "final_kept", 0)                                                                  \
  F(uint64_t, max_checked, "max_checked", 0)                                                                \
  F(uint64_t, forgotten, "forgotten", 0)                                                                    \
  F(uint64_t, anomalies, "anomalies", 0)   /* no level allows (incl. unresolved reads at the end) */        \
  F(double, seconds, "seconds", 0)         /* over all runs */                                              \
  D("txn_per_s", (r.seconds > 0 ? r.txns / r.seconds : 0.0))                                                \
  F(uint64_t, peak_rss, "peak_rss", 0)                                                                      \
  F(bool, duplicate_check, "duplicate_check", true)                                                         \
  F(uint64_t, fingerprints, "fingerprints", 0)                                                              \
  F(uint64_t, fingerprint_bytes, "fingerprint_bytes", 0)                                                    \
  F(uint64_t, duplicate_rereads, "duplicate_rereads", 0)                                                    \
  F(bool, later_reads, "later_reads", false)                                                                \
  F(uint64_t, later_read_pairs, "later_read_pairs", 0)                                                      \
  F(uint64_t, later_read_bytes, "later_read_bytes", 0)                                                      \
  F(uint64_t, settled_frontiers, "settled_frontiers", 0)                                                    \
  F(uint64_t, unsettled_checks, "unsettled_checks", 0)                                                      \
  F(bool, spilled, "spilled", false)      /* soundness state on disk (docs/audit.md) */                     \
  F(uint64_t, scratch_bytes, "scratch_bytes", 0)  /* its files' bytes */                                    \
  F(uint64_t, spill_memory_records, "spill_memory_records", 0) /* most records in memory building them */  \
  D("exit_code", r.exit_code())                                                                             \
  F(std::vector<std::string>, warnings, "warnings", {})                                                     \
  F(std::vector<AuditLevel>, levels, "levels", {})                                                          \
  F(std::vector<RoundStat>, round_stats, "round_stats", {})

struct AuditResult {
  ISOCHECK_AUDIT_RESULT_FIELDS(ISOCHECK_STAT_MEMBER, ISOCHECK_STAT_NO_MEMBER)
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

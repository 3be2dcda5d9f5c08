// The audit's state between rounds: what a checkpoint holds.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "audit/reader.h"
#include "core/history.h"

namespace isocheck {

inline constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
// The summary transaction of forgotten ones: reserved id and session.
inline constexpr int64_t kSummaryId = std::numeric_limits<int64_t>::min() + 1;
inline constexpr int64_t kSummarySession = std::numeric_limits<int64_t>::min() + 1;
// The summary's real-time marker (fence rule, sser; docs/audit.md): an empty
// transaction before the pieces in their session, carry txn 0 when present.
inline constexpr int64_t kSummaryMarkerId = std::numeric_limits<int64_t>::min();

struct AuditState {
  // 2: duplicate-check fields; 3: summary_rest; 4: defer_until; 5: later-reads counts;
  // 6: round_min_write_end; 7: AuditResult's fields in its statistics table's
  // order (audit/audit.h); 8: soundness state on disk; 9: the carry's
  // predicate marks (History::scan_ops, scan_absent_ops, delete_ops)
  static constexpr uint32_t kVersion = 9;
  std::string fingerprint;   // input file + options
  // Pass 1 (per round): least "previous fence" value and least begin time of
  // the round's transactions; suffix minima tell what future rounds can see.
  std::vector<int64_t> round_min_pf, round_min_begin;
  // --time-order under the fence rule (else empty): per round, the least end
  // of a transaction with times that writes (not aborted).
  std::vector<int64_t> round_min_write_end;
  bool fence_ok = false, times_ok = false;
  std::string fence_problem, times_problem;
  uint64_t total_txns = 0;
  ForgetRule rule = ForgetRule::none;

  LogPosition pos;           // where the next round starts
  uint64_t next_round = 0;
  History carry;             // summary (first, when has_summary) + retained transactions
  std::vector<int64_t> pf, nf;   // per carry txn: previous / next fence value (fence rule)
  std::vector<uint8_t> pending;  // per carry txn: a read without a present writer
  // per carry op: a read of a forgotten version, checked while its writer was
  // present, by the transaction that overwrote that version (left out later)
  std::vector<uint8_t> checked_op;
  bool has_summary = false;
  uint32_t summary_txns = 0;     // the summary's pieces: carry txns [0, summary_txns)
  // Summary (key, version) pairs kept outside the carry while no carry
  // transaction touches the key (a key's entry here is stale when the key is
  // in the pieces; the pieces win). Symbols of carry's tables.
  std::vector<std::pair<Sym, Sym>> summary_rest;
  std::vector<std::pair<int64_t, int64_t>> last_fence;  // session name -> last fence value
  // Checks and forgetting deferred while the carry is below this size (0:
  // every round); set when a round forgot little (docs/audit.md, "Deferred checks").
  uint64_t defer_until = 0;
  // Soundness state on disk (docs/audit.md, "Soundness state on disk"): the
  // scratch files' token (their names), the later-reads file's entries, the
  // duplicate-write hits (writes whose fingerprint an earlier round wrote)
  // and, per round, the log's writes before it (rounds + 1 entries).
  bool spilled = false, later_reads_on_file = false;
  std::string scratch_token;
  uint64_t later_reads_entries = 0, dup_hits = 0;
  std::vector<uint64_t> round_write_base;
  AuditResult result;
};

// Operation o of `from` was just copied as the last operation of `to`: its
// predicate mark (a scan's read, a delete's write: History::predicate_mark)
// goes with it, so that reports word a carried operation as the log stated
// it. Copies must run in operation order (the mark lists stay sorted).
inline void copy_predicate_mark(History& to, const History& from, OpIdx o) {
  if (from.scan_ops.empty() && from.delete_ops.empty()) return;
  if (const uint8_t m = from.predicate_mark(o)) to.mark_predicate(static_cast<OpIdx>(to.op_count() - 1), m);
}

// The integer a symbol of `t` stands for (false: not an integer).
bool sym_int(const SymbolTable& t, Sym s, int64_t& out);

void save_checkpoint(const AuditState& s, const std::string& path);
// False when the file is absent; throws DamagedCheckpoint (exit 2) when it is
// damaged, truncated or not an audit checkpoint of this version.
bool load_checkpoint(AuditState& s, const std::string& path);

}  // namespace isocheck

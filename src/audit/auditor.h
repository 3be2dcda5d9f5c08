// The audit's engine, shared by its files (not part of the audit's interface):
// the Auditor and what its steps share. Which file holds which step:
//   run.cpp         the round loop, resumption, run_audit
//   rule.cpp        pass 1, the forgetting rule, the later-reads index's build
//   intake.cpp      a round into the carry (symbols, fences, the summary's pieces)
//   round_check.cpp the round's check, its verdicts, the final check
//   duplicates.cpp  duplicate writes across rounds
//   forget*.cpp     forgetting (forget.h: its phases)
// Why forgetting is safe: docs/audit.md ("Why the verdict equals checking the
// whole log").
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "audit/audit.h"
#include "audit/key_versions.h"
#include "audit/later_reads.h"
#include "audit/parallel.h"
#include "audit/reader.h"
#include "audit/spill.h"
#include "audit/state.h"
#include "audit/written.h"
#include "core/flat_hash.h"
#include "core/unique_ids.h"

namespace isocheck::audit_detail {

// ------------------------------------------------------- exact (key, value) map
class PairMap {
 public:
  // n: at most this many pairs will be stored.
  explicit PairMap(size_t n) : slots_(table_capacity(n)) {}
  static constexpr uint32_t kEmpty = ~0u;
  // Returns the slot's payload (kEmpty when new; caller assigns).
  uint32_t& at(Sym k, Sym v) {
    size_t m = slots_.size() - 1, i = hash(k, v) & m;
    while (slots_[i].p != kEmpty) {
      if (slots_[i].k == k && slots_[i].v == v) return slots_[i].p;
      i = (i + 1) & m;
    }
    slots_[i].k = k;
    slots_[i].v = v;
    return slots_[i].p;
  }
  // The table is far larger than the cache: callers prefetch a few pairs ahead.
  void prefetch(Sym k, Sym v) const { __builtin_prefetch(&slots_[hash(k, v) & (slots_.size() - 1)]); }
  uint32_t find(Sym k, Sym v) const {
    size_t m = slots_.size() - 1, i = hash(k, v) & m;
    while (slots_[i].p != kEmpty) {
      if (slots_[i].k == k && slots_[i].v == v) return slots_[i].p;
      i = (i + 1) & m;
    }
    return kEmpty;
  }

 private:
  static uint64_t hash(Sym k, Sym v) { return mix64(k * 0x9E3779B97F4A7C15ULL ^ mix64(v)); }
  // Key, value and payload in one slot: a probe touches one cache line, not three.
  struct Slot {
    Sym k = 0, v = 0;
    uint32_t p = kEmpty;
  };
  std::vector<Slot> slots_;
};

// Writes and appends of h: how large a (key, value) -> writer map must be.
inline size_t count_writes(const History& h) {
  size_t w = 0;
  for (OpKind k : h.op_kind) w += k == OpKind::write || k == OpKind::append;
  return w;
}

// ------------------------------------------------------------- the engine
class ForgetPass;

class Auditor {
 public:
  Auditor(const std::string& path, const AuditOptions& opt) : path_(path), opt_(opt), reader_(path, opt.format) {}
  AuditResult run();

 private:
  void resume();
  bool start();
  friend class ForgetPass;  // forget's phases (forget.h)
  void stage(const char* name) {
    if (opt_.stage) opt_.stage(name);
  }

  void say(const std::string& s) {
    if (opt_.log) opt_.log(s);
  }
  std::string options_fingerprint() const;
  void prescan();
  // Whether the log's transaction ids increase through it, as pass 1 saw
  // them (then none repeats); otherwise refuse_repeated_ids() reads them
  // again (unique_ids.cpp).
  IdsInOrder ids_in_order_;
  void refuse_repeated_ids();
  void choose_rule();
  // verify refuses a log that uses a key both as a list and as a register, at
  // the first such operation (graph/known_graph.h); a round may hold only one
  // of the two uses, or forget the other. Reads the log once more when pass 1
  // met both kinds of operation (list_keys.cpp). Throws InputError.
  void refuse_list_key_misuse();
  // The later-reads index (src/audit/later_reads.h) from file row `from`
  // on, when the time rule applies and the log's first transactions have a
  // blind write.
  void build_later_reads(uint64_t from);
  bool starts_with_blind_writes();
  void set_later_reads_built() {
    later_reads_.set_built();
    s_.result.later_reads = true;
    s_.result.later_read_pairs = later_reads_.entries();
    s_.result.later_read_bytes = later_reads_.bytes();
  }
  // The fingerprint later_reads_ holds for a read of (key k, value v) of the
  // carry: by symbol for HDF5 (the carry's symbols are the file's), by
  // canonical name for JSONL (each chunk has its own tables).
  uint64_t later_fp(const History& c, Sym k, Sym v) const {
    return reader_.hdf5() ? symbol_pair_fp(k, v) : write_fingerprint(c.keys, c.values, k, v);
  }
  // (HDF5: the index is built and asked with this one function)
  static uint64_t symbol_pair_fp(Sym k, Sym v) { return mix64(k * 0x9E3779B97F4A7C15ULL + v); }
  // Appends to `out` every register read of a value (not of the initial
  // state) among transactions whose first is file row `row`, with its round
  // (rounds of R rows): HDF5 columns by symbol, a JSONL chunk by name.
  using ReadEntries = std::vector<LaterReads::Entry>;
  static void later_reads_of(const Hdf5Columns& c, uint64_t row, uint64_t R, ReadEntries& out);
  static void later_reads_of(const History& h, uint64_t row, uint64_t R, ReadEntries& out);  // (h: next_hashed)
  // forget: can later reads see `chosen` (one top version per key) as the
  // last frozen write of its key? (docs/audit.md "Ambiguous frontiers")
  // (m: the fence rule's bound, the fences up to it join the check)
  bool later_read_possible(const std::vector<std::pair<Sym, Sym>>& chosen, const std::vector<uint8_t>& frozen,
                           int64_t m);
  // key_ids: the reader's numbers of the chunk's key symbols (may be empty).
  void append_round(const History& chunk, const KeyIds& key_ids = {});
  void append_same_symbols(const History& chunk);
  void note_appended();
  // `beside_forget`: when no read is stripped, check() runs on a thread of
  // its own while forget() works (both only read the carry); forget joins it
  // (join_check) before it replaces the carry. Same results, in the same order.
  void check_round(uint64_t round, bool beside_forget = false);
  void apply_check(uint64_t round, const History& h, CheckResult& r);
  void join_check() {
    if (!finish_check_) return;
    auto f = std::move(finish_check_);
    finish_check_ = nullptr;
    f();
  }
  void forget(uint64_t round, RoundStat& st);
  void finish();
  void find_fence_sym() {
    if (s_.carry.keys.named())
      for (Sym i = 0; i < s_.carry.keys.names().size(); ++i)
        if (!s_.carry.keys.is_int(i) && s_.carry.keys.name(i) == opt_.fence_key) fence_sym_ = i;
  }
  bool is_fence_txn(const History& h, TxnIdx t, int64_t& value, bool& well_formed) const {
    return fence_txn(h, fence_sym_, t, value, well_formed);
  }
  static bool fence_txn(const History& h, Sym fk, TxnIdx t, int64_t& value, bool& well_formed);
  std::string checkpoint_path() const;
  int64_t future_min_pf(uint64_t round) const {
    return round + 1 < suffix_pf_.size() ? suffix_pf_[round + 1] : kPosInf;
  }
  int64_t future_min_begin(uint64_t round) const {
    return round + 1 < suffix_begin_.size() ? suffix_begin_[round + 1] : kPosInf;
  }
  // The least end of a later writer with times (kNegInf: not known).
  int64_t future_min_write_end(uint64_t round) const {
    return round + 1 < suffix_write_end_.size() ? suffix_write_end_[round + 1] : kPosInf;
  }
  // --time-order orders two writes of a key by real time when their
  // intervals do not overlap, for every level; a level other than sser
  // checks it through write-order edges only, so under the fence rule a
  // later write that ended before a forgotten one began would close a cycle
  // the summary does not show (docs/audit.md, "The fence rule with
  // --time-order"). sser alone has it through real time and the marker.
  bool fence_time_order() const {
    if (!opt_.check.time_order) return false;
    for (Level l : opt_.check.levels)
      if (l != Level::sser) return true;
    return false;
  }
  void compute_suffixes();
  // The summary starts with its real-time marker (docs/audit.md, "The
  // summary's real time"): an empty transaction, carry txn 0.
  bool summary_marker() const {
    return s_.has_summary && s_.summary_txns > 0 && s_.carry.txn_id[0] == kSummaryMarkerId;
  }
  bool dup_check() const { return opt_.duplicate_check && s_.rule != ForgetRule::none; }
  // Duplicate writes (docs/audit.md): fingerprints on the read-ahead thread,
  // suspects settled on the main thread.
  struct RoundFingerprints {
    std::vector<uint64_t> fps;  // per write or append of the chunk
    std::vector<OpIdx> wops;    // its operation
    std::vector<size_t> hits;   // indices into fps that an earlier round wrote
    uint64_t set_size = 0, set_bytes = 0;  // the set after the round joined it
  };
  RoundFingerprints fingerprint_round(const History& chunk);
  void check_duplicates(const History& chunk, const RoundFingerprints& f, uint64_t first_row, uint64_t round);
  void rebuild_fingerprints(uint64_t rows);

  std::string path_;
  AuditOptions opt_;
  LogReader reader_;
  // JSONL with scans, inserts and deletes: the keys their rounds expand
  // over (pass 1; null otherwise). Every reader of the log gets them.
  std::shared_ptr<const LogPredicateKeys> pred_keys_;
  LogReader open_log() const {
    LogReader r(path_, opt_.format);
    r.set_predicate_keys(pred_keys_);
    return r;
  }
  // A resumption: pass 1's gathering of pred_keys_ alone (one read of the
  // log; only a JSONL log that names "scan", "insert" or "delete").
  void gather_predicate_keys();
  AuditState s_;
  Sym fence_sym_ = ~0ULL;       // the fence key in carry's table (~0: absent)
  std::vector<int64_t> suffix_pf_, suffix_begin_, suffix_write_end_;
  std::unordered_map<int64_t, uint32_t> session_index_;   // carry session name -> dense index
  std::unordered_map<int64_t, int64_t> last_fence_;
  std::vector<std::vector<uint32_t>> awaiting_nf_;        // per dense session: carry txns without nf yet
  // number_versions(): the carry's written (key, value) pairs numbered, and
  // per operation the version written or read (for check_round and forget).
  void number_versions(uint64_t round);
  PairMap versions_{0};
  std::vector<uint32_t> op_version_;
  uint64_t unresolved_reads_ = 0;  // register reads without a numbered version, and list reads
  bool last_round_pending_ = false;  // the last checked round had a pending read (check_round)
  uint32_t written_versions_ = 0;
  uint64_t numbered_round_ = ~0ULL;
  FingerprintSet written_;   // every (key, value) written by earlier rounds (dup_check())
  TableHashes file_key_hashes_, file_value_hashes_;  // HDF5: of the file's tables, built once
  FlatMap64 key_ints_{1 << 12};  // key integer -> symbol in carry's named key table
  // The reader's key numbers (KeyIds, of reader space key_space_) -> symbol
  // in carry's named key table (~0: not yet); fence_key_id_: the fence key's number.
  std::vector<Sym> key_id_sym_;
  uint64_t key_space_ = 0;
  uint64_t fence_key_id_ = ~0ULL;
  // Summary entries outside the carry (s_.summary_rest while checkpointed):
  // key -> version. Only keys a carry transaction touches are in the pieces,
  // so a round's work does not grow with the number of keys in the log.
  KeyVersions rest_;
  // then_txns/then_ops: what the caller appends next (reserved with it).
  void materialize(const std::vector<Sym>& keys, size_t then_txns = 0, size_t then_ops = 0);
  void remap_rest(bool keys_switched);
  void save_state() {
    s_.summary_rest.clear();
    rest_.for_each([&](uint64_t k, uint64_t v) { s_.summary_rest.push_back({k, v}); });
    save_checkpoint(s_, checkpoint_path());
  }
  std::vector<Level> open_levels() const;
  void build_file_hashes() {
    if (!dup_check_possible()) return;
    file_key_hashes_.build(s_.carry.keys, audit_threads());
    file_value_hashes_.build(s_.carry.values, audit_threads());
  }
  bool dup_check_possible() const { return opt_.duplicate_check && opt_.rule != "none"; }
  LaterReads later_reads_;
  // The levels the round's check() ran on: forget's later-read check uses
  // them too, whether or not that check's result was applied yet (it runs
  // beside forget with 2 threads or more), so results do not depend on it.
  std::vector<Level> checked_levels_;
  uint64_t log_writes_ = 0;  // pass 1's count of the log's writes (sizes written_)
  bool lists_and_registers_ = false;
  static constexpr uint64_t kPurgeRounds = 32;  // run.cpp: freed memory handed back  // pass 1 met operations of both kinds (list_keys.cpp)
  unsigned audit_threads() const { return opt_.threads ? opt_.threads : hardware_threads(); }
  // Soundness state on disk (soundness.cpp; docs/audit.md, "Soundness state
  // on disk"): the scratch folder, the duplicate-write hits read in order
  // (the next hit's write index, ~0: none left), the writes fingerprinted so
  // far, and the reads in the log's first transactions (the index's size).
  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<RecordFile> hits_;
  uint64_t next_hit_ = ~0ULL, spill_write_ = 0;
  uint64_t probe_reads_ = 0, probe_txns_ = 0;
  void open_scratch();
  // Whether the soundness state goes to disk (a fresh run: by its size).
  void decide_spill(bool later_reads_wanted);
  void build_spilled_fingerprints();
  bool open_hits(uint64_t from_write);
  void read_next_hit();
  void build_later_reads_spilled(uint64_t from);
  bool open_later_reads_file();
  void remove_scratch_files();
  void update_scratch_bytes();
  void note_spill_memory(uint64_t records) {
    s_.result.spill_memory_records = std::max(s_.result.spill_memory_records, records);
  }
  // Set while a check runs beside forget (check_round). Declared last so that
  // it is destroyed first: when an error unwinds past a running check, its
  // future waits for the thread while the carry it reads still exists.
  std::function<void()> finish_check_;
};

}  // namespace isocheck::audit_detail

// The round loop and the forgetting rules. Why forgetting is safe:
// docs/audit.md ("Why the verdict equals checking the whole log").
#include "audit/audit.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <queue>
#include <sstream>
#include <unordered_map>

#include "audit/key_versions.h"
#include "audit/later_reads.h"
#include "audit/parallel.h"
#include "audit/pass1.h"
#include "audit/reader.h"
#include "audit/state.h"
#include "audit/written.h"
#include "core/errors.h"
#include "io/hdf5_range.h"
#include "report/report.h"
#include "core/flat_hash.h"
#include "core/radix_order.h"
#include "core/timer.h"

namespace isocheck {

const char* to_string(ForgetRule r) {
  switch (r) {
    case ForgetRule::fence: return "fence";
    case ForgetRule::time: return "time";
    default: return "none";
  }
}

int AuditResult::exit_code() const {
  bool undecided = false;
  for (auto& l : levels) {
    if (l.verdict == "violated") return 1;
    if (l.verdict == "undecided") undecided = true;
  }
  return undecided ? 3 : 0;
}

namespace {

// ---------------------------------------------------------------- memory
uint64_t proc_status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0) return std::strtoull(line.c_str() + n + 1, nullptr, 10);
  return 0;
}
void reset_peak_rss() {
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}
uint64_t peak_rss_bytes() { return proc_status_kb("VmHWM:") * 1024; }

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
size_t count_writes(const History& h) {
  size_t w = 0;
  for (OpKind k : h.op_kind) w += k == OpKind::write || k == OpKind::append;
  return w;
}

// ------------------------------------------------------------- the engine
class Auditor {
 public:
  Auditor(const std::string& path, const AuditOptions& opt) : path_(path), opt_(opt), reader_(path, opt.format) {}
  AuditResult run();

 private:
  void stage(const char* name) {
    if (opt_.stage) opt_.stage(name);
  }

  void say(const std::string& s) {
    if (opt_.log) opt_.log(s);
  }
  std::string options_fingerprint() const;
  void prescan();
  void choose_rule();
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
  // forget: can later reads see `chosen` (one top version per key) as the
  // last frozen write of its key? (docs/audit.md "Ambiguous frontiers")
  // (m: the fence rule's bound, the fences up to it join the check)
  bool later_read_possible(const std::vector<std::pair<Sym, Sym>>& chosen, const std::vector<uint8_t>& frozen,
                           int64_t m);
  void append_round(const History& chunk);
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
  Sym fence_sym() const { return fence_sym_; }
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
  unsigned audit_threads() const { return opt_.threads ? opt_.threads : hardware_threads(); }
  // Set while a check runs beside forget (check_round). Declared last so that
  // it is destroyed first: when an error unwinds past a running check, its
  // future waits for the thread while the carry it reads still exists.
  std::function<void()> finish_check_;
};

std::string Auditor::options_fingerprint() const {
  std::string s = file_fingerprint(path_) + " round=" + std::to_string(opt_.round_txns) + " rule=" + opt_.rule +
                  " fence_key=" + opt_.fence_key + " skew=" + std::to_string(opt_.check.clock_skew) +
                   " time_order=" + std::to_string(opt_.check.time_order) +
                  " dup=" + std::to_string(opt_.duplicate_check) + " defer_min=" + std::to_string(opt_.defer_min_txns) +
                  " symbols=file levels=";
  for (Level l : opt_.check.levels) s += std::string(to_string(l)) + ",";
  return s;
}

std::string Auditor::checkpoint_path() const {
  std::string base = std::filesystem::path(path_).filename().string();
  return (std::filesystem::path(opt_.checkpoint_dir) / (base + ".ckpt")).string();
}

bool Auditor::fence_txn(const History& h, Sym fence_sym_, TxnIdx t, int64_t& value, bool& well_formed) {
  OpIdx o = h.op_begin(t);
  return fence_ops(h.op_kind.data() + o, h.op_key.data() + o, h.op_value.data() + o, h.op_end(t) - o, h.txn_status[t],
                   fence_sym_, h.values, value, well_formed);
}

// Column buffers for pieces read on threads: a piece takes one, and gives
// it back for the next piece, so that each thread's buffers are faulted in
// once, not per piece (that was a tenth of pass 1), and freed at the end.
class ColumnsPool {
 public:
  class Lease {
   public:
    explicit Lease(ColumnsPool& p) : pool_(p) {
      std::lock_guard<std::mutex> g(p.lock_);
      if (!p.free_.empty()) c_ = std::move(p.free_.back()), p.free_.pop_back();
    }
    ~Lease() {
      std::lock_guard<std::mutex> g(pool_.lock_);
      pool_.free_.push_back(std::move(c_));
    }
    Hdf5Columns& operator*() { return c_; }
    Hdf5Columns* operator->() { return &c_; }

   private:
    ColumnsPool& pool_;
    Hdf5Columns c_;
  };

 private:
  std::mutex lock_;
  std::vector<Hdf5Columns> free_;
};

// Pass 1: per round, the least previous-fence value and the least begin.
// HDF5: only the columns it needs (no ids, list offsets or lists; the file's
// tables once), in pieces of whole rounds scanned on threads and merged in
// file order (src/audit/pass1.h); JSONL: whole chunks, one piece.
void Auditor::prescan() {
  const uint64_t R = opt_.round_txns;
  // Chunks of several rounds (fewer, larger reads), statistics per round.
  const uint64_t chunk_rows = R * std::max<uint64_t>(1, std::min<uint64_t>(8, 1000000 / R));
  const bool hdf5 = reader_.hdf5();
  // Only what the rules that can apply need (choose_rule): times only for
  // the time rule (sser alone; a time column is then read and checked in
  // pass 2 anyway), fences unless the time or no rule is forced (under auto
  // the report says whether fences were present too).
  const auto& levels = opt_.check.levels;
  const bool need_times = levels.size() == 1 && levels[0] == Level::sser && opt_.rule != "fence" && opt_.rule != "none";
  const bool need_fences = opt_.rule != "time" && opt_.rule != "none";
  // --time-order under the fence rule: per round, the least end of a timed
  // writer (docs/audit.md, "The fence rule with --time-order").
  const bool need_write_ends = need_fences && fence_time_order();
  // The fence key's symbol in a table (~0: absent).
  auto fence_key_in = [&](const SymbolTable& t) {
    Sym fk = ~0ULL;
    if (t.named())
      for (Sym i = 0; i < t.names().size(); ++i)
        if (!t.is_int(i) && t.name(i) == opt_.fence_key) fk = i;
    return fk;
  };
  std::vector<Pass1Piece> pieces;
  if (hdf5) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    const SymbolTable& values = file.values();
    const Sym fk = need_fences ? fence_key_in(file.keys()) : ~0ULL;
    const uint64_t total = reader_.total(), rounds = (total + R - 1) / R;
    const unsigned threads = audit_threads();
    // Pieces of whole rounds, about two per thread (a shared machine's
    // threads do not all run at the same speed; more pieces inflate more
    // chunks twice, at their edges), at most chunk_rows each.
    uint64_t piece_rounds = std::max<uint64_t>(1, (rounds + 2 * threads - 1) / (2 * threads));
    piece_rounds = std::min(piece_rounds, chunk_rows / R);
    const uint64_t piece_rows = piece_rounds * R, n_pieces = (total + piece_rows - 1) / piece_rows;
    pieces.resize(n_pieces);
    using C = Hdf5RangeReader;
    ColumnsPool pool;
    // (op kinds for the duplicate check: its set is sized for the log's writes)
    const unsigned which = C::kSession | C::kStatus | (need_times || need_write_ends ? C::kTimes : 0u) |
                           (need_fences ? C::kOps : dup_check_possible() ? C::kOpKinds : 0u);
    parallel_pieces(n_pieces, threads, [&](uint64_t i) {
      Pass1Piece& p = pieces[i];
      p.first_round = i * piece_rounds;
      Pass1Scanner scan(p, R, fk, need_times, need_write_ends);
      const uint64_t row = i * piece_rows, last_row = std::min(total, row + piece_rows);
      ColumnsPool::Lease cols(pool);
      file.columns(row, last_row, which, *cols);
      scan.scan(*cols, values, row, nullptr);
      scan.finish();
    });
  } else {
    pieces.resize(1);
    Pass1Scanner scan(pieces[0], R, ~0ULL, need_times, need_write_ends);
    uint64_t row = 0;
    while (true) {
      History h = reader_.next_scan(R, opt_.fence_key);  // (a round: what pass 2 holds too)
      if (h.txn_count() == 0) break;
      Hdf5Columns cols;
      cols.session.resize(h.txn_count());
      for (TxnIdx t = 0; t < h.txn_count(); ++t) cols.session[t] = h.session_name[h.txn_session[t]];
      cols.status = std::move(h.txn_status);
      cols.begin = std::move(h.txn_begin);
      cols.end = std::move(h.txn_end);
      cols.op_offset = std::move(h.txn_op_offset);
      cols.op_kind = std::move(h.op_kind);
      cols.op_key = std::move(h.op_key);
      cols.op_value = std::move(h.op_value);
      // Each JSONL chunk has its own tables: the fence key's symbol per chunk.
      scan.set_fence_key(need_fences ? fence_key_in(h.keys) : ~0ULL);
      scan.scan(cols, h.values, row, h.txn_id.data());
      row += cols.session.size();
    }
    scan.finish();
  }
  Pass1Result r = merge_pass1(pieces, R);
  s_.round_min_pf = std::move(r.round_min_pf);
  s_.round_min_begin = std::move(r.round_min_begin);
  s_.round_min_write_end = std::move(r.round_min_write_end);
  s_.total_txns = r.txns;
  log_writes_ = r.writes;
  auto id_of = [&](uint64_t row, bool known, int64_t id) {
    return known ? id : reader_.hdf5_file().range(row, row + 1).txn_id[0];
  };
  s_.times_ok = r.bad_time_row == kNoRow;
  if (!s_.times_ok)
    s_.times_problem = "transaction " + std::to_string(id_of(r.bad_time_row, r.bad_time_id_known, r.bad_time_id)) +
                       " has no begin/end";
  s_.fence_ok = r.bad_fence_row == kNoRow;
  if (!s_.fence_ok)
    s_.fence_problem = "transaction " + std::to_string(id_of(r.bad_fence_row, r.bad_fence_id_known, r.bad_fence_id)) +
                       " touches " + opt_.fence_key + " but is not a committed fence (read k, write k+1, nothing else)";
  if (!r.any_fence && s_.fence_ok) {
    s_.fence_ok = false;
    s_.fence_problem = "no fence transactions (key " + opt_.fence_key + ")";
  }
  if (hdf5) reader_.seek(LogPosition{});  // keeps the file's tables
  else reader_ = LogReader(path_, opt_.format);
}

// A write of a key the transaction has not read before it, in the first
// 2^16 transactions. Read-modify-write logs have none: their version order
// is known, so no frontier is ever ambiguous and no index is built.
bool Auditor::starts_with_blind_writes() {
  auto blind = [](const OpKind* kind, const Sym* key, const uint64_t* off, size_t txns) {
    std::vector<Sym> read;
    for (size_t t = 0; t < txns; ++t) {
      read.clear();
      for (uint64_t o = off[t]; o < off[t + 1]; ++o) {
        if (kind[o] == OpKind::read) read.push_back(key[o]);
        if (kind[o] == OpKind::write && std::find(read.begin(), read.end(), key[o]) == read.end()) return true;
      }
    }
    return false;
  };
  const uint64_t probe = std::min<uint64_t>(s_.total_txns, 1 << 16);
  if (reader_.hdf5()) {
    Hdf5Columns c = reader_.hdf5_file().columns(0, probe, Hdf5RangeReader::kOps);
    return blind(c.op_kind.data(), c.op_key.data(), c.op_offset.data(), c.op_offset.size() - 1);
  }
  LogReader r(path_, opt_.format);
  History h = r.next(probe);
  return blind(h.op_kind.data(), h.op_key.data(), h.txn_op_offset.data(), h.txn_count());
}

// Every register read of a value (not of the initial state) from file row
// `from` on, with its round, in pieces of whole rounds (HDF5: scanned on
// threads, only the operation columns). The reader's position is kept.
void Auditor::build_later_reads(uint64_t from) {
  const uint64_t R = opt_.round_txns, total = s_.total_txns;
  if ((total + R - 1) / R >= LaterReads::kMaxRounds) return;
  const uint64_t piece_rounds = std::max<uint64_t>(1, 1000000 / R);
  const uint64_t piece_rows = piece_rounds * R;
  const uint64_t first_piece = from / piece_rows, n_pieces = (total + piece_rows - 1) / piece_rows;
  if (first_piece >= n_pieces) return set_later_reads_built();
  std::vector<std::vector<LaterReads::Entry>> entries(n_pieces - first_piece);
  if (reader_.hdf5()) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    ColumnsPool pool;
    parallel_pieces(entries.size(), audit_threads(), [&](uint64_t i) {
      const uint64_t row = std::max(from, (first_piece + i) * piece_rows);
      const uint64_t last = std::min(total, (first_piece + i + 1) * piece_rows);
      ColumnsPool::Lease lease(pool);
      Hdf5Columns& c = *lease;
      file.columns(row, last, Hdf5RangeReader::kOps, c);
      std::vector<LaterReads::Entry>& e = entries[i];
      for (size_t t = 0; t + 1 < c.op_offset.size(); ++t)
        for (uint64_t o = c.op_offset[t]; o < c.op_offset[t + 1]; ++o)
          if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue)
            e.push_back({symbol_pair_fp(c.op_key[o], c.op_value[o]), static_cast<uint32_t>((row + t) / R)});
    });
  } else {
    const LogPosition at = reader_.position();
    LogReader r(path_, opt_.format);
    if (from > 0) r.seek(at);
    uint64_t row = from;
    while (true) {
      History h = r.next(std::min(R, piece_rows - row % piece_rows));
      if (h.txn_count() == 0) break;
      SymHashCache kh, vh;
      std::vector<LaterReads::Entry>& e = entries[row / piece_rows - first_piece];
      for (TxnIdx t = 0; t < h.txn_count(); ++t)
        for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
          if (h.op_kind[o] == OpKind::read && h.op_value[o] != kNullValue)
            e.push_back({pair_fingerprint(kh.get(h.keys, h.op_key[o]), vh.get(h.values, h.op_value[o]), ~0ULL),
                         static_cast<uint32_t>((row + t) / R)});
      row += h.txn_count();
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t p = first_piece + i;
    later_reads_.add_piece(p * piece_rounds, (p + 1) * piece_rounds, std::move(entries[i]));
  }
  set_later_reads_built();
}

void Auditor::compute_suffixes() {
  size_t n = s_.round_min_pf.size();
  suffix_pf_.assign(n + 1, kPosInf);
  suffix_begin_.assign(n + 1, kPosInf);
  suffix_write_end_.assign(n + 1, kPosInf);
  const bool write_ends = s_.round_min_write_end.size() == n;
  for (size_t i = n; i-- > 0;) {
    suffix_pf_[i] = std::min(suffix_pf_[i + 1], s_.round_min_pf[i]);
    suffix_begin_[i] = std::min(suffix_begin_[i + 1], s_.round_min_begin[i]);
    // (not recorded: every later writer may have ended at any time)
    suffix_write_end_[i] = write_ends ? std::min(suffix_write_end_[i + 1], s_.round_min_write_end[i]) : kNegInf;
  }
}

void Auditor::choose_rule() {
  auto& levels = opt_.check.levels;
  bool sser_only = levels.size() == 1 && levels[0] == Level::sser;
  std::string why_not_time = s_.times_ok ? (sser_only ? "" : "the time rule needs --level sser alone")
                                         : "the time rule needs begin/end on every transaction: " + s_.times_problem;
  std::string why_not_fence = s_.fence_ok ? "" : "the fence rule: " + s_.fence_problem;
  bool time_ok = why_not_time.empty(), fence_ok = why_not_fence.empty();
  auto& r = s_.result;
  if (opt_.rule == "time" && !time_ok) throw UsageError("--rule time: " + why_not_time);
  if (opt_.rule == "fence" && !fence_ok) throw UsageError("--rule " + why_not_fence);
  if (opt_.rule == "none") {
    s_.rule = ForgetRule::none;
    r.rule_reason = "--rule none";
  } else if ((opt_.rule == "auto" || opt_.rule == "time") && time_ok) {
    s_.rule = ForgetRule::time;
    r.rule_reason = "every transaction has begin/end and only sser is checked: a transaction that ended before "
                    "every later one begins is ordered before them";
    if (opt_.rule == "auto" && fence_ok) r.rule_reason += " (fences present too; the time rule forgets more)";
  } else if (fence_ok) {
    s_.rule = ForgetRule::fence;
    r.rule_reason = "fence transactions on " + opt_.fence_key + " order everything two fences back before the rest";
    // (--time-order: a later write can be ordered before an earlier one by time)
    if (fence_time_order())
      r.rule_reason += "; with --time-order, writers that began after a later writer ended are kept";
  } else {
    s_.rule = ForgetRule::none;
    r.rule_reason = "no forgetting rule applies (" + why_not_fence + "; " + why_not_time + ")";
    r.warnings.push_back("the log fits neither forgetting rule: every transaction is kept and the whole log is "
                         "checked at the end (memory grows with the log); see docs/audit.md");
  }
}

std::vector<Level> Auditor::open_levels() const {
  std::vector<Level> out;
  for (auto& l : s_.result.levels)
    if (l.verdict != "violated") out.push_back(l.level);
  return out;
}

// Appends a round's transactions to carry (symbols re-interned into carry's
// tables when the chunk's tables are named).
void Auditor::append_round(const History& chunk) {
  if (reader_.hdf5()) return append_same_symbols(chunk);
  History& c = s_.carry;
  if (c.time_unit.empty()) c.time_unit = chunk.time_unit;
  std::vector<Sym> kmap(chunk.keys.named() ? chunk.keys.size() : 0, ~0ULL);
  std::vector<Sym> vmap(chunk.values.named() ? chunk.values.size() : 0, ~0ULL);
  // A key integer's symbol in a named carry table, remembered across rounds
  // (interning formats the number and hashes the text). Keys only: values
  // are new with every write.
  auto intern_int = [&](SymbolTable& to, int64_t v, bool is_key) -> Sym {
    if (!to.named() || v == -1 || !is_key) return to.intern_int(v);
    FlatMap64& m = key_ints_;
    if (const uint64_t* p = m.find(static_cast<uint64_t>(v))) return *p;
    Sym out = to.intern_int(v);
    bool ins;
    m.get_or_insert(static_cast<uint64_t>(v), out, ins);
    return out;
  };
  auto map_sym = [&](const SymbolTable& from, SymbolTable& to, std::vector<Sym>& cache, Sym s, bool is_key) -> Sym {
    if (!from.named()) return intern_int(to, SymbolTable::as_int(s), is_key);
    if (cache[s] != ~0ULL) return cache[s];
    Sym out;
    if (from.is_int(s)) {
      int64_t v = 0;
      sym_int(from, s, v);
      out = intern_int(to, v, is_key);
    } else {
      out = to.intern_string(from.name(s));
      if (to.take_switch()) {  // (the carry was in integer mode: nothing remembered yet)
        if (is_key) c.remap_keys();
        else c.remap_values();
        remap_rest(is_key);
        std::fill(cache.begin(), cache.end(), ~0ULL);
        if (is_key && fence_sym_ != ~0ULL) fence_sym_ = ~0ULL;
      }
    }
    cache[s] = out;
    if (is_key && !from.is_int(s) && from.name(s) == opt_.fence_key) fence_sym_ = out;
    return out;
  };
  // Summary entries outside the carry whose key this round touches go into
  // the pieces first (keys mapped here, the mapping is cached for below).
  if (s_.has_summary && rest_.size() > 0) {
    std::vector<Sym> want;
    FlatMap64 seen(1024);
    for (OpIdx o = 0; o < chunk.op_count(); ++o) {
      Sym k = map_sym(chunk.keys, c.keys, kmap, chunk.op_key[o], true);
      if (k == FlatMap64::kEmpty) continue;  // never in rest_ (see forget)
      bool ins;
      seen.get_or_insert(k, 0, ins);
      if (ins && rest_.find(k)) want.push_back(k);
    }
    if (!want.empty()) materialize(want, chunk.txn_count(), chunk.op_count());
  }
  // Integer-mode chunk into a named carry: intern_int maps; the fence key can
  // only be a string, so fence_sym_ is found while mapping named chunks.
  for (TxnIdx t = 0; t < chunk.txn_count(); ++t) {
    int64_t sname = chunk.session_name[chunk.txn_session[t]];
    auto [it, fresh] = session_index_.try_emplace(sname, static_cast<uint32_t>(c.session_name.size()));
    if (fresh) {
      c.session_name.push_back(sname);
      awaiting_nf_.emplace_back();
    }
    c.begin_txn(chunk.txn_id[t], it->second, chunk.txn_status[t], chunk.txn_begin[t], chunk.txn_end[t]);
    for (OpIdx o = chunk.op_begin(t); o < chunk.op_end(t); ++o) {
      Sym k = map_sym(chunk.keys, c.keys, kmap, chunk.op_key[o], true);
      if (chunk.op_kind[o] == OpKind::read_list) {
        std::vector<Sym> vals;
        for (Sym v : chunk.list(o)) {
          const bool was_named = c.values.named();
          Sym m = map_sym(chunk.values, c.values, vmap, v, false);
          // This element switched the carry's values to named symbols: the
          // elements before it, not in the carry yet, were integer symbols.
          if (!was_named && c.values.named())
            for (Sym& x : vals) x = c.values.remap(x);
          vals.push_back(m);
        }
        c.add_list_read(k, vals);
      } else {
        Sym v = chunk.op_value[o];
        if (v != kNullValue) v = map_sym(chunk.values, c.values, vmap, v, false);
        c.add_op(chunk.op_kind[o], k, v);
      }
    }
    c.end_txn();
  }
  // A key remap above may have renamed symbols of earlier chunk txns too
  // (remap_keys covers all of carry), so nothing else to fix.
  note_appended();
}

// HDF5: the chunk's symbols are the file's, and so are the carry's (its
// tables are the file's from the start, see run()): columns are copied as
// they are, no symbol is looked up.
void Auditor::append_same_symbols(const History& chunk) {
  History& c = s_.carry;
  Timer append_timer;
  if (s_.has_summary && rest_.size() > 0) {
    std::vector<Sym> want;
    FlatMap64 asked(64);
    constexpr size_t kAhead = 16;
    const std::vector<Sym>& keys = chunk.op_key;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i + kAhead < keys.size()) rest_.prefetch(keys[i + kAhead]);
      if (rest_.take_first(keys[i], asked)) want.push_back(keys[i]);
    }
    for (Sym k : want) rest_.unmark(k);
    const double t_scan = append_timer.seconds();
    if (!want.empty()) materialize(want, chunk.txn_count(), chunk.op_count());
    if (opt_.debug_timing)
      std::fprintf(stderr, "append: %zu waiting keys found in %.3f s, into the pieces by %.3f s\n", want.size(), t_scan,
                   append_timer.seconds());
  }
  std::vector<uint32_t> sess(chunk.session_count());
  for (size_t i = 0; i < sess.size(); ++i) {
    int64_t sname = chunk.session_name[i];
    auto [it, fresh] = session_index_.try_emplace(sname, static_cast<uint32_t>(c.session_name.size()));
    if (fresh) {
      c.session_name.push_back(sname);
      awaiting_nf_.emplace_back();
    }
    sess[i] = it->second;
  }
  c.reserve_more(chunk.txn_count(), chunk.op_count());  // (after materialize: one regrowth at most)
  auto extend = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  extend(c.txn_id, chunk.txn_id);
  for (uint32_t s : chunk.txn_session) c.txn_session.push_back(sess[s]);
  extend(c.txn_status, chunk.txn_status);
  extend(c.txn_begin, chunk.txn_begin);
  extend(c.txn_end, chunk.txn_end);
  const uint64_t ops0 = c.op_count(), list0 = c.list_value.size();
  for (size_t t = 1; t < chunk.txn_op_offset.size(); ++t) c.txn_op_offset.push_back(ops0 + chunk.txn_op_offset[t]);
  extend(c.op_kind, chunk.op_kind);
  extend(c.op_key, chunk.op_key);
  extend(c.op_value, chunk.op_value);
  for (size_t o = 1; o < chunk.op_list_offset.size(); ++o) c.op_list_offset.push_back(list0 + chunk.op_list_offset[o]);
  extend(c.list_value, chunk.list_value);
  if (c.time_unit.empty()) c.time_unit = chunk.time_unit;
  note_appended();
}

// pf / nf of the transactions just appended (and nf of earlier ones whose
// session reached its next fence).
void Auditor::note_appended() {
  History& c = s_.carry;
  size_t n0 = s_.pf.size(), n = c.txn_count();
  s_.pf.resize(n, kNegInf);
  s_.nf.resize(n, kPosInf);
  s_.pending.resize(n, 0);
  s_.checked_op.resize(c.op_count(), 0);
  // Last fence per carry session, looked up once per session (not per transaction).
  std::vector<int64_t> last(c.session_count());
  std::vector<uint8_t> known(c.session_count(), 0);
  for (size_t t = n0; t < n; ++t) {
    uint32_t sess = c.txn_session[t];
    if (!known[sess]) {
      auto it = last_fence_.find(c.session_name[sess]);
      last[sess] = it == last_fence_.end() ? kNegInf : it->second;
      known[sess] = 1;
    }
    int64_t value = 0;
    bool ok = true;
    if (fence_sym_ != ~0ULL && is_fence_txn(c, static_cast<TxnIdx>(t), value, ok) && ok) {
      s_.pf[t] = s_.nf[t] = value;
      last[sess] = value;
      last_fence_[c.session_name[sess]] = value;
      for (uint32_t w : awaiting_nf_[sess]) s_.nf[w] = value;
      awaiting_nf_[sess].clear();
    } else {
      s_.pf[t] = last[sess];
      awaiting_nf_[sess].push_back(static_cast<uint32_t>(t));
    }
  }
}

// The summary pieces hold the entries whose key a carry transaction touches;
// the others wait in rest_. Rebuilds the pieces with `keys` added (those not
// in the pieces yet), the fence key last, and shifts the carry's indices.
void Auditor::materialize(const std::vector<Sym>& keys, size_t then_txns, size_t then_ops) {
  History& c = s_.carry;
  const uint32_t old_pieces = s_.summary_txns;
  const uint32_t first = summary_marker() ? 1 : 0;  // the marker stays first, as it is
  struct Entry {
    Sym k, v;
    bool rmw;  // reads the initial state first (else a blind write: a kept txn read it)
  };
  std::vector<Entry> es;
  FlatMap64 have(256);
  for (TxnIdx t = first; t < old_pieces; ++t)
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write) {
        bool rmw = o > c.op_begin(t) && c.op_kind[o - 1] == OpKind::read && c.op_key[o - 1] == c.op_key[o];
        es.push_back({c.op_key[o], c.op_value[o], rmw});
        bool ins;
        have.get_or_insert(c.op_key[o], 0, ins);
      }
  size_t before = es.size();
  for (Sym k : keys)
    if (!have.find(k))
      if (const uint64_t* v = rest_.find(k)) es.push_back({k, *v, true});
  if (es.size() == before) return;
  if (fence_sym_ != ~0ULL)
    std::stable_partition(es.begin(), es.end(), [&](const Entry& e) { return e.k != fence_sym_; });
  History nc;
  {
    constexpr size_t kPiece = 128;  // as below
    size_t kept_ops = c.op_count() - (old_pieces ? c.op_begin(old_pieces) : 0);
    nc.reserve_more(es.size() / kPiece + 1 + c.txn_count() - old_pieces + then_txns, 2 * es.size() + kept_ops + then_ops);
  }
  nc.keys = std::move(c.keys);
  nc.values = std::move(c.values);
  nc.time_unit = c.time_unit;
  nc.session_name = c.session_name;
  constexpr size_t kPiece = 128;  // as in forget()
  size_t pieces = std::max<size_t>(1, (es.size() + kPiece - 1) / kPiece);
  std::vector<int64_t> npf, nnf;
  std::vector<uint8_t> npend, nchecked;
  if (first) {
    nc.begin_txn(c.txn_id[0], c.txn_session[0], TxnStatus::committed, c.txn_begin[0], c.txn_end[0]);
    nc.end_txn();
    npf.push_back(s_.pf[0]);
    nnf.push_back(s_.nf[0]);
    npend.push_back(0);
  }
  for (size_t p = 0; p < pieces; ++p) {
    nc.begin_txn(kSummaryId + static_cast<int64_t>(p), c.txn_session[first], TxnStatus::committed,
                 c.txn_begin[first], c.txn_end[first]);
    for (size_t i = p * kPiece; i < std::min(es.size(), (p + 1) * kPiece); ++i) {
      if (es[i].rmw) nc.add_op(OpKind::read, es[i].k, kNullValue);
      nc.add_op(OpKind::write, es[i].k, es[i].v);
    }
    nc.end_txn();
    npf.push_back(s_.pf[first]);
    nnf.push_back(s_.nf[first]);
    npend.push_back(0);
  }
  nchecked.assign(nc.op_count(), 0);
  for (TxnIdx t = old_pieces; t < c.txn_count(); ++t) {
    nc.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      if (c.op_kind[o] == OpKind::read_list) nc.add_list_read(c.op_key[o], c.list(o));
      else nc.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
      nchecked.push_back(s_.checked_op[o]);
    }
    nc.end_txn();
    npf.push_back(s_.pf[t]);
    nnf.push_back(s_.nf[t]);
    npend.push_back(s_.pending[t]);
  }
  int64_t shift = static_cast<int64_t>(first + pieces) - static_cast<int64_t>(old_pieces);
  for (auto& v : awaiting_nf_)
    for (uint32_t& t : v) t = static_cast<uint32_t>(t + shift);
  s_.carry = std::move(nc);
  s_.pf = std::move(npf);
  s_.nf = std::move(nnf);
  s_.pending = std::move(npend);
  s_.checked_op = std::move(nchecked);
  s_.summary_txns = static_cast<uint32_t>(first + pieces);
}

// The carry's key or value table switched from integer to named symbols:
// rest_ holds symbols of that table too.
void Auditor::remap_rest(bool keys_switched) {
  std::vector<std::pair<uint64_t, uint64_t>> all;
  rest_.for_each([&](uint64_t k, uint64_t v) { all.push_back({k, v}); });
  if (all.empty()) return;
  rest_ = KeyVersions{};
  for (auto [k, v] : all) {
    if (keys_switched) k = s_.carry.keys.remap(k);
    else if (v != kNullValue) v = s_.carry.values.remap(v);
    rest_.set(k, v);
  }
}

// Numbers every (key, value) the carry writes (writes and appends, whatever
// the writer's status) and finds the version each register read saw:
// op_version_[o], PairMap::kEmpty for a read of the initial state or of a
// value no carry transaction wrote. check_round tells pending reads by it and
// forget builds its version graph on it: one hash probe per operation for
// both.
void Auditor::number_versions(uint64_t round) {
  const History& c = s_.carry;
  const OpIdx ops = c.op_count();
  versions_ = PairMap(count_writes(c) + 1);
  op_version_.assign(ops, PairMap::kEmpty);
  uint32_t nv = 0;
  constexpr OpIdx kAhead = 8;  // prefetch distance in operations
  for (OpIdx o = 0; o < ops; ++o) {
    if (o + kAhead < ops) versions_.prefetch(c.op_key[o + kAhead], c.op_value[o + kAhead]);
    if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) {
      uint32_t& id = versions_.at(c.op_key[o], c.op_value[o]);
      if (id == PairMap::kEmpty) id = nv++;
      op_version_[o] = id;
    }
  }
  unresolved_reads_ = 0;
  for (OpIdx o = 0; o < ops; ++o) {
    if (o + kAhead < ops) versions_.prefetch(c.op_key[o + kAhead], c.op_value[o + kAhead]);
    if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue) {
      op_version_[o] = versions_.find(c.op_key[o], c.op_value[o]);
      unresolved_reads_ += op_version_[o] == PairMap::kEmpty;
    } else if (c.op_kind[o] == OpKind::read_list) {
      ++unresolved_reads_;  // (its values are looked up by check_round)
    }
  }
  written_versions_ = nv;
  numbered_round_ = round;
}

// Checks carry (reads without a present writer left out) on the open levels.
void Auditor::check_round(uint64_t round, bool beside_forget) {
  History& c = s_.carry;
  size_t n = c.txn_count();
  CheckOptions co = opt_.check;
  co.levels = open_levels();
  checked_levels_ = co.levels;
  // Beside forget, the check starts before the versions are numbered (both
  // only read the carry): when the last checked round had no pending read it
  // is likely this one has none either, so the check is started now and kept
  // if so; otherwise it is waited for, dropped, and the stripped carry
  // checked below. (Read-modify-write logs never have pending reads.) Only
  // with 4 threads or more: on 2 cores the read-ahead thread holds the other
  // one, and the early start gained nothing (fenced 10^8 day log 120.8 s
  // with it, 114.8-119.3 s without).
  std::shared_ptr<std::future<CheckResult>> early;
  auto start_check = [&] {
    return std::make_shared<std::future<CheckResult>>(std::async(std::launch::async, [this, co] {
      Timer ct;
      CheckResult r = check(s_.carry, co);
      if (opt_.debug_timing)
        std::fprintf(stderr, "check beside forget: %.3f s, %zu txns, %zu ops\n", ct.seconds(),
                     static_cast<size_t>(s_.carry.txn_count()), static_cast<size_t>(s_.carry.op_count()));
      return r;
    }));
  };
  if (beside_forget && audit_threads() >= 4 && !co.levels.empty() && !last_round_pending_) early = start_check();
  number_versions(round);
  std::vector<uint8_t> keep_op;
  bool any_pending = false;
  if (unresolved_reads_ == 0) std::fill(s_.pending.begin(), s_.pending.end(), 0);  // (every read's writer is here)
  else keep_op.assign(c.op_count(), 1);
  for (TxnIdx t = 0; t < n && unresolved_reads_ > 0; ++t) {
    s_.pending[t] = 0;
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      bool missing = false;
      if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue)
        missing = op_version_[o] == PairMap::kEmpty;
      else if (c.op_kind[o] == OpKind::read_list)
        for (Sym v : c.list(o)) missing |= versions_.find(c.op_key[o], v) == PairMap::kEmpty;
      if (missing) {
        keep_op[o] = 0;
        if (!s_.checked_op[o]) s_.pending[t] = 1;
        any_pending = true;
      }
    }
  }
  last_round_pending_ = any_pending;
  if (co.levels.empty()) return;
  if (early && any_pending) {
    early->wait();  // (its result is of the unstripped carry: dropped)
    early.reset();
  }
  if (beside_forget && !any_pending) {
    auto result = early ? early : start_check();
    finish_check_ = [this, round, result] {
      CheckResult r = result->get();
      apply_check(round, s_.carry, r);
    };
    return;
  }
  History stripped;
  const History* h = &c;
  if (any_pending) {
    stripped.keys = std::move(c.keys);
    stripped.values = std::move(c.values);
    stripped.session_name = c.session_name;
    stripped.time_unit = c.time_unit;
    for (TxnIdx t = 0; t < n; ++t) {
      stripped.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
      for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
        if (!keep_op[o]) continue;
        if (c.op_kind[o] == OpKind::read_list) stripped.add_list_read(c.op_key[o], c.list(o));
        else stripped.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
      }
      stripped.end_txn();
    }
    h = &stripped;
  }
  CheckResult r;
  try {
    r = check(*h, co);
  } catch (...) {
    if (any_pending) {
      c.keys = std::move(stripped.keys);
      c.values = std::move(stripped.values);
    }
    throw;
  }
  apply_check(round, *h, r);
  if (any_pending) {
    c.keys = std::move(stripped.keys);
    c.values = std::move(stripped.values);
  }
}

// A round's check() result into the levels' verdicts and explanations (h:
// the history it checked).
void Auditor::apply_check(uint64_t round, const History& hist, CheckResult& r) {
  const History* h = &hist;
  auto& res = s_.result;
  if (!r.anomalies.empty()) {
    res.anomalies += r.anomalies.size();
    std::vector<std::string> lines;
    for (size_t i = 0; i < r.anomalies.size() && i < 5; ++i) lines.push_back(explain_anomaly(*h, r.anomalies[i]));
    for (auto& l : res.levels)
      if (l.verdict != "violated") {
        l.verdict = "violated";
        l.round = round;
        l.anomaly = to_string(r.anomalies[0].kind);
        l.explanation = lines;
      }
  }
  for (auto& lr : r.levels) {
    for (auto& l : res.levels) {
      if (l.level != lr.level || l.verdict == "violated") continue;
      if (!lr.decided) {
        l.verdict = "undecided";
        l.round = round;
        l.explanation = {lr.reason};
      } else if (!lr.holds) {
        l.verdict = "violated";
        l.round = round;
        l.explanation.clear();
        if (lr.witness) {
          l.anomaly = lr.witness->anomaly;
          for (size_t i = 0; i < lr.witness->cycle.size(); ++i) l.explanation.push_back(explain_edge(*h, lr.witness->cycle, i));
        }
      }
    }
  }
}

// ------------------------------------------------------- duplicate writes
// A value written twice to one key makes every level fail (check() reports
// it when both writers are in one sub-history). Across rounds the first
// writer may be forgotten, so every write's (key, value) fingerprint is kept
// (docs/audit.md, "Duplicate writes"). A write of this round whose
// fingerprint an earlier round wrote is a suspect: when a transaction still
// in memory wrote exactly that (key, value), check() sees both and reports
// it; otherwise the log before this round is re-read and keys and values are
// compared exactly. Only an exact match is reported: a fingerprint collision
// costs a re-read, never a false violation.
// Step 1, on the read-ahead thread (or before the first round): the round's
// write fingerprints, those an earlier round wrote (hits), then the round's
// own join the set. Touches only written_, the hash caches and the chunk
// (HDF5: hashes of the file's fixed tables, computed once in run(), so the
// carry's tables, which the main thread moves, are never read here).
Auditor::RoundFingerprints Auditor::fingerprint_round(const History& chunk) {
  RoundFingerprints f;
  f.fps.reserve(chunk.op_count());
  f.wops.reserve(chunk.op_count());
  if (reader_.hdf5()) {
    for (OpIdx o = 0; o < chunk.op_count(); ++o)
      if (chunk.op_kind[o] == OpKind::write || chunk.op_kind[o] == OpKind::append) {
        f.fps.push_back(pair_fingerprint(file_key_hashes_.get(chunk.op_key[o]), file_value_hashes_.get(chunk.op_value[o]),
                                         opt_.fingerprint_mask));
        f.wops.push_back(o);
      }
  } else {  // the chunk's own tables: new hashes per round
    SymHashCache key_hashes, value_hashes;
    for (OpIdx o = 0; o < chunk.op_count(); ++o)
      if (chunk.op_kind[o] == OpKind::write || chunk.op_kind[o] == OpKind::append) {
        f.fps.push_back(pair_fingerprint(key_hashes.get(chunk.keys, chunk.op_key[o]),
                                         value_hashes.get(chunk.values, chunk.op_value[o]), opt_.fingerprint_mask));
        f.wops.push_back(o);
      }
  }
  // Hits: fingerprints the set held before this round. Tested and inserted
  // in one probe (the set is gigabytes at 10^8 writes: every probe misses
  // the cache and the TLB). (Inserting before the suspects are settled
  // changes nothing: settling them reads the log and the carry, not the set.)
  constexpr size_t kAhead = 8;  // prefetch distance
  const std::vector<uint64_t>& fps = f.fps;
  std::vector<size_t> present;  // indices whose fingerprint the set held when inserted
  for (size_t i = 0; i < fps.size(); ++i) {
    if (i + kAhead < fps.size()) written_.prefetch(fps[i + kAhead]);
    if (written_.insert_was_present(fps[i])) present.push_back(i);
  }
  // A fingerprint present only because this round wrote it earlier (a
  // repeat within the round, which the round's check() reports) is a hit
  // exactly when its first occurrence in the round was. Rare: looked up
  // only when something was present.
  if (!present.empty()) {
    FlatMap64 first(fps.size());  // same_as(fp) -> first index in the round
    for (size_t i = 0; i < fps.size(); ++i) {
      bool ins;
      first.get_or_insert(FingerprintSet::same_as(fps[i]), i, ins);
    }
    std::vector<uint8_t> was(fps.size(), 0);
    for (size_t i : present) was[i] = 1;
    for (size_t i : present)
      if (was[*first.find(FingerprintSet::same_as(fps[i]))]) f.hits.push_back(i);
  }
  f.set_size = written_.size();
  f.set_bytes = written_.bytes();
  return f;
}

// Step 2, on the main thread when the round is checked: suspects settled.
void Auditor::check_duplicates(const History& chunk, const RoundFingerprints& f, uint64_t first_row, uint64_t round) {
  const std::vector<uint64_t>& fps = f.fps;
  const std::vector<OpIdx>& wops = f.wops;
  const std::vector<size_t>& hits = f.hits;
  const SymbolTable& ckeys = reader_.hdf5() ? s_.carry.keys : chunk.keys;
  const SymbolTable& cvalues = reader_.hdf5() ? s_.carry.values : chunk.values;
  if (!hits.empty() && !open_levels().empty()) {
    struct Suspect {
      uint64_t fp;
      OpIdx op;
      CanonSym key, value;
      bool in_memory = false, found = false;
      int64_t first_id = 0;
      uint64_t first_row = 0;
      TxnStatus first_status = TxnStatus::committed;
    };
    std::vector<Suspect> sus;
    std::unordered_map<uint64_t, std::vector<size_t>> by_fp;
    for (size_t i : hits) {
      OpIdx o = wops[i];
      sus.push_back({fps[i], o, canon_sym(ckeys, chunk.op_key[o]), canon_sym(cvalues, chunk.op_value[o])});
      by_fp[fps[i]].push_back(sus.size() - 1);
    }
    auto scan = [&](const History& h, const SymbolTable& keys, const SymbolTable& values, TxnIdx from,
                    auto&& on_match) {
      for (TxnIdx t = from; t < h.txn_count(); ++t)
        for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
          if (h.op_kind[o] != OpKind::write && h.op_kind[o] != OpKind::append) continue;
          auto it = by_fp.find(write_fingerprint(keys, values, h.op_key[o], h.op_value[o], opt_.fingerprint_mask));
          if (it == by_fp.end()) continue;
          CanonSym k = canon_sym(keys, h.op_key[o]), v = canon_sym(values, h.op_value[o]);
          for (size_t i : it->second)
            if (sus[i].key == k && sus[i].value == v) on_match(sus[i], h, t);
        }
    };
    // In memory (not the summary, whose writes are copies): check() will see both writers.
    scan(s_.carry, s_.carry.keys, s_.carry.values, s_.has_summary ? s_.summary_txns : 0,
         [](Suspect& x, const History&, TxnIdx) { x.in_memory = true; });
    bool reread = false;
    for (auto& x : sus) reread |= !x.in_memory;
    if (reread) {
      ++s_.result.duplicate_rereads;
      say("round " + std::to_string(round) + ": " + std::to_string(sus.size()) +
          " written (key, value) fingerprint(s) seen before; re-reading the log to compare exactly");
      LogReader rr(path_, opt_.format);
      uint64_t row = 0;
      while (row < first_row) {
        History h = rr.next(std::min<uint64_t>(opt_.round_txns, first_row - row));
        if (h.txn_count() == 0) break;
        scan(h, rr.key_table(h), rr.value_table(h), 0, [&](Suspect& x, const History& hh, TxnIdx t) {
          if (x.in_memory || x.found) return;
          x.found = true;
          x.first_id = hh.txn_id[t];
          x.first_row = row + t;
          x.first_status = hh.txn_status[t];
        });
        row += h.txn_count();
      }
    }
    std::vector<std::string> lines;
    uint64_t confirmed = 0;
    for (auto& x : sus) {
      if (!x.found) continue;
      ++confirmed;
      if (lines.size() >= 5) continue;
      TxnIdx t = static_cast<TxnIdx>(std::upper_bound(chunk.txn_op_offset.begin(), chunk.txn_op_offset.end(), x.op) -
                                     chunk.txn_op_offset.begin() - 1);
      auto status = [](TxnStatus st) {
        return st == TxnStatus::aborted ? " (aborted)" : st == TxnStatus::unknown ? " (unknown status)" : "";
      };
      lines.push_back("T" + std::to_string(chunk.txn_id[t]) + status(chunk.txn_status[t]) + " (transaction " +
                      std::to_string(first_row + t + 1) + " of the log) wrote " + canon_text(x.key) + "=" +
                      canon_text(x.value) + ", a value T" + std::to_string(x.first_id) + status(x.first_status) +
                      " (transaction " + std::to_string(x.first_row + 1) +
                      ", no longer in memory) also wrote: written values must be unique per key");
    }
    if (confirmed) {
      auto& res = s_.result;
      res.anomalies += confirmed;
      for (auto& l : res.levels)
        if (l.verdict != "violated") {
          l.verdict = "violated";
          l.round = round;
          l.anomaly = "duplicate write";
          l.explanation = lines;
        }
    }
  }
  s_.result.fingerprints = f.set_size;
  s_.result.fingerprint_bytes = f.set_bytes;
}

// After a resumption: the fingerprints of every write before the checkpoint
// (not in the checkpoint, which would then grow with the log; one re-read).
void Auditor::rebuild_fingerprints(uint64_t rows) {
  written_.clear();
  LogReader rr(path_, opt_.format);
  uint64_t row = 0;
  while (row < rows) {
    History h = rr.next(std::min<uint64_t>(opt_.round_txns, rows - row));
    if (h.txn_count() == 0) break;
    const SymbolTable &keys = rr.key_table(h), &values = rr.value_table(h);
    for (OpIdx o = 0; o < h.op_count(); ++o)
      if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append)
        written_.insert(write_fingerprint(keys, values, h.op_key[o], h.op_value[o], opt_.fingerprint_mask));
    row += h.txn_count();
  }
  // The rest of the log at the same rate (the checkpoint does not hold pass
  // 1's count): room for it now, as a run from the start has.
  if (row > 0 && s_.total_txns > row)
    written_.reserve(static_cast<uint64_t>(static_cast<double>(written_.size()) * s_.total_txns / row));
}

// ------------------------------------------------------------ forgetting
// Whether later rounds can read, for every (key, value) in `chosen`, that
// version as the last frozen write of its key: the frozen transactions
// (`frozen`) checked alone, with one reader per pair added, each in a session
// of its own and certainly after every frozen transaction, as every later
// transaction is: it begins after every frozen one ended (time rule: real
// time) and, under the fence rule, first reads the fence value m (after the
// chain that every frozen transaction precedes; the fences up to m join the
// check). A passing
// check has an order of the frozen transactions with every chosen writer last
// among the frozen writes of its key (docs/audit.md, "Ambiguous
// frontiers"). Only the frozen ones: the kept ones would order the readers
// after more than a later transaction must follow. (Runs beside a check of
// the carry: only reads it.)
bool Auditor::later_read_possible(const std::vector<std::pair<Sym, Sym>>& chosen, const std::vector<uint8_t>& frozen,
                                  int64_t m) {
  const std::vector<Level> levels = checked_levels_;
  const History& c = s_.carry;
  const bool fence = s_.rule == ForgetRule::fence;
  if (levels.empty()) return false;
  History h;  // the frozen transactions, without the tables (check() needs them only for words)
  h.session_name = c.session_name;
  h.time_unit = c.time_unit;
  bool timed = true;
  int64_t last_end = kNegInf, id = kNegInf, fence_value = kNegInf, latest_next_fence = kNegInf;
  Sym fence_sym = kNullValue;
  for (size_t t = 0; t < c.txn_count(); ++t) {
    // Fence rule: with the frozen transactions, every committed fence up to
    // m (kept ones too: they only read and write the fence key), so that the
    // chain from each frozen transaction's next fence to m is whole. (Fences
    // past m are left out: a reader of m's value would precede them.)
    const bool chain = fence && s_.pf[t] == s_.nf[t] && s_.nf[t] <= m && c.txn_status[t] == TxnStatus::committed;
    if (!frozen[t] && !chain) continue;
    const TxnIdx x = static_cast<TxnIdx>(t);
    if (c.txn_status[t] == TxnStatus::committed) timed &= c.has_times(x);
    if (c.has_times(x)) last_end = std::max(last_end, c.txn_end[t]);
    id = std::max(id, c.txn_id[t]);
    if (fence) {
      latest_next_fence = std::max(latest_next_fence, s_.nf[t]);
      if (s_.pf[t] == s_.nf[t] && s_.nf[t] > fence_value && c.txn_status[t] == TxnStatus::committed)
        for (OpIdx o = c.op_begin(x); o < c.op_end(x); ++o)
          if (c.op_kind[o] == OpKind::write && c.op_key[o] == fence_sym_) fence_value = s_.nf[t], fence_sym = c.op_value[o];
    }
    h.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(x); o < c.op_end(x); ++o)
      if (c.op_kind[o] == OpKind::read_list) h.add_list_read(c.op_key[o], c.list(o));
      else h.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
    h.end_txn();
  }
  // (fence rule: a frozen transaction whose next fence is past the largest
  // frozen one would not be certainly before the readers)
  if (fence && (fence_value == kNegInf || latest_next_fence > fence_value)) {
    if (opt_.debug_timing)
      std::fprintf(stderr, "later-read check: not run (largest frozen fence %lld, a frozen next fence %lld)\n",
                   (long long)fence_value, (long long)latest_next_fence);
    return false;
  }
  const int64_t skew = opt_.check.clock_skew, n = static_cast<int64_t>(chosen.size());
  if (timed && (last_end == kNegInf || last_end > kPosInf / 2 - skew)) return false;
  const int64_t begin = timed ? last_end + skew + 1 : kNoTime, end = timed ? kPosInf - 1 : kNoTime;
  int64_t session = *std::max_element(c.session_name.begin(), c.session_name.end());
  if (id > kPosInf - 1 - n || session > kPosInf - 1 - n) return false;
  for (auto [key, value] : chosen) {
    h.session_name.push_back(++session);
    h.begin_txn(++id, static_cast<uint32_t>(h.session_name.size() - 1), TxnStatus::committed, begin, end);
    if (fence) h.add_op(OpKind::read, fence_sym_, fence_sym);
    h.add_op(OpKind::read, key, value);
    h.end_txn();
  }
  CheckOptions co = opt_.check;
  co.levels = levels;
  Timer ct;
  CheckResult r = check(h, co);
  bool holds = r.anomalies.empty();
  for (auto& lr : r.levels) holds = holds && lr.decided && lr.holds;
  if (opt_.debug_timing)
    std::fprintf(stderr, "later-read check: %zu frozen, %zu readers, %.3f s, %s\n", static_cast<size_t>(h.txn_count()),
                 chosen.size(), ct.seconds(), holds ? "possible" : "not possible: writers kept");
  return holds;
}

// Marks the frozen transactions (docs/audit.md), builds the new summary from
// their frontier writes, and drops them (and every aborted transaction).
void Auditor::forget(uint64_t round, RoundStat& st) {
  Timer ph_timer;
  std::string ph_log;
  auto phase = [&](const char* name) { if (opt_.debug_timing) { char b[64]; std::snprintf(b, sizeof b, " %s=%.3f", name, ph_timer.seconds()); ph_log += b; } };
  History& c = s_.carry;
  const size_t n = c.txn_count();
  const uint32_t old_pieces = s_.has_summary ? s_.summary_txns : 0;  // the summary: carry txns [0, old_pieces)
  // Steps split over threads (results put together in order, so the same
  // as one thread), when there is enough to split.
  const unsigned threads = audit_threads();
  constexpr size_t kParallelTxns = 1 << 14;
  // f(op, rmw_of_initial) for each write of summary piece t: every key once,
  // as "r k null, w k v" (rmw_of_initial) or "w k v" (see the summary below).
  // Pieces [0, unindexed) get no touches (see below); tests index them all
  // like any transaction (the general pass) and compare.
  const uint32_t unindexed = opt_.index_summary ? 0 : old_pieces;
  auto summary_writes = [&](uint32_t t, auto&& f) {
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write)
        f(o, o > c.op_begin(t) && c.op_kind[o - 1] == OpKind::read && c.op_key[o - 1] == c.op_key[o] &&
                 c.op_value[o - 1] == kNullValue);
  };
  const bool fence = s_.rule == ForgetRule::fence;
  const int64_t skew = opt_.check.clock_skew;
  bool rt_edges = false;
  for (Level l : opt_.check.levels) rt_edges |= l == Level::sser;
  // Candidates: ordered before every transaction of future rounds.
  int64_t m = kNegInf;
  std::vector<uint8_t> cand(n, 0);
  if (fence) {
    int64_t M = future_min_pf(round);
    for (size_t t = 0; t < n; ++t)
      // strictly below M: every later transaction then has a fence after the
      // summary's fence before it in its session (docs/audit.md)
      if (s_.pf[t] == s_.nf[t] && s_.nf[t] != kPosInf && s_.nf[t] < M && c.txn_status[t] == TxnStatus::committed)
        m = std::max(m, s_.nf[t]);  // fences (and the summary) have pf == nf
    if (m == kNegInf) return;
    for (size_t t = 0; t < n; ++t) cand[t] = s_.nf[t] <= m;
    // --time-order (a level other than sser): a later writer that ended
    // before a candidate writer began precedes it in every key they share,
    // and the fence chain puts the candidate first: the summary would lose
    // that cycle. A writer that began after the least end of a later writer
    // (+ skew, in 128 bits) is therefore no candidate (docs/audit.md, "The
    // fence rule with --time-order").
    if (fence_time_order()) {
      const __int128 E = static_cast<__int128>(future_min_write_end(round)) + skew;
      for (size_t t = 0; t < n; ++t) {
        if (!cand[t] || !c.has_times(static_cast<TxnIdx>(t)) || !(E < c.txn_begin[t])) continue;
        for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
          if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) {
            cand[t] = 0;
            break;
          }
      }
    }
  } else {
    int64_t B = future_min_begin(round);
    for (size_t t = 0; t < n; ++t)
      // end + skew < B in 128 bits, as check() compares (B - skew overflows
      // when B is near the smallest time)
      cand[t] = c.has_times(static_cast<TxnIdx>(t)) &&
                (B == kPosInf || static_cast<__int128>(c.txn_end[t]) + skew < static_cast<__int128>(B));
  }
  phase("touches");
  // Per transaction and key: versions read, the version installed, blindness.
  struct Touch {
    Sym key;
    Sym read_v;     // first read before any write (when has_read)
    Sym write_v;    // final write (when has_write)
    bool blind;     // wrote without reading first
    bool list;
    // (flags, not a reserved symbol: in an integer-mode table every 64-bit
    // pattern is some integer's symbol)
    bool has_read = false, has_write = false;
    uint32_t slot = ~0u;  // blind (or list) key's slot (set with the blind keys), ~0u: none
    uint32_t wver = ~0u;  // version id of write_v (set with the versions)
    uint32_t read_at = 0; // reads[] index of the read of read_v
    OpIdx write_op = 0;   // the op of write_v
  };
  constexpr Sym kNo = ~0ULL - 1;  // (fence_kv below: unset; fence keys are named symbols)
  std::vector<uint64_t> touch_off(n + 1, 0);
  std::vector<Touch> touches;
  std::vector<uint8_t> root(n, 0), aborted(n, 0);
  std::vector<uint64_t> reads_off(n + 1, 0);
  std::vector<std::pair<Sym, Sym>> reads;  // every (key, value) read per txn
  std::vector<OpIdx> read_op;              // the op of each
  FlatMap64 touch_of(256);                 // key -> touch index, in large transactions
  // (at most one touch and one read per operation: no regrowth, no copies)
  touches.reserve(c.op_count());
  reads.reserve(c.op_count());
  read_op.reserve(c.op_count());
  for (size_t t = 0; t < n; ++t) {
    touch_off[t] = touches.size();
    reads_off[t] = reads.size();
    if (c.txn_status[t] == TxnStatus::aborted) {
      aborted[t] = 1;
      continue;
    }
    if (c.txn_status[t] == TxnStatus::unknown || s_.pending[t] || !cand[t]) root[t] = 1;
    // The old summary's pieces get no touches: an edge out of a piece
    // matters only when the piece is unfrozen, and then nothing is
    // forgotten at all; the edges into a piece are session order, real time
    // and "a read of the initial state precedes every writer" (visited from
    // the ops below); their final writes enter the frontier from the ops
    // (summary_writes). So 2 of every ~4 operations of a round at 10^6
    // keys are not indexed.
    if (t < unindexed) continue;
    size_t first = touches.size();
    // Large transactions (the summary pieces: 128 keys) look their keys up
    // in a table; small ones scan their few touches.
    const bool large = c.op_end(t) - c.op_begin(t) > 16;
    if (large) touch_of = FlatMap64(256);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      Sym k = c.op_key[o];
      Touch* tp = nullptr;
      if (touches.size() > first && touches.back().key == k) {
        tp = &touches.back();  // a read-modify-write: the same key as the op before
      } else if (large && k != FlatMap64::kEmpty) {
        bool ins;
        uint64_t& i = touch_of.get_or_insert(k, touches.size(), ins);
        if (!ins) tp = &touches[i];
      } else {
        for (size_t i = first; i < touches.size(); ++i)
          if (touches[i].key == k) tp = &touches[i];
      }
      if (!tp) {
        touches.push_back({k, 0, 0, false, false});
        tp = &touches.back();
      }
      switch (c.op_kind[o]) {
        case OpKind::read:
          if (!tp->has_write && !tp->has_read) {
            tp->has_read = true;
            tp->read_v = c.op_value[o];
            tp->read_at = static_cast<uint32_t>(reads.size());
          }
          if (!tp->has_write) {
            reads.push_back({k, c.op_value[o]});
            read_op.push_back(o);
          }
          break;
        case OpKind::write:
          if (!tp->has_read && !tp->has_write) tp->blind = true;
          tp->has_write = true;
          tp->write_v = c.op_value[o];
          tp->write_op = o;
          break;
        case OpKind::append:
        case OpKind::read_list:
          tp->list = true;
          root[t] = 1;  // list keys: never forgotten (docs/audit.md)
          break;
      }
    }
  }
  touch_off[n] = touches.size();
  reads_off[n] = reads.size();
  phase("versions");
  // Versions: (key, value) -> id; writer, readers, read-modify-write successors.
  // Written ones as check_round numbered them; the initial state and values
  // no carry transaction wrote get ids after those.
  if (numbered_round_ != round || op_version_.size() != c.op_count()) number_versions(round);
  uint32_t nv = written_versions_;
  size_t unwritten = 0;
  for (OpIdx o : read_op) unwritten += op_version_[o] == PairMap::kEmpty;
  PairMap vid(unwritten + 1);
  auto read_version = [&](size_t i) -> uint32_t {
    uint32_t id = op_version_[read_op[i]];
    if (id != PairMap::kEmpty) return id;
    uint32_t& x = vid.at(reads[i].first, reads[i].second);
    if (x == PairMap::kEmpty) x = nv++;
    return x;
  };
  std::vector<uint32_t> rver(reads.size());         // version id of each read
  std::vector<std::pair<uint32_t, uint32_t>> rd, sc;  // (version, reader) / (version, successor)
  rd.reserve(reads.size());
  sc.reserve(reads.size());
  FlatMap64 key_blind(1024);  // blind (or list) keys -> their slot (numbered below)
  for (size_t t = 0; t < n; ++t) {
    if (aborted[t]) continue;
    for (uint64_t i = reads_off[t]; i < reads_off[t + 1]; ++i) {
      uint32_t v = read_version(i);
      rver[i] = v;
      rd.push_back({v, static_cast<uint32_t>(t)});
    }
    for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i) {
      Touch& tc = touches[i];
      if (tc.has_write) {
        tc.wver = op_version_[tc.write_op];
        // (the first read of the key, before the write: its version is known)
        if (tc.has_read) sc.push_back({rver[tc.read_at], static_cast<uint32_t>(t)});
      }
      // The summary's writes are blind only in form: every retained or later
      // transaction was already certainly after the forgotten ones (docs/audit.md).
      if ((tc.blind || tc.list) && !(t < old_pieces)) {
        bool ins;
        key_blind.get_or_insert(tc.key, 1, ins);
      }
    }
  }
  phase("csr");
  // Counting sort by version (stable: destinations stay in transaction
  // order), adjacent repeats dropped.
  auto csr = [&](std::vector<std::pair<uint32_t, uint32_t>>& e, std::vector<uint32_t>& off, std::vector<uint32_t>& dst) {
    off.assign(nv + 2, 0);
    for (auto& p : e) ++off[p.first + 2];
    for (uint32_t i = 0; i < nv; ++i) off[i + 2] += off[i + 1];
    dst.resize(e.size());
    for (auto& p : e) dst[off[p.first + 1]++] = p.second;
    off.pop_back();  // off[v] .. off[v+1]: destinations of v
    std::vector<uint32_t> noff(nv + 1, 0);
    size_t k = 0;
    for (uint32_t v = 0; v < nv; ++v) {
      noff[v] = static_cast<uint32_t>(k);
      for (uint32_t j = off[v]; j < off[v + 1]; ++j)
        if (j == off[v] || dst[j] != dst[j - 1]) dst[k++] = dst[j];
    }
    noff[nv] = static_cast<uint32_t>(k);
    dst.resize(k);
    off = std::move(noff);
    e.clear();
  };
  std::vector<uint32_t> rd_off, rd_dst, sc_off, sc_dst;
  csr(rd, rd_off, rd_dst);
  csr(sc, sc_off, sc_dst);
  phase("blind");
  // Blind (or list) keys: their writers sorted by how late they can be
  // "before" others. Only writers: an edge on key k into a transaction that
  // only reads k is a read-from edge, which is certain (from the writer of
  // the version read, followed below); write-write and anti-dependency edges
  // end at a writer of k. (List keys: their touchers are roots anyway.)
  // One slot per key, its writers as (ord, txn) in one flat array by slot.
  // order value: a precedes b when ord(a) <= lim(b)  (fence: nf <= pf; time: end + skew < begin)
  auto ord = [&](uint32_t t) -> int64_t {
    if (fence) return s_.nf[t];
    return c.has_times(t) ? c.txn_end[t] : kPosInf;
  };
  auto lim = [&](uint32_t u) -> int64_t {  // largest ord(t) with t before u
    if (fence) return s_.pf[u];
    if (!c.has_times(u)) return kNegInf;
    // begin - skew - 1 in 128 bits; below the smallest time nothing is
    // before u (every end is above kNegInf, the "no time" marker)
    const __int128 l = static_cast<__int128>(c.txn_begin[u]) - skew - 1;
    return l < kNegInf ? kNegInf : static_cast<int64_t>(l);
  };
  const bool any_blind = key_blind.size() > 0;  // (read-modify-write logs: none)
  std::vector<uint32_t> slot_off, slot_done;           // slot s: slot_w[slot_off[s], slot_off[s+1])
  std::vector<std::pair<int64_t, uint32_t>> slot_w;    // (ord, writer), ascending per slot
  // Per slot: writers past `done` that a reader skipped (the writer of the
  // version it read) and later readers must still consider.
  std::vector<std::vector<uint32_t>> slot_skipped;
  std::vector<uint32_t> writer_of;                     // version -> its writer (blind keys present)
  constexpr uint32_t kTwoWriters = ~0u - 1;
  if (any_blind) {
    uint32_t nslots = 0;
    std::vector<Sym> ks;
    ks.reserve(key_blind.size());
    key_blind.for_each([&](uint64_t k, uint64_t) { ks.push_back(k); });
    for (Sym k : ks) *key_blind.find(k) = nslots++;
    slot_off.assign(nslots + 2, 0);
    for (size_t t = unindexed; t < n; ++t)
      for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i) {
        Touch& tc = touches[i];
        const uint64_t* p = key_blind.find(tc.key);
        tc.slot = p ? static_cast<uint32_t>(*p) : ~0u;
        if (tc.slot != ~0u && tc.has_write && t >= old_pieces) ++slot_off[tc.slot + 2];
      }
    for (uint32_t k = 0; k < nslots; ++k) slot_off[k + 2] += slot_off[k + 1];
    slot_w.resize(slot_off[nslots + 1]);
    for (size_t t = std::max<size_t>(old_pieces, unindexed); t < n; ++t)
      for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
        if (const Touch& tc = touches[i]; tc.slot != ~0u && tc.has_write)
          slot_w[slot_off[tc.slot + 1]++] = {ord(static_cast<uint32_t>(t)), static_cast<uint32_t>(t)};
    slot_off.pop_back();  // slot_off[k] .. slot_off[k+1]: slot k's writers
    for (uint32_t k = 0; k < nslots; ++k) std::sort(slot_w.begin() + slot_off[k], slot_w.begin() + slot_off[k + 1]);
    slot_done.assign(slot_off.begin() + 1, slot_off.end());
    slot_skipped.resize(nslots);
    // The writer of each written version (~0u: two writers, a duplicate
    // write, which fails every level anyway).
    writer_of.assign(written_versions_, ~0u);
    for (size_t t = 0; t < n; ++t)
      for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
        if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append)
          if (uint32_t v = op_version_[o]; v < writer_of.size()) {
            uint32_t& w = writer_of[v];
            w = w == ~0u || w == static_cast<uint32_t>(t) ? static_cast<uint32_t>(t) : kTwoWriters;
          }
    for (uint32_t& w : writer_of)
      if (w == kTwoWriters) w = ~0u;
  }
  // Real-time successors (sser): sorted by begin.
  std::vector<uint32_t> by_begin;
  size_t rt_done = 0;
  if (rt_edges) {
    // (begin, txn) pairs: the sort compares contiguous data, not through an
    // index; order among equal begins is irrelevant (visited together)
    std::vector<std::pair<int64_t, uint32_t>> bt;
    for (size_t t = 0; t < n; ++t)
      if (!aborted[t] && c.has_times(static_cast<TxnIdx>(t))) bt.push_back({c.txn_begin[t], static_cast<uint32_t>(t)});
    if (!std::is_sorted(bt.begin(), bt.end())) std::sort(bt.begin(), bt.end());
    by_begin.reserve(bt.size());
    for (auto& p : bt) by_begin.push_back(p.second);
    rt_done = by_begin.size();
  }
  // --time-order without sser's real time (which has these edges and more):
  // a timed writer u precedes every timed writer t of a key u writes with
  // end(u) + skew < begin(t), a certain edge. Per key, its timed writers by
  // begin (t >= old_pieces: the summary's pieces, like every frozen
  // transaction, began no later than any kept or later writer ended plus
  // the skew, docs/audit.md); each is visited once, from the top.
  const bool tw_edges = opt_.check.time_order && !rt_edges;
  FlatMap64 tw_slot(tw_edges ? 1024 : 0);
  std::vector<uint32_t> tw_off, tw_done;             // slot k: tw_w[tw_off[k], tw_done[k]) not visited yet
  std::vector<std::pair<int64_t, uint32_t>> tw_w;    // (begin, writer), ascending per slot
  if (tw_edges) {
    auto timed_writes = [&](auto&& f) {
      for (size_t t = std::max<size_t>(old_pieces, unindexed); t < n; ++t)
        if (!aborted[t] && c.has_times(static_cast<TxnIdx>(t)))
          for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
            if (touches[i].has_write) f(static_cast<uint32_t>(t), touches[i].key);
    };
    std::vector<uint32_t> count;
    timed_writes([&](uint32_t, Sym k) {
      bool ins;
      uint64_t& slot = tw_slot.get_or_insert(k, count.size(), ins);
      if (ins) count.push_back(0);
      ++count[slot];
    });
    tw_off.assign(count.size() + 1, 0);
    for (size_t k = 0; k < count.size(); ++k) tw_off[k + 1] = tw_off[k] + count[k];
    tw_done.assign(tw_off.begin(), tw_off.end() - 1);  // (fill position first)
    tw_w.resize(tw_off.back());
    timed_writes([&](uint32_t t, Sym k) { tw_w[tw_done[*tw_slot.find(k)]++] = {c.txn_begin[t], t}; });
    for (size_t k = 0; k < count.size(); ++k) std::sort(tw_w.begin() + tw_off[k], tw_w.begin() + tw_off[k + 1]);
  }
  phase("session");
  // Session successors.
  std::vector<uint32_t> next_in_session(n, ~0u), last_in(c.session_count(), ~0u);
  for (size_t t = n; t-- > 0;) {
    uint32_t s = c.txn_session[t];
    next_in_session[t] = last_in[s];
    last_in[s] = static_cast<uint32_t>(t);
  }
  // Propagate "unfrozen" along every edge that may exist, from the roots
  // (transactions that can still gain an incoming edge). With ser/sser the
  // dependency graph of a valid history is acyclic, so a root u never reaches
  // a transaction certainly before u: each node carries the least lim() of
  // the roots reaching it (its label) and is entered only when not certainly
  // before that root. With si (cycles with two adjacent anti-dependencies are
  // allowed) no such pruning: labels are -inf. docs/audit.md.
  // Pruning by labels is unsound when a "maybe" edge is in fact certain (a
  // read of a version older than a blind write certainly ordered after it):
  // the kept reader would have a certain edge into a forgotten transaction.
  // Kept off; the per-edge test (not certainly before u) stays.
  constexpr bool prune = false;
  std::vector<uint8_t> unfrozen(n, 0), extra_root(n, 0);
  std::vector<int64_t> label(n, kPosInf);
  using Item = std::pair<int64_t, uint32_t>;
  // Without pruning every label is -inf: a plain stack (a heap ordered by
  // label is what pruning would need).
  static_assert(!prune);
  std::vector<Item> heap;
  // `maybe`: an edge that exists only for some version orders; pruned by the
  // label. Certain edges always propagate: no kept transaction may have a
  // certain edge into a forgotten one (the summary merges them).
  auto visit = [&](uint32_t t, int64_t L, bool maybe) {
    if (t == ~0u || aborted[t]) return;
    if (maybe && ord(t) <= L) return;
    if (L < label[t]) {
      label[t] = L;
      unfrozen[t] = 1;
      heap.push_back({L, t});
    }
  };
  // key -> (its writers, done)
  // A read of the initial state by an unfrozen transaction unfreezes every
  // writer of the key. The writers are looked up only for such keys (few:
  // only unfrozen readers ask), a batch of keys per pass over the touches,
  // not listed for every key some transaction read as null. With pruning off
  // every label is -inf, so when a writer is visited does not matter.
  // The old summary's reads of the initial state are left out: when the
  // summary is unfrozen nothing is forgotten, whatever else it reaches.
  FlatMap64 null_asked(64);
  bool minus_one_asked = false;  // the key ~0 (integer -1), which FlatMap64 cannot hold
  std::vector<Sym> wanted;
  auto ask_writers = [&](Sym k) {
    bool ins = false;
    if (k == FlatMap64::kEmpty) ins = !minus_one_asked, minus_one_asked = true;
    else null_asked.get_or_insert(k, 0, ins);
    if (ins) wanted.push_back(k);
  };
  auto visit_wanted_writers = [&] {
    FlatMap64 want(wanted.size());
    bool minus_one = false;
    for (Sym k : wanted) {
      bool ins;
      if (k == FlatMap64::kEmpty) minus_one = true;
      else want.get_or_insert(k, 0, ins);
    }
    wanted.clear();
    auto wanted_key = [&](Sym k) { return k == FlatMap64::kEmpty ? minus_one : want.find(k) != nullptr; };
    for (uint32_t t = 0; t < unindexed; ++t)  // (pieces: committed, no touches)
      summary_writes(t, [&](OpIdx o, bool) {
        if (wanted_key(c.op_key[o])) visit(t, kNegInf, false);
      });
    for (size_t t = unindexed; t < n; ++t) {
      if (aborted[t]) continue;
      for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
        if (const Touch& tc = touches[i]; tc.has_write && wanted_key(tc.key))
          visit(static_cast<uint32_t>(t), kNegInf, false);
    }
  };
  // Incremental: the frontier loop below only adds roots, and with pruning
  // off what a call unfroze (and the slots, real-time ranges and keys it
  // followed) stays valid, so a later call goes on from there: the closure
  // is the same as from scratch.
  auto propagate = [&] {
    for (size_t t = 0; t < n; ++t)
      if (root[t] || extra_root[t]) visit(static_cast<uint32_t>(t), prune ? lim(static_cast<uint32_t>(t)) : kNegInf, false);
    while (!heap.empty() || !wanted.empty()) {
      if (heap.empty()) {
        visit_wanted_writers();
        continue;
      }
      auto [L, u] = heap.back();
      heap.pop_back();
      if (L != label[u]) continue;  // stale
      visit(next_in_session[u], L, false);  // certain
      for (uint64_t i = touch_off[u]; i < touch_off[u + 1]; ++i) {
        const Touch& tc = touches[i];
        if (tc.has_write) {
          uint32_t v = tc.wver;
          for (uint32_t j = rd_off[v]; j < rd_off[v + 1]; ++j) visit(rd_dst[j], L, false);
          for (uint32_t j = sc_off[v]; j < sc_off[v + 1]; ++j) visit(sc_dst[j], L, false);
        }
      }
      if (any_blind)
        for (uint64_t i = reads_off[u]; i < reads_off[u + 1]; ++i) {
          // maybe-edges u -> t: u read a version of a blind key, and any writer
          // t of the key not certainly before u may follow that version and
          // u (an anti-dependency), except the version's own writer
          const uint64_t* slot = key_blind.find(reads[i].first);
          if (!slot) continue;
          const uint32_t v = rver[i];
          const uint32_t skip = v < writer_of.size() ? writer_of[v] : ~0u;
          const int64_t thr = std::max(lim(u), L);
          std::vector<uint32_t>& sk = slot_skipped[*slot];
          for (size_t j = 0; j < sk.size();)
            if (sk[j] != skip && ord(sk[j]) > thr) {
              visit(sk[j], L, true);
              sk[j] = sk.back();
              sk.pop_back();
            } else {
              ++j;
            }
          uint32_t& done = slot_done[*slot];
          const uint32_t first = slot_off[*slot];
          if (done > first && slot_w[done - 1].first > thr) {
            uint32_t lo = static_cast<uint32_t>(
                std::upper_bound(slot_w.begin() + first, slot_w.begin() + done, thr,
                                 [](int64_t x, const std::pair<int64_t, uint32_t>& e) { return x < e.first; }) -
                slot_w.begin());
            for (uint32_t j = lo; j < done; ++j)
              if (slot_w[j].second == skip) sk.push_back(skip);
              else visit(slot_w[j].second, L, true);  // maybe
            done = lo;
          }
        }
      for (uint64_t i = reads_off[u]; i < reads_off[u + 1]; ++i) {
        uint32_t v = rver[i];
        for (uint32_t j = sc_off[v]; j < sc_off[v + 1]; ++j) visit(sc_dst[j], L, false);
        // a read of the initial state precedes every write of the key: certain
        if (reads[i].second == kNullValue && u >= old_pieces) ask_writers(reads[i].first);
      }
      if (rt_edges && c.has_times(u)) {
        // end + skew, saturated: past the largest time nothing begins after it
        const __int128 e128 = static_cast<__int128>(c.txn_end[u]) + skew;
        const int64_t e = e128 > kPosInf ? kPosInf : static_cast<int64_t>(e128);
        size_t lo = std::upper_bound(by_begin.begin(), by_begin.end(), e,
                                     [&](int64_t x, uint32_t t) { return x < c.txn_begin[t]; }) - by_begin.begin();
        for (size_t j = lo; j < rt_done; ++j) visit(by_begin[j], L, false);
        rt_done = std::min(rt_done, lo);
      }
      if (tw_edges && u >= old_pieces && c.has_times(u)) {
        const __int128 e128 = static_cast<__int128>(c.txn_end[u]) + skew;
        const int64_t e = e128 > kPosInf ? kPosInf : static_cast<int64_t>(e128);
        for (uint64_t i = touch_off[u]; i < touch_off[u + 1]; ++i) {
          if (!touches[i].has_write) continue;
          const uint64_t* slot = tw_slot.find(touches[i].key);
          if (!slot) continue;
          uint32_t& done = tw_done[*slot];
          const uint32_t lo = static_cast<uint32_t>(
              std::upper_bound(tw_w.begin() + tw_off[*slot], tw_w.begin() + done, e,
                               [](int64_t x, const std::pair<int64_t, uint32_t>& w) { return x < w.first; }) -
              tw_w.begin());
          for (uint32_t j = lo; j < done; ++j) visit(tw_w[j].second, L, false);
          done = std::min(done, lo);
        }
      }
    }
  };
  // Too little to gain (the frontier below only keeps more): leave it all,
  // and the caller defers the next attempt (blind-write logs).
  // Only the aborted transactions are dropped then, as when the old summary
  // is unfrozen (so indexing the summary's pieces or not still ends alike).
  bool gave_up = false;
  auto too_little = [&] {
    size_t gain = 0;
    for (size_t t = 0; t < n; ++t) gain += !unfrozen[t] || aborted[t];
    if (gain * 16 >= n) return false;
    phase("gave_up");
    return gave_up = true;
  };
  phase("propagate");
  propagate();
  too_little();
  // Frontier: per key, the frozen final writes not certainly overwritten by
  // another frozen write (certain order, or a frozen read-modify-write
  // successor). Two or more: ambiguous -> keep them (and what they reach), repeat.
  // A frozen final write: its key, write, writer and version. 24 bytes: the
  // value, ord and lim are looked up through op and txn (the sort by key
  // below moves every record twice; a 56-byte record with them copied in
  // cost more to move than the lookups do).
  struct FinalWrite {
    Sym key;
    OpIdx op;       // the write (ops grow with the transaction)
    uint32_t txn;
    uint32_t wver;  // version written
  };
  // The old summary's read-modify-write of the initial state: "r k null,
  // w k v" in a piece (a piece's other writes are blind).
  auto first_version = [&](const FinalWrite& f) {
    const OpIdx o = f.op;
    return f.txn < old_pieces && o > c.op_begin(f.txn) && c.op_kind[o - 1] == OpKind::read &&
           c.op_key[o - 1] == f.key && c.op_value[o - 1] == kNullValue;
  };
  std::vector<FinalWrite> frontier;
  // Ambiguous frontiers settled by later reads (an index built: docs/audit.md
  // "Ambiguous frontiers"). Settling by a read of one version needs a check
  // of the frozen transactions (never a pending reader: those are roots); if
  // that check fails, this round keeps such writers.
  const bool settle = later_reads_.built();
  bool settle_one = settle;
  size_t settled = 0;
  // final writes of frozen transactions; only they can overwrite (a later read
  // of a version a frozen transaction certainly overwrote is then a violation)
  std::vector<FinalWrite> fw;
  bool fw_built = false;
  while (!gave_up) {
  if (fw_built) {
    // Later passes: the writers the last propagation unfroze drop out; the
    // rest keeps its order, the same list as collecting and sorting again.
    std::erase_if(fw, [&](const FinalWrite& f) { return unfrozen[f.txn] != 0; });
  } else {
  fw_built = true;
  // (Collected on threads over ranges of transactions, concatenated in
  // order: the same list as one pass.)
  {
    const size_t parts = n >= kParallelTxns ? threads : 1;
    std::vector<std::vector<FinalWrite>> part(parts);
    parallel_pieces(parts, threads, [&](uint64_t p) {
      std::vector<FinalWrite>& out = p == 0 ? fw : part[p];
      const size_t t0 = n * p / parts, t1 = n * (p + 1) / parts;
      size_t most = touch_off[t1] - touch_off[t0];  // at most one final write per touch
      for (size_t t = t0; t < std::min<size_t>(t1, unindexed); ++t) most += c.op_end(t) - c.op_begin(t);
      out.reserve(most);
      for (size_t t = t0, e = t1; t < e; ++t) {
        if (unfrozen[t] || aborted[t]) continue;
        uint32_t w = static_cast<uint32_t>(t);
        if (t < unindexed) {
          summary_writes(w, [&](OpIdx o, bool) { out.push_back({c.op_key[o], o, w, op_version_[o]}); });
          continue;
        }
        for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
          if (const Touch& tc = touches[i]; tc.has_write) out.push_back({tc.key, tc.write_op, w, tc.wver});
      }
    });
    for (size_t p = 1; p < parts; ++p) fw.insert(fw.end(), part[p].begin(), part[p].end());
  }
  phase("final_writes");
  // By (key, op): fw was collected in transaction order and op indices grow
  // with the transaction, so a stable sort by key is that order. Radix
  // passes move the 24-byte records (a comparison sort of wider records was
  // 15% of a 10^7 RMW audit; ordering (key, index) pairs and gathering the
  // records after, 18% of forget at 10^8).
  radix_sort(fw, [](const FinalWrite& f) { return f.key; });
  }

    phase("sort");
    frontier.clear();
    bool changed = false;
    // Keys are independent: ranges of whole keys on threads, each with its
    // own frontier and ambiguous writers, put together in key order.
    const size_t parts = fw.size() >= kParallelTxns ? threads : 1;
    std::vector<size_t> cut(parts + 1, fw.size());
    cut[0] = 0;
    for (size_t p = 1; p < parts; ++p) {
      size_t i = std::max(cut[p - 1], fw.size() * p / parts);
      while (i > cut[p - 1] && i < fw.size() && fw[i].key == fw[i - 1].key) ++i;
      cut[p] = i;
    }
    struct KeyPart {
      std::vector<FinalWrite> frontier, top;
      std::vector<uint32_t> ambiguous;
      std::vector<FinalWrite> one_read;  // the version later reads see, to be confirmed
      std::vector<uint32_t> one_read_tops;
      size_t unread = 0;
    };
    std::vector<KeyPart> kp(parts);
    parallel_pieces(parts, threads, [&](uint64_t p) {
    std::vector<FinalWrite>& frontier = kp[p].frontier;
    std::vector<FinalWrite>& top = kp[p].top;
    for (size_t a = cut[p]; a < cut[p + 1];) {
      size_t b = a;
      // the largest and second largest lim, so that w is compared with the others only
      int64_t lim1 = kNegInf, lim2 = kNegInf;
      uint32_t arg1 = ~0u;
      while (b < fw.size() && fw[b].key == fw[a].key) {
        // (the old summary's version is the first of its key: it overwrites
        // nothing, whatever its fence value says of the kept writers, which
        // need not all precede the summary once only read frontiers must)
        if (first_version(fw[b])) {
          ++b;
          continue;
        }
        int64_t l = lim(fw[b].txn);
        if (l > lim1) {
          lim2 = lim1;
          lim1 = l;
          arg1 = fw[b].txn;
        } else {
          lim2 = std::max(lim2, l);
        }
        ++b;
      }
      top.clear();
      for (size_t i = a; i < b; ++i) {
        uint32_t w = fw[i].txn;
        bool over = ord(w) <= (w == arg1 ? lim2 : lim1);
        // The old summary's read-modify-write of the initial state installs
        // the first version of its key: any other frozen write overwrites it
        // (its version order is known in every round's check).
        if (!over && b - a > 1) over = first_version(fw[i]);
        uint32_t v = fw[i].wver;
        for (uint32_t j = sc_off[v]; j < sc_off[v + 1] && !over; ++j) over = !unfrozen[sc_dst[j]] && !aborted[sc_dst[j]];
        if (!over) top.push_back(fw[i]);
      }
      // Two or more: which of their versions a kept transaction or one of a
      // later round reads. None: any one stands for the key in the summary
      // (a later read of the key's initial state, or of an older version, is
      // still a violation against it). One: that version, if a check
      // confirms a later read of it is possible. More: kept.
      size_t reads = 0, which = 0;
      if (top.size() > 1 && settle)
        for (size_t q = 0; q < top.size() && reads < 2; ++q) {
          const FinalWrite& f = top[q];
          bool read = later_reads_.read_after(later_fp(c, f.key, c.op_value[f.op]), round);
          for (uint32_t j = rd_off[f.wver]; j < rd_off[f.wver + 1] && !read; ++j)
            read = unfrozen[rd_dst[j]] && !aborted[rd_dst[j]];
          if (read) ++reads, which = q;
        }
      if (top.size() == 1) {
        frontier.push_back(top[0]);
      } else if (top.size() > 1 && settle && reads == 0) {
        frontier.push_back(top[0]);
        ++kp[p].unread;
      } else if (top.size() > 1 && settle_one && reads == 1) {
        kp[p].one_read.push_back(top[which]);
        for (const FinalWrite& f : top) kp[p].one_read_tops.push_back(f.txn);
      } else if (top.size() > 1) {
        for (const FinalWrite& f : top) kp[p].ambiguous.push_back(f.txn);
      }
      a = b;
    }
    });
    std::vector<FinalWrite> one_read;
    std::vector<uint32_t> one_read_tops;
    settled = 0;
    for (KeyPart& part : kp) {
      frontier.insert(frontier.end(), part.frontier.begin(), part.frontier.end());
      for (uint32_t t : part.ambiguous) extra_root[t] = 1;
      changed |= !part.ambiguous.empty();
      one_read.insert(one_read.end(), part.one_read.begin(), part.one_read.end());
      one_read_tops.insert(one_read_tops.end(), part.one_read_tops.begin(), part.one_read_tops.end());
      settled += part.unread;
    }
    // A frontier of a blind key stands first in the summary, before every
    // kept write of its key. When a kept or later transaction reads its
    // version, that matters: a kept writer not certainly after it may have
    // to precede it (a later reader after both reads it), so it is kept.
    // When nobody that remains reads it, its place against kept writes is
    // invisible (docs/audit.md, "Blind writes": kept writers).
    if (any_blind) {
      auto must_precede = [&](const FinalWrite& f) {
        const uint64_t* slot = key_blind.find(f.key);
        if (!slot || first_version(f)) return false;
        bool before_all = true;
        for (uint32_t j = slot_off[*slot]; j < slot_off[*slot + 1] && before_all; ++j) {
          const uint32_t u = slot_w[j].second;
          if (!unfrozen[u] || aborted[u] || u == f.txn || ord(f.txn) <= lim(u)) continue;
          bool successor = false;  // u read-modify-wrote f's version: certainly after
          for (uint32_t q = sc_off[f.wver]; q < sc_off[f.wver + 1] && !successor; ++q) successor = sc_dst[q] == u;
          before_all = successor;
        }
        if (before_all) return false;
        bool read = !later_reads_.built() || later_reads_.read_after(later_fp(c, f.key, c.op_value[f.op]), round);
        for (uint32_t j = rd_off[f.wver]; j < rd_off[f.wver + 1] && !read; ++j)
          read = unfrozen[rd_dst[j]] && !aborted[rd_dst[j]];
        return read;
      };
      for (const std::vector<FinalWrite>* list : {&frontier, &one_read})
        for (const FinalWrite& f : *list)
          if (must_precede(f) && !extra_root[f.txn]) {
            extra_root[f.txn] = 1;
            changed = true;
          }
    }
    // Once nothing else changes: confirm the versions read later (one
    // check for all keys), or keep their writers and go on without.
    if (!changed && !one_read.empty()) {
      std::vector<std::pair<Sym, Sym>> chosen;
      for (const FinalWrite& f : one_read) chosen.push_back({f.key, c.op_value[f.op]});
      std::vector<uint8_t> frozen_now(n);
      for (size_t t = 0; t < n; ++t) frozen_now[t] = !unfrozen[t] && !aborted[t];
      if (later_read_possible(chosen, frozen_now, m)) {
        const size_t mid = frontier.size();
        frontier.insert(frontier.end(), one_read.begin(), one_read.end());
        std::inplace_merge(frontier.begin(), frontier.begin() + mid, frontier.end(),
                           [](const FinalWrite& x, const FinalWrite& y) { return x.key < y.key; });
        settled += one_read.size();
      } else {
        for (uint32_t t : one_read_tops) extra_root[t] = 1;
        settle_one = false;
        changed = true;
        ++s_.result.unsettled_checks;
      }
    }
    if (!changed) break;
    propagate();
    if (too_little()) break;
  }
  phase("frontier");
  // Preconditions of a summary: the old summary is frozen; a frozen fence
  // carries the chain (fence rule); something to forget.
  size_t frozen = 0;
  bool frozen_fence = false;
  for (size_t t = 0; t < n; ++t)
    if (!unfrozen[t] && !aborted[t]) {
      ++frozen;
      if (fence && s_.pf[t] == s_.nf[t]) frozen_fence = true;
    }
  size_t n_aborted = std::count(aborted.begin(), aborted.end(), 1);
  bool summary_unfrozen = false;
  for (size_t t = 0; t < old_pieces; ++t) summary_unfrozen |= unfrozen[t] != 0;
  bool can = !gave_up && frozen > 0 && !summary_unfrozen && (!fence || frozen_fence);
  if (can) s_.result.settled_frontiers += settled;
  if (!can && n_aborted == 0) return;
  if (!can) std::fill(unfrozen.begin(), unfrozen.end(), 1);  // drop only the aborted ones
  phase("summary");
  join_check();  // a check beside this forget still reads the carry
  // Build the new carry: summary, then kept transactions in order.
  History nc;
  {
    size_t kept = 0, kept_ops = 0;
    for (size_t t = 0; t < n; ++t)
      if (unfrozen[t] && !aborted[t]) ++kept, kept_ops += c.op_end(t) - c.op_begin(t);
    nc.reserve_more(kept + frontier.size() / 64 + 1, kept_ops + 2 * frontier.size());
  }
  nc.keys = std::move(c.keys);
  nc.values = std::move(c.values);
  nc.time_unit = c.time_unit;
  std::vector<int64_t> npf, nnf;
  std::vector<uint8_t> npend;
  session_index_.clear();
  auto sess = [&](int64_t name) {
    auto [it, fresh] = session_index_.try_emplace(name, static_cast<uint32_t>(nc.session_name.size()));
    if (fresh) nc.session_name.push_back(name);
    return it->second;
  };
  bool summary = can;
  if (summary) {
    // b, e: the pieces' times (when every frozen transaction has times);
    // latest_begin: the latest begin of a frozen one with times (the marker).
    int64_t b = kPosInf, e = kNegInf, latest_begin = kNegInf;
    bool times = true;
    for (size_t t = 0; t < n; ++t)
      if (!unfrozen[t] && !aborted[t]) {
        if (!c.has_times(static_cast<TxnIdx>(t))) times = false;
        else {
          b = std::min(b, c.txn_begin[t]);
          e = std::max(e, c.txn_end[t]);
          latest_begin = std::max(latest_begin, c.txn_begin[t]);
        }
      }
    // The real-time marker (fence rule, sser: docs/audit.md, "The summary's
    // real time"). A later transaction that ended before a frozen one began
    // has a real-time edge into it, while the fence chain orders the frozen
    // one before it: a cycle. The pieces begin at the earliest begin, which
    // keeps that edge only when the later one ended before every frozen one
    // began (and they have no times when one frozen transaction has none). So
    // an empty transaction first in the summary's session spans the latest
    // begin to the latest end: a later transaction ending before it began
    // ended before some frozen one began. (No kept transaction did: real-time
    // successors of kept ones are kept.) It has no operations, so it orders no
    // writes (--time-order) and reads nothing.
    const bool marker = fence && rt_edges && latest_begin != kNegInf && (!times || latest_begin > b);
    // Pieces of at most kPiece keys in the summary session (check() is
    // quadratic in one transaction's operations); session order chains them
    // and the fence key goes last, so every piece precedes the chain's next fence.
    constexpr size_t kPiece = 128;
    // (entries in key order: which piece holds a key does not matter, every
    // piece is the summary, ordered before everything kept or later)
    std::vector<std::pair<Sym, Sym>> kv;
    std::pair<Sym, Sym> fence_kv{kNo, kNo};
    int64_t fval = kNegInf;
    for (const FinalWrite& f : frontier) {
      const Sym value = c.op_value[f.op];
      if (f.key == fence_sym_) {
        fence_kv = {f.key, value};
        sym_int(nc.values, value, fval);
      } else {
        kv.push_back({f.key, value});
      }
    }
    // Only keys a kept transaction touches go into the pieces (and the fence
    // key); the others wait in rest_ until a later round touches them.
    {
      FlatMap64 kept_keys(1024);
      for (size_t t = old_pieces; t < n; ++t)
        if (unfrozen[t] && !aborted[t])
          for (uint64_t j = touch_off[t]; j < touch_off[t + 1]; ++j) {
            bool ins;
            if (touches[j].key != FlatMap64::kEmpty) kept_keys.get_or_insert(touches[j].key, 0, ins);
          }
      size_t w = 0;
      for (size_t i = 0; i < kv.size(); ++i) {
        if (i + 16 < kv.size()) rest_.prefetch(kv[i + 16].first);
        auto& e = kv[i];
        if (e.first == FlatMap64::kEmpty || kept_keys.find(e.first)) {  // (a key the table cannot hold stays)
          kv[w++] = e;
        } else {
          rest_.set(e.first, e.second);
        }
      }
      kv.resize(w);
    }
    if (fence_kv.first != kNo) kv.push_back(fence_kv);
    // Keys whose initial state a kept transaction read: there the summary
    // writes blindly (a kept read-modify-write of the initial state and the
    // summary may be in either order).
    FlatMap64 null_read(64);
    for (size_t t = 0; t < n; ++t)
      if (unfrozen[t] && !aborted[t])
        for (uint64_t i = reads_off[t]; i < reads_off[t + 1]; ++i)
          if (reads[i].second == kNullValue) {
            bool ins;
            null_read.get_or_insert(reads[i].first, 1, ins);
          }
    if (marker) {  // (carry txn 0: fence value as the pieces')
      nc.begin_txn(kSummaryMarkerId, sess(kSummarySession), TxnStatus::committed, latest_begin, e);
      nc.end_txn();
      npf.push_back(fval);
      nnf.push_back(fval);
      npend.push_back(0);
    }
    size_t pieces = std::max<size_t>(1, (kv.size() + kPiece - 1) / kPiece);
    for (size_t p = 0; p < pieces; ++p) {
      nc.begin_txn(kSummaryId + static_cast<int64_t>(p), sess(kSummarySession), TxnStatus::committed,
                   times ? b : kNoTime, times ? e : kNoTime);
      // read-modify-write of the initial state: the summary's version is the
      // first of its key (nothing kept or later precedes it), and the version
      // order stays known, so check() needs no general engine for it.
      for (size_t i = p * kPiece; i < std::min(kv.size(), (p + 1) * kPiece); ++i) {
        if (!null_read.find(kv[i].first)) nc.add_op(OpKind::read, kv[i].first, kNullValue);
        nc.add_op(OpKind::write, kv[i].first, kv[i].second);
      }
      nc.end_txn();
      npf.push_back(fence ? fval : kNegInf);
      nnf.push_back(fence ? fval : kPosInf);
      npend.push_back(0);
    }
    s_.summary_txns = static_cast<uint32_t>(pieces + marker);
    st.frontier = frontier.size();
  }
  phase("copy");
  std::vector<uint8_t> nchecked(nc.op_count(), 0);
  uint64_t forgotten = 0;
  for (size_t t = 0; t < n; ++t) {
    if (aborted[t] || !unfrozen[t]) {
      if (!(t < old_pieces)) ++forgotten;
      continue;
    }
    nc.begin_txn(c.txn_id[t], sess(c.session_name[c.txn_session[t]]), c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      if (c.op_kind[o] == OpKind::read_list) nc.add_list_read(c.op_key[o], c.list(o));
      else nc.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
      uint8_t chk = s_.checked_op[o];
      nchecked.push_back(chk);
    }
    nc.end_txn();
    npf.push_back(s_.pf[t]);
    nnf.push_back(s_.nf[t]);
    npend.push_back(s_.pending[t]);
  }
  phase("end");
  if (opt_.debug_timing) std::fprintf(stderr, "forget phases (cumulative s):%s\n", ph_log.c_str());
  awaiting_nf_.assign(nc.session_count(), {});
  for (size_t t = summary ? s_.summary_txns : old_pieces; t < nc.txn_count(); ++t)
    if (nnf[t] == kPosInf) awaiting_nf_[nc.txn_session[t]].push_back(static_cast<uint32_t>(t));
  s_.carry = std::move(nc);
  s_.pf = std::move(npf);
  s_.nf = std::move(nnf);
  s_.pending = std::move(npend);
  s_.checked_op = std::move(nchecked);
  s_.has_summary = summary || s_.has_summary;
  st.forgotten = forgotten;
  s_.result.forgotten += forgotten;
}

void Auditor::finish() {
  auto& res = s_.result;
  // Reads whose writer never appeared (or was forgotten): thin air, an
  // aborted/forgotten version; every level fails (docs/audit.md).
  // Only committed transactions and unknown ones some read observed count
  // (an unknown transaction nobody read is left out, as check() does).
  const History& c = s_.carry;
  PairMap writers(count_writes(c) + 1);
  for (TxnIdx t = 0; t < c.txn_count(); ++t)
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) writers.at(c.op_key[o], c.op_value[o]) = t;
  // Observed, as check() includes them: committed transactions, then
  // transitively the unknown ones an included transaction read from (an
  // unknown reader nobody observed does not make its writer count). The
  // readers of an unknown writer are never forgotten (it is a root), so the
  // carry holds every reader that matters.
  std::vector<uint8_t> observed(c.txn_count(), 0);
  std::vector<TxnIdx> stack;
  for (TxnIdx t = 0; t < c.txn_count(); ++t)
    if (c.txn_status[t] == TxnStatus::committed) observed[t] = 1, stack.push_back(t);
  while (!stack.empty()) {
    TxnIdx t = stack.back();
    stack.pop_back();
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      auto see = [&](Sym v) {
        uint32_t w = writers.find(c.op_key[o], v);
        if (w != PairMap::kEmpty && w != t && !observed[w] && c.txn_status[w] == TxnStatus::unknown)
          observed[w] = 1, stack.push_back(w);
      };
      if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue) see(c.op_value[o]);
      else if (c.op_kind[o] == OpKind::read_list)
        for (Sym v : c.list(o)) see(v);
    }
  }
  uint64_t unresolved = 0;
  int64_t example = 0;
  for (size_t t = 0; t < s_.pending.size(); ++t)
    if (s_.pending[t] && (c.txn_status[t] == TxnStatus::committed ||
                          (c.txn_status[t] == TxnStatus::unknown && observed[t]))) {
      if (!unresolved) example = s_.carry.txn_id[t];
      ++unresolved;
    }
  if (unresolved) {
    res.anomalies += unresolved;
    for (auto& l : res.levels)
      if (l.verdict != "violated") {
        l.verdict = "violated";
        l.round = res.rounds ? res.rounds - 1 : 0;
        l.anomaly = "unresolved read";
        l.explanation = {std::to_string(unresolved) + " transaction(s), e.g. T" + std::to_string(example) +
                         ", read a value no transaction of the log wrote, or a version that every later "
                         "transaction was already ordered after (thin air, aborted or stale read)"};
      }
  }
  res.final_kept = s_.carry.txn_count();
  res.complete = true;
}

AuditResult Auditor::run() {
  Timer timer;
  std::string fp = options_fingerprint();
  bool resumed = false;
  if (!opt_.checkpoint_dir.empty()) std::filesystem::create_directories(opt_.checkpoint_dir);
  if (opt_.resume && !opt_.checkpoint_dir.empty()) {
    stage("audit (loading the checkpoint)");
    AuditState loaded;
    if (load_checkpoint(loaded, checkpoint_path())) {
      if (loaded.fingerprint == fp) {
        s_ = std::move(loaded);
        resumed = true;
      } else {
        say("checkpoint " + checkpoint_path() + " belongs to another input or other options; starting over");
      }
    }
  }
  if (resumed) {
    if (s_.result.complete) return s_.result;  // finished before: report again
    ++s_.result.resumptions;
    reader_.seek(s_.pos);
    if (reader_.hdf5() && s_.carry.keys.named()) rest_.make_dense(s_.carry.keys.size());
    if (reader_.hdf5()) build_file_hashes();
    for (auto& [k, v] : s_.summary_rest) rest_.set(k, v);
    if (dup_check()) rebuild_fingerprints(s_.pos.txn);
    // Rebuild the derived indices.
    for (size_t i = 0; i < s_.carry.session_count(); ++i) session_index_[s_.carry.session_name[i]] = static_cast<uint32_t>(i);
    for (auto& [k, v] : s_.last_fence) last_fence_[k] = v;
    awaiting_nf_.assign(s_.carry.session_count(), {});
    for (size_t t = 0; t < s_.carry.txn_count(); ++t)
      if (s_.nf[t] == kPosInf && !(s_.has_summary && t < s_.summary_txns)) awaiting_nf_[s_.carry.txn_session[t]].push_back(static_cast<uint32_t>(t));
    find_fence_sym();
    if (s_.rule != ForgetRule::none && opt_.later_reads && starts_with_blind_writes()) build_later_reads(s_.pos.txn);
    say("resuming at round " + std::to_string(s_.next_round) + " (transaction " + std::to_string(s_.pos.txn) + ")");
  } else {
    s_ = AuditState{};
    s_.fingerprint = fp;
    s_.result.log = path_;
    for (Level l : opt_.check.levels) s_.result.levels.push_back(AuditLevel{l});
    stage("audit pass 1 (scanning for fences and times)");
    say("pass 1: scanning " + path_ + " for fences and times");
    Timer pass1;
    prescan();
    if (opt_.debug_timing) std::fprintf(stderr, "pass 1: %.3f s\n", pass1.seconds());
    if (reader_.hdf5()) {
      // The carry uses the file's symbols: rounds are appended without
      // looking a symbol up (append_same_symbols).
      reader_.hdf5_file().take_tables(s_.carry.keys, s_.carry.values);
      build_file_hashes();
      find_fence_sym();
      if (s_.carry.keys.named()) rest_.make_dense(s_.carry.keys.size());
    }
    choose_rule();
    s_.result.rule = s_.rule;
    if (s_.rule != ForgetRule::none && opt_.later_reads && starts_with_blind_writes()) {
      stage("audit pass 1 (indexing later reads)");
      say("later reads: indexing every read of " + path_ + " (the log has blind writes)");
      Timer lr;
      build_later_reads(0);
      if (opt_.debug_timing)
        std::fprintf(stderr, "later reads: %.3f s, %llu pairs\n", lr.seconds(), (unsigned long long)later_reads_.entries());
    }
    s_.result.duplicate_check = dup_check();
    if (dup_check()) written_.reserve(log_writes_);
    say("rule: " + std::string(to_string(s_.rule)) + " (" + s_.result.rule_reason + ")");
    if (opt_.stop && opt_.stop->load() && !opt_.checkpoint_dir.empty()) {  // stopped during pass 1
      s_.result.complete = false;
      save_state();
      return s_.result;
    }
  }
  compute_suffixes();
  uint32_t run = s_.result.resumptions;
  uint64_t rounds_this_run = 0;
  double base_seconds = s_.result.seconds;
  struct ReadAhead {
    History chunk;
    LogPosition after;  // the reader's position after it
    RoundFingerprints fingerprints;  // when dup_check()
  };
  std::future<ReadAhead> ahead;
  LogPosition consumed = reader_.position();  // after the round in hand
  while (true) {
    if (open_levels().empty()) {  // every level violated: the verdict is final
      break;
    }
    Timer rt;
    stage("audit round (reading)");
    reset_peak_rss();
    uint64_t first = consumed.txn;
    // The round read ahead while the last one was checked, or read now.
    History chunk;
    RoundFingerprints fingerprints;
    if (ahead.valid()) {
      ReadAhead got = ahead.get();
      chunk = std::move(got.chunk);
      consumed = got.after;
      fingerprints = std::move(got.fingerprints);
    } else {
      chunk = reader_.next(opt_.round_txns);
      consumed = reader_.position();
      if (dup_check()) fingerprints = fingerprint_round(chunk);
    }
    double t_read = rt.seconds();
    if (chunk.txn_count() == 0) break;
    uint64_t round = s_.next_round;
    RoundStat st;
    st.round = round;
    st.first_txn = first;
    st.txns = chunk.txn_count();
    st.run = run;
    if (dup_check()) check_duplicates(chunk, fingerprints, first, round);
    fingerprints = RoundFingerprints{};
    double t_dup = rt.seconds();
    append_round(chunk);
    chunk = History{};
    bool last = consumed.txn >= s_.total_txns;
    // Read the next round, and fingerprint its writes, on another thread
    // while this one is checked. Only that thread uses the reader (and the
    // HDF5 library) and the fingerprint set until it is joined at the top of
    // the next round (duplicate re-reads come after the join).
    if (!last)
      ahead = std::async(std::launch::async, [this] {
        ReadAhead r;
        r.chunk = reader_.next(opt_.round_txns);
        r.after = reader_.position();
        if (dup_check()) r.fingerprints = fingerprint_round(r.chunk);
        return r;
      });
    // Deferred: the last attempt forgot little (blind-write logs: docs/audit.md,
    // "Deferred checks"), so this round is only read; the next check (at the
    // latest the last round's) covers it.
    const bool deferred = !last && s_.rule != ForgetRule::none && s_.carry.txn_count() < s_.defer_until;
    st.deferred = deferred;
    st.checked = deferred ? 0 : s_.carry.txn_count();
    Timer tc;
    stage("audit round (checking)");
    const bool will_forget = s_.rule != ForgetRule::none && !last && !deferred;
    if ((s_.rule != ForgetRule::none && !deferred) || last) check_round(round, will_forget && audit_threads() > 1);
    double t_check = tc.seconds();
    for (uint8_t p : s_.pending) st.pending += p;
    if (will_forget) {
      const uint64_t held = s_.carry.txn_count();
      stage("audit round (forgetting)");
      forget(round, st);
      join_check();  // (forget may have returned before replacing the carry)
      later_reads_.drop_through(round);  // (later rounds are never asked about this one)
      // Under 1/16 of what was held forgotten: checking and trying to forget
      // every round would make the audit quadratic in the log. Defer both
      // until the carry has doubled (total work then stays linear).
      if (st.forgotten * 16 < held && held >= opt_.defer_min_txns) {
        if (s_.defer_until == 0)
          s_.result.warnings.push_back("round " + std::to_string(round) + " forgot " + std::to_string(st.forgotten) +
                                       " of " + std::to_string(held) +
                                       " transactions (blind writes leave version orders open: docs/audit.md); "
                                       "checks are deferred while the kept transactions double, and memory grows");
        s_.defer_until = 2 * s_.carry.txn_count();
      } else {
        s_.defer_until = 0;
      }
    }
    if (opt_.debug_timing)
      std::fprintf(stderr, "round %llu: read %.3f s, duplicates %.3f s, append %.3f s, check %.3f s, forget %.3f s\n",
                   (unsigned long long)round, t_read, t_dup - t_read, rt.seconds() - tc.seconds() - t_dup, t_check,
                   tc.seconds() - t_check);
    st.kept = s_.carry.txn_count();
    st.seconds = rt.seconds();
    st.peak_rss = peak_rss_bytes();
    auto& res = s_.result;
    res.txns += st.txns;
    res.rounds = round + 1;
    res.max_kept = std::max(res.max_kept, st.kept);
    res.max_checked = std::max(res.max_checked, st.checked);
    res.peak_rss = std::max(res.peak_rss, st.peak_rss);
    res.round_stats.push_back(st);
    s_.next_round = round + 1;
    s_.pos = consumed;
    s_.last_fence.assign(last_fence_.begin(), last_fence_.end());
    res.seconds = base_seconds + timer.seconds();
    if (s_.rule == ForgetRule::none && st.kept > 4 * opt_.round_txns && round % 16 == 0)
      say("warning: no forgetting rule; " + std::to_string(st.kept) + " transactions kept");
    say("round " + std::to_string(round) + ": " + std::to_string(st.txns) + " read, " +
        (deferred ? std::string("check deferred") : std::to_string(st.checked) + " checked") + ", " +
        std::to_string(st.forgotten) + " forgotten, " + std::to_string(st.kept) + " kept, peak " +
        std::to_string(st.peak_rss >> 20) + " MiB");
    ++rounds_this_run;
    bool stop = (opt_.stop && opt_.stop->load()) || (opt_.stop_after_rounds && rounds_this_run >= opt_.stop_after_rounds);
    if (!opt_.checkpoint_dir.empty() && (stop || !last)) {
      stage("audit checkpoint");
      save_state();
    }
    if (stop && !last) {
      res.complete = false;
      say("stopping after round " + std::to_string(round) + "; rerun with --requeue to resume");
      return res;
    }
  }
  stage("audit final check");
  finish();
  s_.result.seconds = base_seconds + timer.seconds();
  if (!opt_.checkpoint_dir.empty()) save_state();
  return s_.result;
}

}  // namespace

AuditResult run_audit(const std::string& log, const AuditOptions& opt) {
  if (opt.round_txns == 0) throw UsageError("--round must be at least 1");
  if (opt.rule != "auto" && opt.rule != "fence" && opt.rule != "time" && opt.rule != "none")
    throw UsageError("--rule: expected auto, fence, time or none, got \"" + opt.rule + "\"");
#ifdef __GLIBC__
  // Every round allocates and frees the same large buffers (tens of MiB:
  // touches, version maps, the next carry). glibc serves those from fresh
  // mmaps and returns the heap's top to the kernel, so each round
  // page-faults them in again: 10-15% of the audit's CPU time went to the
  // kernel zeroing pages. Keep them in the heap instead (the process holds
  // its largest round's memory, which the audit's bound allows anyway).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  Auditor a(log, opt);
  return a.run();
}

}  // namespace isocheck

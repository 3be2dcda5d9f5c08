// Cobra client logs: one big-endian binary file per client (session), records
//   'S' txnid [ts]   'W' writeId key value   'R' writerTxnId writeId key value
//   'C' txnid [ts]
// all fields i64. A read names the write it saw; the write id is the value we
// use (Cobra guarantees write ids unique), so reads match writes exactly.
//
// The logs are read through a buffer of a block at a time, in session order,
// by one scan that checks and builds (the whole import) or checks only (the
// streamed reader's first pass, which then reads again a piece at a time).
// What needs the whole log at once: a transaction id used twice, and the
// notes on reads whose write id no log holds or holds with another writer,
// key or value. Both are a join (of ids, of reads to writes) done in
// partitions by a hash of the id, one partition's ids and writes in memory at
// a time and the logs scanned again for each: memory is bounded by a budget,
// not by the log.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "io/import_common.h"
#include "io/txn_reader.h"

namespace isocheck {
namespace {

namespace fs = std::filesystem;
using imp::fail_byte;

constexpr uint64_t kInitMarker = 0xbebeebeeULL;  // the initial write / transaction
constexpr uint64_t kNullMarker = 0xdeadbeefULL;  // a read of a key that does not exist
constexpr uint64_t kGcTrue = 0x23332333ULL;      // reads Cobra's garbage collection adds
constexpr uint64_t kGcFalse = 0x66666666ULL;
// The smallest 64-bit integer stands for "no time" in a history: refused as a timestamp.
constexpr const char* kReservedTimestamp =
    "the timestamp -9223372036854775808 (the smallest 64-bit integer) is reserved for \"no time\"";

// The markers as written by Java, with or without sign extension of the int literal.
bool is_marker(int64_t v, uint64_t m) {
  uint64_t u = static_cast<uint64_t>(v);
  return u == m || u == (m | 0xFFFFFFFF00000000ULL);
}
bool is_init(int64_t v) { return is_marker(v, kInitMarker) || is_marker(v, kNullMarker); }
bool is_gc_read(int64_t wtxn, int64_t wid) {
  return is_marker(wtxn, kInitMarker) && (is_marker(wid, kGcTrue) || is_marker(wid, kGcFalse));
}

bool is_tag(char c) { return c == 'S' || c == 'W' || c == 'R' || c == 'C'; }

// One log's bytes in order: a text in memory, or a file read through a buffer
// of `block` bytes (a record is at most 33 bytes).
class LogBytes {
 public:
  explicit LogBytes(std::string_view bytes) : view_(bytes), final_(true) {}
  LogBytes(const std::string& path, size_t block) : final_(false), path_(path) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw InputError(path, "cannot open the file");
    buf_.resize(std::max<size_t>(block, 64));
  }
  ~LogBytes() {
    if (f_) std::fclose(f_);
  }
  LogBytes(const LogBytes&) = delete;
  LogBytes& operator=(const LogBytes&) = delete;
  // The bytes from the position on that the buffer holds, at least n of them
  // unless the log ends first.
  size_t avail(size_t n) {
    while (view_.size() - pos_ < n && !final_) fill();
    return view_.size() - pos_;
  }
  const char* here() const { return view_.data() + pos_; }
  void skip(size_t n) { pos_ += n; }
  uint64_t offset() const { return base_ + pos_; }
  size_t held_bytes() const { return buf_.capacity(); }

 private:
  void fill() {
    const size_t rest = view_.size() - pos_;
    if (rest) std::memmove(buf_.data(), view_.data() + pos_, rest);
    base_ += pos_;
    pos_ = 0;
    const size_t got = std::fread(buf_.data() + rest, 1, buf_.size() - rest, f_);
    if (got == 0) {
      if (std::ferror(f_)) throw InputError(path_, "cannot read the file");
      final_ = true;
    }
    view_ = std::string_view(buf_.data(), rest + got);
  }
  std::string_view view_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  bool final_;
  std::string path_;
  std::FILE* f_ = nullptr;
  std::vector<char> buf_;
};

// A record as read: its tag, byte offset and fields (S and C: the
// transaction id, then the timestamp when the log has them). bad: the tag is
// none of S, W, R, C (nothing after it is read).
struct Rec {
  char tag = 0;
  bool bad = false;
  uint64_t at = 0;
  int64_t f[4] = {0, 0, 0, 0};
};

// The records of one log. A record cut short by the end of the log is an
// error here, before anything else of any log is (the check of every log's
// records comes first).
class LogRecords {
 public:
  LogRecords(std::unique_ptr<LogBytes> b, const std::string& name) : b_(std::move(b)), name_(name) {
    // Timestamps after S and C (Cobra's time-order option): decided at the
    // first S record by what follows its transaction id.
    const size_t n = b_->avail(10);
    ts_ = n >= 10 && b_->here()[0] == 'S' && !is_tag(b_->here()[9]);
  }
  bool timestamps() const { return ts_; }
  // The next record; false at the end of the log.
  bool next(Rec& r) {
    if (b_->avail(1) == 0) return false;
    r.at = b_->offset();
    r.tag = *b_->here();
    b_->skip(1);
    r.bad = !is_tag(r.tag);
    switch (r.tag) {
      case 'S':
      case 'C':
        r.f[0] = i64(r.at, "the transaction id");
        if (ts_) r.f[1] = i64(r.at, "the timestamp");
        break;
      case 'W':
        r.f[0] = i64(r.at, "the write id");
        r.f[1] = i64(r.at, "the key");
        r.f[2] = i64(r.at, "the value");
        break;
      case 'R':
        for (int k = 0; k < 4; ++k) r.f[k] = i64(r.at, "a read field");
        break;
      default: break;
    }
    return true;
  }
  size_t held_bytes() const { return b_->held_bytes(); }

 private:
  int64_t i64(uint64_t rec_start, const char* what) {
    const size_t left = b_->avail(8);
    if (left < 8)
      fail_byte(name_, rec_start, std::string("truncated record: ") + what + " needs 8 bytes, " +
                                      std::to_string(left) + " left");
    uint64_t v = 0;
    const char* p = b_->here();
    for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<unsigned char>(p[k]);
    b_->skip(8);
    return static_cast<int64_t>(v);
  }
  std::unique_ptr<LogBytes> b_;
  const std::string& name_;
  bool ts_ = false;
};

// The logs of a history in session order: in memory, or files read through a
// buffer of `block` bytes.
struct Logs {
  struct One {
    int64_t session;
    std::string name;
    std::string_view bytes;  // (files: empty)
  };
  std::vector<One> logs;
  bool files = false;
  size_t block = 8 << 20;
  LogRecords open(size_t i) const {
    const One& l = logs[i];
    return LogRecords(files ? std::make_unique<LogBytes>(l.name, block) : std::make_unique<LogBytes>(l.bytes), l.name);
  }
};

// What a scan of the records does with them: the whole import's checks, in
// its order, and (given a history) the transactions they make.
class Builder {
 public:
  // whole: `h` (when given) is one history and sessions are numbered in the
  // order of the logs; else h is the piece in hand (new_piece() between).
  Builder(ImportStats& st, bool whole) : st_(st), whole_(whole) {}
  void set_history(History* h) {
    h_ = h;
    if (h_ && !whole_) piece_sessions_.reset(*h_);
  }
  // The largest timestamp of all logs, when known before the end (the
  // streamed reader's first pass told it).
  void set_max_ts(int64_t t) {
    max_ts_known_ = true;
    max_ts_ = t;
  }
  void begin_log(const Logs::One& l, bool ts) {
    name_ = &l.name;
    session_ = l.session;
    ts_ = ts;
    any_ts_ |= ts;
    if (h_ && whole_) session_index_ = sessions_->index(l.session);
    open_ = false;
  }
  // One record (throws InputError as the whole import does).
  void record(const Rec& r) {
    const std::string& name = *name_;
    if (r.bad) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(r.tag));
      fail_byte(name, r.at, std::string("unknown record type ") + hex + " (expected S, W, R or C)");
    }
    ++st_.records;
    const uint64_t at = r.at;
    switch (r.tag) {
      case 'S': {
        const int64_t id = r.f[0];
        const int64_t t = ts_ ? r.f[1] : kNoTime;
        if (ts_ && t == kNoTime) fail_byte(name, at, kReservedTimestamp);
        if (ts_ && !max_ts_known_) max_ts_ = std::max(max_ts_, t);
        if (open_)
          fail_byte(name, at, "transaction " + std::to_string(id) + " starts before transaction " +
                                  std::to_string(open_id_) + " (started at byte " + std::to_string(open_at_) +
                                  ") committed");
        // (A transaction id used twice is found by the join of ids.)
        open_ = true;
        open_id_ = id;
        open_at_ = at;
        open_begin_ = t;
        open_ops_ = 0;
        if (h_) h_->begin_txn(id, whole_ ? session_index_ : piece_sessions_.index(*h_, session_), TxnStatus::unknown, t,
                              kNoTime);
        break;
      }
      case 'C': {
        const int64_t id = r.f[0];
        const int64_t t = ts_ ? r.f[1] : kNoTime;
        if (ts_ && t == kNoTime) fail_byte(name, at, kReservedTimestamp);
        if (ts_ && !max_ts_known_) max_ts_ = std::max(max_ts_, t);
        if (!open_) fail_byte(name, at, "commit of transaction " + std::to_string(id) + ", which did not start");
        if (id != open_id_)
          fail_byte(name, at, "commit of transaction " + std::to_string(id) + " while transaction " +
                                  std::to_string(open_id_) + " is open");
        if (ts_ && t < open_begin_)
          fail_byte(name, at, "transaction " + std::to_string(id) + " commits (timestamp " + std::to_string(t) +
                                  ") before it starts (" + std::to_string(open_begin_) + ")");
        if (h_) {
          h_->txn_status.back() = TxnStatus::committed;
          if (ts_) h_->txn_end.back() = t;
          h_->end_txn();
        }
        open_ = false;
        break;
      }
      case 'W': {
        const int64_t wid = r.f[0], key = r.f[1];
        if (!open_) fail_byte(name, at, "a write outside a transaction");
        if (static_cast<Sym>(wid) == kNullValue) fail_byte(name, at, "write id " + std::to_string(wid) + " is reserved");
        ++open_ops_;
        if (h_) h_->add_op(OpKind::write, h_->keys.intern_int(key), h_->values.intern_int(wid));
        break;
      }
      case 'R': {
        const int64_t wtxn = r.f[0], wid = r.f[1], key = r.f[2];
        if (!open_) fail_byte(name, at, "a read outside a transaction");
        const bool txn_marker = is_init(wtxn), wid_marker = is_init(wid);
        if (is_gc_read(wtxn, wid)) {
          ++st_.skipped["reads of Cobra's garbage-collection markers"];
          break;
        }
        if (txn_marker != wid_marker)
          fail_byte(name, at, "a read names writer transaction " + std::to_string(wtxn) + " and write id " +
                                  std::to_string(wid) + ": an initial-value marker in one but not the other");
        ++open_ops_;
        if (txn_marker) {
          ++init_reads_;
          if (h_) h_->add_op(OpKind::read, h_->keys.intern_int(key), kNullValue);
          break;
        }
        if (static_cast<Sym>(wid) == kNullValue) fail_byte(name, at, "write id " + std::to_string(wid) + " is reserved");
        // (Whether a log holds the write, and with this writer, key and
        // value, is told by the join of reads to writes.)
        if (h_) h_->add_op(OpKind::read, h_->keys.intern_int(key), h_->values.intern_int(wid));
        break;
      }
    }
  }
  // The end of the log: a transaction still open ends here, outcome unknown.
  void end_log() {
    if (!open_) return;
    ++st_.notes["transactions without a commit record at the end of a log (outcome unknown)"];
    if (h_) {
      // An unfinished transaction may take effect any time after it
      // started: it ends with the last timestamp of all logs.
      if (ts_) {
        if (max_ts_known_) h_->txn_end.back() = max_ts_;
        else unfinished_.push_back(static_cast<TxnIdx>(h_->txn_count() - 1));
      }
      h_->end_txn();
    }
    open_ = false;
  }
  // After the last log (h: the whole history, or the last piece).
  void finish() {
    if (h_)
      for (TxnIdx t : unfinished_) h_->txn_end[t] = max_ts_;
    if (init_reads_) st_.notes["reads of the initial value (0xbebeebee / 0xdeadbeef markers)"] += init_reads_;
    st_.format = any_ts_ ? "cobra (with timestamps)" : "cobra";
  }
  bool open() const { return open_; }
  uint64_t open_ops() const { return open_ops_; }
  int64_t max_ts() const { return max_ts_; }
  bool any_ts() const { return any_ts_; }
  void use_sessions(imp::Sessions* s) { sessions_ = s; }

 private:
  ImportStats& st_;
  bool whole_;
  History* h_ = nullptr;
  imp::Sessions* sessions_ = nullptr;
  imp::PieceSessions piece_sessions_;
  const std::string* name_ = nullptr;
  int64_t session_ = 0;
  uint32_t session_index_ = 0;
  bool ts_ = false, any_ts_ = false;
  bool max_ts_known_ = false;
  int64_t max_ts_ = INT64_MIN;
  bool open_ = false;
  int64_t open_id_ = 0, open_begin_ = kNoTime;
  uint64_t open_at_ = 0, open_ops_ = 0;
  uint64_t init_reads_ = 0;
  std::vector<TxnIdx> unfinished_;  // timed transactions without a commit record
};

// Where a record is: (log, byte), in the order the logs are read.
struct Where {
  size_t log = SIZE_MAX;
  uint64_t at = 0;
  bool operator<(const Where& o) const { return log != o.log ? log < o.log : at < o.at; }
  bool operator==(const Where& o) const { return log == o.log && at == o.at; }
};

// What a check of every record found: the first error (where, and the
// exception) that is not a transaction id used twice; the records to size
// the joins by.
struct Checked {
  Where error;
  std::exception_ptr error_ex;
  uint64_t starts = 0, writes = 0;
};

// Every record of every log through `b`. A record cut short throws at once
// (the whole import checks every log's records before anything else); after
// another error the logs are read on only for that.
Checked check_all(const Logs& logs, Builder& b) {
  Checked c;
  if (logs.files)  // (the whole import read every file before it read a record)
    for (const auto& l : logs.logs) {
      std::FILE* f = std::fopen(l.name.c_str(), "rb");
      if (!f) throw InputError(l.name, "cannot open the file");
      std::fclose(f);
    }
  for (size_t i = 0; i < logs.logs.size(); ++i) {
    LogRecords r = logs.open(i);
    if (!c.error_ex) b.begin_log(logs.logs[i], r.timestamps());
    Rec rec;
    while (r.next(rec)) {
      c.starts += rec.tag == 'S';
      c.writes += rec.tag == 'W';
      if (!c.error_ex) {
        try {
          b.record(rec);
        } catch (const InputError&) {
          c.error = {i, rec.at};
          c.error_ex = std::current_exception();
        }
      }
      if (rec.bad) break;
    }
    if (!c.error_ex) b.end_log();
  }
  return c;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb34fe49a3c53ULL;
  return x ^ (x >> 33);
}

// What the joins found: the first transaction id used twice (where its
// second start is), and the counts of reads the logs contradict.
struct Joined {
  Where dup;
  int64_t dup_id = 0;
  uint64_t unknown_writer = 0, writer_mismatch = 0, key_mismatch = 0, value_mismatch = 0;
  uint64_t partitions = 0;
  uint64_t most_bytes = 0;  // the most the joins held at once
};

struct WriteInfo {
  int64_t wid, txn, key, value;
  uint64_t seq;  // order in the logs: of writes with one id, a read is matched to the first
};
struct IdAt {
  int64_t id;
  Where where;
};
static_assert(sizeof(WriteInfo) == 40 && sizeof(IdAt) == 24);

// The joins, in partitions of ids (by a hash), each small enough for
// `budget` bytes: per partition, one scan gathers the transaction ids and
// writes, and (reads = true) a second matches the reads to the writes.
Joined join_all(const Logs& logs, const Checked& c, uint64_t budget, bool reads) {
  Joined j;
  const uint64_t need = c.writes * sizeof(WriteInfo) + c.starts * sizeof(IdAt);
  budget = std::max<uint64_t>(budget, 1);
  const uint64_t parts = std::max<uint64_t>(1, need / budget + (need % budget != 0));
  j.partitions = parts;
  auto scan = [&](auto&& each) {
    for (size_t i = 0; i < logs.logs.size(); ++i) {
      LogRecords r = logs.open(i);
      Rec rec;
      int64_t txn = 0;  // the transaction a write is in: the last started
      while (r.next(rec) && !rec.bad) {
        if (rec.tag == 'S') txn = rec.f[0];
        each(i, rec, txn);
      }
    }
  };
  std::vector<WriteInfo> writes;
  std::vector<IdAt> ids;
  // (A partition's share, and an eighth more for the hash's unevenness: the
  // vectors rarely grow past it by doubling.)
  auto share = [&](uint64_t n) { return n / parts + n / parts / 8 + 64; };
  if (reads) writes.reserve(share(c.writes));
  ids.reserve(share(c.starts));
  for (uint64_t p = 0; p < parts; ++p) {
    writes.clear();
    ids.clear();
    uint64_t seq = 0;
    scan([&](size_t i, const Rec& rec, int64_t txn) {
      if (rec.tag == 'S' && mix(static_cast<uint64_t>(rec.f[0])) % parts == p) ids.push_back({rec.f[0], {i, rec.at}});
      if (reads && rec.tag == 'W' && mix(static_cast<uint64_t>(rec.f[0])) % parts == p)
        writes.push_back({rec.f[0], txn, rec.f[1], rec.f[2], seq++});
    });
    j.most_bytes = std::max<uint64_t>(
        j.most_bytes, writes.capacity() * sizeof(WriteInfo) + ids.capacity() * sizeof(IdAt));
    std::sort(ids.begin(), ids.end(), [](const IdAt& a, const IdAt& b) {
      return a.id != b.id ? a.id < b.id : a.where < b.where;
    });
    for (size_t k = 1; k < ids.size(); ++k)
      if (ids[k].id == ids[k - 1].id && (k < 2 || ids[k - 2].id != ids[k].id) && ids[k].where < j.dup) {
        j.dup = ids[k].where;
        j.dup_id = ids[k].id;
      }
    if (!reads) continue;
    std::sort(writes.begin(), writes.end(), [](const WriteInfo& a, const WriteInfo& b) {
      return a.wid != b.wid ? a.wid < b.wid : a.seq < b.seq;
    });
    scan([&](size_t, const Rec& rec, int64_t) {
      if (rec.tag != 'R') return;
      const int64_t wtxn = rec.f[0], wid = rec.f[1], key = rec.f[2], value = rec.f[3];
      if (is_gc_read(wtxn, wid) || is_init(wtxn)) return;
      if (mix(static_cast<uint64_t>(wid)) % parts != p) return;
      auto it = std::lower_bound(writes.begin(), writes.end(), wid, [](const WriteInfo& w, int64_t x) { return w.wid < x; });
      if (it == writes.end() || it->wid != wid) {
        ++j.unknown_writer;
      } else {
        if (it->txn != wtxn) ++j.writer_mismatch;
        if (it->key != key) ++j.key_mismatch;
        else if (it->value != value) ++j.value_mismatch;
      }
    });
  }
  return j;
}

// The first pass's verdict: throws the whole import's error, if any.
void throw_first_error(const Logs& logs, const Checked& c, const Joined& j) {
  if (j.dup.log != SIZE_MAX && (!c.error_ex || j.dup < c.error))
    fail_byte(logs.logs[j.dup.log].name, j.dup.at, "transaction id " + std::to_string(j.dup_id) + " is used twice");
  if (c.error_ex) std::rethrow_exception(c.error_ex);
}

void add_join_notes(ImportStats& st, const Joined& j) {
  if (j.unknown_writer)
    st.notes["reads of a write id that no log contains (thin-air reads unless logs are missing)"] += j.unknown_writer;
  if (j.writer_mismatch)
    st.notes["reads whose named writer transaction is not the one that logged the write"] += j.writer_mismatch;
  if (j.key_mismatch) st.notes["reads of a write id that wrote another key"] += j.key_mismatch;
  if (j.value_mismatch) st.notes["reads whose value differs from the value the write logged"] += j.value_mismatch;
}

// The whole history of the logs: one scan checks and builds, the joins find
// a reused id and the notes (in memory: one partition).
History build_whole(const Logs& logs, ImportStats& st, uint64_t budget) {
  History h;
  imp::Sessions sessions{h};
  Builder b(st, true);
  b.use_sessions(&sessions);
  b.set_history(&h);
  const Checked c = check_all(logs, b);
  const Joined j = join_all(logs, c, budget, !c.error_ex);
  throw_first_error(logs, c, j);
  b.finish();
  add_join_notes(st, j);
  st.txns = h.txn_count();
  return h;
}

Logs logs_of_files(const std::vector<imp::CobraFile>& files, size_t block) {
  Logs logs;
  logs.files = true;
  logs.block = block;
  for (const auto& f : files) logs.logs.push_back({f.session, f.path, {}});
  return logs;
}

// What the streamed reader's first pass learns of the logs.
struct CobraFacts {
  bool any_ts = false;
  int64_t max_ts = INT64_MIN;
  Joined joined;
};

CobraFacts first_pass(const Logs& logs, uint64_t budget) {
  ImportStats st;
  Builder b(st, false);
  const Checked c = check_all(logs, b);
  const Joined j = join_all(logs, c, budget, !c.error_ex);
  throw_first_error(logs, c, j);
  return {b.any_ts(), b.max_ts(), j};
}

// The files' identity by content (see imp::content_id); "" when one cannot be read.
std::string files_id(const std::vector<imp::CobraFile>& files) {
  std::string id;
  for (const auto& f : files) {
    std::string one = imp::content_id(f.path, Format::cobra);
    if (one.empty()) return "";
    id += one + "\n" + std::to_string(f.session) + "\n";
  }
  return id;
}

class CobraTxnReader : public ForwardTxnReader {
 public:
  CobraTxnReader(const std::string& path, size_t block, uint64_t budget) {
    listing_ = ImportStats{};
    files_ = imp::cobra_files(path, listing_);
    logs_ = logs_of_files(files_, block);
    facts_ = facts(budget);
    restart();
  }
  History next(uint64_t n) override {
    History out;
    if (n == 0 || done_) return out;
    b_->set_history(&out);
    while (!done_ && (out.txn_count() < n || b_->open())) {
      if (!rec_) {
        if (log_ == logs_.logs.size()) {
          b_->finish();
          add_join_notes(stats_, facts_.joined);
          done_ = true;
          break;
        }
        rec_ = std::make_unique<LogRecords>(logs_.open(log_));
        b_->begin_log(logs_.logs[log_], rec_->timestamps());
        held_bytes_ = std::max<uint64_t>(held_bytes_, rec_->held_bytes());
      }
      Rec r;
      if (rec_->next(r)) {
        b_->record(r);
        most_ops_ = std::max(most_ops_, b_->open_ops());
      } else {
        b_->end_log();
        rec_.reset();
        ++log_;
      }
    }
    b_->set_history(nullptr);
    return handed_out(std::move(out));
  }
  ReaderHeld held() const override {
    ReaderHeld h;
    h.bytes = held_bytes_;
    h.records = most_ops_;
    h.pass_bytes = facts_.joined.most_bytes;
    return h;
  }

 private:
  CobraFacts facts(uint64_t budget) {
    static std::mutex lock;
    static std::map<std::string, CobraFacts> known;
    const std::string id = files_id(files_);
    if (!id.empty()) {
      std::lock_guard<std::mutex> g(lock);
      if (auto it = known.find(id); it != known.end()) return it->second;
    }
    CobraFacts f = first_pass(logs_, budget);
    if (!id.empty()) {
      std::lock_guard<std::mutex> g(lock);
      known[id] = f;
    }
    return f;
  }
  void restart() override {
    stats_ = listing_;
    stats_.format = facts_.any_ts ? "cobra (with timestamps)" : "cobra";
    b_ = std::make_unique<Builder>(stats_, false);
    b_->set_max_ts(facts_.max_ts);
    rec_.reset();
    log_ = 0;
    done_ = false;
    pos_ = TxnPosition{};
  }
  ImportStats listing_;
  std::vector<imp::CobraFile> files_;
  Logs logs_;
  CobraFacts facts_;
  std::unique_ptr<Builder> b_;
  std::unique_ptr<LogRecords> rec_;
  size_t log_ = 0;
  bool done_ = false;
  uint64_t held_bytes_ = 0, most_ops_ = 0;
};

}  // namespace

History parse_cobra_logs(std::span<const CobraLog> logs_in, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  Logs logs;
  for (const auto& l : logs_in) logs.logs.push_back({l.session, l.name, l.bytes});
  std::stable_sort(logs.logs.begin(), logs.logs.end(), [](auto& a, auto& b) { return a.session < b.session; });
  return build_whole(logs, st, UINT64_MAX);
}

namespace imp {

std::vector<CobraFile> cobra_files(const std::string& path, ImportStats& st) {
  std::vector<CobraFile> files;
  auto session_of = [](const std::string& fname, int64_t& n) {
    if (fname.size() < 6 || fname[0] != 'T' || fname.substr(fname.size() - 4) != ".log") return false;
    std::string digits = fname.substr(1, fname.size() - 5);
    if (digits.empty() || digits.size() > 18) return false;
    for (char c : digits)
      if (c < '0' || c > '9') return false;
    n = std::stoll(digits);
    return true;
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (!e.is_regular_file()) continue;
      std::string fname = e.path().filename().string();
      int64_t n;
      if (session_of(fname, n)) files.push_back({n, e.path().string()});
      else ++st.skipped["files in the folder that are not T<n>.log (not part of the history)"];
    }
    if (ec) throw InputError(path, "cannot list the folder: " + ec.message());
    if (files.empty()) throw InputError(path, "the folder holds no Cobra client log T<n>.log");
  } else {
    int64_t n = 0;
    if (!session_of(fs::path(path).filename().string(), n)) n = 0;
    files.push_back({n, path});
  }
  std::sort(files.begin(), files.end(),
            [](const CobraFile& a, const CobraFile& b) { return a.session != b.session ? a.session < b.session : a.path < b.path; });
  return files;
}

History read_cobra(const std::string& path, ImportStats& st, size_t block) {
  const std::vector<CobraFile> files = cobra_files(path, st);
  return build_whole(logs_of_files(files, block), st, UINT64_MAX);
}

}  // namespace imp

std::unique_ptr<TxnReader> open_cobra_reader(const std::string& path, size_t block, uint64_t join_budget) {
  return std::make_unique<CobraTxnReader>(path, block, join_budget);
}

}  // namespace isocheck

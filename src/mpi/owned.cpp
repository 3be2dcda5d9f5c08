#include "mpi/owned.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/flat_hash.h"
#include "graph/known_graph.h"
#include "io/hdf5_range.h"
#include "io/jsonl.h"
#include "mpi/accounting.h"
#include "mpi/collectives.h"
#include "mpi/exchange.h"
#include "mpi/unique_ids.h"

namespace isocheck::dist {
namespace {

// ---- sources -----------------------------------------------------------------

class Hdf5Source : public RangeSource {
 public:
  explicit Hdf5Source(const std::string& path) : reader_(path) {
    file = path;
    n = reader_.txn_count();
    const int P = size(), me = rank();
    first = n * me / P, last = n * (me + 1) / P;
    time_unit = reader_.time_unit();
  }
  History chunk(uint64_t a, uint64_t b) override { return reader_.range(a, b); }
  // (The first chunk checks every name of the tables without keeping them.)
  void load_tables() override {
    if (!loaded_) reader_.take_tables(keys, values), loaded_ = true;
  }
  [[noreturn]] void duplicate_id(int64_t id, uint64_t a, uint64_t b) override { throw_hdf5_duplicate_id(file, id, a, b); }

 private:
  Hdf5RangeReader reader_;
  bool loaded_ = false;
};

// JSONL by byte ranges. Rank r takes the lines that start in
// [S*r/P, S*(r+1)/P) of the file's S bytes; a scan (no parsing) finds its
// transaction lines (every non-blank line but the file's header), their byte
// offsets and line numbers; chunk() reads the bytes of a run of them and
// parses them behind the header line.
class JsonlSource : public RangeSource {
 public:
  explicit JsonlSource(const std::string& path) {
    file = path;
    const int P = size(), me = rank();
    std::error_code ec;
    uint64_t S = 0;
    collective([&] {
      in_.open(path, std::ios::binary);
      if (!in_) throw InputError(path, "cannot read the file");
      S = std::filesystem::file_size(path, ec);
      if (ec) throw InputError(path, "cannot read the file");
    });
    // The file's first non-blank line: its header when it is one.
    uint64_t first_line_at = UINT64_MAX;
    collective([&] {
      std::string line;
      uint64_t at = 0, number = 1;
      while (at < S) {
        line = read_line(at);
        if (!blank(line)) {
          first_line_at = at;
          break;
        }
        at += line.size() + 1, ++number;
      }
      header_ = "{\"isocheck\":1}";
      if (first_line_at == UINT64_MAX) return;
      try {
        History h = parse_jsonl(line + "\n", path, false, number);
        if (h.txn_count() == 0) header_ = line, time_unit = h.time_unit;
        else first_line_at = UINT64_MAX;  // a transaction: no header
      } catch (const InputError&) {
        // One process stops at this line: so does every chunk (the line
        // counts as a transaction line, so that its range has one).
        bad_first_ = line, bad_first_number_ = number;
        first_line_at = UINT64_MAX;
      }
    });
    auto line_start = [&](uint64_t x) {  // the first line starting at or after x
      if (x == 0 || x >= S) return std::min(x, S);
      uint64_t at = x - 1;
      for (;;) {
        if (at >= S) return S;
        std::string piece = read_bytes(at, std::min<uint64_t>(1 << 16, S - at));
        size_t nl = piece.find('\n');
        if (nl != std::string::npos) return at + nl + 1;
        at += piece.size();
      }
    };
    uint64_t lo = 0, hi = 0;
    collective([&] {
      lo = line_start(S * static_cast<uint64_t>(me) / static_cast<uint64_t>(P));
      hi = line_start(S * static_cast<uint64_t>(me + 1) / static_cast<uint64_t>(P));
      end_ = hi;
      // Scan: newlines and transaction lines.
      uint64_t at = lo, lines = 0;
      std::string carry;
      uint64_t carry_at = lo;
      while (at < hi) {
        std::string block = read_bytes(at, std::min<uint64_t>(1 << 22, hi - at));
        size_t p = 0;
        for (;;) {
          size_t nl = block.find('\n', p);
          if (nl == std::string::npos) {
            carry.append(block, p, std::string::npos);
            break;
          }
          carry.append(block, p, nl - p);
          note_line(carry, carry_at, lines, first_line_at);
          ++lines;
          carry.clear();
          carry_at = at + nl + 1;
          p = nl + 1;
        }
        at += block.size();
      }
      if (!carry.empty()) note_line(carry, carry_at, lines, first_line_at), ++lines;
      newlines_ = lines;
    });
    // Global line numbers and transaction indices: prefix sums over ranks.
    uint64_t mine[2] = {newlines_, off_.size()}, before[2] = {0, 0};
    MPI_Exscan(mine, before, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) before[0] = before[1] = 0;
    for (uint64_t& l : line_) l += before[0] + 1;  // 1-based
    first = before[1], last = first + off_.size();
    MPI_Allreduce(&mine[1], &n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    int preds = predicates_;
    MPI_Allreduce(MPI_IN_PLACE, &preds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    states_predicates = preds != 0;
  }

  History chunk(uint64_t a, uint64_t b) override {
    if (!bad_first_.empty()) parse_jsonl(bad_first_ + "\n", file, false, bad_first_number_);
    const uint64_t from = off_[a - first], to = b < last ? off_[b - first] : end_;
    std::string text = header_ + "\n" + read_bytes(from, to - from);
    return parse_jsonl(text, file, true, line_[a - first]);
  }
  [[noreturn]] void duplicate_id(int64_t id, uint64_t, uint64_t b) override {
    throw InputError(file + ":" + std::to_string(line_[b - first]), "duplicate transaction id " + std::to_string(id));
  }

 private:
  std::ifstream in_;
  std::string header_, bad_first_;
  uint64_t bad_first_number_ = 0;
  uint64_t end_ = 0, newlines_ = 0;
  bool predicates_ = false;  // this rank's lines state a scan, insert or delete
  std::vector<uint64_t> off_, line_;  // per transaction line: byte offset, line (local, then global)

  static bool blank(const std::string& l) {
    for (char c : l)
      if (c != ' ' && c != '\t' && c != '\r') return false;
    return true;
  }
  void note_line(const std::string& l, uint64_t at, uint64_t index, uint64_t header_at) {
    if (blank(l) || at == header_at) return;
    off_.push_back(at), line_.push_back(index);
    // (A key or value spelled like one of these words only costs the
    // parallel read: the file is then read on one rank.)
    if (!predicates_)
      for (const char* w : {"\"scan\"", "\"insert\"", "\"delete\""}) predicates_ |= l.find(w) != std::string::npos;
  }
  std::string read_bytes(uint64_t at, uint64_t len) {
    std::string s(len, '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(at));
    in_.read(s.data(), static_cast<std::streamsize>(len));
    if (static_cast<uint64_t>(in_.gcount()) != len) throw InputError(file, "cannot read the file");
    return s;
  }
  std::string read_line(uint64_t at) {
    std::string line;
    for (;;) {
      in_.clear();
      in_.seekg(static_cast<std::streamoff>(at + line.size()));
      char buf[4096];
      in_.read(buf, sizeof buf);
      const std::streamsize got = in_.gcount();
      if (got <= 0) return line;
      const char* nl = static_cast<const char*>(std::memchr(buf, '\n', static_cast<size_t>(got)));
      if (nl) return line.append(buf, static_cast<size_t>(nl - buf));
      line.append(buf, static_cast<size_t>(got));
    }
  }
};

class MemorySource : public RangeSource {
 public:
  History mine;  // transactions [first, last)
  History chunk(uint64_t a, uint64_t b) override {
    History c;
    const uint64_t t0 = a - first, t1 = b - first;
    const bool lists = !mine.op_list_offset.empty() && mine.op_list_offset.size() == mine.op_kind.size() + 1;
    for (uint64_t t = t0; t < t1; ++t) {
      c.begin_txn(mine.txn_id[t], mine.txn_session[t], mine.txn_status[t], mine.txn_begin[t], mine.txn_end[t]);
      for (OpIdx o = mine.op_begin(static_cast<TxnIdx>(t)); o < mine.op_end(static_cast<TxnIdx>(t)); ++o) {
        c.mark_predicate(c.op_count(), mine.predicate_mark(o));
        c.copy_value_predicate(mine, o, c.op_count());
        if (mine.op_kind[o] == OpKind::read_list && lists) c.add_list_read(mine.op_key[o], mine.list(o));
        else c.add_op(mine.op_kind[o], mine.op_key[o], mine.op_value[o]);
      }
      c.end_txn();
    }
    c.session_name = mine.session_name;
    return c;
  }
  uint64_t ops_resident() const override { return mine.op_count(); }
  void release() override { mine = History(); }
  bool can_fetch() const override { return false; }
};

// Every rank's byte buffers exchanged (MPI_Alltoallv): `out[r]` goes to rank
// r; the result holds what rank r sent here at [disp[r], disp[r] + count[r]).
// The same from one buffer: rank r's bytes at [sdisp[r], sdisp[r] + scount[r]) of `send`; `bad` when
// this rank's total exceeds an int.
std::vector<char> exchange_buffer(const std::vector<char>& send, const std::vector<int>& scount,
                                  const std::vector<int>& sdisp, int bad, std::vector<int>& count,
                                  std::vector<int>& disp);

std::vector<char> exchange(std::vector<std::vector<char>>& out, std::vector<int>& count, std::vector<int>& disp) {
  const int P = size();
  std::vector<int> scount(P), sdisp(P);
  std::vector<char> send;
  uint64_t total = 0;
  for (int r = 0; r < P; ++r) total += out[r].size();
  // MPI counts are ints: every rank learns whether any exceeds one.
  int bad = total > INT32_MAX;
  if (!bad) {
    send.reserve(total);
    for (int r = 0; r < P; ++r) {
      scount[r] = static_cast<int>(out[r].size()), sdisp[r] = static_cast<int>(send.size());
      send.insert(send.end(), out[r].begin(), out[r].end());
      std::vector<char>().swap(out[r]);
    }
  }
  return exchange_buffer(send, scount, sdisp, bad, count, disp);
}

std::vector<char> exchange_buffer(const std::vector<char>& send, const std::vector<int>& scount,
                                  const std::vector<int>& sdisp, int bad, std::vector<int>& count,
                                  std::vector<int>& disp) {
  const int P = size();
  count.assign(P, 0), disp.assign(P, 0);
  MPI_Alltoall(scount.data(), 1, MPI_INT, count.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t in = 0;
  for (int r = 0; r < P; ++r) {
    bad |= in > INT32_MAX;
    disp[r] = static_cast<int>(std::min<uint64_t>(in, INT32_MAX)), in += static_cast<uint64_t>(count[r]);
  }
  bad |= in > INT32_MAX;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) {
    g_error_agreed = true;
    throw ResourceError("distributing the pieces: more than 2 GiB of records in one chunk of the exchange; run on more ranks");
  }
  std::vector<char> recv(in);
  MPI_Alltoallv(send.data(), scount.data(), sdisp.data(), MPI_BYTE, recv.data(), count.data(), disp.data(), MPI_BYTE,
                MPI_COMM_WORLD);
  return recv;
}

template <class T> void put(std::vector<char>& b, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}
template <class T> T get(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

// Chunks: every rank runs the same number of rounds (from n and P alone), a
// chunk being at most 1/16 of a range (and at least 64 transactions), so
// that a chunk read, its records sent and those received stay small next to
// what a rank keeps.
struct Rounds {
  uint64_t count = 1, size = 0;
};
Rounds rounds_of(const RangeSource& src) {
  // Ranges may differ in length (JSONL ranges are cut by bytes): the longest decides.
  uint64_t per = src.last - src.first;
  MPI_Allreduce(MPI_IN_PLACE, &per, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  Rounds r;
  r.count = std::clamp<uint64_t>(per / 64, 1, 16);
  r.size = (per + r.count - 1) / r.count;
  return r;
}

// A round's chunk: transactions [a, b) of this rank's range when a < b and
// `read` (else none this round), with the history's symbols when the names
// are numbered across ranks (RangeSource::names: then collective, every rank
// calls it once per round). A chunk that could not be read, or renumbered,
// comes back as its error, thrown by get() (inside the round's collective,
// so that every rank learns it).
struct RoundChunk {
  std::optional<History> c;
  std::exception_ptr error;
  History* get() {
    if (error) std::rethrow_exception(error);
    return c ? &*c : nullptr;
  }
};
RoundChunk read_round(RangeSource& src, uint64_t a, uint64_t b, const char* step, bool read = true) {
  RoundChunk r;
  {
    StepTime read_time(step);
    if (a < b && read) {
      try {
        r.c = src.chunk(a, b);
      } catch (...) {
        r.error = std::current_exception();
      }
    }
  }
  if (src.names) src.names->renumber_keeping_error(r.c, r.error);
  if (r.c) src.named |= RangeNames::named_tables(*r.c);
  return r;
}

// The (key, session) rows of the first pass, counted as operations arrive:
// an open-addressing table whose slots are the rows themselves (a slot with
// no operations is free), one probe per operation instead of sorting every
// chunk's (key, session) pairs and merging the rows (O(ops log ops)).
class RowTable {
 public:
  RowTable() : slots_(1024, KeyTriple{0, 0, 0}) {}
  // The operation count of (key, session), created at 0. Valid until the next call.
  uint64_t& ops(uint64_t key, uint64_t session) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    const uint64_t m = slots_.size() - 1;
    for (uint64_t i = slot_of(key, session) & m;; i = (i + 1) & m) {
      KeyTriple& s = slots_[i];
      if (s.ops == 0) {
        s.key = key, s.session = session, ++used_;
        return s.ops;
      }
      if (s.key == key && s.session == session) return s.ops;
    }
  }
  // Adds a chunk's (key, session, operations) runs, prefetching the slots of
  // the runs a few ahead: the probes of a table larger than the caches
  // overlap instead of waiting one after another.
  void add(const std::vector<KeyTriple>& runs) {
    constexpr size_t kAhead = 16;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (i + kAhead < runs.size())
        __builtin_prefetch(&slots_[slot_of(runs[i + kAhead].key, runs[i + kAhead].session) & (slots_.size() - 1)]);
      ops(runs[i].key, runs[i].session) += runs[i].ops;
    }
  }
  // The rows (table order), the table freed.
  std::vector<KeyTriple> take() {
    std::vector<KeyTriple> rows;
    rows.reserve(used_);
    for (const KeyTriple& s : slots_)
      if (s.ops) rows.push_back(s);
    std::vector<KeyTriple>().swap(slots_);
    used_ = 0;
    return rows;
  }

 private:
  static uint64_t slot_of(uint64_t key, uint64_t session) { return mix(key * 0x9e3779b97f4a7c15ULL ^ session); }
  void grow() {
    std::vector<KeyTriple> old(2 * slots_.size(), KeyTriple{0, 0, 0});
    old.swap(slots_);
    const uint64_t m = slots_.size() - 1;
    for (const KeyTriple& s : old) {
      if (!s.ops) continue;
      uint64_t i = slot_of(s.key, s.session) & m;
      while (slots_[i].ops) i = (i + 1) & m;
      slots_[i] = s;
    }
  }
  std::vector<KeyTriple> slots_;
  uint64_t used_ = 0;
};

struct KV {
  uint64_t key, value;
  uint32_t txn, pad;
};

// Record of one transaction's operations of one piece:
//   u32 piece, u32 txn (whole-history index), i64 id, i64 session (the
//   user's), i64 begin, i64 end, u8 status, u32 operations; per operation
//   u8 kind (with the scan marks below), u32 position in the whole
//   transaction, u64 key, u64 value, and for a list read u32 length and its
//   values.
// An operation standing for a range scan's observation or a delete carries
// its mark (History::predicate_mark) in the kind byte's top bits: the
// piece's solver names its phantom from them, and the report words them as
// one process does. A read standing for a key a scan with a value predicate
// did not return (History::value_predicate_of) has the top bit set and its
// predicate after its value: u8 comparison, u64 and u64 constants.
constexpr uint8_t kKindMask = 0x0f, kScanShift = 4, kMarkMask = 0x7;  // kinds 0-3, marks 0-6
constexpr uint8_t kHasPredicate = 0x80;
constexpr size_t kPredicateBytes = 1 + 8 + 8;
template <class T> char* poke(char* w, const T& v) {
  std::memcpy(w, &v, sizeof v);
  return w + sizeof v;
}

// A piece's records of one round: bytes appended without being zeroed first
// (std::vector<char>::resize cleared each record's bytes before they were
// written, a call per record: the packing of a rank whose range touches
// 16,000 pieces spent a fifth of its time there). Capacity kept across rounds.
class RecordBuf {
 public:
  // n more bytes at the end, for the caller to write.
  char* grow(size_t n) {
    if (size_ + n > cap_) {
      const size_t cap = std::max(size_ + n, 2 * cap_);
      std::unique_ptr<char[]> d(new char[cap]);  // (uninitialized: written before read)
      if (size_) std::memcpy(d.get(), data_.get(), size_);
      data_ = std::move(d), cap_ = cap;
    }
    char* w = data_.get() + size_;
    size_ += n;
    return w;
  }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0, cap_ = 0;
};
char* grow(RecordBuf& o, size_t n) { return o.grow(n); }
char* grow(std::vector<char>& o, size_t n) {
  o.resize(o.size() + n);
  return o.data() + o.size() - n;
}

// Appends the record of transaction t of chunk c (`txn` its whole-history
// index) with its operations at positions pos(0..nops) in t, `lists` when c
// has list reads' values. Sized first, then written in place (one growth of
// `o`, no per-field insert).
template <class Buf, class Pos>
void put_record(Buf& o, uint32_t piece, uint32_t txn, const History& c, TxnIdx t, TxnStatus st, bool lists,
                uint32_t nops, Pos pos) {
  constexpr size_t kHead = 4 + 4 + 8 * 4 + 1 + 4, kOp = 1 + 4 + 8 + 8;
  const OpIdx first = c.op_begin(t);
  size_t bytes = kHead + kOp * static_cast<size_t>(nops);
  const bool predicates = !c.op_value_predicate.empty();
  for (uint32_t i = 0; i < nops; ++i) {
    const OpIdx op = first + pos(i);
    if (c.op_kind[op] == OpKind::read_list) bytes += 4 + (lists ? 8 * c.list(op).size() : 0);
    if (predicates && c.value_predicate_of(op)) bytes += kPredicateBytes;
  }
  // Marks only where the chunk has scans, deletes or inserts' open reads.
  const bool marked = !c.scan_ops.empty() || !c.delete_ops.empty() || !c.absent_choice_ops.empty();
  char* w = grow(o, bytes);
  w = poke(w, piece), w = poke(w, txn), w = poke(w, c.txn_id[t]), w = poke(w, c.session_name[c.txn_session[t]]);
  w = poke(w, c.txn_begin[t]), w = poke(w, c.txn_end[t]), w = poke(w, static_cast<uint8_t>(st)), w = poke(w, nops);
  for (uint32_t i = 0; i < nops; ++i) {
    const uint32_t at = pos(i);
    const OpIdx op = first + at;
    const uint8_t mark = marked ? c.predicate_mark(op) : 0;
    const ValuePredicate* vp = predicates ? c.value_predicate_of(op) : nullptr;
    w = poke(w, static_cast<uint8_t>(static_cast<uint8_t>(c.op_kind[op]) | mark << kScanShift | (vp ? kHasPredicate : 0)));
    w = poke(w, at), w = poke(w, c.op_key[op]), w = poke(w, c.op_value[op]);
    if (vp) w = poke(w, static_cast<uint8_t>(vp->cmp)), w = poke(w, vp->a), w = poke(w, vp->b);
    if (c.op_kind[op] == OpKind::read_list) {
      std::span<const Sym> l = lists ? c.list(op) : std::span<const Sym>{};
      w = poke(w, static_cast<uint32_t>(l.size()));
      if (!l.empty()) std::memcpy(w, l.data(), 8 * l.size()), w += 8 * l.size();
    }
  }
}

// Operation o's value predicate, read at p (after its value), into h; each
// such operation gets an entry of its own (operations in increasing order).
void get_value_predicate(const char*& p, History& h, OpIdx o) {
  ValuePredicate vp;
  vp.cmp = static_cast<ValuePredicate::Cmp>(get<uint8_t>(p));
  vp.a = get<Sym>(p), vp.b = get<Sym>(p);
  h.op_value_predicate.push_back({o, static_cast<uint32_t>(h.value_predicates.size())});
  h.value_predicates.push_back(vp);
}

// Decodes the record at p into a transaction of h, its session numbered in
// h by first appearance (`sessions`: the user's name to h's); with `txn`
// and `pos` its whole-history index and its operations' positions are
// appended there. Returns the next record.
const char* get_record(const char* p, History& h, FlatMap64& sessions, std::vector<TxnIdx>* txn,
                       std::vector<uint32_t>* pos) {
  p += 4;  // piece
  const uint32_t t = get<uint32_t>(p);
  const int64_t id = get<int64_t>(p), session = get<int64_t>(p), begin = get<int64_t>(p), end = get<int64_t>(p);
  const TxnStatus st = static_cast<TxnStatus>(get<uint8_t>(p));
  const uint32_t nops = get<uint32_t>(p);
  bool fresh = false;
  const uint64_t local = sessions.get_or_insert(static_cast<uint64_t>(session), h.session_name.size(), fresh);
  if (fresh) h.session_name.push_back(session);
  h.begin_txn(id, static_cast<uint32_t>(local), st, begin, end);
  if (txn) txn->push_back(t);
  for (uint32_t k = 0; k < nops; ++k) {
    const uint8_t byte = get<uint8_t>(p);
    const OpKind kind = static_cast<OpKind>(byte & kKindMask);
    h.mark_predicate(h.op_count(), (byte >> kScanShift) & kMarkMask);
    const uint32_t at = get<uint32_t>(p);
    const Sym key = get<Sym>(p), value = get<Sym>(p);
    if (byte & kHasPredicate) get_value_predicate(p, h, h.op_count());
    if (kind == OpKind::read_list) {
      const uint32_t len = get<uint32_t>(p);
      std::vector<Sym> l(len);
      std::memcpy(l.data(), p, 8 * static_cast<size_t>(len));
      p += 8 * static_cast<size_t>(len);
      h.add_list_read(key, l);
    } else {
      h.add_op(kind, key, value);
    }
    if (pos) pos->push_back(at);
  }
  h.end_txn();
  return p;
}

// Decodes a piece's records into a history sized for them (its transactions
// and operations are counted as they are routed): room reserved once for the
// whole piece, each source's share of the columns extended before its
// records are written in place (no push_back per field; memory is touched
// source by source, as the records are freed). Sessions are numbered by
// first appearance as get_record numbers them; with `txn` and `pos`,
// whole-history indices and positions.
class PieceDecoder {
 public:
  PieceDecoder(History& h, uint64_t ntxns, uint64_t nops, std::vector<TxnIdx>* txn, std::vector<uint32_t>* pos)
      : h_(h), txn_(txn), pos_(pos) {
    t_ = h.txn_count(), o_ = h.op_count();
    h.reserve_more(ntxns, nops);
    if (txn_) txn_->reserve(t_ + ntxns);
    if (pos_) pos_->reserve(o_ + nops);
  }
  // Room for the next source's transactions and operations.
  void extend(uint64_t ntxns, uint64_t nops) {
    History& h = h_;
    const size_t t1 = h.txn_id.size() + ntxns, o1 = h.op_kind.size() + nops;
    h.txn_id.resize(t1), h.txn_session.resize(t1), h.txn_status.resize(t1);
    h.txn_begin.resize(t1), h.txn_end.resize(t1), h.txn_op_offset.resize(t1 + 1);
    h.op_kind.resize(o1), h.op_key.resize(o1), h.op_value.resize(o1), h.op_list_offset.resize(o1 + 1);
    if (txn_) txn_->resize(t1);
    if (pos_) pos_->resize(o1);
  }
  const char* record(const char* p) {
    History& h = h_;
    p += 4;  // piece
    const uint32_t t = get<uint32_t>(p);
    const int64_t id = get<int64_t>(p), session = get<int64_t>(p), begin = get<int64_t>(p), end = get<int64_t>(p);
    const TxnStatus st = static_cast<TxnStatus>(get<uint8_t>(p));
    const uint32_t nops = get<uint32_t>(p);
    if (t_ >= h.txn_id.size() || nops > h.op_kind.size() - o_) throw std::logic_error("a piece's records exceed their count");
    bool fresh = false;
    const uint64_t local = sessions_.get_or_insert(static_cast<uint64_t>(session), h.session_name.size(), fresh);
    if (fresh) h.session_name.push_back(session);
    h.txn_id[t_] = id, h.txn_session[t_] = static_cast<uint32_t>(local), h.txn_status[t_] = st;
    h.txn_begin[t_] = begin, h.txn_end[t_] = end;
    if (txn_) (*txn_)[t_] = t;
    for (uint32_t k = 0; k < nops; ++k, ++o_) {
      const uint8_t byte = get<uint8_t>(p);
      const OpKind kind = static_cast<OpKind>(byte & kKindMask);
      h.mark_predicate(o_, (byte >> kScanShift) & kMarkMask);
      const uint32_t at = get<uint32_t>(p);
      h.op_kind[o_] = kind, h.op_key[o_] = get<Sym>(p), h.op_value[o_] = get<Sym>(p);
      if (byte & kHasPredicate) get_value_predicate(p, h, o_);
      if (kind == OpKind::read_list) {
        const uint32_t len = get<uint32_t>(p);
        const size_t l0 = h.list_value.size();
        h.list_value.resize(l0 + len);
        std::memcpy(h.list_value.data() + l0, p, 8 * static_cast<size_t>(len));
        p += 8 * static_cast<size_t>(len);
        h.op_value[o_] = 0;
      }
      h.op_list_offset[o_ + 1] = h.list_value.size();
      if (pos_) (*pos_)[o_] = at;
    }
    h.txn_op_offset[++t_] = o_;
    return p;
  }
  // Throws unless every transaction and operation made room for was decoded.
  void finish() const {
    if (t_ != h_.txn_id.size() || o_ != h_.op_kind.size()) throw std::logic_error("a piece's records fall short of their count");
  }

 private:
  History& h_;
  std::vector<TxnIdx>* txn_;
  std::vector<uint32_t>* pos_;
  FlatMap64 sessions_;
  size_t t_ = 0, o_ = 0;
};

// Transaction ids are unique in the whole file (each range checked only
// itself): the ids go to hash(id) % P; the earliest repetition in file order
// is reported as one process reports it.
void unique_ids(RangeSource& src, std::vector<std::pair<int64_t, uint64_t>> ids) {
  const FirstRepeat r = first_repeated_id(std::move(ids));
  if (!r.found()) return;
  collective([&] {
    if (r.b >= src.first && r.b < src.last) src.duplicate_id(r.id, r.a, r.b);
  });
}

}  // namespace

void RangeSource::duplicate_id(int64_t id, uint64_t, uint64_t) {
  throw InputError(file, "duplicate transaction id " + std::to_string(id));
}

std::unique_ptr<RangeSource> hdf5_source(const std::string& file) { return std::make_unique<Hdf5Source>(file); }
std::unique_ptr<RangeSource> jsonl_source(const std::string& file) { return std::make_unique<JsonlSource>(file); }

std::unique_ptr<RangeSource> scattered_source(History&& h, int root) {
  auto s = std::make_unique<MemorySource>();
  const int P = size(), me = rank();
  uint64_t n = me == root ? h.txn_count() : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  s->n = n, s->first = n * me / P, s->last = n * (me + 1) / P;
  // Symbol tables and time unit: every rank (whole-history pieces print nothing
  // but check() may compare names).
  History tables;
  if (me == root) tables.keys = std::move(h.keys), tables.values = std::move(h.values), tables.time_unit = h.time_unit;
  {
    History empty_cols = std::move(tables);
    bcast_history(empty_cols, root);
    s->keys = std::move(empty_cols.keys), s->values = std::move(empty_cols.values), s->time_unit = empty_cols.time_unit;
  }
  s->mine = scatter_ranges_with_lists(h, root);
  if (me == root) h = History();
  return s;
}

// One process's check refuses a history that uses a key both as a list and
// as a register, at the first such operation in the file (first_list_key_
// misuse), whatever its transaction's status; a piece may not hold that
// operation (another piece, an aborted transaction, a piece past the ones the
// report needs). So, when any rank met a list operation, the ranges are read
// again, every key's use goes to its owner, and the first misuse in the file
// is the run's error. Only when some rank met a list operation and some a
// register one (a list-append history is not read again). Collective.
static void refuse_list_key_misuse(RangeSource& src, bool any_list, bool any_register) {
  const int P = size();
  int met[2] = {any_list ? 1 : 0, any_register ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, met, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!met[0] || !met[1]) return;
  StepTime time("partition.lists");
  const Rounds R = rounds_of(src);
  FlatMap64 index{1024};  // key -> its entry in uses
  std::vector<ListKeyUse> uses;
  for (uint64_t k = 0; k < R.count; ++k) {
    const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
    RoundChunk rc = read_round(src, a, b, "partition.lists");
    collective([&] {
      History* cp = rc.get();
      if (!cp) return;
      const History& c = *cp;
      note_ops_held(src.ops_resident() + c.op_count());
      for (TxnIdx t = 0; t < c.txn_count(); ++t)
        for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
          if (!uses_as_list(c.op_kind[o]) && !uses_as_register(c.op_kind[o], c.op_value[o])) continue;
          bool fresh;
          uint64_t& i = index.get_or_insert(c.op_key[o], uses.size(), fresh);
          if (fresh) uses.push_back(ListKeyUse{c.op_key[o]});
          uses[i].note(c.op_kind[o], c.op_value[o], a + t, c.txn_id[t], o - c.op_begin(t));
        }
    });
  }
  std::vector<std::vector<char>> out(P);
  for (const ListKeyUse& u : uses) put(out[static_cast<int>(mix(u.key) % static_cast<uint64_t>(P))], u);
  std::vector<ListKeyUse>().swap(uses);
  std::vector<int> cnt, disp;
  const std::vector<char> in = exchange(out, cnt, disp);
  // The owner's view of each of its keys; the first misuse among them.
  FlatMap64 mine{1024};
  std::vector<ListKeyUse> merged;
  for (size_t at = 0; at + sizeof(ListKeyUse) <= in.size(); at += sizeof(ListKeyUse)) {
    ListKeyUse u;
    std::memcpy(&u, in.data() + at, sizeof u);
    bool fresh;
    uint64_t& i = mine.get_or_insert(u.key, merged.size(), fresh);
    if (fresh) merged.push_back(u);
    else merged[i].merge(u);
  }
  std::vector<ListKeyUse> first(1);  // txn ~0: none
  for (const ListKeyUse& m : merged)
    if (m.misused() && m.before(first[0])) first[0] = m;
  ListKeyUse worst;
  for (const ListKeyUse& f : allgather_records(first, "list keys"))
    if (f.before(worst)) worst = f;
  if (!worst.has_register()) return;
  g_error_agreed = true;  // (every rank throws the same error)
  src.load_tables();
  throw InputError(src.file, list_key_misuse(worst.id, worst.pos, src.keys.text(worst.key), worst.writes).what());
}

OwnedScan scan_owned(RangeSource& src) {
  const int P = size();
  OwnedScan out;
  src.named = 0;
  const Rounds R = rounds_of(src);
  std::vector<int64_t> order;  // my sessions by first appearance
  std::unordered_set<int64_t> seen;
  RowTable rows;  // session = the user's name until renumbered
  std::vector<uint8_t> chunk_seen;  // per session of the chunk: met in it
  std::vector<KeyTriple> runs;      // the chunk's operations, a run of one key in one transaction as one
  std::vector<uint8_t> committed(src.last - src.first, 0);
  std::vector<KV> unknown_writes;
  std::vector<std::pair<int64_t, uint64_t>> ids;  // (id, transaction)
  ids.reserve(src.last - src.first);                // one per transaction of the range
  uint64_t counts[2] = {src.last - src.first, 0};
  bool any_unknown = false, any_list = false, any_register = false;
  ReplayScan replay;        // what the report's replay lines need
  std::string input_error;  // this rank's first malformed chunk
  for (uint64_t k = 0; k < R.count; ++k) {
    const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
    // A malformed input stops this rank's reading; the error reported is
    // agreed after the pass: the lowest rank's, its first — the first in
    // the file, as one process reports it. Other errors stop every rank at
    // once (collective).
    RoundChunk rc = read_round(src, a, b, "partition.read", input_error.empty());
    collective([&] {
    History* cp;
    try {
      cp = rc.get();
    } catch (const InputError& e) {
      input_error = e.what();
      return;
    }
    if (!cp) return;
    const History& c = *cp;
    StepTime rows_time("partition.rows");
    note_ops_held(src.ops_resident() + c.op_count());
    counts[1] += c.op_count();
    chunk_seen.assign(c.session_count(), 0);
    for (TxnIdx t = 0; t < c.txn_count(); ++t) {
      const uint32_t ls = c.txn_session[t];
      const int64_t name = c.session_name[ls];
      ids.push_back({c.txn_id[t], a + t});
      // A session's first transaction in the chunk may be its first in the range.
      if (!chunk_seen[ls]) {
        chunk_seen[ls] = 1;
        if (seen.insert(name).second) order.push_back(name);
      }
      committed[a + t - src.first] = c.txn_status[t] == TxnStatus::committed;
      const bool unknown = c.txn_status[t] == TxnStatus::unknown;
      any_unknown |= unknown;
      const size_t first_run = runs.size();
      for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
        any_list |= uses_as_list(c.op_kind[o]);
        any_register |= uses_as_register(c.op_kind[o], c.op_value[o]);
        if (runs.size() > first_run && runs.back().key == c.op_key[o]) ++runs.back().ops;
        else runs.push_back({c.op_key[o], static_cast<uint64_t>(name), 1});
        if (unknown && (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append))
          unknown_writes.push_back({c.op_key[o], c.op_value[o], static_cast<uint32_t>(a + t), 0});
      }
    }
    rows.add(runs);
    runs.clear();
    replay.add(c);
    });
    // Names met (string keys or values, in integer-numbered chunks): this
    // pass cannot be used, so it stops here, every rank alike, and any error
    // it met is left for the next read of the file (the caller numbers the
    // names, reading every range: a lower rank's error in a chunk not read
    // here comes first in the file).
    int named_now = src.named;
    MPI_Allreduce(MPI_IN_PLACE, &named_now, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (named_now) {
      out.named = named_now;
      return out;
    }
  }
  collective([&] {
    if (input_error.empty()) return;
    const size_t cut = input_error.find(": ");
    if (cut == std::string::npos) throw InputError(src.file, input_error);
    throw InputError(input_error.substr(0, cut), input_error.substr(cut + 2));
  });
  StepTime ids_time("partition.ids");
  unique_ids(src, std::move(ids));
  ids_time.stop();
  refuse_list_key_misuse(src, any_list, any_register);
  // Sessions: every rank's first-appearance list, in rank order, numbers them
  // as one process reading the file does.
  std::unordered_map<int64_t, uint32_t> gid;
  for (int64_t name : allgather_records(order, "sessions")) gid.try_emplace(name, static_cast<uint32_t>(gid.size()));
  out.sessions = static_cast<uint32_t>(gid.size());
  out.triples = rows.take();
  for (KeyTriple& t : out.triples) t.session = gid.at(static_cast<int64_t>(t.session));
  MPI_Allreduce(counts, &out.txns, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(counts + 1, &out.ops, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

  // Included: committed, or unknown and read by an included transaction
  // (transitively). Without unknown transactions, the committed ones.
  int unknown = any_unknown ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &unknown, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  bool included_unknown = false;
  if (!unknown) {
    out.included = std::move(committed);
  } else {
    // Unknown writes go to their key's owner, which keeps the first writer of
    // each (key, value) in file order (ranks' ranges are consecutive, so the
    // first arrival).
    auto owner_of = [&](uint64_t key) { return static_cast<int>(mix(key) % static_cast<uint64_t>(P)); };
    auto send_kv = [&](const std::vector<KV>& v) {
      std::vector<std::vector<char>> o(P);
      for (const KV& x : v) put(o[owner_of(x.key)], x);
      std::vector<int> cnt, disp;
      std::vector<char> in = exchange(o, cnt, disp);
      std::vector<KV> got(in.size() / sizeof(KV));
      std::memcpy(got.data(), in.data(), got.size() * sizeof(KV));
      return got;
    };
    struct PairHash {
      size_t operator()(const std::pair<uint64_t, uint64_t>& p) const { return mix(p.first * 0x9e3779b97f4a7c15ULL ^ p.second); }
    };
    std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> writer;
    for (const KV& x : send_kv(unknown_writes)) writer.try_emplace({x.key, x.value}, x.txn);
    std::vector<KV>().swap(unknown_writes);
    // Reads of a value, to the key's owner: (reader, writer) pairs where the
    // value was written by an unknown transaction.
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint64_t k = 0; k < R.count; ++k) {
      const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
      std::vector<KV> reads;
      RoundChunk rc = read_round(src, a, b, "partition.included");
      collective([&] {
        History* cp = rc.get();
        if (!cp) return;
        const History& c = *cp;
        for (TxnIdx t = 0; t < c.txn_count(); ++t)
          c.for_each_read_value(t, [&](Sym key, Sym v) { reads.push_back({key, v, static_cast<uint32_t>(a + t), 0}); });
        note_ops_held(src.ops_resident() + c.op_count() + reads.size());
      });
      for (const KV& x : send_kv(reads)) {
        auto it = writer.find({x.key, x.value});
        if (it != writer.end()) edges.push_back({x.txn, it->second});
      }
    }
    // Fixpoint over a bitmap of every transaction (one byte each).
    std::vector<uint8_t> inc(src.n, 0);
    std::copy(committed.begin(), committed.end(), inc.begin() + static_cast<long>(src.first));
    auto allreduce_or = [&] {
      for (uint64_t s = 0; s < inc.size(); s += kChunk)
        MPI_Allreduce(MPI_IN_PLACE, inc.data() + s, static_cast<int>(std::min<uint64_t>(kChunk, inc.size() - s)), MPI_UINT8_T,
                      MPI_BOR, MPI_COMM_WORLD);
    };
    allreduce_or();
    for (int changed = 1; changed;) {
      changed = 0;
      for (bool local = true; local;) {
        local = false;
        for (auto [r, w] : edges)
          if (inc[r] && !inc[w]) inc[w] = 1, local = true, changed = 1;
      }
      MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (changed) allreduce_or();
    }
    out.included.assign(inc.begin() + static_cast<long>(src.first), inc.begin() + static_cast<long>(src.last));
    for (size_t i = 0; i < out.included.size(); ++i) included_unknown |= out.included[i] && !committed[i];
  }
  out.replay = replay.finish(included_unknown);
  uint64_t inc_count = static_cast<uint64_t>(std::count(out.included.begin(), out.included.end(), 1));
  MPI_Allreduce(&inc_count, &out.committed, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

void OwnedPieces::distribute(RangeSource& src, const Job& job, Partition& part, const std::vector<uint8_t>& included,
                             const std::vector<int>& owner, const std::vector<uint8_t>& skip) {
  tables_ = &src;
  const int P = size(), me = rank();
  const uint32_t npieces = job.pieces();
  pieces_.assign(npieces, Piece{});
  for (Piece& p : pieces_) p.from.resize(P);
  // Pieces that are the whole history (SSER's piece 0; SER/SI on one block).
  std::vector<uint32_t> whole;
  if (job.whole_sser) whole.push_back(0);
  if (!job.split_levels.empty() && job.whole_split) whole.push_back(job.whole_sser ? 1 : 0);
  const bool blocks = !job.split_levels.empty() && !job.whole_split;
  const uint32_t base = job.whole_sser ? 1 : 0;
  bool tables = false;
  for (uint32_t w : whole) tables |= owner[w] == me && !skip[w];
  if (tables) src.load_tables(), keys_ = src.keys, values_ = src.values;
  time_unit_ = src.time_unit;
  std::vector<uint64_t> comp_txns(part.comp_sessions.size(), 0);
  const Rounds R = rounds_of(src);
  // A key's block looked up once per operation in O(1) (built only when
  // there are blocks to route to).
  std::unique_ptr<KeyComponents> comp_of;
  if (blocks) comp_of = std::make_unique<KeyComponents>(part);
  // This round's records per piece (kept between rounds for their room),
  // and the pieces that got some, in order of first record.
  std::vector<RecordBuf> buf(npieces);
  std::vector<uint64_t> buf_ops(npieces, 0), buf_txns(npieces, 0);
  std::vector<uint32_t> touched;
  std::vector<uint32_t> op_comp;                         // per operation of the chunk: its block
  std::vector<std::pair<uint32_t, uint32_t>> by_piece;  // (block, position) of one transaction's operations
  // Segment header in the exchange: piece, bytes, operations, transactions.
  constexpr size_t kSegHead = 4 + 8 + 8 + 8;
  for (uint64_t k = 0; k < R.count; ++k) {
    const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
    uint64_t sent_ops = 0, chunk_ops = 0;
    RoundChunk rc = read_round(src, a, b, "distribute.read");
    collective([&] {
      History* cp = rc.get();
      if (!cp) return;
      const History& c = *cp;
      StepTime pack_time("distribute.pack");
      chunk_ops = c.op_count();
      const bool lists = c.op_list_offset.size() == c.op_kind.size() + 1;
      auto emit = [&](uint32_t piece, TxnIdx t, TxnStatus st, uint32_t nops, auto pos) {
        if (buf_txns[piece]++ == 0) touched.push_back(piece);
        put_record(buf[piece], piece, static_cast<uint32_t>(a + t), c, t, st, lists, nops, pos);
        buf_ops[piece] += nops, sent_ops += nops;
      };
      auto identity = [](uint32_t i) { return i; };
      if (blocks) {
        op_comp.resize(c.op_count());
        for (OpIdx o = 0; o < c.op_count(); ++o) op_comp[o] = (*comp_of)(c.op_key[o]);
      }
      for (TxnIdx t = 0; t < c.txn_count(); ++t) {
        const uint32_t nops = static_cast<uint32_t>(c.op_end(t) - c.op_begin(t));
        for (uint32_t w : whole)
          if (!skip[w]) emit(w, t, c.txn_status[t], nops, identity);
        if (!blocks || nops == 0) continue;
        TxnStatus st = c.txn_status[t];
        if (st == TxnStatus::unknown && included[a + t - src.first]) st = TxnStatus::committed;
        const uint32_t* oc = op_comp.data() + c.op_begin(t);
        bool one = true;
        for (uint32_t i = 1; i < nops && one; ++i) one = oc[i] == oc[0];
        if (one) {  // the usual case: every operation in one block
          comp_txns[oc[0]]++;
          if (!skip[base + oc[0]]) emit(base + oc[0], t, st, nops, identity);
          continue;
        }
        // Operations grouped by block, in their order inside each (a stable
        // sort; by insertion for the short transactions of most histories).
        by_piece.clear();
        for (uint32_t i = 0; i < nops; ++i) by_piece.push_back({oc[i], i});
        if (nops <= 32) {
          for (size_t i = 1; i < by_piece.size(); ++i)
            for (size_t j = i; j > 0 && by_piece[j - 1].first > by_piece[j].first; --j) std::swap(by_piece[j - 1], by_piece[j]);
        } else {
          std::stable_sort(by_piece.begin(), by_piece.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        }
        for (size_t i = 0; i < by_piece.size();) {
          size_t j = i;
          while (j < by_piece.size() && by_piece[j].first == by_piece[i].first) ++j;
          const uint32_t comp = by_piece[i].first;
          comp_txns[comp]++;
          const auto* grp = by_piece.data() + i;
          if (!skip[base + comp])
            emit(base + comp, t, st, static_cast<uint32_t>(j - i), [grp](uint32_t x) { return grp[x].second; });
          i = j;
        }
      }
    });
    // Held while packing: the chunk read and its records.
    note_ops_held(src.ops_resident() + ops_ + chunk_ops + sent_ops);
    // This rank's own pieces take their records at once, as one exactly
    // sized segment; the others' go out in one segment per piece.
    auto keep = [&](uint32_t piece, int from, const char* p, uint64_t bytes, uint64_t nops, uint64_t ntxns) {
      Piece& dst = pieces_.at(piece);
      Source& s = dst.from[from];
      s.segs.emplace_back(p, p + bytes);
      s.bytes += bytes, s.ops += nops, s.txns += ntxns;
      dst.bytes += bytes, bytes_ += bytes, ops_ += nops;
    };
    std::vector<int> scount(P, 0), sdisp(P, 0);
    std::vector<char> send;
    int bad = 0;
    {
      std::vector<std::vector<uint32_t>> to(P);
      uint64_t total = 0;
      for (uint32_t piece : touched) {
        if (owner[piece] == me) {
          keep(piece, me, buf[piece].data(), buf[piece].size(), buf_ops[piece], buf_txns[piece]);
          sent_ops -= buf_ops[piece];
        } else {
          to[owner[piece]].push_back(piece), total += kSegHead + buf[piece].size();
        }
      }
      bad = total > INT32_MAX;
      if (!bad) {
        send.resize(total);
        char* w = send.data();
        for (int r = 0; r < P; ++r) {
          sdisp[r] = static_cast<int>(w - send.data());
          for (uint32_t piece : to[r]) {
            w = poke(w, piece), w = poke(w, static_cast<uint64_t>(buf[piece].size()));
            w = poke(w, buf_ops[piece]), w = poke(w, buf_txns[piece]);
            std::memcpy(w, buf[piece].data(), buf[piece].size()), w += buf[piece].size();
          }
          scount[r] = static_cast<int>(w - send.data()) - sdisp[r];
        }
      }
      for (uint32_t piece : touched) buf[piece].clear(), buf_ops[piece] = buf_txns[piece] = 0;
      touched.clear();
    }
    std::vector<int> cnt, disp;
    StepTime exchange_time("distribute.exchange");
    std::vector<char> in = exchange_buffer(send, scount, sdisp, bad, cnt, disp);
    exchange_time.stop();
    std::vector<char>().swap(send);
    uint64_t recv_ops = 0;
    for (int r = 0; r < P; ++r) {
      const char* p = in.data() + disp[r];
      const char* end = p + cnt[r];
      while (p < end) {
        const uint32_t piece = get<uint32_t>(p);
        const uint64_t bytes = get<uint64_t>(p), nops = get<uint64_t>(p), ntxns = get<uint64_t>(p);
        keep(piece, r, p, bytes, nops, ntxns);
        recv_ops += nops;
        p += bytes;
      }
    }
    // Held at the exchange: the records sent and received (the received ones
    // are now counted in ops_, their copy in `in` too).
    note_ops_held(src.ops_resident() + ops_ + sent_ops + recv_ops);
  }
  MPI_Allreduce(comp_txns.data(), part.comp_txns.data(), static_cast<int>(comp_txns.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  // The rounds' buffers (records packed, exchanged, chunks read) go back to
  // the system: what stays is the pieces' segments.
  std::vector<RecordBuf>().swap(buf);
  release_free_memory();
}

namespace {
constexpr int kTagPiece = 21;
constexpr uint64_t kPieceMsg = uint64_t{1} << 30;  // bytes per message (MPI counts are int)
}  // namespace

void OwnedPieces::send_piece(uint32_t i, int to) {
  Piece& p = pieces_.at(i);
  const size_t P = p.from.size();
  Outgoing o;
  o.piece = i;
  o.head.resize(3 * P);
  o.data.resize(P);
  for (size_t r = 0; r < P; ++r) {
    Source& s = p.from[r];
    o.head[r] = s.bytes, o.head[P + r] = s.ops, o.head[2 * P + r] = s.txns;
    // One buffer per source: its segments joined (a stolen piece only).
    o.data[r].reserve(s.bytes);
    for (auto& seg : s.segs) o.data[r].insert(o.data[r].end(), seg.begin(), seg.end()), std::vector<char>().swap(seg);
  }
  out_.push_back(std::move(o));
  Outgoing& q = out_.back();
  q.reqs.emplace_back();
  MPI_Isend(q.head.data(), static_cast<int>(3 * P), MPI_UINT64_T, to, kTagPiece, MPI_COMM_WORLD, &q.reqs.back());
  for (size_t r = 0; r < P; ++r)
    for (uint64_t at = 0; at < q.data[r].size(); at += kPieceMsg) {
      q.reqs.emplace_back();
      MPI_Isend(q.data[r].data() + at, static_cast<int>(std::min(kPieceMsg, q.data[r].size() - at)), MPI_BYTE, to,
                kTagPiece, MPI_COMM_WORLD, &q.reqs.back());
    }
}

void OwnedPieces::finish_sends() {
  for (Outgoing& o : out_) {
    MPI_Waitall(static_cast<int>(o.reqs.size()), o.reqs.data(), MPI_STATUSES_IGNORE);
    Piece& p = pieces_.at(o.piece);
    for (Source& s : p.from) ops_ -= s.ops, s.free();
  }
  out_.clear();
}

void OwnedPieces::recv_piece(uint32_t i, int from) {
  Piece& p = pieces_.at(i);
  const size_t P = p.from.size();
  std::vector<uint64_t> head(3 * P);
  wait_probe(from, kTagPiece);
  MPI_Recv(head.data(), static_cast<int>(3 * P), MPI_UINT64_T, from, kTagPiece, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (size_t r = 0; r < P; ++r) {
    Source& s = p.from[r];
    s.free();
    s.bytes = head[r], s.ops = head[P + r], s.txns = head[2 * P + r];
    ops_ += s.ops;
    std::vector<char> seg(head[r]);
    for (uint64_t at = 0; at < head[r]; at += kPieceMsg) {
      wait_probe(from, kTagPiece);
      MPI_Recv(seg.data() + at, static_cast<int>(std::min(kPieceMsg, head[r] - at)), MPI_BYTE, from, kTagPiece,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (!seg.empty()) s.segs.push_back(std::move(seg));
  }
  note_ops_held(ops_);
}

uint64_t OwnedPieces::largest_bytes() const {
  uint64_t m = 0;
  for (const Piece& p : pieces_) m = std::max(m, p.bytes);
  return m;
}

PieceResult OwnedPieces::solve(const Job& job, uint32_t i) {
  try {
    Piece& piece = pieces_.at(i);
    const bool whole = (job.whole_sser && i == 0) || (!job.split_levels.empty() && job.whole_split);
    History h;
    h.time_unit = time_unit_;
    if (whole) h.keys = keys_, h.values = values_;
    std::vector<TxnIdx> txn;
    std::vector<uint32_t> pos;
    // Sized once: the piece's transactions and operations are known.
    uint64_t ntxns = 0, nops = 0;
    for (const Source& s : piece.from) ntxns += s.txns, nops += s.ops;
    PieceDecoder dec(h, ntxns, nops, whole ? nullptr : &txn, whole ? nullptr : &pos);
    for (size_t r = 0; r < piece.from.size(); ++r) {
      Source& src = piece.from[r];
      dec.extend(src.txns, src.ops);
      for (std::vector<char>& seg : src.segs) {
        const char* p = seg.data();
        const char* end = p + seg.size();
        while (p < end) p = dec.record(p);
        std::vector<char>().swap(seg);
      }
      // Held at the most: the pieces still encoded, this source's records
      // and what is decoded so far.
      note_ops_held(ops_ + h.op_count());
      ops_ -= src.ops;
      freed_ += src.bytes;
      src.free();
      // Once tens of MiB of segments are freed, hand their pages back (the
      // allocator keeps freed pages for reuse) before more columns are
      // touched, so that the resident size is the encoded rest plus the
      // decoded part, as with one buffer per source (not after every small
      // piece: a purge walks the arenas).
      if (freed_ >= kTrimBytes) release_free_memory(), freed_ = 0;
    }
    dec.finish();
    if (whole) return check_piece(job, i, h, nullptr, nullptr);
    PieceResult r = check_piece(job, i, h, &txn, &pos);
    // A block's piece carries no symbol tables, and holds only the block's
    // operations of a transaction: an error raised inside its check names
    // keys and values by number and an operation by its place in the block.
    // On that path only, the piece is checked again with the file's tables
    // and each operation's place in its whole transaction, so the message is
    // one process's.
    if (r.error_code) {
      if (tables_) tables_->load_tables();
      if (tables_ && (tables_->keys.named() || tables_->values.named()))
        h.keys = tables_->keys, h.values = tables_->values;
      h.op_position = pos;
      r = check_piece(job, i, h, &txn, &pos);
    }
    return r;
  } catch (const ResourceError& e) {
    return piece_error(i, 3, e.what());
  } catch (const std::bad_alloc&) {
    return piece_error(i, 3, "out of memory while building a piece; run on more ranks or machines with more memory");
  }
}

std::vector<TxnIdx> named_transactions(const CheckResult& r) {
  std::vector<TxnIdx> t;
  for (const Anomaly& a : r.anomalies) t.push_back(a.txn), t.push_back(a.other);
  for (const LevelResult& lr : r.levels) {
    if (!lr.witness) continue;
    for (size_t i = 0; i < lr.witness->cycle.size(); ++i) t.push_back(lr.witness->cycle.src[i]), t.push_back(lr.witness->cycle.dst[i]);
    for (const ConstraintRef& c : lr.witness->core) t.push_back(c.first_head), t.push_back(c.second_head);
    for (const ForcedOrder& f : lr.witness->forced)
      for (size_t i = 0; i < f.other_cycle.size(); ++i) t.push_back(f.other_cycle.src[i]), t.push_back(f.other_cycle.dst[i]);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

bool report_needs_whole(const CheckResult& r, const History& part) {
  for (const LevelResult& lr : r.levels) {
    if (!lr.witness) continue;
    const EdgeList& c = lr.witness->cycle;
    for (size_t i = 0; i < c.size(); ++i) {
      if (c.kind[i] != EdgeKind::ww && c.kind[i] != EdgeKind::rw) continue;
      for (OpIdx o = part.op_begin(c.dst[i]); o < part.op_end(c.dst[i]); ++o)
        if (part.op_kind[o] == OpKind::append) return true;
    }
  }
  return false;
}

CheckResult renumber_result(const CheckResult& r, const std::vector<TxnIdx>& txns) {
  auto local = [&](TxnIdx g) { return static_cast<TxnIdx>(std::lower_bound(txns.begin(), txns.end(), g) - txns.begin()); };
  CheckResult out = r;
  for (Anomaly& a : out.anomalies) a.txn = local(a.txn), a.other = local(a.other);
  for (LevelResult& lr : out.levels) {
    if (!lr.witness) continue;
    for (auto& v : lr.witness->cycle.src) v = local(v);
    for (auto& v : lr.witness->cycle.dst) v = local(v);
    for (ConstraintRef& c : lr.witness->core) c.first_head = local(c.first_head), c.second_head = local(c.second_head);
    for (ForcedOrder& f : lr.witness->forced) {
      for (auto& v : f.other_cycle.src) v = local(v);
      for (auto& v : f.other_cycle.dst) v = local(v);
    }
  }
  return out;
}

History fetch_transactions(RangeSource& src, const std::vector<TxnIdx>& txns) {
  const int P = size(), me = rank();
  // Mine: runs of the listed transactions inside my range, read a run at a
  // time (a run spans gaps of up to 256 transactions), one run a round: as
  // many rounds on every rank (the longest list of runs), since a run read
  // with names numbered across ranks is renumbered collectively.
  std::vector<std::pair<TxnIdx, TxnIdx>> runs;  // [first, last] listed transactions
  {
    auto lo = std::lower_bound(txns.begin(), txns.end(), src.first);
    auto hi = std::lower_bound(txns.begin(), txns.end(), src.last);
    for (auto it = lo; it != hi;) {
      auto run_end = it + 1;
      while (run_end != hi && *run_end - *(run_end - 1) <= 256) ++run_end;
      runs.push_back({*it, *(run_end - 1)});
      it = run_end;
    }
  }
  uint64_t rounds = runs.size();
  MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::vector<char> out;
  for (uint64_t k = 0; k < rounds; ++k) {
    const uint64_t a = k < runs.size() ? runs[k].first : 0, b = k < runs.size() ? uint64_t{runs[k].second} + 1 : 0;
    RoundChunk rc = read_round(src, a, b, "report.fetch");
    collective([&] {
      History* cp = rc.get();
      if (!cp) return;
      const History& c = *cp;
      const bool lists = c.op_list_offset.size() == c.op_kind.size() + 1;
      for (auto t = std::lower_bound(txns.begin(), txns.end(), static_cast<TxnIdx>(a)); t != txns.end() && *t < b; ++t) {
        const TxnIdx l = static_cast<TxnIdx>(*t - a);
        put_record(out, 0, static_cast<uint32_t>(*t), c, l, c.txn_status[l], lists,
                   static_cast<uint32_t>(c.op_end(l) - c.op_begin(l)), [](uint32_t i) { return i; });
      }
      if (out.size() > INT32_MAX) throw ResourceError("the report's transactions exceed 2 GiB on one rank");
    });
  }
  int n = static_cast<int>(out.size());
  std::vector<int> cnt(P), disp(P);
  MPI_Gather(&n, 1, MPI_INT, cnt.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  uint64_t total = 0;
  if (me == 0)
    for (int r = 0; r < P; ++r) disp[r] = static_cast<int>(std::min<uint64_t>(total, INT32_MAX)), total += static_cast<uint64_t>(cnt[r]);
  int bad = me == 0 && total > INT32_MAX;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) {
    g_error_agreed = true;
    throw ResourceError("the report's transactions exceed 2 GiB");
  }
  std::vector<char> all(me == 0 ? total : 0);
  MPI_Gatherv(out.data(), n, MPI_BYTE, all.data(), cnt.data(), disp.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  History h;
  if (me != 0) return h;
  src.load_tables();
  h.keys = src.keys, h.values = src.values, h.time_unit = src.time_unit;
  FlatMap64 local_session;
  for (const char* p = all.data(); p < all.data() + all.size();) p = get_record(p, h, local_session, nullptr, nullptr);
  note_ops_held(h.op_count());
  return h;
}

}  // namespace isocheck::dist

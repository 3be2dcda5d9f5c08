#include "mpi/owned.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "io/hdf5_range.h"
#include "io/jsonl.h"
#include "mpi/accounting.h"
#include "mpi/collectives.h"

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
    reader_.take_tables(keys, values);
    time_unit = reader_.time_unit();
  }
  History chunk(uint64_t a, uint64_t b) override { return reader_.range(a, b); }
  [[noreturn]] void duplicate_id(int64_t id, uint64_t a, uint64_t b) override {
    throw InputError(file + ": dataset /txn/id row " + std::to_string(b),
                     "duplicate transaction id " + std::to_string(id) + " (rows " + std::to_string(a) + " and " +
                         std::to_string(b) + ")");
  }

 private:
  Hdf5RangeReader reader_;
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
  }

  History chunk(uint64_t a, uint64_t b) override {
    if (!bad_first_.empty()) parse_jsonl(bad_first_ + "\n", file, false, bad_first_number_);
    const uint64_t from = off_[a - first], to = b < last ? off_[b - first] : end_;
    std::string text = header_ + "\n" + read_bytes(from, to - from);
    History h = parse_jsonl(text, file, true, line_[a - first]);
    named |= h.keys.named() || h.values.named();
    return h;
  }
  [[noreturn]] void duplicate_id(int64_t id, uint64_t, uint64_t b) override {
    throw InputError(file + ":" + std::to_string(line_[b - first]), "duplicate transaction id " + std::to_string(id));
  }

 private:
  std::ifstream in_;
  std::string header_, bad_first_;
  uint64_t bad_first_number_ = 0;
  uint64_t end_ = 0, newlines_ = 0;
  std::vector<uint64_t> off_, line_;  // per transaction line: byte offset, line (local, then global)

  static bool blank(const std::string& l) {
    for (char c : l)
      if (c != ' ' && c != '\t' && c != '\r') return false;
    return true;
  }
  void note_line(const std::string& l, uint64_t at, uint64_t index, uint64_t header_at) {
    if (blank(l) || at == header_at) return;
    off_.push_back(at), line_.push_back(index);
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

// Sorted, merged (key, session) rows.
void compact(std::vector<KeyTriple>& rows) {
  std::sort(rows.begin(), rows.end(), [](const KeyTriple& a, const KeyTriple& b) {
    return a.key != b.key ? a.key < b.key : a.session < b.session;
  });
  size_t w = 0;
  for (size_t i = 0; i < rows.size();) {
    KeyTriple t = rows[i++];
    while (i < rows.size() && rows[i].key == t.key && rows[i].session == t.session) t.ops += rows[i++].ops;
    rows[w++] = t;
  }
  rows.resize(w);
  rows.shrink_to_fit();
}

struct KV {
  uint64_t key, value;
  uint32_t txn, pad;
};

// Record of one transaction's operations of one piece:
//   u32 piece, u32 txn (whole-history index), i64 id, i64 session (the
//   user's), i64 begin, i64 end, u8 status, u32 operations; per operation
//   u8 kind, u32 position in the whole transaction, u64 key, u64 value, and
//   for a list read u32 length and its values.
const char* skip_record(const char* p) {
  p += 4 + 4 + 8 * 4 + 1;
  uint32_t nops = get<uint32_t>(p);
  for (uint32_t k = 0; k < nops; ++k) {
    OpKind kind = static_cast<OpKind>(get<uint8_t>(p));
    p += 4 + 8 + 8;
    if (kind == OpKind::read_list) p += 8 * static_cast<uint64_t>(get<uint32_t>(p));
  }
  return p;
}

// Appends the record of transaction t of chunk c (`txn` its whole-history
// index) with its operations at positions pos(0..nops) in t, `lists` when c
// has list reads' values.
template <class Pos>
void put_record(std::vector<char>& o, uint32_t piece, uint32_t txn, const History& c, TxnIdx t, TxnStatus st,
                bool lists, uint32_t nops, Pos pos) {
  put(o, piece), put(o, txn), put(o, c.txn_id[t]), put(o, c.session_name[c.txn_session[t]]);
  put(o, c.txn_begin[t]), put(o, c.txn_end[t]), put(o, static_cast<uint8_t>(st)), put(o, nops);
  for (uint32_t i = 0; i < nops; ++i) {
    const uint32_t at = pos(i);
    const OpIdx op = c.op_begin(t) + at;
    put(o, static_cast<uint8_t>(c.op_kind[op])), put(o, at), put(o, c.op_key[op]), put(o, c.op_value[op]);
    if (c.op_kind[op] == OpKind::read_list) {
      std::span<const Sym> l = lists ? c.list(op) : std::span<const Sym>{};
      put(o, static_cast<uint32_t>(l.size()));
      for (Sym v : l) put(o, v);
    }
  }
}

// Decodes the record at p into a transaction of h, its session numbered in
// h by first appearance (`sessions`: the user's name to h's); with `txn`
// and `pos` its whole-history index and its operations' positions are
// appended there. Returns the next record.
const char* get_record(const char* p, History& h, std::unordered_map<int64_t, uint32_t>& sessions,
                       std::vector<TxnIdx>* txn, std::vector<uint32_t>* pos) {
  p += 4;  // piece
  const uint32_t t = get<uint32_t>(p);
  const int64_t id = get<int64_t>(p), session = get<int64_t>(p), begin = get<int64_t>(p), end = get<int64_t>(p);
  const TxnStatus st = static_cast<TxnStatus>(get<uint8_t>(p));
  const uint32_t nops = get<uint32_t>(p);
  auto [it, fresh] = sessions.try_emplace(session, static_cast<uint32_t>(h.session_name.size()));
  if (fresh) h.session_name.push_back(session);
  h.begin_txn(id, it->second, st, begin, end);
  if (txn) txn->push_back(t);
  for (uint32_t k = 0; k < nops; ++k) {
    const OpKind kind = static_cast<OpKind>(get<uint8_t>(p));
    const uint32_t at = get<uint32_t>(p);
    const Sym key = get<Sym>(p), value = get<Sym>(p);
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

// Transaction ids are unique in the whole file (each range checked only
// itself): the ids go to hash(id) % P; the earliest repetition in file order
// is reported as one process reports it.
void unique_ids(RangeSource& src, std::vector<std::pair<int64_t, uint64_t>> ids) {
  const int P = size();
  // Ids increasing across the file (generators, collectors): nothing to do.
  int64_t mine[3] = {1, INT64_MAX, INT64_MIN};  // increasing, smallest, largest
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i && ids[i - 1].first >= ids[i].first) mine[0] = 0;
    mine[1] = std::min(mine[1], ids[i].first), mine[2] = std::max(mine[2], ids[i].first);
  }
  std::vector<int64_t> all(3 * static_cast<size_t>(P));
  MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, MPI_COMM_WORLD);
  bool ordered = true;
  int64_t top = INT64_MIN;
  bool any = false;
  for (int r = 0; r < P; ++r) {
    if (!all[3 * r]) ordered = false;
    if (all[3 * r + 1] > all[3 * r + 2]) continue;  // empty range
    if (any && all[3 * r + 1] <= top) ordered = false;
    top = all[3 * r + 2], any = true;
  }
  if (ordered) return;
  std::vector<std::vector<char>> out(P);
  for (auto& x : ids) {
    std::vector<char>& o = out[static_cast<int>(mix(static_cast<uint64_t>(x.first)) % static_cast<uint64_t>(P))];
    put(o, x.first), put(o, x.second);
  }
  std::vector<std::pair<int64_t, uint64_t>>().swap(ids);
  std::vector<int> cnt, disp;
  std::vector<char> in = exchange(out, cnt, disp);
  std::vector<std::pair<int64_t, uint64_t>> got(in.size() / 16);
  for (size_t i = 0; i < got.size(); ++i) {
    const char* p = in.data() + 16 * i;
    got[i].first = get<int64_t>(p), got[i].second = get<uint64_t>(p);
  }
  std::sort(got.begin(), got.end());
  uint64_t best[3] = {UINT64_MAX, 0, 0};  // b, a, id
  for (size_t i = 1; i < got.size(); ++i)
    if (got[i].first == got[i - 1].first && (i < 2 || got[i - 2].first != got[i].first) && got[i].second < best[0])
      best[0] = got[i].second, best[1] = got[i - 1].second, best[2] = static_cast<uint64_t>(got[i].first);
  std::vector<uint64_t> bests(3 * static_cast<size_t>(P));
  MPI_Allgather(best, 3, MPI_UINT64_T, bests.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < P; ++r)
    if (bests[3 * r] < best[0]) best[0] = bests[3 * r], best[1] = bests[3 * r + 1], best[2] = bests[3 * r + 2];
  if (best[0] == UINT64_MAX) return;
  collective([&] {
    if (best[0] >= src.first && best[0] < src.last) src.duplicate_id(static_cast<int64_t>(best[2]), best[1], best[0]);
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

OwnedScan scan_owned(RangeSource& src) {
  const int P = size();
  OwnedScan out;
  const Rounds R = rounds_of(src);
  std::vector<int64_t> order;  // my sessions by first appearance
  std::unordered_set<int64_t> seen;
  std::vector<KeyTriple> rows;  // session = the user's name until renumbered
  size_t compacted = 0;
  std::vector<uint8_t> committed(src.last - src.first, 0);
  std::vector<KV> unknown_writes;
  std::vector<std::pair<int64_t, uint64_t>> ids;  // (id, transaction)
  uint64_t counts[2] = {src.last - src.first, 0};
  bool any_unknown = false;
  std::string input_error;  // this rank's first malformed chunk
  for (uint64_t k = 0; k < R.count; ++k) {
    const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
    // A malformed input stops this rank's reading; the error reported is
    // agreed after the pass: the lowest rank's, its first — the first in
    // the file, as one process reports it. Other errors stop every rank at
    // once (collective).
    collective([&] {
    if (a >= b || !input_error.empty()) return;
    History c;
    try {
      c = src.chunk(a, b);
    } catch (const InputError& e) {
      input_error = e.what();
      return;
    }
    note_ops_held(src.ops_resident() + c.op_count());
    counts[1] += c.op_count();
    std::vector<std::pair<uint64_t, int64_t>> ks;
    for (TxnIdx t = 0; t < c.txn_count(); ++t) {
      const int64_t name = c.session_name[c.txn_session[t]];
      ids.push_back({c.txn_id[t], a + t});
      if (seen.insert(name).second) order.push_back(name);
      committed[a + t - src.first] = c.txn_status[t] == TxnStatus::committed;
      const bool unknown = c.txn_status[t] == TxnStatus::unknown;
      any_unknown |= unknown;
      for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
        ks.push_back({c.op_key[o], name});
        if (unknown && (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append))
          unknown_writes.push_back({c.op_key[o], c.op_value[o], static_cast<uint32_t>(a + t), 0});
      }
    }
    std::sort(ks.begin(), ks.end());
    for (size_t i = 0; i < ks.size();) {
      size_t j = i;
      while (j < ks.size() && ks[j] == ks[i]) ++j;
      rows.push_back({ks[i].first, static_cast<uint64_t>(ks[i].second), j - i});
      i = j;
    }
    if (rows.size() > 2 * compacted + 4096) compact(rows), compacted = rows.size();
    });
  }
  collective([&] {
    if (input_error.empty()) return;
    const size_t cut = input_error.find(": ");
    if (cut == std::string::npos) throw InputError(src.file, input_error);
    throw InputError(input_error.substr(0, cut), input_error.substr(cut + 2));
  });
  int named = src.named ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (named) {
    out.named = true;
    return out;
  }
  unique_ids(src, std::move(ids));
  compact(rows);
  // Sessions: every rank's first-appearance list, in rank order, numbers them
  // as one process reading the file does.
  std::unordered_map<int64_t, uint32_t> gid;
  {
    int mine = static_cast<int>(order.size());
    std::vector<int> cnt(P), disp(P);
    MPI_Allgather(&mine, 1, MPI_INT, cnt.data(), 1, MPI_INT, MPI_COMM_WORLD);
    uint64_t total = 0;
    for (int r = 0; r < P; ++r) disp[r] = static_cast<int>(total), total += static_cast<uint64_t>(cnt[r]);
    if (total > INT32_MAX) throw ResourceError("more than 2^31 sessions; not supported");
    std::vector<int64_t> all(total);
    MPI_Allgatherv(order.data(), mine, MPI_INT64_T, all.data(), cnt.data(), disp.data(), MPI_INT64_T, MPI_COMM_WORLD);
    for (int64_t name : all) gid.try_emplace(name, static_cast<uint32_t>(gid.size()));
  }
  out.sessions = static_cast<uint32_t>(gid.size());
  for (KeyTriple& t : rows) t.session = gid.at(static_cast<int64_t>(t.session));
  out.triples = std::move(rows);
  MPI_Allreduce(counts, &out.txns, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(counts + 1, &out.ops, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

  // Included: committed, or unknown and read by an included transaction
  // (transitively). Without unknown transactions, the committed ones.
  int unknown = any_unknown ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &unknown, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
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
      collective([&] {
        if (a >= b) return;
        History c = src.chunk(a, b);
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
  }
  uint64_t inc_count = static_cast<uint64_t>(std::count(out.included.begin(), out.included.end(), 1));
  MPI_Allreduce(&inc_count, &out.committed, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

void OwnedPieces::distribute(RangeSource& src, const Job& job, Partition& part, const std::vector<uint8_t>& included,
                             const std::vector<int>& owner, const std::vector<uint8_t>& skip) {
  const int P = size(), me = rank();
  const uint32_t npieces = job.pieces();
  pieces_.assign(npieces, Piece{});
  for (Piece& p : pieces_) p.from.resize(P), p.from_ops.resize(P, 0);
  // Pieces that are the whole history (SSER's piece 0; SER/SI on one block).
  std::vector<uint32_t> whole;
  if (job.whole_sser) whole.push_back(0);
  if (!job.split_levels.empty() && job.whole_split) whole.push_back(job.whole_sser ? 1 : 0);
  const bool blocks = !job.split_levels.empty() && !job.whole_split;
  const uint32_t base = job.whole_sser ? 1 : 0;
  bool tables = false;
  for (uint32_t w : whole) tables |= owner[w] == me && !skip[w];
  if (tables) keys_ = src.keys, values_ = src.values;
  time_unit_ = src.time_unit;
  std::vector<uint64_t> comp_txns(part.comp_sessions.size(), 0);
  const Rounds R = rounds_of(src);
  std::vector<std::pair<uint32_t, uint32_t>> by_piece;  // (piece, position) of one transaction's operations
  for (uint64_t k = 0; k < R.count; ++k) {
    const uint64_t a = std::min(src.last, src.first + k * R.size), b = std::min(src.last, a + R.size);
    std::vector<std::vector<char>> out(P);
    uint64_t sent_ops = 0, chunk_ops = 0;
    collective([&] {
      if (a >= b) return;
      History c = src.chunk(a, b);
      chunk_ops = c.op_count();
      const bool lists = c.op_list_offset.size() == c.op_kind.size() + 1;
      auto emit = [&](uint32_t piece, TxnIdx t, TxnStatus st, const std::pair<uint32_t, uint32_t>* ops, uint32_t nops) {
        put_record(out[owner[piece]], piece, static_cast<uint32_t>(a + t), c, t, st, lists, nops,
                   [&](uint32_t i) { return ops[i].second; });
        sent_ops += nops;
      };
      for (TxnIdx t = 0; t < c.txn_count(); ++t) {
        const uint32_t nops = static_cast<uint32_t>(c.op_end(t) - c.op_begin(t));
        by_piece.clear();
        for (uint32_t i = 0; i < nops; ++i) by_piece.push_back({0, i});
        for (uint32_t w : whole)
          if (!skip[w]) emit(w, t, c.txn_status[t], by_piece.data(), nops);
        if (!blocks || nops == 0) continue;
        for (uint32_t i = 0; i < nops; ++i) by_piece[i].first = part.component_of_key(c.op_key[c.op_begin(t) + i]);
        std::stable_sort(by_piece.begin(), by_piece.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        TxnStatus st = c.txn_status[t];
        if (st == TxnStatus::unknown && included[a + t - src.first]) st = TxnStatus::committed;
        for (size_t i = 0; i < by_piece.size();) {
          size_t j = i;
          while (j < by_piece.size() && by_piece[j].first == by_piece[i].first) ++j;
          const uint32_t comp = by_piece[i].first;
          comp_txns[comp]++;
          if (!skip[base + comp]) emit(base + comp, t, st, by_piece.data() + i, static_cast<uint32_t>(j - i));
          i = j;
        }
      }
    });
    // Held while packing: the chunk read and its records.
    note_ops_held(src.ops_resident() + ops_ + chunk_ops + sent_ops);
    std::vector<int> cnt, disp;
    std::vector<char> in = exchange(out, cnt, disp);
    uint64_t recv_ops = 0;
    for (int r = 0; r < P; ++r) {
      const char* p = in.data() + disp[r];
      const char* end = p + cnt[r];
      while (p < end) {
        const char* next = skip_record(p);
        uint32_t piece;
        std::memcpy(&piece, p, 4);
        uint32_t nops;
        std::memcpy(&nops, p + 4 + 4 + 32 + 1, 4);
        Piece& dst = pieces_.at(piece);
        dst.from[r].insert(dst.from[r].end(), p, next);
        dst.from_ops[r] += nops, ops_ += nops, recv_ops += nops, bytes_ += static_cast<uint64_t>(next - p);
        dst.bytes += static_cast<uint64_t>(next - p);
        p = next;
      }
    }
    // Held at the exchange: the records sent and received (the received ones
    // are now counted in ops_, their copy in `in` too).
    note_ops_held(src.ops_resident() + ops_ + sent_ops + recv_ops);
  }
  for (Piece& p : pieces_)
    for (auto& f : p.from) f.shrink_to_fit();
  MPI_Allreduce(comp_txns.data(), part.comp_txns.data(), static_cast<int>(comp_txns.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
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
  o.head.resize(2 * P);
  for (size_t r = 0; r < P; ++r) o.head[r] = p.from[r].size(), o.head[P + r] = p.from_ops[r];
  out_.push_back(std::move(o));
  Outgoing& q = out_.back();
  q.reqs.emplace_back();
  MPI_Isend(q.head.data(), static_cast<int>(2 * P), MPI_UINT64_T, to, kTagPiece, MPI_COMM_WORLD, &q.reqs.back());
  for (size_t r = 0; r < P; ++r)
    for (uint64_t at = 0; at < p.from[r].size(); at += kPieceMsg) {
      q.reqs.emplace_back();
      MPI_Isend(p.from[r].data() + at, static_cast<int>(std::min(kPieceMsg, p.from[r].size() - at)), MPI_BYTE, to,
                kTagPiece, MPI_COMM_WORLD, &q.reqs.back());
    }
}

void OwnedPieces::finish_sends() {
  for (Outgoing& o : out_) {
    MPI_Waitall(static_cast<int>(o.reqs.size()), o.reqs.data(), MPI_STATUSES_IGNORE);
    Piece& p = pieces_.at(o.piece);
    for (size_t r = 0; r < p.from.size(); ++r) {
      std::vector<char>().swap(p.from[r]);
      ops_ -= p.from_ops[r];
      p.from_ops[r] = 0;
    }
  }
  out_.clear();
}

void OwnedPieces::recv_piece(uint32_t i, int from) {
  Piece& p = pieces_.at(i);
  const size_t P = p.from.size();
  std::vector<uint64_t> head(2 * P);
  wait_probe(from, kTagPiece);
  MPI_Recv(head.data(), static_cast<int>(2 * P), MPI_UINT64_T, from, kTagPiece, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (size_t r = 0; r < P; ++r) {
    p.from[r].resize(head[r]);
    p.from_ops[r] = head[P + r];
    ops_ += head[P + r];
    for (uint64_t at = 0; at < head[r]; at += kPieceMsg) {
      wait_probe(from, kTagPiece);
      MPI_Recv(p.from[r].data() + at, static_cast<int>(std::min(kPieceMsg, head[r] - at)), MPI_BYTE, from, kTagPiece,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
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
    std::unordered_map<int64_t, uint32_t> local_session;
    for (size_t r = 0; r < piece.from.size(); ++r) {
      std::vector<char>& seg = piece.from[r];
      const char* p = seg.data();
      const char* end = p + seg.size();
      while (p < end) p = get_record(p, h, local_session, &txn, &pos);
      // Held at the most: the pieces still encoded, this one's segment and
      // what is decoded so far.
      note_ops_held(ops_ + h.op_count());
      std::vector<char>().swap(seg);
      ops_ -= piece.from_ops[r];
      piece.from_ops[r] = 0;
    }
    if (whole) return check_piece(job, i, h, nullptr, nullptr);
    return check_piece(job, i, h, &txn, &pos);
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
  // time (a run spans gaps of up to 256 transactions).
  std::vector<char> out;
  collective([&] {
    auto lo = std::lower_bound(txns.begin(), txns.end(), src.first);
    auto hi = std::lower_bound(txns.begin(), txns.end(), src.last);
    for (auto it = lo; it != hi;) {
      auto run_end = it + 1;
      while (run_end != hi && *run_end - *(run_end - 1) <= 256) ++run_end;
      const uint64_t a = *it, b = static_cast<uint64_t>(*(run_end - 1)) + 1;
      History c = src.chunk(a, b);
      const bool lists = c.op_list_offset.size() == c.op_kind.size() + 1;
      for (auto t = it; t != run_end; ++t) {
        const TxnIdx l = static_cast<TxnIdx>(*t - a);
        put_record(out, 0, static_cast<uint32_t>(*t), c, l, c.txn_status[l], lists,
                   static_cast<uint32_t>(c.op_end(l) - c.op_begin(l)), [](uint32_t i) { return i; });
      }
      it = run_end;
    }
    if (out.size() > INT32_MAX) throw ResourceError("the report's transactions exceed 2 GiB on one rank");
  });
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
  h.keys = src.keys, h.values = src.values, h.time_unit = src.time_unit;
  std::unordered_map<int64_t, uint32_t> local_session;
  for (const char* p = all.data(); p < all.data() + all.size();) p = get_record(p, h, local_session, nullptr, nullptr);
  note_ops_held(h.op_count());
  return h;
}

}  // namespace isocheck::dist

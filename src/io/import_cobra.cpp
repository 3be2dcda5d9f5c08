// Cobra client logs: one big-endian binary file per client (session), records
//   'S' txnid [ts]   'W' writeId key value   'R' writerTxnId writeId key value
//   'C' txnid [ts]
// all fields i64. A read names the write it saw; the write id is the value we
// use (Cobra guarantees write ids unique), so reads match writes exactly.
#include <algorithm>
#include <unordered_set>

#include "io/import_common.h"

namespace isocheck {
namespace {

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

struct Cursor {
  const std::string& name;
  std::string_view b;
  size_t pos = 0;
  bool eof() const { return pos >= b.size(); }
  int64_t i64(size_t rec_start, const char* what) {
    if (b.size() - pos < 8)
      fail_byte(name, rec_start, std::string("truncated record: ") + what + " needs 8 bytes, " +
                                     std::to_string(b.size() - pos) + " left");
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<unsigned char>(b[pos + k]);
    pos += 8;
    return static_cast<int64_t>(v);
  }
};

bool is_tag(char c) { return c == 'S' || c == 'W' || c == 'R' || c == 'C'; }

// Whether a log carries timestamps after S and C (Cobra's time-order option):
// decided at the first S record by what follows its transaction id.
bool has_timestamps(std::string_view b) {
  if (b.size() < 10 || b[0] != 'S') return false;
  return !is_tag(b[9]);
}

struct WriteInfo {
  int64_t wid, txn, key, value;
};

}  // namespace

History parse_cobra_logs(std::span<const CobraLog> logs_in, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  std::vector<const CobraLog*> logs;
  for (const auto& l : logs_in) logs.push_back(&l);
  std::stable_sort(logs.begin(), logs.end(), [](auto* a, auto* b) { return a->session < b->session; });

  // Pass 1: every write (write id -> transaction, key, value), to tell which
  // reads name a writer that the logs contradict.
  std::vector<WriteInfo> writes;
  for (const CobraLog* l : logs) {
    Cursor c{l->name, l->bytes};
    bool ts = has_timestamps(l->bytes);
    int64_t txn = 0;
    bool bad = false;
    while (!c.eof() && !bad) {
      size_t at = c.pos;
      char tag = l->bytes[c.pos++];
      switch (tag) {
        case 'S': txn = c.i64(at, "the transaction id"); if (ts) c.i64(at, "the timestamp"); break;
        case 'C': c.i64(at, "the transaction id"); if (ts) c.i64(at, "the timestamp"); break;
        case 'W': {
          int64_t wid = c.i64(at, "the write id"), key = c.i64(at, "the key"), value = c.i64(at, "the value");
          writes.push_back({wid, txn, key, value});
          break;
        }
        case 'R': for (int k = 0; k < 4; ++k) c.i64(at, "a read field"); break;
        default: bad = true;  // reported in pass 2
      }
    }
  }
  std::sort(writes.begin(), writes.end(), [](auto& a, auto& b) { return a.wid < b.wid; });

  History h;
  imp::Sessions sessions{h};
  std::unordered_set<int64_t> txn_ids;
  uint64_t writer_mismatch = 0, value_mismatch = 0, key_mismatch = 0, unknown_writer = 0, init_reads = 0;
  bool any_ts = false;
  int64_t max_ts = INT64_MIN;
  std::vector<TxnIdx> unfinished;  // timed transactions without a commit record
  for (const CobraLog* l : logs) {
    Cursor c{l->name, l->bytes};
    bool ts = has_timestamps(l->bytes);
    any_ts |= ts;
    uint32_t session = sessions.index(l->session);
    bool open = false;
    int64_t open_id = 0;
    size_t open_at = 0;
    while (!c.eof()) {
      size_t at = c.pos;
      char tag = l->bytes[c.pos++];
      ++st.records;
      switch (tag) {
        case 'S': {
          int64_t id = c.i64(at, "the transaction id");
          int64_t t = ts ? c.i64(at, "the timestamp") : kNoTime;
          if (ts && t == kNoTime) fail_byte(l->name, at, kReservedTimestamp);
          if (ts) max_ts = std::max(max_ts, t);
          if (open)
            fail_byte(l->name, at, "transaction " + std::to_string(id) + " starts before transaction " +
                                       std::to_string(open_id) + " (started at byte " + std::to_string(open_at) +
                                       ") committed");
          if (!txn_ids.insert(id).second) fail_byte(l->name, at, "transaction id " + std::to_string(id) + " is used twice");
          h.begin_txn(id, session, TxnStatus::unknown, t, kNoTime);
          open = true;
          open_id = id;
          open_at = at;
          break;
        }
        case 'C': {
          int64_t id = c.i64(at, "the transaction id");
          int64_t t = ts ? c.i64(at, "the timestamp") : kNoTime;
          if (ts && t == kNoTime) fail_byte(l->name, at, kReservedTimestamp);
          if (ts) max_ts = std::max(max_ts, t);
          if (!open) fail_byte(l->name, at, "commit of transaction " + std::to_string(id) + ", which did not start");
          if (id != open_id)
            fail_byte(l->name, at, "commit of transaction " + std::to_string(id) + " while transaction " +
                                       std::to_string(open_id) + " is open");
          h.txn_status.back() = TxnStatus::committed;
          if (ts) {
            if (t < h.txn_begin.back())
              fail_byte(l->name, at, "transaction " + std::to_string(id) + " commits (timestamp " + std::to_string(t) +
                                         ") before it starts (" + std::to_string(h.txn_begin.back()) + ")");
            h.txn_end.back() = t;
          }
          h.end_txn();
          open = false;
          break;
        }
        case 'W': {
          int64_t wid = c.i64(at, "the write id"), key = c.i64(at, "the key");
          c.i64(at, "the value");
          if (!open) fail_byte(l->name, at, "a write outside a transaction");
          if (static_cast<Sym>(wid) == kNullValue) fail_byte(l->name, at, "write id " + std::to_string(wid) + " is reserved");
          h.add_op(OpKind::write, h.keys.intern_int(key), h.values.intern_int(wid));
          break;
        }
        case 'R': {
          int64_t wtxn = c.i64(at, "the writer transaction id"), wid = c.i64(at, "the write id");
          int64_t key = c.i64(at, "the key"), value = c.i64(at, "the value");
          if (!open) fail_byte(l->name, at, "a read outside a transaction");
          bool txn_marker = is_init(wtxn), wid_marker = is_init(wid);
          if (is_marker(wtxn, kInitMarker) && (is_marker(wid, kGcTrue) || is_marker(wid, kGcFalse))) {
            ++st.skipped["reads of Cobra's garbage-collection markers"];
            break;
          }
          if (txn_marker != wid_marker)
            fail_byte(l->name, at, "a read names writer transaction " + std::to_string(wtxn) + " and write id " +
                                       std::to_string(wid) + ": an initial-value marker in one but not the other");
          if (txn_marker) {
            ++init_reads;
            h.add_op(OpKind::read, h.keys.intern_int(key), kNullValue);
            break;
          }
          if (static_cast<Sym>(wid) == kNullValue) fail_byte(l->name, at, "write id " + std::to_string(wid) + " is reserved");
          auto it = std::lower_bound(writes.begin(), writes.end(), wid, [](auto& w, int64_t x) { return w.wid < x; });
          if (it == writes.end() || it->wid != wid) {
            ++unknown_writer;
          } else {
            if (it->txn != wtxn) ++writer_mismatch;
            if (it->key != key) ++key_mismatch;
            else if (it->value != value) ++value_mismatch;
          }
          h.add_op(OpKind::read, h.keys.intern_int(key), h.values.intern_int(wid));
          break;
        }
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(tag));
          fail_byte(l->name, at, std::string("unknown record type ") + hex + " (expected S, W, R or C)");
        }
      }
    }
    if (open) {
      ++st.notes["transactions without a commit record at the end of a log (outcome unknown)"];
      if (ts) unfinished.push_back(static_cast<TxnIdx>(h.txn_count() - 1));
      h.end_txn();
    }
  }
  // An unfinished transaction may take effect any time after it started: it
  // ends with the last timestamp of all logs.
  for (TxnIdx t : unfinished) h.txn_end[t] = max_ts;
  if (init_reads) st.notes["reads of the initial value (0xbebeebee / 0xdeadbeef markers)"] += init_reads;
  if (unknown_writer) st.notes["reads of a write id that no log contains (thin-air reads unless logs are missing)"] += unknown_writer;
  if (writer_mismatch) st.notes["reads whose named writer transaction is not the one that logged the write"] += writer_mismatch;
  if (key_mismatch) st.notes["reads of a write id that wrote another key"] += key_mismatch;
  if (value_mismatch) st.notes["reads whose value differs from the value the write logged"] += value_mismatch;
  st.format = any_ts ? "cobra (with timestamps)" : "cobra";
  st.txns = h.txn_count();
  return h;
}

}  // namespace isocheck

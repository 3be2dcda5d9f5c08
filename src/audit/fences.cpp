// Fence transactions added to a log (Cobra's epochs, docs/audit.md "Fences"):
// in memory (add_fences, tests) or streamed chunk by chunk (write_fenced).
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "audit/audit.h"
#include "audit/reader.h"
#include "audit/state.h"
#include "core/errors.h"
#include "io/import.h"
#include "io/load.h"
#include "io/sink.h"

namespace isocheck {

namespace {

// The fencing state carried from one chunk to the next: per session (by its
// name) the transactions since its last fence, the next fence id and value.
class Fencer {
 public:
  Fencer(uint64_t every, std::string fence_key, int64_t first_id)
      : every_(every), key_(std::move(fence_key)), next_id_(first_id) {}

  // A copy of `h` (one chunk, in file order) with the fences it needs.
  // Keys become named (the fence key is a string); values keep their mode.
  History add(const History& h) {
    History out;
    out.time_unit = h.time_unit;
    out.session_name = h.session_name;
    out.keys = h.keys;
    out.values = h.values;
    const Sym fk = out.keys.intern_string(key_);
    const bool remap_old = out.keys.take_switch();
    auto key = [&](Sym k) { return remap_old ? out.keys.remap(k) : k; };
    auto val = [&](int64_t v) { return out.values.intern_int(v); };
    std::vector<uint64_t*> since(h.session_count());
    for (uint32_t s = 0; s < h.session_count(); ++s)
      since[s] = &since_.try_emplace(h.session_name[s], every_).first->second;  // new: starts with a fence
    auto fence = [&](uint32_t s, int64_t b, int64_t e) {
      out.begin_txn(next_id_++, s, TxnStatus::committed, b, e);
      out.add_op(OpKind::read, fk, fence_value_ == 0 ? kNullValue : val(fence_value_));
      ++fence_value_;
      out.add_op(OpKind::write, fk, val(fence_value_));
      out.end_txn();
      ++fences_;
    };
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      const uint32_t s = h.txn_session[t];
      const bool timed = h.has_times(t);
      if (*since[s] >= every_) {  // a fence before t, riding on t's begin
        fence(s, timed ? h.txn_begin[t] : kNoTime, timed ? h.txn_begin[t] : kNoTime);
        *since[s] = 0;
      }
      out.begin_txn(h.txn_id[t], s, h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        if (h.op_kind[o] == OpKind::read_list) out.add_list_read(key(h.op_key[o]), h.list(o));
        else out.add_op(h.op_kind[o], key(h.op_key[o]), h.op_value[o]);
        copy_predicate_mark(out, h, o);
      }
      out.end_txn();
      ++*since[s];
    }
    return out;
  }
  uint64_t fences() const { return fences_; }

 private:
  uint64_t every_;
  std::string key_;
  int64_t next_id_, fence_value_ = 0;
  uint64_t fences_ = 0;
  std::unordered_map<int64_t, uint64_t> since_;
};

int64_t max_id(const History& h) {
  int64_t m = 0;
  for (int64_t id : h.txn_id) m = std::max(m, id);
  return m;
}

}  // namespace

History add_fences(const History& h, uint64_t every, const std::string& fence_key) {
  return Fencer(every, fence_key, max_id(h) + 1).add(h);
}

FencedCounts write_fenced(const std::string& log, const std::string& out, uint64_t every,
                          const std::string& fence_key, uint64_t chunk_txns) {
  if (every == 0) throw UsageError("--fence-every must be at least 1");
  const Format f = format_from_extension(out);
  if (f != Format::jsonl && f != Format::hdf5) throw UsageError("--write-fenced: use a .jsonl or .h5 file name");
  chunk_txns = std::max<uint64_t>(1, chunk_txns);
  // JSONL with scans, inserts and deletes: written expanded (HDF5 keeps
  // their marks), each chunk as the whole log expands it.
  const auto pred_keys = log_predicate_keys(log, "auto", chunk_txns);
  // Pass 1: the largest id (fence ids follow it, as in add_fences).
  int64_t top = 0;
  {
    LogReader r(log, "auto");
    r.set_predicate_keys(pred_keys);
    for (History h = r.next(chunk_txns); h.txn_count() > 0; h = r.next(chunk_txns)) top = std::max(top, max_id(h));
  }
  if (top == std::numeric_limits<int64_t>::max()) throw InputError(log, "a transaction id is the largest integer: no id is left for the fences");
  // Pass 2: chunk by chunk through the fencer into the sink. HDF5 chunks
  // carry the file's symbols with empty tables: give them the file's tables.
  LogReader r(log, "auto");
  r.set_predicate_keys(pred_keys);
  Fencer fencer(every, fence_key, top + 1);
  std::unique_ptr<HistorySink> sink;
  FencedCounts n;
  for (History h = r.next(chunk_txns); h.txn_count() > 0; h = r.next(chunk_txns)) {
    if (r.hdf5()) {
      h.keys = r.key_table(h);
      h.values = r.value_table(h);
    }
    History fenced = fencer.add(h);
    if (!sink) sink = open_sink(out, f, fenced.time_unit);
    sink->append(fenced);
    n.txns += fenced.txn_count();
  }
  if (!sink) {  // an empty log: an empty output
    History empty;
    sink = open_sink(out, f, empty.time_unit);
  }
  sink->finish();
  n.fences = fencer.fences();
  return n;
}

}  // namespace isocheck

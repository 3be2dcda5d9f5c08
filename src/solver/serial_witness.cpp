#include "solver/serial_witness.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/populate.h"
#include "core/predicates.h"
#include "core/flat_hash.h"
#include "core/radix_order.h"
#include "core/text_escape.h"

namespace isocheck {


namespace {

// key → latest value written in the replay so far (kNullValue: initial
// state), for the plan's keys (KeyStates: an array below its bound).
class LatestValues : public KeyStates<Sym> {
 public:
  explicit LatestValues(const WitnessPlan& p) : KeyStates<Sym>(p.direct_keys(), p.hashed_writes(), kNullValue) {}
};

struct PairHash {
  size_t operator()(const std::pair<Sym, Sym>& p) const { return mix64(p.first * 0x9e3779b97f4a7c15ULL ^ p.second); }
};

std::string txn_text(const History& h, TxnIdx t) { return "transaction " + std::to_string(h.txn_id[t]); }

// Values are unique per key in a history the graph engines accept (a repeated
// (key, value) write is an anomaly), and the replay relies on it: a read names
// one write. Fingerprints of every write of every transaction are split by
// their top bits into parts of about 4096, each part's set small enough to
// stay in cache. Two equal fingerprints mean a repeat or (rarely) a
// collision; either way: no witness.
//
// The split takes two scatters: at most 256 buckets from the operations,
// then each bucket (in cache) into its parts. One scatter straight into the
// parts wrote to 4096 places at once at 10^7 writes, each store a TLB miss.
bool writes_unique(const History& h, size_t writes) {
  if (writes < 2) return true;
  auto fingerprint = [&](OpIdx o) { return mix64(h.op_key[o] * 0x9e3779b97f4a7c15ULL ^ mix64(h.op_value[o])); };
  const size_t m = h.op_count();
  int bits = 0;
  while ((writes >> bits) > 4096) ++bits;  // parts of about 4096 fingerprints
  const int bucket_bits = std::min(bits, 8), part_bits = bits - bucket_bits;
  auto bucket_of = [&](uint64_t fp) { return bucket_bits == 0 ? 0 : fp >> (64 - bucket_bits); };
  const size_t buckets = size_t{1} << bucket_bits;
  // The operations are read once: where scans made most of them reads, the
  // writes are a few to a cache line, and a second walk cost as much as the
  // first.
  std::vector<uint64_t> in_order;
  in_order.reserve(writes);
  for (OpIdx o = 0; o < m; ++o)
    if (h.op_kind[o] == OpKind::write) in_order.push_back(fingerprint(o));
  std::vector<uint64_t> start(buckets + 1, 0);
  for (uint64_t fp : in_order) ++start[bucket_of(fp) + 1];
  for (size_t b = 1; b <= buckets; ++b) start[b] += start[b - 1];
  std::vector<uint64_t> fps;
  resize_populated(fps, start[buckets]);
  {
    std::vector<uint64_t> cursor(start.begin(), start.end() - 1);
    for (uint64_t fp : in_order) fps[cursor[bucket_of(fp)]++] = fp;
  }
  std::vector<uint64_t>().swap(in_order);
  // Per part: an open-addressing set on the low bits (0 marks empty, so a
  // fingerprint of 0 is stored as 1: a false repeat at worst, never a miss).
  std::vector<uint64_t> set;
  auto unique_in = [&](const uint64_t* fp, size_t n) {
    if (n < 2) return true;
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    set.assign(cap, 0);
    const size_t mask = cap - 1;
    for (size_t j = 0; j < n; ++j) {
      const uint64_t f = fp[j] ? fp[j] : 1;
      size_t i = f & mask;
      while (set[i] != 0) {
        if (set[i] == f) return false;
        i = (i + 1) & mask;
      }
      set[i] = f;
    }
    return true;
  };
  const size_t parts = size_t{1} << part_bits;
  const int part_shift = 64 - bits;
  auto part_of = [&](uint64_t fp) { return static_cast<size_t>(fp >> part_shift) & (parts - 1); };
  std::vector<uint64_t> scratch;
  std::vector<size_t> part_start;
  for (size_t b = 0; b < buckets; ++b) {
    const uint64_t* in = fps.data() + start[b];
    const size_t n = start[b + 1] - start[b];
    if (part_bits == 0) {
      if (!unique_in(in, n)) return false;
      continue;
    }
    scratch.resize(n);
    scatter_by_part(in, n, parts, part_of, scratch.data(), part_start);
    for (size_t q = 0; q < parts; ++q)
      if (!unique_in(scratch.data() + part_start[q], part_start[q + 1] - part_start[q])) return false;
  }
  return true;
}

// Replays the committed transactions in `order` (empty: file order). Returns
// "" when every read returns the latest write, else the first failed check.
template <class Table>
std::string replay(const History& h, const std::vector<TxnIdx>& order, WitnessOrder kind, Table& latest,
                   OpIdx* failed_read) {
  // A scan's open absence (History::absent_choice_ops) reads null and is
  // answered by the initial state or by any tombstone of its key; with a
  // value predicate, also by a present value the predicate does not match.
  std::unordered_set<std::pair<Sym, Sym>, PairHash> tombstones;
  std::function<bool(OpIdx, Sym)> open_absence_ok;
  if (!h.absent_choice_ops.empty()) {
    for (OpIdx o : h.delete_ops) tombstones.insert({h.op_key[o], h.op_value[o]});
    open_absence_ok = [&](OpIdx o, Sym cur) {
      if (!h.is_absent_choice(o)) return false;
      if (tombstones.count({h.op_key[o], cur})) return true;
      const ValuePredicate* p = h.value_predicate_of(o);
      return p && !predicate_matches(h.values, *p, cur);
    };
  }
  const size_t n = h.txn_count();
  const size_t steps = order.empty() ? n : order.size();
  auto txn_at = [&](size_t i) { return order.empty() ? static_cast<TxnIdx>(i) : order[i]; };
  // Session order: the candidate must keep each session's transactions in file order.
  std::vector<uint32_t> last_in_session(h.session_count(), ~0U);
  // Every key's slot is a cache miss at 10^5 transactions and more: the
  // slots of the operations kAhead ahead in replay order are prefetched
  // (across transactions: one transaction ahead covered two operations of a
  // read-modify-write log, too few to hide the misses).
  constexpr uint64_t kAhead = 16;
  size_t pf_step = 0;  // the prefetch cursor: step and operation
  OpIdx pf_op = steps ? h.op_begin(txn_at(0)) : 0;
  auto prefetch_ahead = [&](uint64_t ops) {
    for (; ops > 0 && pf_step < steps; --ops) {
      const TxnIdx pt = txn_at(pf_step);
      if (pf_op >= h.op_end(pt)) {
        if (++pf_step < steps) pf_op = h.op_begin(txn_at(pf_step));
        continue;
      }
      latest.prefetch(h.op_key[pf_op++]);
    }
  };
  prefetch_ahead(kAhead);
  for (size_t i = 0; i < steps; ++i) {
    TxnIdx t = txn_at(i);
    prefetch_ahead(h.op_end(t) - h.op_begin(t) + 1);  // (the cursor keeps pace, skipped steps too)
    if (h.txn_status[t] != TxnStatus::committed) continue;
    uint32_t& prev = last_in_session[h.txn_session[t]];
    if (prev != ~0U && prev > t)
      return txn_text(h, t) + " comes before " + txn_text(h, prev) + " of its session in " + to_string(kind);
    prev = t;
    for (OpIdx o = h.op_begin(t), e = h.op_end(t); o < e; ++o) {
      OpKind kind_o = h.op_kind[o];
      Sym& cur = latest.at(h.op_key[o]);
      Sym v = h.op_value[o];
      if (kind_o == OpKind::write) {
        cur = v;
      } else if (cur != v && !(open_absence_ok && v == kNullValue && open_absence_ok(o, cur))) {
        if (failed_read) *failed_read = o;
        return txn_text(h, t) + " reads " + printable(h.keys.text(h.op_key[o])) + " = " + value_text(h, v) +
               " but the latest write in " + to_string(kind) + " is " + value_text(h, cur);
      }
    }
  }
  return "";
}

}  // namespace

std::vector<TxnIdx> order_by_time(const History& h, const std::vector<int64_t>& time) {
  bool sorted = true;
  int64_t last = std::numeric_limits<int64_t>::min();
  size_t committed = 0;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] != TxnStatus::committed) continue;
    ++committed;
    if (time[t] < last) sorted = false;
    last = time[t];
  }
  std::vector<TxnIdx> order;
  if (sorted) return order;
  // A log is usually written in commit order, so its begin times are out of
  // order only by about the number of transactions running at once: an
  // insertion sort, stopped once it has moved more than a few entries per
  // transaction, sorts such a log in one near-sequential pass and with no
  // scratch (the radix sort below reads and writes 16-byte records three or
  // four times over; it took a quarter of `--level si` on 10^7 transactions).
  // Strict "<" keeps ties in file position, as the radix sort does.
  order.reserve(committed);
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.txn_status[t] == TxnStatus::committed) order.push_back(t);
  const size_t budget = 16 * committed + 4096;
  if (insertion_sort_bounded(order, [&](TxnIdx a, TxnIdx b) { return time[a] < time[b]; }, budget)) return order;
  // (time, position) records by a stable radix sort on the time (sign bit
  // flipped so that it orders as unsigned): ties stay in file position.
  struct At {
    uint64_t time;
    TxnIdx t;
  };
  std::vector<At> by_time;
  by_time.reserve(committed);
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.txn_status[t] == TxnStatus::committed)
      by_time.push_back({static_cast<uint64_t>(time[t]) ^ (uint64_t{1} << 63), t});
  radix_sort(by_time, [](const At& a) { return a.time; });
  for (size_t i = 0; i < by_time.size(); ++i) order[i] = by_time[i].t;
  return order;
}

WitnessPlan plan_serial_witness(const History& h, bool need_realtime) {
  WitnessPlan p;
  // Keys below this bound index an array directly (int64 keys < 0 are huge
  // here); the others, a generated plant's say, a hash map. Named keys too
  // only when the table is not much larger than the history: a round of an
  // audit uses the file's table (10^7 names for 10^5 transactions), and
  // filling an array that size on every check cost more than the replay.
  // The bound follows the history's size alone: a small piece of a large
  // history (an MPI rank's component, numbered with the whole history's key
  // symbols) filled an array as large as the whole key space on every replay
  // of every piece, so a rank's solve time grew with the history, not with
  // its share (weak scaling on 16 ranks: 0.46 -> 1.50 s for the same pieces).
  p.direct_bound = 4 * h.op_count() + 1024;
  // Lists need the graph engine; so do null writes (a read of null would be
  // ambiguous). Every transaction counts here, whatever its status.
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    OpKind k = h.op_kind[o];
    p.max_key = std::max(p.max_key, h.op_key[o]);
    if (h.op_key[o] < p.direct_bound) p.max_small_key = std::max(p.max_small_key, h.op_key[o]);
    else p.big_key_writes += k == OpKind::write;
    if (k == OpKind::append || k == OpKind::read_list) {
      p.why_not = "the history has list operations";
      return p;
    }
    if (k == OpKind::write) {
      ++p.writes;
      if (h.op_value[o] == kNullValue) {
        p.why_not = "a transaction writes null";
        return p;
      }
    }
  }
  bool all_timed = true;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] != TxnStatus::committed) continue;
    ++p.committed;
    all_timed &= h.has_times(t);
  }
  if (need_realtime && !all_timed) {
    p.why_not = "not every committed transaction has begin/end times";
    return p;
  }
  // Candidates: with times, the begin order and the end order (both respect
  // real time: end(T1) + δ < begin(T2) puts T1 first in either); without,
  // the file order.
  if (all_timed) p.candidates = {WitnessOrder::begin_time, WitnessOrder::end_time};
  else p.candidates = {WitnessOrder::file};
  return p;
}

namespace {

std::string replay_in(const History& h, const WitnessPlan& p, WitnessOrder c, const std::vector<TxnIdx>& order,
                      OpIdx* failed_read) {
  LatestValues latest(p);
  return replay(h, order, c, latest, failed_read);
}

}  // namespace

std::string replay_candidate(const History& h, const WitnessPlan& p, WitnessOrder c, OpIdx* failed_read) {
  std::vector<TxnIdx> order;
  if (c == WitnessOrder::begin_time) order = order_by_time(h, h.txn_begin);
  if (c == WitnessOrder::end_time) order = order_by_time(h, h.txn_end);
  return replay_in(h, p, c, order, failed_read);
}

bool writes_unique(const History& h, const WitnessPlan& p) { return writes_unique(h, p.writes); }

const WitnessPlan& ReplayInputs::plan(bool need_realtime) {
  if (!plan_) plan_ = plan_serial_witness(h_, false);
  if (!need_realtime) return *plan_;
  if (!plan_realtime_) {
    // As plan_serial_witness(h, true): the same, except that without times
    // on every committed transaction (file order the only candidate) there
    // is no witness.
    plan_realtime_ = *plan_;
    if (plan_->why_not.empty() && plan_->candidates == std::vector<WitnessOrder>{WitnessOrder::file}) {
      plan_realtime_->why_not = "not every committed transaction has begin/end times";
      plan_realtime_->candidates.clear();
    }
  }
  return *plan_realtime_;
}

const std::vector<TxnIdx>& ReplayInputs::by_begin() {
  if (!by_begin_) by_begin_ = order_by_time(h_, h_.txn_begin);
  return *by_begin_;
}

const std::vector<TxnIdx>& ReplayInputs::by_end() {
  if (!by_end_) by_end_ = order_by_time(h_, h_.txn_end);
  return *by_end_;
}

bool ReplayInputs::writes_unique() {
  if (!unique_) unique_ = isocheck::writes_unique(h_, plan(false));
  return *unique_;
}

SerialWitness find_serial_witness(const History& h, bool need_realtime, ReplayInputs* shared) {
  SerialWitness w;
  std::optional<ReplayInputs> own;
  ReplayInputs& in = shared ? *shared : own.emplace(h);
  const WitnessPlan& p = in.plan(need_realtime);
  w.committed = p.committed;
  w.why_not = p.why_not;
  if (!p.why_not.empty()) return w;
  static const std::vector<TxnIdx> kFileOrder;
  auto replay = [&](WitnessOrder c) {
    OpIdx failed_read = ~OpIdx{0};
    const std::vector<TxnIdx>& order =
        c == WitnessOrder::begin_time ? in.by_begin() : c == WitnessOrder::end_time ? in.by_end() : kFileOrder;
    std::string failed = replay_in(h, p, c, order, &failed_read);
    if (!failed.empty() && failed_read != ~OpIdx{0}) w.failed_reads.push_back(failed_read);
    return failed;
  };
  if (auto c = first_clean_replay(in, p.candidates, replay, w.why_not)) {
    w.order = *c;
    w.respects_realtime = *c != WitnessOrder::file;
  }
  return w;
}

}  // namespace isocheck

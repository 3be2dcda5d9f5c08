// History generators: a serial simulation of a workload, recorded with
// overlapping client-side times, streamed to a HistorySink in chunks.
// Design notes: src/gen/README.md; planted anomalies: src/gen/PLANTS.md.
#include "gen/gen.h"
#include "io/jsonl_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <span>
#include <tuple>

#include <charconv>
#include <stdexcept>

#include "gen/random.h"
#include "core/errors.h"
#include "io/output_file.h"

namespace isocheck {
namespace gen {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr int64_t kStep = 10;        // begin(i+1) - begin(i) for workload transactions
constexpr int64_t kMaxLatency = 40;  // end - begin is uniform in [1, kMaxLatency]
constexpr int64_t kStaleGap = 1000;  // stale-read: the reader begins more than this after the writer ended
constexpr uint64_t kMaxKeys = 1'000'000'000ULL;
constexpr uint64_t kMaxWarehouses = 100'000ULL;
constexpr uint32_t kPlantSessions = 4;  // --isolation si: plants run in sessions of their own

inline Sym vsym(uint64_t v) { return v == 0 ? kNullValue : static_cast<Sym>(v); }

// ---------------------------------------------------------------------------
// Time and sessions: begins strictly increase in serial order (so the serial
// order never contradicts real time), a session runs one transaction at a
// time, and a transaction goes to a random session that is free at its begin.
struct Slot {
  int64_t begin, end;
  uint32_t session;
};

class Clock {
 public:
  Clock(uint32_t sessions, Rng& rng) : rng_(rng) {
    free_.reserve(sessions);
    for (uint32_t s = 0; s < sessions; ++s) free_.push_back(s);
  }

  Slot next() {
    int64_t t = last_begin_ + kStep;
    release(t);
    while (free_.empty()) {
      t = busy_.top().first + 1;
      release(t);
    }
    return take(t, t + static_cast<int64_t>(rng_.range(1, kMaxLatency)), kNone);
  }

  // n transactions whose [begin, end] intervals pairwise overlap, in n
  // distinct sessions, with consecutive begins.
  std::vector<Slot> concurrent(uint32_t n) {
    int64_t t = last_begin_ + kStep;
    release(t);
    while (free_.size() < n) {
      t = busy_.top().first + 1;
      release(t);
    }
    std::vector<Slot> out;
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t b = t + i;
      out.push_back(take(b, t + n - 1 + static_cast<int64_t>(rng_.range(1, kMaxLatency)), kNone));
    }
    return out;
  }

  // A transaction beginning at or after `t` in session `s` (once it is free).
  Slot in_session(int64_t t, uint32_t s) {
    t = std::max(t, last_begin_ + 1);
    release(t);
    while (std::find(free_.begin(), free_.end(), s) == free_.end()) {
      t = std::max(t, busy_.top().first + 1);
      release(t);
    }
    const size_t i = static_cast<size_t>(std::find(free_.begin(), free_.end(), s) - free_.begin());
    free_[i] = free_.back();
    free_.pop_back();
    const int64_t end = t + static_cast<int64_t>(rng_.range(1, kMaxLatency));
    busy_.emplace(end, s);
    last_begin_ = t;
    return {t, end, s};
  }

  // A transaction beginning at or after `t`, in a session other than `exclude`.
  Slot after(int64_t t, uint32_t exclude) {
    t = std::max(t, last_begin_ + 1);
    release(t);
    while (free_.empty() || (free_.size() == 1 && free_[0] == exclude)) {
      t = busy_.top().first + 1;
      release(t);
    }
    return take(t, t + static_cast<int64_t>(rng_.range(1, kMaxLatency)), exclude);
  }

 private:
  void release(int64_t t) {
    while (!busy_.empty() && busy_.top().first < t) {
      free_.push_back(busy_.top().second);
      busy_.pop();
    }
  }
  Slot take(int64_t begin, int64_t end, uint32_t exclude) {
    size_t i;
    do i = rng_.below(free_.size());
    while (free_[i] == exclude);
    const uint32_t s = free_[i];
    free_[i] = free_.back();
    free_.pop_back();
    busy_.emplace(end, s);
    last_begin_ = begin;
    return {begin, end, s};
  }

  Rng& rng_;
  int64_t last_begin_ = -kStep;
  std::vector<uint32_t> free_;
  std::priority_queue<std::pair<int64_t, uint32_t>, std::vector<std::pair<int64_t, uint32_t>>,
                      std::greater<>>
      busy_;
};

// ---------------------------------------------------------------------------
// Builds chunks and hands them to the sink. Transaction ids are file positions.
class Emitter {
 public:
  Emitter(HistorySink& sink, const GenOptions& opt, GenSummary& sum)
      : sink_(sink), scan_sink_(dynamic_cast<ScanSink*>(&sink)), scans_as_reads_(opt.scans_as == "reads"),
        chunk_txns_(opt.chunk_txns), sum_(sum), dense_(opt.sessions + kPlantSessions, kNone) {
    reset();
  }

  int64_t begin(const Slot& s, TxnStatus st = TxnStatus::committed) {
    if (muted_) return -1;
    uint32_t& d = dense_[s.session];
    if (d == kNone) {
      d = static_cast<uint32_t>(h_.session_name.size());
      h_.session_name.push_back(s.session);
    }
    const int64_t id = static_cast<int64_t>(next_id_++);
    h_.begin_txn(id, d, st, s.begin, s.end);
    return id;
  }
  void read(int64_t k, Sym v) {
    if (!muted_) h_.add_op(OpKind::read, static_cast<Sym>(k), v);
  }
  void write(int64_t k, uint64_t v) {
    if (!muted_) h_.add_op(OpKind::write, static_cast<Sym>(k), static_cast<Sym>(v));
  }
  void append(int64_t k, uint64_t v) { h_.add_op(OpKind::append, static_cast<Sym>(k), static_cast<Sym>(v)); }
  void read_list(int64_t k, std::span<const Sym> vals) { h_.add_list_read(static_cast<Sym>(k), vals); }
  // A range scan [lo, hi] at this point of the open transaction, seeing
  // value(k) for each key k in range (0: absent). As point reads of every key
  // in range with GenOptions::scans_as "reads"; else recorded for the
  // ScanSink (generate() makes sure there is one).
  // With `above` set, only the present rows whose value is above it (a
  // value predicate; as point reads, every key's value all the same).
  template <class Value> void scan(int64_t lo, int64_t hi, Value value, const uint64_t* above = nullptr) {
    if (muted_) return;
    if (scans_as_reads_ || !scan_sink_) {
      for (int64_t k = lo; k <= hi; ++k) read(k, vsym(value(k)));
      return;
    }
    const TxnIdx t = static_cast<TxnIdx>(h_.txn_count() - 1);
    GenScan sc{static_cast<uint32_t>(t), static_cast<uint32_t>(h_.op_count() - h_.op_begin(t)), lo, hi, {}};
    if (above) sc.has_above = true, sc.above = *above;
    for (int64_t k = lo; k <= hi; ++k)
      if (const uint64_t v = value(k); v && (!above || v > *above)) sc.rows.emplace_back(k, v);
    scans_.push_back(std::move(sc));
  }
  // `insert k v` (k absent before, in the serial state) and `delete k v` (v
  // the tombstone); as `r k null, w k v` and `w k v` with scans_as "reads".
  void insert(int64_t k, uint64_t v) { predicate(GenScan::insert, k, v); }
  void del(int64_t k, uint64_t tombstone) { predicate(GenScan::del, k, tombstone); }
  void end() {
    if (muted_) return;
    h_.end_txn();
    if (h_.txn_count() >= chunk_txns_) flush();
  }
  uint64_t emitted() const { return next_id_; }
  // Muted: begin/read/write/end record nothing (the SI simulation lets a
  // workload pick a transaction's keys through its Registers' plan).
  void mute(bool m) { muted_ = m; }
  void flush() {
    if (h_.txn_count() == 0) return;
    sum_.txns += h_.txn_count();
    sum_.ops += h_.op_count() + scans_.size();
    for (const GenScan& p : scans_) {
      sum_.scans += p.kind == GenScan::scan;
      sum_.inserts += p.kind == GenScan::insert;
      sum_.deletes += p.kind == GenScan::del;
    }
    ++sum_.chunks;
    if (scan_sink_) scan_sink_->append_with_scans(h_, scans_);
    else sink_.append(h_);
    scans_.clear();
    for (int64_t s : h_.session_name) dense_[static_cast<uint32_t>(s)] = kNone;
    reset();
  }

 private:
  void predicate(GenScan::Kind kind, int64_t k, uint64_t v) {
    if (muted_) return;
    if (scans_as_reads_ || !scan_sink_) {
      if (kind == GenScan::insert) read(k, kNullValue);
      write(k, v);
      return;
    }
    const TxnIdx t = static_cast<TxnIdx>(h_.txn_count() - 1);
    GenScan p{static_cast<uint32_t>(t), static_cast<uint32_t>(h_.op_count() - h_.op_begin(t)), k, k, {}, kind, v};
    scans_.push_back(std::move(p));
  }
  void reset() {
    h_.txn_id.clear();
    h_.txn_session.clear();
    h_.txn_status.clear();
    h_.txn_begin.clear();
    h_.txn_end.clear();
    h_.txn_op_offset.assign(1, 0);
    h_.op_kind.clear();
    h_.op_key.clear();
    h_.op_value.clear();
    h_.op_list_offset.assign(1, 0);
    h_.list_value.clear();
    h_.session_name.clear();
    h_.time_unit = kGenTimeUnit;
  }

  HistorySink& sink_;
  ScanSink* scan_sink_;  // null when the sink takes no scans
  bool scans_as_reads_;
  std::vector<GenScan> scans_;  // of the chunk being built
  uint64_t chunk_txns_;
  GenSummary& sum_;
  std::vector<uint32_t> dense_;  // session -> dense index in the current chunk
  uint64_t next_id_ = 0;
  bool muted_ = false;
  History h_;
};

// ---------------------------------------------------------------------------
// Key choice.
class KeyPicker {
 public:
  KeyPicker(uint64_t n, bool zipf, double s) : n_(n), zipf_(zipf), z_(n, s) {}
  uint64_t operator()(Rng& r) const { return zipf_ ? z_(r) : r.below(n_); }
  uint64_t size() const { return n_; }

  // `count` distinct keys (count <= size()).
  void distinct(Rng& r, uint32_t count, std::vector<uint64_t>& out) const {
    out.clear();
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t k = (*this)(r);
      for (int attempt = 0; attempt < 64 && contains(out, k); ++attempt) k = (*this)(r);
      while (contains(out, k)) k = (k + 1) % n_;  // very skewed distributions
      out.push_back(k);
    }
  }

 private:
  static bool contains(const std::vector<uint64_t>& v, uint64_t k) {
    return std::find(v.begin(), v.end(), k) != v.end();
  }
  uint64_t n_;
  bool zipf_;
  ZipfSampler z_;
};

// Register state: the value each key holds (0 = never written: reads null).
// Written values come from one global counter, so they are unique per key
// (and across keys).
struct PlanOp {
  int64_t key;
  uint64_t idx;
  bool write;
};

class Registers {
 public:
  explicit Registers(uint64_t n) : cur_(n, 0) {}
  void read(Emitter& e, int64_t key, uint64_t idx) {
    if (plan_) return plan_->push_back({key, idx, false});
    e.read(key, vsym(cur_[idx]));
  }
  void write(Emitter& e, int64_t key, uint64_t idx) {
    if (plan_) return plan_->push_back({key, idx, true});
    cur_[idx] = ++counter_;
    e.write(key, cur_[idx]);
  }
  // While set, read() and write() only append what they would do to `plan`
  // (state and emitter untouched): the SI simulation executes it later.
  void plan_into(std::vector<PlanOp>* plan) { plan_ = plan; }
  void install(uint64_t idx, uint64_t v) { cur_[idx] = v; }
  uint64_t size() const { return cur_.size(); }
  void rmw(Emitter& e, int64_t key, uint64_t idx) {
    read(e, key, idx);
    write(e, key, idx);
  }
  uint64_t value(uint64_t idx) const { return cur_[idx]; }
  uint64_t fresh_value() { return ++counter_; }
  uint64_t latest_value() const { return counter_; }  // the last fresh_value() (0: none yet)

 private:
  std::vector<uint64_t> cur_;
  uint64_t counter_ = 0;
  std::vector<PlanOp>* plan_ = nullptr;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void txn(Emitter& e, const Slot& s) = 0;
  virtual bool lists() const { return false; }  // plants use list operations
  // The register state, when every operation goes through it (what the SI
  // simulation needs); nullptr otherwise.
  virtual Registers* registers() { return nullptr; }
  // After the last transaction (and the plants placed at the end).
  virtual void finish(Emitter&, Clock&) {}
};

// Range scans of a workload on keys 0..n-1: which transactions scan, where in
// the transaction, and which range. Its own random stream, so that the
// workload's point operations do not depend on the scan options.
class ScanChooser {
 public:
  ScanChooser(const GenOptions& o, uint64_t seed)
      : rng_(seed ^ 0x5ca75ca75ca75ca7ULL), percent_(o.scans), lo_(o.scan_width_lo), hi_(o.scan_width_hi),
        predicates_(o.scan_predicates) {}
  // Whether the scan has a value predicate `v > c`, and c: a value written
  // up to 2n writes before `latest` (n keys). No draw at 0 percent (the
  // scans are those of a run without predicates).
  bool predicate(uint64_t latest, uint64_t n, uint64_t& c) {
    if (predicates_ == 0 || !rng_.percent(predicates_)) return false;
    const uint64_t back = rng_.below(2 * std::max<uint64_t>(n, 1));
    c = latest > back ? latest - back : 0;
    return true;
  }
  // -1: no scan in this transaction; else the slot (0..slots-1) it goes in.
  int slot(uint32_t slots) {
    if (percent_ == 0 || !rng_.percent(percent_)) return -1;
    return static_cast<int>(rng_.below(slots));
  }
  // The range [lo, hi] of a scan: width uniform in [lo_, hi_] clamped to the
  // n keys, its start drawn from the workload's key distribution (moved down
  // so that the range fits).
  std::pair<int64_t, int64_t> range(const KeyPicker& p) {
    const uint64_t n = p.size();
    const uint64_t w = std::min(n, rng_.range(std::min(lo_, n), std::min(hi_, n)));
    const uint64_t lo = std::min(p(rng_), n - w);
    return {static_cast<int64_t>(lo), static_cast<int64_t>(lo + w - 1)};
  }

 private:
  Rng rng_;
  uint32_t percent_;
  uint64_t lo_, hi_;
  uint32_t predicates_;
};

// The state of the workloads that draw keys from one picker and keep one
// register per key: the generator's random numbers, the picker, the
// registers, and the keys of the transaction being made.
class KeyedRegisterWorkload : public Workload {
 public:
  void set_scans(const GenOptions& o) { scans_ = std::make_unique<ScanChooser>(o, o.seed); }

 protected:
  KeyedRegisterWorkload(Rng& r, KeyPicker p) : r_(r), p_(p), reg_(p.size()) {}
  // -1 or the slot of this transaction's scan (scan_slot(n): one of n slots).
  int scan_slot(uint32_t slots) { return scans_ ? scans_->slot(slots) : -1; }
  // A scan of a range over keys 0..n-1 (key = register index), seeing the
  // current state (the transaction's own writes included).
  void scan(Emitter& e) {
    const auto [lo, hi] = scans_->range(p_);
    uint64_t above = 0;
    const bool pred = scans_->predicate(reg_.latest_value(), reg_.size(), above);
    e.scan(lo, hi, [&](int64_t k) { return reg_.value(static_cast<uint64_t>(k)); }, pred ? &above : nullptr);
  }
  Rng& r_;
  KeyPicker p_;
  Registers reg_;
  std::vector<uint64_t> keys_;
  std::unique_ptr<ScanChooser> scans_;
};

// rmw: `m` distinct keys, each read then written; `extra` pure reads of other keys.
class RmwWorkload : public KeyedRegisterWorkload {
 public:
  RmwWorkload(Rng& r, KeyPicker p, uint32_t m, uint32_t extra)
      : KeyedRegisterWorkload(r, p),
        m_(static_cast<uint32_t>(std::min<uint64_t>(m, p.size()))),
        extra_(static_cast<uint32_t>(std::min<uint64_t>(extra, p.size() - m_))) {}
  void txn(Emitter& e, const Slot& s) override {
    p_.distinct(r_, m_ + extra_, keys_);
    const int at = scan_slot(m_ + 1);  // before the at-th read-modify-write
    e.begin(s);
    for (uint32_t i = 0; i < m_; ++i) {
      if (at == static_cast<int>(i)) scan(e);
      reg_.rmw(e, static_cast<int64_t>(keys_[i]), keys_[i]);
    }
    if (at == static_cast<int>(m_)) scan(e);
    for (uint32_t i = m_; i < m_ + extra_; ++i) reg_.read(e, static_cast<int64_t>(keys_[i]), keys_[i]);
    e.end();
  }
  Registers* registers() override { return &reg_; }

 private:
  uint32_t m_, extra_;
};

// mt: MTC mini-transactions: 1 or 2 reads of distinct keys, then 0..#reads
// writes, each to a key the transaction read.
class MtWorkload : public KeyedRegisterWorkload {
 public:
  MtWorkload(Rng& r, KeyPicker p) : KeyedRegisterWorkload(r, p) {}
  void txn(Emitter& e, const Slot& s) override {
    const uint32_t nr = p_.size() >= 2 ? 1 + static_cast<uint32_t>(r_.below(2)) : 1;
    const uint32_t nw = static_cast<uint32_t>(r_.below(nr + 1));
    p_.distinct(r_, nr, keys_);
    const int at = scan_slot(2);  // 0: first, 1: last
    e.begin(s);
    if (at == 0) scan(e);
    for (uint32_t i = 0; i < nr; ++i) reg_.read(e, static_cast<int64_t>(keys_[i]), keys_[i]);
    if (nw == nr) {
      for (uint32_t i = 0; i < nr; ++i) reg_.write(e, static_cast<int64_t>(keys_[i]), keys_[i]);
    } else if (nw == 1) {
      const uint64_t k = keys_[nr == 1 ? 0 : r_.below(2)];
      reg_.write(e, static_cast<int64_t>(k), k);
    }
    if (at == 1) scan(e);
    e.end();
  }
  Registers* registers() override { return &reg_; }
};

// rows: a keyed table of rows, SQL-shaped (README.md). Items, keys 0..n-1,
// are inserted when absent and updated (read-modify-write) when present,
// never deleted; range scans over them see absent keys (the initial absence:
// nobody deletes an item, so core/predicates.h decides it). The queue, keys
// kQueue + j, gets rows inserted at its tail in id order and deleted at its
// head after a scan of the head rows returned them (each delete observed a
// present value; each key has one insert and no `w`). Queue scans cover only
// present rows [head, tail): an absent queue key is deleted somewhere (or may
// be), and an absence of such a key is not decided.
// Mix: 35% upsert (1-2 items), 20% range update (scan a range of items,
// update one row it returned, or insert a row into it when it returned none),
// 10% report (read-only scans of an item range and of the queue's head
// rows), 17% enqueue (insert one or two rows at the tail), 18% dequeue (scan
// the head rows, delete the first one or two): the queue's length is a
// random walk. A full queue (--keys rows) dequeues instead of enqueueing, an
// empty one enqueues instead of dequeueing.
class RowsWorkload : public KeyedRegisterWorkload {
 public:
  static constexpr int64_t kQueue = 1'000'000'000'000LL;
  RowsWorkload(Rng& r, KeyPicker p, uint64_t width_lo, uint64_t width_hi)
      : KeyedRegisterWorkload(r, p), wlo_(width_lo), whi_(width_hi) {}
  void txn(Emitter& e, const Slot& s) override {
    uint32_t c = static_cast<uint32_t>(r_.below(100));
    if (c >= 65 && c < 82 && queue_.size() >= p_.size()) c = 82;
    else if (c >= 82 && queue_.empty()) c = 65;
    e.begin(s);
    if (c < 35) {  // upsert
      p_.distinct(r_, p_.size() >= 2 ? 1 + static_cast<uint32_t>(r_.below(2)) : 1, keys_);
      for (uint64_t k : keys_) upsert(e, k);
    } else if (c < 55) {  // range update
      const auto [lo, hi] = item_range();
      scan_items(e, lo, hi);
      keys_.clear();
      for (int64_t k = lo; k <= hi; ++k)
        if (reg_.value(static_cast<uint64_t>(k))) keys_.push_back(static_cast<uint64_t>(k));
      if (!keys_.empty()) upsert(e, keys_[r_.below(keys_.size())]);
      else upsert(e, static_cast<uint64_t>(lo) + r_.below(static_cast<uint64_t>(hi - lo + 1)));
    } else if (c < 65) {  // report
      const auto [lo, hi] = item_range();
      scan_items(e, lo, hi);
      if (!queue_.empty()) scan_queue(e);
    } else if (c < 82) {  // enqueue
      const uint64_t n = std::min<uint64_t>(1 + r_.below(2), p_.size() - queue_.size());
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t v = reg_.fresh_value();
        e.insert(kQueue + static_cast<int64_t>(head_ + queue_.size()), v);
        queue_.push_back(v);
      }
    } else {  // dequeue
      const uint64_t seen = scan_queue(e);
      const uint64_t d = std::min<uint64_t>(1 + r_.below(2), seen);
      for (uint64_t i = 0; i < d; ++i) {
        e.del(kQueue + static_cast<int64_t>(head_), reg_.fresh_value());
        queue_.pop_front();
        ++head_;
      }
    }
    e.end();
  }

 private:
  void upsert(Emitter& e, uint64_t k) {
    if (reg_.value(k)) return reg_.rmw(e, static_cast<int64_t>(k), k);
    const uint64_t v = reg_.fresh_value();
    reg_.install(k, v);
    e.insert(static_cast<int64_t>(k), v);
  }
  uint64_t width(uint64_t n) { return std::min(n, r_.range(std::min(wlo_, n), std::min(whi_, n))); }
  // An item range: width in --scan-width (clamped to the keys), its start
  // drawn from the key distribution and moved down so that it fits.
  std::pair<int64_t, int64_t> item_range() {
    const uint64_t n = p_.size(), w = width(n), lo = std::min(p_(r_), n - w);
    return {static_cast<int64_t>(lo), static_cast<int64_t>(lo + w - 1)};
  }
  void scan_items(Emitter& e, int64_t lo, int64_t hi) {
    e.scan(lo, hi, [&](int64_t k) { return reg_.value(static_cast<uint64_t>(k)); });
  }
  // The queue's first rows (a width in --scan-width, at most all of them);
  // returns how many.
  uint64_t scan_queue(Emitter& e) {
    const uint64_t w = width(queue_.size());
    const int64_t lo = kQueue + static_cast<int64_t>(head_);
    e.scan(lo, lo + static_cast<int64_t>(w) - 1, [&](int64_t k) { return queue_[static_cast<size_t>(k - lo)]; });
    return w;
  }
  uint64_t wlo_, whi_;
  std::deque<uint64_t> queue_;  // the present queue rows' values, head first
  uint64_t head_ = 0;           // the queue key (less kQueue) of its first row
};

// lwt: lightweight transactions, one key each: an insert-if-absent on a key
// nobody wrote yet ([r k null, w k v]); otherwise a compare-and-set that
// succeeds (60%: [r k cur, w k v]) or fails ([r k cur]: it saw cur). Serial,
// begins increasing: linearizable by construction (verify --level lin).
class LwtWorkload : public KeyedRegisterWorkload {
 public:
  LwtWorkload(Rng& r, KeyPicker p) : KeyedRegisterWorkload(r, p) {}
  void txn(Emitter& e, const Slot& s) override {
    p_.distinct(r_, 1, keys_);
    const uint64_t k = keys_[0];
    e.begin(s);
    if (reg_.value(k) == 0 || r_.below(10) < 6) reg_.rmw(e, static_cast<int64_t>(k), k);
    else reg_.read(e, static_cast<int64_t>(k), k);
    e.end();
  }
};

// blindw-*: `ops` distinct keys per transaction; read-only with probability
// ro_percent, else write-only with blind writes.
class BlindWorkload : public KeyedRegisterWorkload {
 public:
  BlindWorkload(Rng& r, KeyPicker p, uint32_t ops, uint32_t ro_percent)
      : KeyedRegisterWorkload(r, p),
        ops_(static_cast<uint32_t>(std::min<uint64_t>(ops, p.size()))), ro_(ro_percent) {}
  void txn(Emitter& e, const Slot& s) override {
    const bool ro = r_.percent(ro_);
    p_.distinct(r_, ops_, keys_);
    e.begin(s);
    for (uint64_t k : keys_) {
      if (ro)
        reg_.read(e, static_cast<int64_t>(k), k);
      else
        reg_.write(e, static_cast<int64_t>(k), k);
    }
    e.end();
  }
  Registers* registers() override { return &reg_; }

 private:
  uint32_t ops_, ro_;
};

// append: Elle list-append. 1..max_ops micro-ops, each an append or a whole-list
// read (50/50) of a key drawn with repetition. Logical key k is stored at
// physical key gen(k) * n + k; after max_list_len appends the physical key
// retires and the next append starts a fresh, empty list (Elle's key rotation),
// so reads stay short. The i-th append to a physical key appends value i.
// Every append is observed by a later read, so the whole append order is
// known: the transaction that retires a list first reads it whole (unless its
// last operation on it was already such a read), and the history ends with
// read-only transactions reading every list with unobserved appends, 16 lists
// per transaction (Elle's final reads).
class AppendWorkload : public Workload {
 public:
  AppendWorkload(Rng& r, KeyPicker p, uint32_t max_ops, uint32_t max_len)
      : r_(r), p_(p), state_(p.size(), 0), max_ops_(max_ops), max_len_(max_len) {
    iota_.resize(max_len);
    for (uint32_t i = 0; i < max_len; ++i) iota_[i] = i + 1;
  }
  bool lists() const override { return true; }
  void txn(Emitter& e, const Slot& s) override {
    const uint32_t n = static_cast<uint32_t>(r_.range(1, max_ops_));
    e.begin(s);
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t k = p_(r_);
      uint64_t& st = state_[k];
      uint64_t gen = generation(st), len = length(st);
      if (r_.below(2)) {
        if (len == max_len_) {
          if (dirty(st)) read(e, k, gen, len);
          ++gen, len = 0;
        }
        ++len;
        st = pack(gen, len, true);
        e.append(physical(k, gen), len);
      } else {
        read(e, k, gen, len);
        st = pack(gen, len, false);
      }
    }
    e.end();
  }
  void finish(Emitter& e, Clock& clock) override {
    constexpr uint32_t kPerTxn = 16;
    uint32_t in_txn = 0;
    for (uint64_t k = 0; k < state_.size(); ++k) {
      const uint64_t st = state_[k];
      if (!dirty(st)) continue;
      if (in_txn == 0) e.begin(clock.next());
      read(e, k, generation(st), length(st));
      if (++in_txn == kPerTxn) e.end(), in_txn = 0;
    }
    if (in_txn) e.end();
  }

 private:
  // state: dirty (an append nobody read yet) << 63 | generation << 32 | length
  static uint64_t generation(uint64_t st) { return (st >> 32) & 0x7fffffffULL; }
  static uint64_t length(uint64_t st) { return st & 0xffffffffULL; }
  static bool dirty(uint64_t st) { return st >> 63; }
  static uint64_t pack(uint64_t gen, uint64_t len, bool d) { return uint64_t{d} << 63 | gen << 32 | len; }
  void read(Emitter& e, uint64_t k, uint64_t gen, uint64_t len) {
    e.read_list(physical(k, gen), std::span<const Sym>(iota_.data(), len));
  }
  int64_t physical(uint64_t k, uint64_t gen) const { return static_cast<int64_t>(gen * p_.size() + k); }
  Rng& r_;
  KeyPicker p_;
  std::vector<uint64_t> state_;
  uint32_t max_ops_, max_len_;
  std::vector<Sym> iota_;
};

// Recent blind-written keys (tweets, orders) for read-only transactions to read.
struct Recent {
  struct Item {
    std::vector<std::pair<int64_t, uint64_t>> kv;
  };
  explicit Recent(size_t cap) : items(cap) {}
  void push(Item it) {
    items[next % items.size()] = std::move(it);
    ++next;
  }
  size_t size() const { return std::min<size_t>(next, items.size()); }
  // i-th most recent, i < size().
  const Item& back(size_t i) const { return items[(next - 1 - i) % items.size()]; }
  std::vector<Item> items;
  uint64_t next = 0;
};

// twitter: users u in [0, n). Keys: timeline(u) = 1e12 + u (register updated
// read-modify-write), following(u) = 2e12 + u, tweet t = 3e12 + t (a fresh key,
// one blind write). Mix: 30% tweet (blind write of a new tweet key + rmw of
// the author's timeline), 10% follow (rmw of following(u), read of the
// followee's timeline), 60% show timeline (read following(u), timeline(u) and
// up to 3 recent tweets).
class TwitterWorkload : public Workload {
 public:
  static constexpr int64_t kTimeline = 1'000'000'000'000LL, kFollowing = 2'000'000'000'000LL,
                           kTweet = 3'000'000'000'000LL;
  TwitterWorkload(Rng& r, KeyPicker p) : r_(r), p_(p), reg_(2 * p.size()), recent_(64) {}
  void txn(Emitter& e, const Slot& s) override {
    const uint64_t u = p_(r_), n = p_.size();
    const uint32_t c = static_cast<uint32_t>(r_.below(100));
    e.begin(s);
    if (c < 30) {  // tweet
      const int64_t key = kTweet + static_cast<int64_t>(tweets_++);
      const uint64_t v = reg_.fresh_value();
      e.write(key, v);
      reg_.rmw(e, kTimeline + static_cast<int64_t>(u), u);
      recent_.push({{{key, v}}});
    } else if (c < 40) {  // follow
      uint64_t w = p_(r_);
      if (w == u && n > 1) w = (w + 1) % n;
      reg_.rmw(e, kFollowing + static_cast<int64_t>(u), n + u);
      reg_.read(e, kTimeline + static_cast<int64_t>(w), w);
    } else {  // show timeline
      reg_.read(e, kFollowing + static_cast<int64_t>(u), n + u);
      reg_.read(e, kTimeline + static_cast<int64_t>(u), u);
      const size_t m = std::min<size_t>(3, recent_.size());
      for (size_t i = 0; i < m; ++i) {
        const auto& kv = recent_.back(i).kv[0];
        e.read(kv.first, vsym(kv.second));
      }
    }
    e.end();
  }

 private:
  Rng& r_;
  KeyPicker p_;
  Registers reg_;
  Recent recent_;
  uint64_t tweets_ = 0;
};

// tpcc: W warehouses, 10 districts each, 30 customers per district, 1000
// items (stock rows) per warehouse. Registers (key = base + index):
//   warehouse ytd 1e12+w, district next-order-id 2e12+(w*10+d), customer
//   3e12+(w*10+d)*30+c, stock 4e12+w*1000+i, district delivery cursor
//   5e12+(w*10+d), district ytd 7e12+(w*10+d); orders and order lines are
//   fresh keys 6e12+t, written once (blind).
// Mix: new-order 45% (rmw next-order-id, rmw 5-15 stock rows, blind writes of
// the order and its lines), payment 43% (rmw warehouse ytd, district ytd,
// customer), order-status 4% (read customer, read a recent order and its
// lines), delivery 4% (per district: rmw delivery cursor and a customer),
// stock-level 4% (read next-order-id and 10 stock rows). Items follow --dist.
class TpccWorkload : public Workload {
 public:
  static constexpr uint64_t kD = 10, kC = 30, kI = 1000;
  static constexpr int64_t kWarehouse = 1'000'000'000'000LL, kDistrict = 2'000'000'000'000LL,
                           kCustomer = 3'000'000'000'000LL, kStock = 4'000'000'000'000LL,
                           kDelivery = 5'000'000'000'000LL, kNew = 6'000'000'000'000LL,
                           kDistrictYtd = 7'000'000'000'000LL;
  TpccWorkload(Rng& r, uint64_t w, bool zipf, double s)
      : r_(r), w_(w), items_(kI, zipf, s),
        reg_(w * (1 + kD * 3 + kD * kC + kI)), recent_(64) {
    o_wh_ = 0;
    o_di_ = o_wh_ + w;
    o_dy_ = o_di_ + w * kD;
    o_dl_ = o_dy_ + w * kD;
    o_cu_ = o_dl_ + w * kD;
    o_st_ = o_cu_ + w * kD * kC;
  }
  void txn(Emitter& e, const Slot& s) override {
    const uint64_t w = r_.below(w_), d = r_.below(kD), wd = w * kD + d;
    const uint32_t c = static_cast<uint32_t>(r_.below(100));
    e.begin(s);
    if (c < 45) {  // new-order
      reg_.rmw(e, kDistrict + static_cast<int64_t>(wd), o_di_ + wd);
      const uint32_t n = static_cast<uint32_t>(r_.range(5, 15));
      items_.distinct(r_, n, keys_);
      for (uint64_t i : keys_) reg_.rmw(e, kStock + static_cast<int64_t>(w * kI + i), o_st_ + w * kI + i);
      Recent::Item order;
      for (uint32_t l = 0; l <= n; ++l) {  // the order row, then its lines
        const int64_t key = kNew + static_cast<int64_t>(new_keys_++);
        const uint64_t v = reg_.fresh_value();
        e.write(key, v);
        order.kv.emplace_back(key, v);
      }
      recent_.push(std::move(order));
    } else if (c < 88) {  // payment
      const uint64_t cu = wd * kC + r_.below(kC);
      reg_.rmw(e, kWarehouse + static_cast<int64_t>(w), o_wh_ + w);
      reg_.rmw(e, kDistrictYtd + static_cast<int64_t>(wd), o_dy_ + wd);
      reg_.rmw(e, kCustomer + static_cast<int64_t>(cu), o_cu_ + cu);
    } else if (c < 92) {  // order-status
      const uint64_t cu = wd * kC + r_.below(kC);
      reg_.read(e, kCustomer + static_cast<int64_t>(cu), o_cu_ + cu);
      if (recent_.size() > 0) {
        for (const auto& kv : recent_.back(r_.below(recent_.size())).kv) e.read(kv.first, vsym(kv.second));
      }
    } else if (c < 96) {  // delivery: every district of warehouse w
      for (uint64_t dd = 0; dd < kD; ++dd) {
        const uint64_t x = w * kD + dd, cu = x * kC + r_.below(kC);
        reg_.rmw(e, kDelivery + static_cast<int64_t>(x), o_dl_ + x);
        reg_.rmw(e, kCustomer + static_cast<int64_t>(cu), o_cu_ + cu);
      }
    } else {  // stock-level
      reg_.read(e, kDistrict + static_cast<int64_t>(wd), o_di_ + wd);
      items_.distinct(r_, 10, keys_);
      for (uint64_t i : keys_) reg_.read(e, kStock + static_cast<int64_t>(w * kI + i), o_st_ + w * kI + i);
    }
    e.end();
  }

 private:
  Rng& r_;
  uint64_t w_;
  KeyPicker items_;
  Registers reg_;
  Recent recent_;
  uint64_t new_keys_ = 0;
  uint64_t o_wh_, o_di_, o_dy_, o_dl_, o_cu_, o_st_;
  std::vector<uint64_t> keys_;
};

// ---------------------------------------------------------------------------
// Workload table.
struct WorkloadInfo {
  const char* name;
  uint64_t default_keys;
  uint32_t default_ops;  // 0: --ops does not apply
  const char* help;
};
constexpr WorkloadInfo kWorkloads[] = {
    {"rmw", 1000, 2, "read-modify-write registers: --ops keys per txn (default 2), each read then written; --extra-reads pure reads"},
    {"append", 1000, 4, "Elle list-append: 1..--ops (default 4) appends and whole-list reads per txn; keys rotate after --max-list-len appends"},
    {"mt", 1000, 0, "MTC mini-transactions: 1-2 reads, then up to 2 writes of keys the txn read"},
    {"lwt", 1000, 0, "lightweight transactions: one insert-if-absent or compare-and-set (60% succeed) on one key each (verify --level lin)"},
    {"blindw-rm", 10000, 8, "BlindW read-mostly: --ops (8) ops per txn, 90% read-only, 10% write-only (blind writes)"},
    {"blindw-rw", 10000, 8, "BlindW read-write: --ops (8) ops per txn, 50% read-only, 50% write-only (blind writes)"},
    {"blindw-wh", 10000, 8, "BlindW write-heavy: --ops (8) ops per txn, 20% read-only, 80% write-only (blind writes)"},
    {"twitter", 1000, 0, "C-Twitter-like: --keys users; tweet (blind write of a new key + timeline rmw), follow, show timeline"},
    {"tpcc", 1, 0, "TPC-C-like: --keys warehouses; new-order, payment, order-status, delivery, stock-level on registers"},
    {"rows", 1000, 0, "SQL-shaped rows (JSONL): items inserted when absent, else updated, range-scanned (--scan-width); a queue of rows inserted at its tail and deleted at its head after a scan saw them"},
};

const WorkloadInfo* find_workload(const std::string& n) {
  for (const auto& w : kWorkloads)
    if (n == w.name) return &w;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Plants: small fixed transaction groups on fresh keys. Key indices 0, 1 stand
// for the plant's fresh keys x, y; a value of 0 in a register read is null.
struct POp {
  OpKind kind;
  int key;
  uint64_t value;               // read/write/append/insert; 0 = null for reads; delete: the tombstone
  std::vector<uint64_t> list;   // read_list
  enum Pred : uint8_t { point, scan, insert, del } pred = point;
  int hi = 0;                                  // scan: the range [key, hi]
  std::vector<std::pair<int, uint64_t>> rows;  // scan: the rows it returns (the other keys are absent)
};
struct PTxn {
  TxnStatus status;
  std::vector<POp> ops;
};
// How a plant's transactions are placed: pairwise overlapping in distinct
// sessions; stale-read's reader beginning kStaleGap after the writer ended;
// causality-violation's second transaction in the first's session after it,
// the third in another session after the second began.
enum class Placement { overlap, stale, session_chain };
struct PlantDef {
  const char* name;
  PlantLevels levels;
  Placement placement;
  const char* help;
  std::vector<PTxn> regs;   // for register workloads
  std::vector<PTxn> lists;  // for the append workload (and g0 everywhere)
  bool predicates = false;  // states a scan, insert or delete (set from regs)
};

POp R(int k, uint64_t v) { return {OpKind::read, k, v, {}}; }
POp W(int k, uint64_t v) { return {OpKind::write, k, v, {}}; }
POp A(int k, uint64_t v) { return {OpKind::append, k, v, {}}; }
POp L(int k, std::vector<uint64_t> l) { return {OpKind::read_list, k, 0, std::move(l)}; }
// A scan of [lo, hi] returning `rows`; an insert; a delete (v: its tombstone).
POp S(int lo, int hi, std::vector<std::pair<int, uint64_t>> rows) {
  return {OpKind::read, lo, 0, {}, POp::scan, hi, std::move(rows)};
}
POp I(int k, uint64_t v) { return {OpKind::write, k, v, {}, POp::insert}; }
POp D(int k, uint64_t v) { return {OpKind::write, k, v, {}, POp::del}; }
constexpr TxnStatus C = TxnStatus::committed, X = TxnStatus::aborted;
constexpr int x = 0, y = 1;

// The levels a plant violates, from a list of names ("ser si sser rc ...").
PlantLevels violates(const std::string& names) {
  PlantLevels l{};
  std::string n;
  for (size_t i = 0; i <= names.size(); ++i) {
    if (i < names.size() && names[i] != ' ') {
      n += names[i];
      continue;
    }
    if (n == "ser") l.ser = true;
    else if (n == "si") l.si = true;
    else if (n == "sser") l.sser = true;
    else if (n == "ru") l.ru = true;
    else if (n == "rc") l.rc = true;
    else if (n == "ra") l.ra = true;
    else if (n == "cc") l.cc = true;
    else if (n == "pc") l.pc = true;
    n.clear();
  }
  return l;
}

const std::vector<PlantDef>& plant_defs() {
  static const std::vector<PlantDef> defs = [] {
    constexpr Placement O = Placement::overlap;
    const PlantLevels all = violates("ser si sser ru rc ra cc pc"), above_ru = violates("ser si sser rc ra cc pc");
    std::vector<PlantDef> d;
    std::vector<PTxn> g0 = {{C, {A(x, 1), A(y, 1)}}, {C, {A(x, 2), A(y, 2)}}, {C, {L(x, {1, 2}), L(y, {2, 1})}}};
    d.push_back({"g0", all, O,
                 "write cycle: two txns append to x and y, a reader sees x=[1 2], y=[2 1] (list keys in every workload)",
                 g0, g0});
    d.push_back({"g1a", above_ru, O, "aborted read: a committed txn reads an aborted txn's write",
                 {{X, {R(x, 0), W(x, 1)}}, {C, {R(x, 1)}}},
                 {{X, {A(x, 1)}}, {C, {L(x, {1})}}}});
    d.push_back({"g1b", above_ru, O, "intermediate read: a txn reads a value its writer overwrote",
                 {{C, {R(x, 0), W(x, 1), R(x, 1), W(x, 2)}}, {C, {R(x, 1)}}},
                 {{C, {A(x, 1), A(x, 2)}}, {C, {L(x, {1})}}}});
    d.push_back({"g1c", above_ru, O, "circular information flow: T1 reads T2's write and T2 reads T1's",
                 {{C, {R(x, 0), W(x, 1), R(y, 1)}}, {C, {R(y, 0), W(y, 1), R(x, 1)}}},
                 {{C, {A(x, 1), L(y, {1})}}, {C, {A(y, 1), L(x, {1})}}}});
    d.push_back({"g-single", violates("ser si sser cc pc"), O,
                 "single anti-dependency cycle (read skew): T1 -rw-> T2 -wr-> T3 -wr-> T1",
                 {{C, {R(x, 0), R(y, 1)}}, {C, {R(x, 0), W(x, 1)}}, {C, {R(x, 1), R(y, 0), W(y, 1)}}},
                 {{C, {L(x, {}), L(y, {1})}}, {C, {A(x, 1)}}, {C, {L(x, {1}), A(y, 1)}}}});
    d.push_back({"write-skew", violates("ser sser"), O,
                 "G2-item: both txns read x and y, one writes x, the other y (SI allows it)",
                 {{C, {R(x, 0), R(y, 0), W(x, 1)}}, {C, {R(x, 0), R(y, 0), W(y, 1)}}},
                 {{C, {L(x, {}), L(y, {}), A(x, 1)}}, {C, {L(x, {}), L(y, {}), A(y, 1)}}}});
    d.push_back({"lost-update", violates("ser si sser"), O, "two txns read the same version of x and both write x",
                 {{C, {R(x, 0), W(x, 1)}}, {C, {R(x, 0), W(x, 2)}}},
                 {{C, {L(x, {}), A(x, 1)}}, {C, {L(x, {}), A(x, 2)}}, {C, {L(x, {1, 2})}}}});
    d.push_back({"fractured-read", violates("ser si sser ra cc pc"), O,
                 "T1 writes x and y; T2 sees the old y, then T1's x",
                 {{C, {R(x, 0), W(x, 1), R(y, 0), W(y, 1)}}, {C, {R(y, 0), R(x, 1)}}},
                 {{C, {A(x, 1), A(y, 1)}}, {C, {L(y, {}), L(x, {1})}}}});
    d.push_back({"long-fork", violates("ser si sser pc"), O,
                 "two writers of x and y; one reader sees only x's write, another only y's",
                 {{C, {R(x, 0), W(x, 1)}}, {C, {R(y, 0), W(y, 1)}}, {C, {R(x, 1), R(y, 0)}}, {C, {R(x, 0), R(y, 1)}}},
                 {{C, {A(x, 1)}}, {C, {A(y, 1)}}, {C, {L(x, {1}), L(y, {})}}, {C, {L(x, {}), L(y, {1})}}}});
    d.push_back({"stale-read", violates("sser"), Placement::stale,
                 "a txn that begins 1001 time units after x's writer ended reads the older x (real time only)",
                 {{C, {R(x, 0), W(x, 1)}}, {C, {R(x, 0)}}},
                 {{C, {A(x, 1)}}, {C, {L(x, {})}}}});
    std::vector<PTxn> phantom = {{C, {S(x, x, {}), R(y, 1)}}, {C, {R(x, 0), W(x, 1), R(y, 0), W(y, 1)}}};
    d.push_back({"phantom", violates("ser si sser ra cc pc"), O,
                 "T1 scans [x, x] and sees no row, T2 inserts x and writes y, T1 reads T2's y (register keys in every workload)",
                 phantom, phantom});
    // Two doctors on call: T0 inserts both rows; T1 and T2 each scan both
    // and delete a different one (SI allows it; no serial order does).
    std::vector<PTxn> pws = {{C, {I(x, 1), I(y, 1)}},
                             {C, {S(x, y, {{x, 1}, {y, 1}}), D(x, 2)}},
                             {C, {S(x, y, {{x, 1}, {y, 1}}), D(y, 2)}}};
    d.push_back({"predicate-write-skew", violates("ser sser"), O,
                 "two doctors on call: T0 inserts rows x and y; T1 and T2 each scan [x, y], see both, and delete a "
                 "different one (SI allows it; register keys in every workload)",
                 pws, pws});
    // Both scan [x, y], see no row, and insert the same row x: one insert is lost.
    std::vector<PTxn> plu = {{C, {S(x, y, {}), I(x, 1)}}, {C, {S(x, y, {}), I(x, 2)}}};
    d.push_back({"predicate-lost-update", violates("ser si sser"), O,
                 "T1 and T2 each scan [x, y], see no row, and insert row x: one insert overwrites the other "
                 "(register keys in every workload)",
                 plu, plu});
    d.push_back({"thin-air", all, O, "a txn reads a value nobody wrote",
                 {{C, {R(x, 7)}}},
                 {{C, {L(x, {7})}}}});
    d.push_back({"causality-violation", violates("ser si sser cc pc"), Placement::session_chain,
                 "a session writes x, then y; another session sees that y and the old x",
                 {{C, {R(x, 0), W(x, 1)}}, {C, {R(y, 0), W(y, 1)}}, {C, {R(y, 1), R(x, 0)}}},
                 {{C, {A(x, 1)}}, {C, {A(y, 1)}}, {C, {L(y, {1}), L(x, {})}}}});
    for (PlantDef& p : d)
      for (const PTxn& t : p.regs)
        for (const POp& op : t.ops) p.predicates |= op.pred != POp::point;
    return d;
  }();
  return defs;
}

std::string canonical_plant(const std::string& n) {
  if (n == "read-skew") return "g-single";
  if (n == "g2-item" || n == "g2") return "write-skew";
  return n;
}

const PlantDef* find_plant(const std::string& n) {
  const std::string c = canonical_plant(n);
  for (const auto& p : plant_defs())
    if (c == p.name) return &p;
  return nullptr;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const std::vector<PTxn>& plant_txns(const PlantDef& def, bool list_workload) {
  return list_workload ? def.lists : def.regs;
}

// Serial mode: the group's slots from the workload's clock, in existing sessions.
std::vector<Slot> plant_slots(const PlantDef& def, size_t n, Clock& clock) {
  std::vector<Slot> slots;
  switch (def.placement) {
    case Placement::stale:
      slots.push_back(clock.next());
      for (size_t i = 1; i < n; ++i) slots.push_back(clock.after(slots.back().end + kStaleGap + 1, slots.back().session));
      break;
    case Placement::session_chain:
      slots.push_back(clock.next());
      slots.push_back(clock.in_session(slots[0].end + 1, slots[0].session));
      for (size_t i = 2; i < n; ++i) slots.push_back(clock.after(slots[1].begin + 1, slots[1].session));
      break;
    case Placement::overlap:
      slots = clock.concurrent(static_cast<uint32_t>(n));
      break;
  }
  return slots;
}

// SI mode: the group runs at time `t` or later in sessions first..first+n-1
// of its own (free after `free_at`), with the same shapes as serial mode:
// consecutive begins and pairwise overlapping intervals, (stale-read) the
// next transaction beginning kStaleGap after the previous one ended, or
// (causality-violation) the second in the first's session after it ended and
// the rest one after the other in sessions of their own.
std::vector<Slot> plant_slots_si(const PlantDef& def, size_t n, int64_t t, uint32_t first,
                                 std::vector<int64_t>& free_at, Rng& rng) {
  for (size_t i = 0; i < n; ++i) t = std::max(t, free_at[i] + 1);
  std::vector<Slot> slots;
  const int64_t m = static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t lat = static_cast<int64_t>(rng.range(1, kMaxLatency));
    if (def.placement == Placement::stale) {
      const int64_t b = i == 0 ? t : slots.back().end + kStaleGap + 1;
      slots.push_back({b, b + lat, first + static_cast<uint32_t>(i)});
    } else if (def.placement == Placement::session_chain) {
      const size_t s = i == 0 ? 0 : i - 1;  // the first two share a session
      const int64_t b = i == 0 ? t : i == 1 ? slots.back().end + 1 : slots.back().begin + 1;
      slots.push_back({b, b + lat, first + static_cast<uint32_t>(s)});
    } else {
      slots.push_back({t + static_cast<int64_t>(i), t + m - 1 + lat, first + static_cast<uint32_t>(i)});
    }
    free_at[slots.back().session - first] = slots.back().end;
  }
  return slots;
}

PlantRecord run_plant(const PlantDef& def, bool list_workload, uint64_t index, Emitter& e,
                      const std::vector<Slot>& slots) {
  const std::vector<PTxn>& txns = plant_txns(def, list_workload);
  const int64_t base = kPlantKeyBase + static_cast<int64_t>(index) * 10;
  PlantRecord rec{def.name, {}, {}, def.levels};
  std::vector<Sym> buf;
  for (size_t i = 0; i < txns.size(); ++i) {
    rec.txn_ids.push_back(e.begin(slots[i], txns[i].status));
    for (const POp& op : txns[i].ops) {
      const int64_t key = base + op.key;
      for (int64_t k = key; k <= (op.pred == POp::scan ? base + op.hi : key); ++k)
        if (std::find(rec.keys.begin(), rec.keys.end(), k) == rec.keys.end()) rec.keys.push_back(k);
      if (op.pred == POp::scan) {
        e.scan(key, base + op.hi, [&](int64_t k) {
          for (const auto& [rk, v] : op.rows)
            if (base + rk == k) return v;
          return uint64_t{0};
        });
        continue;
      }
      if (op.pred == POp::insert) {
        e.insert(key, op.value);
        continue;
      }
      if (op.pred == POp::del) {
        e.del(key, op.value);
        continue;
      }
      switch (op.kind) {
        case OpKind::read: e.read(key, vsym(op.value)); break;
        case OpKind::write: e.write(key, op.value); break;
        case OpKind::append: e.append(key, op.value); break;
        case OpKind::read_list:
          buf.assign(op.list.begin(), op.list.end());
          e.read_list(key, buf);
          break;
      }
    }
    e.end();
  }
  std::sort(rec.keys.begin(), rec.keys.end());
  return rec;
}

// Workloads whose every operation goes through Registers (Workload::registers()).
bool si_capable(const std::string& w) {
  return w == "rmw" || w == "mt" || w == "blindw-rm" || w == "blindw-rw" || w == "blindw-wh";
}

// --isolation si: a simulated snapshot-isolation database. Every session runs
// one transaction after another without pause: begin (the snapshot is taken:
// every read is answered from the committed state at this instant), commit
// 1..kMaxLatency later, the next begin 1..kStep after that. At commit, a
// transaction one of whose written keys another transaction committed after
// its snapshot aborts (first committer wins); otherwise its writes are
// installed. Commits are processed before begins at the same instant. The
// attempt is recorded with its status (an aborted one with the values it read
// and would have written), and the client retries an aborted transaction —
// the same keys and shape, a new snapshot — until it commits, so `txns`
// transactions commit and GenSummary::aborted counts the extra attempts.
// Transactions are emitted when they end (file order = end order).
//
// --isolation rc: a read-committed database in the same frame. A transaction's
// operations run one after another across its life, operation i at begin +
// i * latency / n (n operations), each read answered from the state committed
// at that instant (or the transaction's own write); writes are installed at
// commit, and every transaction commits (no first committer wins: two writers
// of a key both install, the later commit last). So reads of other keys see
// commits made while the transaction ran, and two transactions that read one
// version may both overwrite it (a lost update): RC holds, SI need not.
template <class PlantsAt>
void simulate_si(const GenOptions& opt, Workload& w, Emitter& e, GenSummary& sum, Rng& rng, PlantsAt plants_at) {
  const bool rc = opt.isolation == "rc";
  Registers& reg = *w.registers();
  std::vector<uint64_t> seq(reg.size(), 0);  // the commit that installed each key's value (0: initial)
  uint64_t commits = 0, started = 0;
  struct Session {
    bool has_txn = false;
    std::vector<PlanOp> plan;                             // the transaction, kept across retries
    std::vector<Sym> values;                              // per plan op: the value read or written
    std::vector<std::pair<uint64_t, uint64_t>> writes;    // (key index, value) of this attempt
    int64_t begin = 0;
    uint64_t snap = 0;                                    // commits seen at begin
    int64_t latency = 0;                                  // rc: commit - begin
    size_t next_op = 0;                                   // rc: the next plan op to run
  };
  std::vector<Session> ss(opt.sessions);
  // Events (time, kind, session), earliest first; kind 0 = end, 1 = begin,
  // 2 = rc: the session's next operations.
  using Event = std::tuple<int64_t, int, uint32_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q;
  // Runs plan op x.next_op: a write takes a fresh value (installed at
  // commit); a read sees the committed state now (under si: the snapshot,
  // since every op runs at begin), or the transaction's own write.
  auto run_op = [&](Session& x) {
    const PlanOp& op = x.plan[x.next_op++];
    if (op.write) {
      const uint64_t v = reg.fresh_value();
      x.values.push_back(static_cast<Sym>(v));
      x.writes.emplace_back(op.idx, v);
      return;
    }
    uint64_t v = reg.value(op.idx);
    for (const auto& [idx, own] : x.writes)
      if (idx == op.idx) v = own;
    x.values.push_back(vsym(v));
  };
  // rc: runs the ops due by `t` (op i at begin + i * latency / n), then
  // schedules the session's next ones.
  auto run_due = [&](Session& x, uint32_t s, int64_t t) {
    const int64_t n = static_cast<int64_t>(x.plan.size());
    auto due = [&](size_t i) { return x.begin + static_cast<int64_t>(i) * x.latency / n; };
    while (x.next_op < x.plan.size() && due(x.next_op) <= t) run_op(x);
    if (x.next_op < x.plan.size()) q.emplace(due(x.next_op), 2, s);
  };
  for (uint32_t s = 0; s < opt.sessions; ++s) q.emplace(static_cast<int64_t>(rng.below(kStep)), 1, s);
  int64_t now = 0;
  while (!q.empty()) {
    const auto [t, kind, s] = q.top();
    q.pop();
    now = t;
    Session& x = ss[s];
    if (kind == 2) {
      run_due(x, s, t);
      continue;
    }
    if (kind == 1) {
      if (!x.has_txn) {
        if (started == opt.txns) continue;  // this session is done
        plants_at(started, t);
        ++started;
        x.plan.clear();
        reg.plan_into(&x.plan);
        e.mute(true);
        w.txn(e, Slot{t, t, s});
        e.mute(false);
        reg.plan_into(nullptr);
        x.has_txn = true;
      }
      x.begin = t;
      x.snap = commits;
      x.values.clear();
      x.writes.clear();
      x.next_op = 0;
      if (rc) {
        x.latency = static_cast<int64_t>(rng.range(1, kMaxLatency));
        q.emplace(t + x.latency, 0, s);
        run_due(x, s, t);
        continue;
      }
      while (x.next_op < x.plan.size()) run_op(x);  // every read from the snapshot at begin
      q.emplace(t + static_cast<int64_t>(rng.range(1, kMaxLatency)), 0, s);
      continue;
    }
    bool ok = true;
    if (!rc)
      for (const auto& [idx, v] : x.writes) ok &= seq[idx] <= x.snap;
    if (ok) {
      ++commits;
      for (const auto& [idx, v] : x.writes) reg.install(idx, v), seq[idx] = commits;
      x.has_txn = false;
    } else {
      ++sum.aborted;
    }
    e.begin(Slot{x.begin, t, s}, ok ? TxnStatus::committed : TxnStatus::aborted);
    for (size_t i = 0; i < x.plan.size(); ++i) {
      if (x.plan[i].write) e.write(x.plan[i].key, x.values[i]);
      else e.read(x.plan[i].key, x.values[i]);
    }
    e.end();
    q.emplace(t + static_cast<int64_t>(rng.range(1, kStep)), 1, s);
  }
  plants_at(opt.txns, now + 1);
}

void validate(const GenOptions& o, const WorkloadInfo*& wl) {
  wl = find_workload(o.workload);
  if (!wl) {
    std::vector<std::string> n;
    for (const auto& w : kWorkloads) n.push_back(w.name);
    throw UsageError("unknown workload '" + o.workload + "' (one of: " + joined(n) + ")");
  }
  if (o.isolation != "ser" && o.isolation != "si" && o.isolation != "rc")
    throw UsageError("unknown isolation '" + o.isolation + "' (ser, si or rc)");
  if (o.isolation != "ser" && !si_capable(o.workload))
    throw UsageError("--isolation " + o.isolation + ": workload " + o.workload + " is not simulated under " +
                     (o.isolation == "si" ? "snapshot isolation" : "read committed") +
                     " (rmw, mt, blindw-rm, blindw-rw, blindw-wh are)");
  if (o.sessions < 1) throw UsageError("--sessions must be at least 1");
  if (o.sessions > 10'000'000) throw UsageError("--sessions must be at most 10000000");
  // (the SI simulation holds a transaction in flight per session)
  if (o.isolation != "ser" && o.sessions > 1'000'000)
    throw UsageError("--sessions must be at most 1000000 with --isolation " + o.isolation);
  if (!o.plant.empty() && o.sessions < 4)
    throw UsageError("planting anomalies needs at least 4 sessions (got " + std::to_string(o.sessions) + ")");
  const uint64_t keys = o.keys ? o.keys : wl->default_keys;
  const uint64_t max_keys = o.workload == "tpcc" ? kMaxWarehouses : kMaxKeys;
  if (keys > max_keys)
    throw UsageError("--keys must be at most " + std::to_string(max_keys) +
                     (o.workload == "tpcc" ? " (tpcc: warehouses)" : ""));
  if (o.dist != "uniform" && o.dist != "zipf")
    throw UsageError("unknown key distribution '" + o.dist + "' (uniform or zipf)");
  if (!(o.zipf_s > 0.0) || !(o.zipf_s <= 100.0)) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", o.zipf_s);
    throw UsageError(std::string("--zipf must be in (0, 100], got ") + got);
  }
  if (o.ops != 0) {
    if (wl->default_ops == 0) throw UsageError("--ops does not apply to workload " + o.workload);
    if (o.ops > 64) throw UsageError("--ops must be between 1 and 64");
  }
  if (o.extra_reads != 0 && o.workload != "rmw") throw UsageError("--extra-reads applies to workload rmw only");
  if (o.extra_reads > 64) throw UsageError("--extra-reads must be at most 64");
  if (o.max_list_len < 1 || o.max_list_len > 1024) throw UsageError("--max-list-len must be between 1 and 1024");
  if (o.chunk_txns < 1) throw UsageError("chunk size must be at least 1 transaction");
  if (o.txns > (uint64_t{1} << 40)) throw UsageError("--txns must be at most 2^40");
  if (o.workload == "append") {
    // Worst case: every append hits one key; generations must stay < 2^31
    // and physical keys below the plant keys.
    const uint64_t ops = o.ops ? o.ops : wl->default_ops;
    const double gens = static_cast<double>(o.txns) * ops / o.max_list_len + 1;
    if (gens >= 2147483648.0 || gens * static_cast<double>(keys) >= 1e15)
      throw UsageError("append: --txns * --ops / --max-list-len is too large for --keys " + std::to_string(keys) +
                       " (raise --max-list-len or lower --txns/--keys)");
  }
  for (const auto& p : o.plant)
    if (!find_plant(p)) throw UsageError("unknown plant '" + p + "' (one of: " + joined(plant_names()) + ")");
  if (o.scans > 100) throw UsageError("--scans must be a percentage between 0 and 100");
  if (o.scans > 0 && o.workload != "rmw" && o.workload != "mt")
    throw UsageError("--scans applies to workloads rmw and mt only");
  if (o.scan_predicates > 0 && o.scans == 0)
    throw UsageError("--scan-predicates is a share of the scans --scans makes (give --scans)");
  if (o.scans > 0 && o.isolation != "ser")
    throw UsageError("--scans is simulated under --isolation ser only");
  if (o.scan_width_lo < 1 || o.scan_width_lo > o.scan_width_hi || o.scan_width_hi > 1'000'000)
    throw UsageError("--scan-width LO:HI needs 1 <= LO <= HI <= 1000000 (got " + std::to_string(o.scan_width_lo) + ":" +
                     std::to_string(o.scan_width_hi) + ")");
  if (o.scans_as != "scan" && o.scans_as != "reads")
    throw UsageError("unknown --scans-as '" + o.scans_as + "' (scan or reads)");
}

}  // namespace
}  // namespace gen

using namespace gen;

bool writes_scans(const GenOptions& o) {
  if (o.scans_as != "scan") return false;
  if (o.scans > 0 || o.workload == "rows") return true;
  for (const auto& p : o.plant)
    if (const PlantDef* d = find_plant(p); d && d->predicates) return true;
  return false;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> n;
  for (const auto& w : kWorkloads) n.push_back(w.name);
  return n;
}

std::vector<std::string> plant_names() {
  std::vector<std::string> n;
  for (const auto& p : plant_defs()) n.push_back(p.name);
  return n;
}

std::string workload_help(const std::string& name) {
  const WorkloadInfo* w = find_workload(name);
  return w ? w->help : "";
}

std::string plant_help(const std::string& name) {
  const PlantDef* p = find_plant(name);
  return p ? p->help : "";
}

PlantLevels plant_violations(const std::string& name) {
  const PlantDef* p = find_plant(name);
  if (!p) throw UsageError("unknown plant '" + name + "' (one of: " + joined(plant_names()) + ")");
  return p->levels;
}

GenSummary generate(const GenOptions& opt, HistorySink& out) {
  const WorkloadInfo* wl = nullptr;
  validate(opt, wl);
  const uint64_t keys = opt.keys ? opt.keys : wl->default_keys;
  const uint32_t ops = opt.ops ? opt.ops : wl->default_ops;
  const bool zipf = opt.dist == "zipf";

  Rng rng(opt.seed);
  Rng plant_rng(opt.seed ^ 0x5eed91a7c0ffee11ULL);
  std::unique_ptr<Workload> w;
  const std::string& n = opt.workload;
  if (n == "rmw") w = std::make_unique<RmwWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), ops, opt.extra_reads);
  else if (n == "append") w = std::make_unique<AppendWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), ops, opt.max_list_len);
  else if (n == "mt") w = std::make_unique<MtWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s));
  else if (n == "lwt") w = std::make_unique<LwtWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s));
  else if (n == "blindw-rm") w = std::make_unique<BlindWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), ops, 90);
  else if (n == "blindw-rw") w = std::make_unique<BlindWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), ops, 50);
  else if (n == "blindw-wh") w = std::make_unique<BlindWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), ops, 20);
  else if (n == "twitter") w = std::make_unique<TwitterWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s));
  else if (n == "rows") w = std::make_unique<RowsWorkload>(rng, KeyPicker(keys, zipf, opt.zipf_s), opt.scan_width_lo, opt.scan_width_hi);
  else w = std::make_unique<TpccWorkload>(rng, keys, zipf, opt.zipf_s);
  if (opt.scans > 0) static_cast<KeyedRegisterWorkload&>(*w).set_scans(opt);
  if (writes_scans(opt) && !dynamic_cast<ScanSink*>(&out))
    throw UsageError("range scans, inserts and deletes (--scans, --workload rows, --plant phantom and predicate-*) are "
                     "written as JSONL only: HDF5 keeps point reads and "
                     "writes (write .jsonl and `isocheck convert` it for the expanded form, or use --scans-as reads)");

  // Plant positions: plant i goes right before workload transaction pos[i].
  struct Pending {
    uint64_t pos;
    size_t index;
  };
  std::vector<Pending> pending;
  for (size_t i = 0; i < opt.plant.size(); ++i) pending.push_back({plant_rng.below(opt.txns + 1), i});
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) { return a.pos < b.pos; });

  GenSummary sum;
  Emitter e(out, opt, sum);
  size_t next_plant = 0;
  if (opt.isolation != "ser") {
    std::vector<int64_t> plant_free(kPlantSessions, std::numeric_limits<int64_t>::min() / 2);
    simulate_si(opt, *w, e, sum, rng, [&](uint64_t i, int64_t t) {
      while (next_plant < pending.size() && pending[next_plant].pos == i) {
        const size_t idx = pending[next_plant++].index;
        const PlantDef& def = *find_plant(opt.plant[idx]);
        const auto slots = plant_slots_si(def, plant_txns(def, false).size(), t, opt.sessions, plant_free, plant_rng);
        sum.plants.push_back(run_plant(def, false, idx, e, slots));
      }
    });
    e.flush();
    out.finish();
    return sum;
  }
  Clock clock(opt.sessions, rng);
  auto plants_at = [&](uint64_t i) {
    while (next_plant < pending.size() && pending[next_plant].pos == i) {
      const size_t idx = pending[next_plant++].index;
      const PlantDef& def = *find_plant(opt.plant[idx]);
      const auto slots = plant_slots(def, plant_txns(def, w->lists()).size(), clock);
      sum.plants.push_back(run_plant(def, w->lists(), idx, e, slots));
    }
  };
  for (uint64_t i = 0; i < opt.txns; ++i) {
    plants_at(i);
    w->txn(e, clock.next());
  }
  plants_at(opt.txns);
  const uint64_t before = e.emitted();
  w->finish(e, clock);
  sum.final_read_txns = e.emitted() - before;
  e.flush();
  out.finish();
  return sum;
}

void CollectSink::append_with_scans(const History& c, const std::vector<GenScan>& scans) {
  History& h = history;
  h.time_unit = c.time_unit;
  std::vector<uint32_t> dense(c.session_count());
  for (size_t s = 0; s < c.session_count(); ++s) {
    auto [it, fresh] = session_index_.try_emplace(c.session_name[s], static_cast<uint32_t>(h.session_name.size()));
    if (fresh) h.session_name.push_back(c.session_name[s]);
    dense[s] = it->second;
  }
  size_t next_scan = 0;
  for (size_t t = 0; t < c.txn_count(); ++t) {
    h.begin_txn(c.txn_id[t], dense[c.txn_session[t]], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    const uint64_t first = c.op_begin(static_cast<TxnIdx>(t)), last = c.op_end(static_cast<TxnIdx>(t));
    for (uint64_t o = first; o <= last; ++o) {
      // The scans stated before operation o - first, as point reads.
      for (; next_scan < scans.size() && scans[next_scan].txn == t && scans[next_scan].before == o - first; ++next_scan) {
        const GenScan& sc = scans[next_scan];
        if (sc.kind != GenScan::scan) {
          if (sc.kind == GenScan::insert) h.add_op(OpKind::read, static_cast<Sym>(sc.lo), kNullValue);
          h.add_op(OpKind::write, static_cast<Sym>(sc.lo), static_cast<Sym>(sc.value));
          continue;
        }
        auto row = sc.rows.begin();
        for (int64_t k = sc.lo; k <= sc.hi; ++k) {
          Sym v = kNullValue;
          if (row != sc.rows.end() && row->first == k) v = static_cast<Sym>((row++)->second);
          h.add_op(OpKind::read, static_cast<Sym>(k), v);
        }
      }
      if (o == last) break;
      if (c.op_kind[o] == OpKind::read_list)
        h.add_list_read(c.op_key[o], c.list(o));
      else
        h.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
    }
    h.end_txn();
  }
  ++chunks;
}

namespace {

void put_int(std::string& out, int64_t v) { put_jsonl_int(out, v); }

void put_scan(std::string& out, const GenScan& sc) {
  if (sc.kind != GenScan::scan) {
    out += sc.kind == GenScan::insert ? "[\"insert\"," : "[\"delete\",";
    put_int(out, sc.lo);
    out.push_back(',');
    put_int(out, static_cast<int64_t>(sc.value));
    out.push_back(']');
    return;
  }
  out += "[\"scan\",";
  put_int(out, sc.lo);
  out.push_back(',');
  put_int(out, sc.hi);
  out += ",[";
  for (size_t i = 0; i < sc.rows.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('[');
    put_int(out, sc.rows[i].first);
    out.push_back(',');
    put_int(out, static_cast<int64_t>(sc.rows[i].second));
    out.push_back(']');
  }
  out += "]";
  if (sc.has_above) {
    out += ",[\">\",";
    put_int(out, static_cast<int64_t>(sc.above));
    out.push_back(']');
  }
  out.push_back(']');
}

const char* kScanJsonlHeader = "{\"isocheck\":1,\"time_unit\":\"us\"}\n";

class ScanJsonlFileSink final : public ScanSink {
 public:
  explicit ScanJsonlFileSink(const std::string& path) : file_(path, "output") { file_.write(kScanJsonlHeader); }
  void append_with_scans(const History& chunk, const std::vector<GenScan>& scans) override {
    buf_.clear();
    render_scan_jsonl(chunk, scans, buf_);
    file_.write(buf_);
  }
  void finish() override { file_.commit(); }

 private:
  AtomicOutput file_;
  std::string buf_;
};

}  // namespace

void render_scan_jsonl(const History& h, const std::vector<GenScan>& scans, std::string& out) {
  if (h.keys.named() || h.values.named()) throw std::logic_error("render_scan_jsonl: integer histories only");
  size_t next = 0;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    put_jsonl_txn_head(out, h, t);
    bool first_op = true;
    const OpIdx first = h.op_begin(t), last = h.op_end(t);
    for (OpIdx o = first; o <= last; ++o) {
      for (; next < scans.size() && scans[next].txn == t && scans[next].before == o - first; ++next) {
        if (!first_op) out.push_back(',');
        first_op = false;
        put_scan(out, scans[next]);
      }
      if (o == last) break;
      if (!first_op) out.push_back(',');
      first_op = false;
      put_jsonl_op(out, h, o);
    }
    out += "]}\n";
  }
  if (next != scans.size()) throw std::logic_error("render_scan_jsonl: a scan outside its chunk's operations");
}

std::unique_ptr<ScanSink> open_scan_jsonl_sink(const std::string& path) {
  return std::make_unique<ScanJsonlFileSink>(path);
}

JsonlTextSink::JsonlTextSink() : text(kScanJsonlHeader) {}

History generate_history(const GenOptions& opt, GenSummary* summary) {
  CollectSink sink;
  GenSummary s = generate(opt, sink);
  if (summary) *summary = std::move(s);
  return std::move(sink.history);
}

}  // namespace isocheck

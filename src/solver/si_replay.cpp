#include "solver/si_replay.h"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/enum_names.h"
#include "core/flat_hash.h"
#include "core/text_escape.h"
#include "solver/serial_witness.h"

namespace isocheck {

namespace {

constexpr EnumName<SiTies> kSiTies[] = {{SiTies::none, "none"},
                                        {SiTies::commits_first, "commits first on ties"},
                                        {SiTies::begins_first, "begins first on ties"},
                                        {SiTies::begin_order, "commits in begin order, latest snapshots"},
                                        {SiTies::end_order, "commits in end order, latest snapshots"}};
static_assert(indexed_by_value(kSiTies));

}  // namespace

const char* to_string(SiTies t) { return name_in(kSiTies, t); }

namespace {

// A key's committed state: its value (kNullValue: initial) and the number of
// the commit that installed it (0: initial state).
struct KeyState {
  Sym value = kNullValue;
  uint64_t seq = 0;
};

// The order replays' key state: its last two committed versions, each with
// the number of the commit that installed it (0: the initial state).
struct TwoVersions {
  static constexpr uint64_t kNone = ~0ULL;
  Sym value = kNullValue, prev_value = kNullValue;
  uint64_t seq = 0, prev_seq = kNone;  // prev_seq kNone: no earlier version
};

std::string txn_text(const History& h, TxnIdx t) { return "transaction " + std::to_string(h.txn_id[t]); }

// Committed transactions ordered by time, ties by file position: the shared
// order, or, where file order is that order (the shared one then empty), the
// committed transactions in file order, built in `own`.
const std::vector<TxnIdx>& committed_by(const History& h, const std::vector<TxnIdx>& shared, size_t committed,
                                        std::vector<TxnIdx>& own) {
  if (!shared.empty() || committed == 0) return shared;
  own.reserve(committed);
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.txn_status[t] == TxnStatus::committed) own.push_back(t);
  return own;
}

struct Events {
  Events(const std::vector<TxnIdx>& b, const std::vector<TxnIdx>& e) : begins(b), ends(e) {}
  const std::vector<TxnIdx>& begins;  // committed transactions by begin time
  const std::vector<TxnIdx>& ends;    // and by end time
  std::vector<uint32_t> rank;         // a committed transaction's position among its session's
  bool ties = false;                  // some commit falls at the time of some begin
};

constexpr uint64_t kNotBegun = ~0ULL;

// A transaction's writes so far, in its operation order: a short list, or a
// hash map for transactions with many operations (a list would be
// quadratic).
class OwnWrites {
 public:
  void start(const History& h, TxnIdx t) {
    list_.clear();
    in_map_ = h.op_end(t) - h.op_begin(t) > kShort;
    if (in_map_) map_ = FlatMap64(h.op_end(t) - h.op_begin(t));
  }
  void write(Sym k, Sym v) {
    if (in_map_) {
      bool fresh;
      map_.get_or_insert(k, v, fresh) = v;
      return;
    }
    auto it = std::find_if(list_.begin(), list_.end(), [&](const auto& p) { return p.first == k; });
    if (it == list_.end()) list_.emplace_back(k, v);
    else it->second = v;
  }
  const Sym* value(Sym k) const {
    if (in_map_) return map_.find(k);
    auto it = std::find_if(list_.begin(), list_.end(), [&](const auto& p) { return p.first == k; });
    return it == list_.end() ? nullptr : &it->second;
  }
  // Each key written once, with its last value.
  template <class F> void for_each(F&& f) const {
    if (in_map_) map_.for_each([&](uint64_t k, uint64_t v) { f(static_cast<Sym>(k), static_cast<Sym>(v)); });
    else
      for (const auto& [k, v] : list_) f(k, v);
  }

 private:
  static constexpr uint64_t kShort = 32;
  std::vector<std::pair<Sym, Sym>> list_;
  FlatMap64 map_;
  bool in_map_ = false;
};

// Walks t's operations: writes go to `own`, a read after t's own write of
// its key must return that write, and every other (external) read is
// external(k, v), which returns "" or the failed check. Returns the first
// failed check, or "".
template <class External>
std::string walk_reads(const History& h, TxnIdx t, OwnWrites& own, External&& external) {
  own.start(h, t);
  for (OpIdx o = h.op_begin(t), e = h.op_end(t); o < e; ++o) {
    const Sym k = h.op_key[o], v = h.op_value[o];
    if (h.op_kind[o] == OpKind::write) {
      own.write(k, v);
      continue;
    }
    if (const Sym* mine = own.value(k)) {
      if (*mine != v)
        return txn_text(h, t) + " reads " + printable(h.keys.text(k)) + " = " + value_text(h, v) + " after writing " +
               value_text(h, *mine);
      continue;
    }
    std::string failed = external(k, v);
    if (!failed.empty()) return failed;
  }
  return "";
}

// The order replay: the committed transactions `order` commit in that order
// (commit number i + 1 for order[i]); each takes the latest snapshot its
// reads allow (si_replay.h). Returns the first failed check, or "".
template <class States>
std::string replay_in_order(const History& h, const std::vector<TxnIdx>& order, const std::vector<uint32_t>& rank,
                            const char* order_name, States& st) {
  std::vector<uint32_t> done(h.session_count(), 0);     // commits per session so far
  std::vector<uint64_t> last_seq(h.session_count(), 0);  // the session's last commit number
  OwnWrites own;
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + kAhead < order.size())
      for (OpIdx o = h.op_begin(order[i + kAhead]), e = h.op_end(order[i + kAhead]); o < e; ++o) st.prefetch(h.op_key[o]);
    const TxnIdx t = order[i];
    const uint64_t seq = i + 1;
    const uint32_t session = h.txn_session[t];
    if (done[session] != rank[t]) return txn_text(h, t) + " commits before the previous transaction of its session in " + order_name;
    // The snapshot s (the number of commits it sees) must satisfy lo <= s < hi.
    uint64_t lo = last_seq[session], hi = seq;
    std::string failed = walk_reads(h, t, own, [&](Sym k, Sym v) -> std::string {
      const TwoVersions& ks = st.at(k);
      if (v == ks.value) {
        lo = std::max(lo, ks.seq);
      } else if (ks.prev_seq != TwoVersions::kNone && v == ks.prev_value) {
        lo = std::max(lo, ks.prev_seq), hi = std::min(hi, ks.seq);
      } else {
        return txn_text(h, t) + " reads " + printable(h.keys.text(k)) + " = " + value_text(h, v) +
               ", not one of the last two versions committed before it in " + order_name;
      }
      return "";
    });
    if (!failed.empty()) return failed;
    if (lo >= hi) return txn_text(h, t) + "'s reads see no one snapshot in " + order_name;
    const uint64_t snap = hi - 1;
    own.for_each([&](Sym k, Sym) {
      if (failed.empty() && st.at(k).seq > snap)
        failed = txn_text(h, t) + " writes " + printable(h.keys.text(k)) +
                 ", which a concurrent transaction wrote and committed after its snapshot (in " + order_name + ")";
    });
    if (!failed.empty()) return failed;
    own.for_each([&](Sym k, Sym v) {
      TwoVersions& ks = st.at(k);
      ks.prev_value = ks.value, ks.prev_seq = ks.seq;
      ks.value = v, ks.seq = seq;
    });
    ++done[session];
    last_seq[session] = seq;
  }
  return "";
}

// snap: per transaction, the commits seen at its begin; kNotBegun for every
// transaction on entry, and again on return (the entries set are put back:
// the tie candidates share one array, where filling a fresh one of 8 bytes a
// transaction cost more than a replay that fails early).
template <class States>
std::string replay(const History& h, const Events& ev, SiTies ties, States& st, std::vector<uint64_t>& snap) {
  const size_t n = ev.begins.size();
  size_t i = 0, j = 0;  // the next begin and commit events
  struct PutBack {
    const Events& ev;
    std::vector<uint64_t>& snap;
    const size_t &i, &j;
    ~PutBack() {
      for (size_t x = 0; x < i; ++x) snap[ev.begins[x]] = kNotBegun;
      for (size_t x = 0; x < j; ++x) snap[ev.ends[x]] = kNotBegun;
    }
  } put_back{ev, snap, i, j};
  std::vector<uint32_t> done(h.session_count(), 0);      // commits per session so far
  uint64_t commits = 0;
  OwnWrites own;
  auto begin = [&](TxnIdx t) -> std::string {
    if (done[h.txn_session[t]] != ev.rank[t])
      return txn_text(h, t) + " begins before the previous transaction of its session committed";
    snap[t] = commits;
    return walk_reads(h, t, own, [&](Sym k, Sym v) -> std::string {
      const Sym seen = st.at(k).value;
      if (seen != v)
        return txn_text(h, t) + " reads " + printable(h.keys.text(k)) + " = " + value_text(h, v) +
               " but its snapshot (at its begin) holds " + value_text(h, seen);
      return "";
    });
  };
  auto commit = [&](TxnIdx t) -> std::string {
    ++done[h.txn_session[t]];
    ++commits;
    for (OpIdx o = h.op_begin(t), e = h.op_end(t); o < e; ++o) {
      if (h.op_kind[o] != OpKind::write) continue;
      KeyState& ks = st.at(h.op_key[o]);
      if (ks.seq > snap[t] && ks.seq != commits)
        return txn_text(h, t) + " writes " + printable(h.keys.text(h.op_key[o])) +
               ", which a concurrent transaction wrote and committed after its snapshot";
      ks.value = h.op_value[o];
      ks.seq = commits;
    }
    return "";
  };
  // Keys of the events this far ahead are prefetched (the states are cache
  // misses once there are many keys).
  constexpr size_t kAhead = 8;
  auto prefetch = [&](const std::vector<TxnIdx>& v, size_t i) {
    if (i >= v.size()) return;
    for (OpIdx o = h.op_begin(v[i]), e = h.op_end(v[i]); o < e; ++o) st.prefetch(h.op_key[o]);
  };
  while (j < n) {
    bool take_commit = i == n;
    if (!take_commit) {
      const int64_t c = h.txn_end[ev.ends[j]], b = h.txn_begin[ev.begins[i]];
      take_commit = ties == SiTies::commits_first ? c <= b : c < b;
    }
    if (take_commit) {
      const TxnIdx t = ev.ends[j++];
      prefetch(ev.ends, j + kAhead);
      if (snap[t] == kNotBegun) {  // begin == end, commits first: its own begin comes first
        std::string f = begin(t);
        if (!f.empty()) return f;
      }
      std::string f = commit(t);
      if (!f.empty()) return f;
    } else {
      const TxnIdx t = ev.begins[i++];
      prefetch(ev.begins, i + kAhead);
      if (snap[t] != kNotBegun) continue;
      std::string f = begin(t);
      if (!f.empty()) return f;
    }
  }
  return "";
}

}  // namespace

SiReplay find_si_replay(const History& h, bool time_order, int64_t clock_skew, bool order_replays,
                        ReplayInputs* shared) {
  SiReplay r;
  std::optional<ReplayInputs> own_inputs;
  ReplayInputs& in = shared ? *shared : own_inputs.emplace(h);
  // Lists, null writes: as the serial witness, the graph decides.
  const WitnessPlan& p = in.plan(false);
  r.committed = p.committed;
  if (!p.why_not.empty()) {
    r.why_not = p.why_not;
    return r;
  }
  if (time_order && clock_skew < 0) {
    r.why_not = "--time-order with a negative clock skew";
    return r;
  }
  std::vector<uint32_t> rank(h.txn_count(), 0);
  {
    std::vector<uint32_t> per_session(h.session_count(), 0);
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (h.txn_status[t] != TxnStatus::committed) continue;
      if (!h.has_times(t)) {
        r.why_not = "not every committed transaction has begin/end times";
        return r;
      }
      if (h.txn_end[t] < h.txn_begin[t]) {
        r.why_not = txn_text(h, t) + " ends before it begins";
        return r;
      }
      rank[t] = per_session[h.txn_session[t]]++;
    }
  }
  std::vector<TxnIdx> own_begins, own_ends;
  Events ev(committed_by(h, in.by_begin(), p.committed, own_begins), committed_by(h, in.by_end(), p.committed, own_ends));
  ev.rank = std::move(rank);
  for (size_t i = 0, j = 0; i < ev.begins.size() && j < ev.ends.size() && !ev.ties;) {
    const int64_t b = h.txn_begin[ev.begins[i]], c = h.txn_end[ev.ends[j]];
    ev.ties = b == c;
    if (c < b) ++j;
    else ++i;
  }
  // Every time order respects --time-order for a skew >= 0: end(T1) + skew <
  // begin(T2) puts T1's commit before T2's begin, so before T2's commit.
  // The order replays: begin order respects --time-order as above; end
  // order too (end(T1) + skew < begin(T2) <= end(T2)).
  std::vector<SiTies> candidates{SiTies::commits_first};
  if (ev.ties) candidates.push_back(SiTies::begins_first);
  if (order_replays) candidates.insert(candidates.end(), {SiTies::begin_order, SiTies::end_order});
  std::vector<uint64_t> snap;  // the time replays' (replay()): set up by the first, freed after the last
  auto run = [&](SiTies c, auto& st) {
    if constexpr (std::is_same_v<std::decay_t<decltype(st.at(0))>, TwoVersions>) {
      std::vector<uint64_t>().swap(snap);
      return replay_in_order(h, c == SiTies::begin_order ? ev.begins : ev.ends, ev.rank,
                             c == SiTies::begin_order ? "begin-time order" : "end-time order", st);
    } else {
      if (snap.empty()) snap.assign(h.txn_count(), kNotBegun);
      std::string failed = replay(h, ev, c, st, snap);
      if (failed.empty()) std::vector<uint64_t>().swap(snap);  // (before the duplicate-write test's buffer)
      return failed;
    }
  };
  auto replay_ties = [&](SiTies c) {
    std::string failed;
    if (c == SiTies::begin_order || c == SiTies::end_order) {
      KeyStates<TwoVersions> st(p.direct_keys(), p.hashed_writes(), TwoVersions{});
      failed = run(c, st);
    } else {
      KeyStates<KeyState> st(p.direct_keys(), p.hashed_writes(), KeyState{});
      failed = run(c, st);
    }
    return failed.empty() ? failed : failed + " (" + to_string(c) + ")";
  };
  if (auto c = first_clean_replay(in, candidates, replay_ties, r.why_not)) r.order = *c;
  return r;
}

}  // namespace isocheck

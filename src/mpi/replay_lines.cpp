#include "mpi/replay_lines.h"

#include "core/flat_hash.h"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "mpi/collectives.h"
#include "mpi/exchange.h"
#include "solver/serial_witness.h"
#include "solver/si_replay.h"

namespace isocheck::dist {

namespace {

// A session's first and last committed timed transactions in one rank's range.
struct SpanRec {
  int64_t session, first_begin, first_end, last_begin, last_end;
  int32_t rank, pad;
};
static_assert(sizeof(SpanRec) == 48);

std::vector<Level> replayed_levels(const std::vector<Level>& levels) {
  std::vector<Level> out;
  for (Level l : levels)
    if (l != Level::lin) out.push_back(l);  // (check() decides lin apart)
  return out;
}
bool has(const std::vector<Level>& ls, Level l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

uint8_t si_code(SiTies t) {  // CheckStats::si_replay_order + 1, as check() maps it
  switch (t) {
    case SiTies::none: return 0;
    case SiTies::begin_order: return 2;
    case SiTies::end_order: return 3;
    default: return 1;
  }
}

}  // namespace

void ReplayScan::add(const History& c) {
  for (TxnIdx t = 0; t < c.txn_count(); ++t) {
    const bool committed = c.txn_status[t] == TxnStatus::committed;
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      const OpKind k = c.op_kind[o];
      if (k == OpKind::append || k == OpKind::read_list || (k == OpKind::write && c.op_value[o] == kNullValue)) none_ = true;
      if (!committed && k == OpKind::write) outside_.push_back({c.op_key[o], c.op_value[o]});
    }
    if (!committed) continue;
    if (!c.has_times(t)) {
      untimed_ = true;
      continue;
    }
    const int64_t b = c.txn_begin[t], e = c.txn_end[t];
    ends_before_ |= e < b;
    auto [it, fresh] = sessions_.try_emplace(c.session_name[c.txn_session[t]]);
    Span& s = it->second;
    if (fresh) order_.push_back(it->first);
    if (!s.any) {
      s.first_begin = b, s.first_end = e, s.any = true;
    } else {
      bad_[0] |= s.last_begin > b, bad_[1] |= s.last_end > e;
      bad_[2] |= s.last_end > b, bad_[3] |= s.last_end >= b;
    }
    s.last_begin = b, s.last_end = e;
  }
}

ReplayFacts ReplayScan::finish(bool included_unknown) {
  const int P = size(), me = rank();
  // Sessions across ranges: each range's first and last committed
  // transaction of a session go to the session's owner, which compares the
  // last of one range with the first of the next range holding it.
  std::vector<std::vector<SpanRec>> out(P);
  for (int64_t name : order_) {
    const Span& s = sessions_.at(name);
    if (s.any)
      out[mix(static_cast<uint64_t>(name)) % static_cast<uint64_t>(P)].push_back(
          {name, s.first_begin, s.first_end, s.last_begin, s.last_end, me, 0});
  }
  std::unordered_map<int64_t, Span>().swap(sessions_);
  std::vector<int64_t>().swap(order_);
  std::vector<SpanRec> spans = exchange(out);
  std::sort(spans.begin(), spans.end(),
            [](const SpanRec& x, const SpanRec& y) { return std::tie(x.session, x.rank) < std::tie(y.session, y.rank); });
  for (size_t k = 1; k < spans.size(); ++k) {
    if (spans[k].session != spans[k - 1].session) continue;
    const SpanRec &p = spans[k - 1], &s = spans[k];
    bad_[0] |= p.last_begin > s.first_begin, bad_[1] |= p.last_end > s.first_end;
    bad_[2] |= p.last_end > s.first_begin, bad_[3] |= p.last_end >= s.first_begin;
  }
  int flags[7] = {none_ || included_unknown, untimed_, ends_before_, bad_[0], bad_[1], bad_[2], bad_[3]};
  MPI_Allreduce(MPI_IN_PLACE, flags, 7, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ReplayFacts f;
  f.none = flags[0], f.untimed = flags[1], f.ends_before_begin = flags[2];
  f.bad_begin = flags[3], f.bad_end = flags[4], f.bad_commits_first = flags[5], f.bad_begins_first = flags[6];
  // The writes of transactions not committed, on every rank (few: aborted
  // attempts and unknown transactions).
  {
    f.outside = allgather_records(outside_, "writes of transactions not committed");
    std::vector<std::pair<Sym, Sym>>().swap(outside_);
    std::sort(f.outside.begin(), f.outside.end());
    f.outside_repeats = std::adjacent_find(f.outside.begin(), f.outside.end()) != f.outside.end();
  }
  return f;
}

ReplayFacts replay_facts(const History& h, const std::vector<uint8_t>& included) {
  ReplayScan s;
  bool included_unknown = false;
  if (rank() == 0) {  // every rank holds h: one of them speaks for it
    s.add(h);
    for (TxnIdx t = 0; t < h.txn_count(); ++t) included_unknown |= included[t] && h.txn_status[t] == TxnStatus::unknown;
  }
  return s.finish(included_unknown);
}

namespace {

// Begins first on ties is commits first with every end one tick later
// (integer times: end < begin iff end + 1 <= begin); the ends are put back.
bool begins_first_clean(History& h, const CheckOptions& opt) {
  for (TxnIdx x = 0; x < h.txn_count(); ++x)
    if (h.txn_status[x] == TxnStatus::committed && h.txn_end[x] == std::numeric_limits<int64_t>::max()) return false;
  auto shift = [&](int64_t by) {
    for (TxnIdx x = 0; x < h.txn_count(); ++x)
      if (h.txn_status[x] == TxnStatus::committed && h.has_times(x)) h.txn_end[x] += by;
  };
  shift(1);
  const bool clean = find_si_replay(h, opt.time_order, opt.clock_skew, false).order == SiTies::commits_first;
  shift(-1);
  return clean;
}

uint8_t time_bits(SiTies t) {
  return t == SiTies::commits_first ? kSiCommitsFirst : t == SiTies::begins_first ? kSiBeginsFirst : 0;
}

}  // namespace

uint8_t si_time_replays(History& h, const CheckOptions& opt) {
  uint8_t bits = time_bits(find_si_replay(h, opt.time_order, opt.clock_skew, false).order);
  if (bits == kSiCommitsFirst && begins_first_clean(h, opt)) bits |= kSiBeginsFirst;
  return bits;
}

uint8_t si_time_replays(const History& local, const CheckOptions& opt) {
  uint8_t bits = time_bits(find_si_replay(local, opt.time_order, opt.clock_skew, false).order);
  if (bits == kSiCommitsFirst) {
    History copy = local;
    if (begins_first_clean(copy, opt)) bits |= kSiBeginsFirst;
  }
  return bits;
}

bool si_order_bounds(const History& local, const std::vector<TxnIdx>& gtxn, bool by_end, std::vector<OrderBounds>& out) {
  using Pos = std::pair<int64_t, uint64_t>;
  constexpr Pos kInitial{std::numeric_limits<int64_t>::min(), 0};
  const std::vector<int64_t>& time = by_end ? local.txn_end : local.txn_begin;
  std::vector<TxnIdx> order;
  for (TxnIdx t = 0; t < local.txn_count(); ++t)
    if (local.txn_status[t] == TxnStatus::committed) order.push_back(t);
  auto pos = [&](TxnIdx t) { return Pos{time[t], gtxn[t]}; };
  auto earlier = [&](TxnIdx a, TxnIdx b) { return pos(a) < pos(b); };
  // (A file in time order is sorted already: one pass instead of a sort.)
  if (!std::is_sorted(order.begin(), order.end(), earlier)) std::sort(order.begin(), order.end(), earlier);
  struct Versions {
    Sym value = kNullValue, prev_value = kNullValue;
    Pos seq{std::numeric_limits<int64_t>::min(), 0}, prev_seq{std::numeric_limits<int64_t>::min(), 0};
    bool has_prev = false;
  };
  // Each key's two latest versions, by a flat table's slot (no node per key).
  std::vector<Versions> versions;
  FlatMap64 slot_of;
  auto state = [&](Sym k) -> Versions& {
    bool fresh = false;
    const uint64_t slot = slot_of.get_or_insert(k, versions.size(), fresh);
    if (fresh) versions.emplace_back();
    return versions[slot];
  };
  std::vector<std::pair<Sym, Sym>> own;  // this transaction's writes: key, last value
  out.clear();
  out.reserve(order.size());
  for (TxnIdx t : order) {
    own.clear();
    Pos lo = kInitial, hi = pos(t), w = kInitial;
    for (OpIdx o = local.op_begin(t); o < local.op_end(t); ++o) {
      const Sym k = local.op_key[o], v = local.op_value[o];
      auto mine = std::find_if(own.begin(), own.end(), [&](const auto& p) { return p.first == k; });
      if (local.op_kind[o] == OpKind::write) {
        if (mine == own.end()) own.push_back({k, v});
        else mine->second = v;
        continue;
      }
      if (mine != own.end()) {
        if (mine->second != v) return false;
        continue;
      }
      const Versions& ks = state(k);
      if (v == ks.value) lo = std::max(lo, ks.seq);
      else if (ks.has_prev && v == ks.prev_value) lo = std::max(lo, ks.prev_seq), hi = std::min(hi, ks.seq);
      else return false;
    }
    for (auto& [k, v] : own) {
      Versions& ks = state(k);
      w = std::max(w, ks.seq);
      ks.prev_value = ks.value, ks.prev_seq = ks.seq, ks.has_prev = true;
      ks.value = v, ks.seq = pos(t);
    }
    out.push_back({lo.first, hi.first, w.first, gtxn[t], static_cast<uint32_t>(lo.second), static_cast<uint32_t>(hi.second),
                   static_cast<uint32_t>(w.second)});
  }
  return true;
}

void piece_replays(const History& local, bool whole, const std::vector<Level>& piece_levels, const CheckOptions& opt,
                   const ReplayFacts& facts, const CheckResult& r, PieceResult& out) {
  const std::vector<Level> levels = replayed_levels(opt.levels), mine = replayed_levels(piece_levels);
  if (levels.empty() || mine.empty()) return;
  const bool need_rt = has(levels, Level::sser) || opt.time_order, my_rt = has(mine, Level::sser) || opt.time_order;
  const bool wants_si = has(levels, Level::si) && opt.si_replay;
  // A write of the piece that a transaction left out of it wrote too: one
  // process's duplicate-write test fails, and with it every replay.
  auto hits_outside = [&] {
    if (facts.outside.empty()) return false;
    for (TxnIdx t = 0; t < local.txn_count(); ++t) {
      if (local.txn_status[t] != TxnStatus::committed) continue;  // (those of `outside` it holds)
      for (OpIdx o = local.op_begin(t); o < local.op_end(t); ++o)
        if (local.op_kind[o] == OpKind::write &&
            std::binary_search(facts.outside.begin(), facts.outside.end(), std::make_pair(local.op_key[o], local.op_value[o])))
          return true;
    }
    return false;
  };
  out.replays = kReplayKnown;
  if (facts.none || facts.outside_repeats) return;
  if (whole) {
    // check()'s own decisions on the whole history, where the piece's levels
    // led it elsewhere (SSER's piece 0 decides SSER alone).
    WitnessOrder w = WitnessOrder::none;
    if (opt.serial_witness) w = my_rt == need_rt ? r.stats.witness : find_serial_witness(local, need_rt).order;
    uint8_t si = 0;
    if (w == WitnessOrder::none && wants_si) {
      if (has(mine, Level::si)) si = r.stats.si_replay ? static_cast<uint8_t>(1 + r.stats.si_replay_order) : 0;
      else si = si_code(find_si_replay(local, opt.time_order, opt.clock_skew).order);
    }
    if ((w != WitnessOrder::none || si) && hits_outside()) return;
    out.whole_witness = static_cast<uint8_t>(w), out.whole_si = si;
    return;
  }
  uint8_t bits = 0;
  if (opt.serial_witness && !(need_rt && facts.untimed)) {
    // The candidates the whole history tries; check() on the piece tried its
    // own (the same unless the whole history has untimed transactions and
    // this piece has none) and stopped at the first that replays.
    const WitnessOrder found = r.stats.witness;
    const WitnessPlan plan = plan_serial_witness(local, my_rt);
    const std::vector<WitnessOrder> whole_cands =
        facts.untimed ? std::vector<WitnessOrder>{WitnessOrder::file}
                      : std::vector<WitnessOrder>{WitnessOrder::begin_time, WitnessOrder::end_time};
    int unique = -1;
    for (WitnessOrder c : whole_cands) {
      bool clean;
      if (c == found) clean = true;
      else if (found == WitnessOrder::none && plan.why_not.empty() &&
               std::find(plan.candidates.begin(), plan.candidates.end(), c) != plan.candidates.end())
        clean = false;  // check() tried it (or found a repeated write)
      else {
        const WitnessPlan p = plan_serial_witness(local, false);
        clean = p.why_not.empty() && replay_candidate(local, p, c).empty();
        if (clean) {
          if (unique < 0) unique = writes_unique(local, p);
          clean = unique;
        }
      }
      if (clean) bits |= c == WitnessOrder::begin_time ? kWitnessBegin : c == WitnessOrder::end_time ? kWitnessEnd : kWitnessFile;
    }
  }
  if (wants_si && !facts.untimed && !facts.ends_before_begin && !(opt.time_order && opt.clock_skew < 0))
    bits |= si_time_replays(local, opt);
  if (bits && hits_outside()) bits = 0;
  out.replays |= bits;
}

void merge_replays(const std::map<int32_t, PieceResult>& done, uint32_t cutoff, int32_t whole_piece,
                   const CheckOptions& opt, const ReplayFacts& facts, CheckResult& r) {
  r.stats.witness = WitnessOrder::none, r.stats.si_replay = false, r.stats.si_replay_order = 0;
  const std::vector<Level> levels = replayed_levels(opt.levels);
  if (levels.empty() || facts.none || facts.outside_repeats) return;
  if (whole_piece >= 0) {
    auto it = done.find(whole_piece);
    if (it == done.end() || !(it->second.replays & kReplayKnown)) return;
    r.stats.witness = static_cast<WitnessOrder>(it->second.whole_witness);
    if (it->second.whole_si) r.stats.si_replay = true, r.stats.si_replay_order = static_cast<uint8_t>(it->second.whole_si - 1);
    return;
  }
  // Blocks: a candidate replays on the whole history iff on every block and
  // the sessions keep their order across blocks.
  uint8_t all = 0xff;
  for (auto& [i, pr] : done) {
    if (static_cast<uint32_t>(i) >= cutoff) continue;
    if (!(pr.replays & kReplayKnown)) return;
    all &= pr.replays;
  }
  const bool need_rt = has(levels, Level::sser) || opt.time_order;
  if (opt.serial_witness && !(need_rt && facts.untimed)) {
    if (facts.untimed) {
      if (all & kWitnessFile) r.stats.witness = WitnessOrder::file;
    } else if ((all & kWitnessBegin) && !facts.bad_begin) {
      r.stats.witness = WitnessOrder::begin_time;
    } else if ((all & kWitnessEnd) && !facts.bad_end) {
      r.stats.witness = WitnessOrder::end_time;
    }
    if (r.stats.witness != WitnessOrder::none) return;
  }
  if (has(levels, Level::si) && opt.si_replay && !facts.untimed && !facts.ends_before_begin &&
      !(opt.time_order && opt.clock_skew < 0) &&
      (((all & kSiCommitsFirst) && !facts.bad_commits_first) || ((all & kSiBeginsFirst) && !facts.bad_begins_first)))
    r.stats.si_replay = true, r.stats.si_replay_order = 0;
}

}  // namespace isocheck::dist

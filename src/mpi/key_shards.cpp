#include "mpi/key_shards.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/allocator.h"
#include "mpi/accounting.h"
#include "mpi/collectives.h"
#include "mpi/dist_acyclic.h"
#include "mpi/dist_prune.h"
#include "mpi/exchange.h"
#include "mpi/mpi_env.h"
#include "mpi/realtime_pairs.h"
#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "core/errors.h"
#include "solver/acyclic.h"
#include "mpi/replay_lines.h"
#include "mpi/unique_ids.h"
#include "solver/serial_witness.h"
#include "solver/witness.h"

namespace isocheck::dist {
namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return x;
}

// Where build_known_graph emits an edge or an anomaly on the whole history:
//   phase 0  index_writes: duplicate writes, transactions ascending, the
//            operations of a transaction backwards            (a = txn, b = ~pos)
//   phase 1  pass1 of transaction a: first the operation loop (WR edges,
//            read anomalies; b = pos), then the loop over the transaction's
//            register keys in order of first appearance (WW edges, lost
//            updates; b = 2^32 + first position of the key)
//   phase 2  WW edges to unread blind tails (the builder's classify_blind):
//            keys by symbol (a = key), tails by transaction (shard order)
//   phase 3  pass2 of transaction a: RW edges, b = position of the read
//   phase 4  lists(): keys ascending (a = key), in the shard's own order
//   phase 5  session order: by the later transaction (a), built by the
//            owner of its transaction range
// Ties (same phase, a, b) only happen inside one key, hence inside one shard,
// and `seq` (the shard's emission order) keeps the whole-history order there.
struct Order {
  uint32_t phase;
  uint64_t a, b, seq;
  bool operator<(const Order& o) const {
    return std::tie(phase, a, b, seq) < std::tie(o.phase, o.a, o.b, o.seq);
  }
};

struct EdgeRec {
  uint64_t a, b, seq;
  uint32_t phase, src, dst, why;
  uint32_t kind, pad;
  Order order() const { return {phase, a, b, seq}; }
};
static_assert(sizeof(EdgeRec) == 48);

struct AnomalyRec {
  uint64_t a, b, seq, key, value;
  uint32_t phase, kind, txn, other, op, pad;
  Order order() const { return {phase, a, b, seq}; }
};
static_assert(sizeof(AnomalyRec) == 64);

// This rank's transaction records: the consecutive global range
// [first, first + size()) of the n transactions (ranks in file order).
struct Range {
  uint64_t first = 0, n = 0;
  std::vector<int64_t> id, session, begin, end;  // session: the user's session number
  std::vector<TxnStatus> status;
  std::vector<uint32_t> ops;      // operations per transaction
  std::vector<uint8_t> included;  // set by the included stage
  size_t size() const { return id.size(); }
  void add(int64_t i, int64_t s, TxnStatus st, int64_t b, int64_t e, uint64_t o) {
    if (o > UINT32_MAX) throw ResourceError("key shards: a transaction with more than 2^32 operations");
    id.push_back(i), session.push_back(s), status.push_back(st), begin.push_back(b), end.push_back(e);
    ops.push_back(static_cast<uint32_t>(o));
  }
  bool timed(size_t i) const { return begin[i] != kNoTime && end[i] != kNoTime; }
};

// The shard: the transactions with an operation on this rank's keys (global
// order), with only those operations. Each transaction is its own session
// in the projection (session order is the range owner's), so the builder
// emits no session edges and the replay checks no session order here.
struct Shard {
  History h;
  std::vector<TxnIdx> gtxn;   // local transaction -> global
  std::vector<uint32_t> pos;  // local operation -> its position in the whole transaction
  void open(TxnIdx g, TxnStatus st, int64_t b, int64_t e) {
    const uint32_t l = static_cast<uint32_t>(h.txn_count());
    h.begin_txn(g, l, st, b, e);
    h.session_name.push_back(l);
    gtxn.push_back(g);
  }
};

// Which rank owns a key. Keys hash into kBucketsPerRank buckets per rank;
// the buckets go to the ranks by their operations in a sample, most first,
// each to the rank with the fewest so far (ties: the lower bucket, the lower
// rank); buckets the sample did not see go round the ranks. So a small key
// space or a few hot keys do not leave one rank much more than its share:
// with one hash bucket per rank, the 1,000 keys of an rmw history left the
// busiest of 16 ranks 37 % over the mean. Every rank builds the same table
// from the same (all-reduced) counts.
class KeyOwners {
 public:
  static constexpr uint32_t kBucketsPerRank = 64;
  explicit KeyOwners(int ranks)
      : ranks_(ranks), owner_(static_cast<size_t>(ranks) * kBucketsPerRank, 0) {}
  uint32_t bucket(Sym key) const { return static_cast<uint32_t>(mix(key) % owner_.size()); }
  size_t buckets() const { return owner_.size(); }
  int operator()(Sym key) const { return owner_[bucket(key)]; }
  // `ops`: the sample's operations per bucket, summed over the ranks.
  void assign(const std::vector<uint64_t>& ops) {
    std::vector<uint32_t> order;
    for (uint32_t b = 0; b < owner_.size(); ++b) {
      if (ops[b]) order.push_back(b);
      else owner_[b] = static_cast<int>(b % static_cast<uint32_t>(ranks_));
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return std::tie(ops[b], a) < std::tie(ops[a], b); });
    // (load, rank), least loaded first
    std::priority_queue<std::pair<uint64_t, int>, std::vector<std::pair<uint64_t, int>>, std::greater<>> load;
    for (int r = 0; r < ranks_; ++r) load.push({0, r});
    for (uint32_t b : order) {
      auto [l, r] = load.top();
      load.pop();
      owner_[b] = r;
      load.push({l + ops[b], r});
    }
  }

 private:
  int ranks_;
  std::vector<int> owner_;  // per bucket
};

// The range and the shard from the whole history (every rank holds it).
void own_from_whole(const History& h, Range& rg, Shard& s) {
  const int P = size(), me = rank();
  KeyOwners owner_of(P);
  {  // every rank counts the whole history: the same table everywhere
    std::vector<uint64_t> ops(owner_of.buckets(), 0);
    if (P > 1)
      for (OpIdx o = 0; o < h.op_count(); ++o) ++ops[owner_of.bucket(h.op_key[o])];
    owner_of.assign(ops);
  }
  const uint64_t n = h.txn_count();
  rg.n = n, rg.first = n * me / P;
  for (uint64_t t = rg.first; t < n * (me + 1) / P; ++t)
    rg.add(h.txn_id[t], h.session_name[h.txn_session[t]], h.txn_status[t], h.txn_begin[t], h.txn_end[t],
           h.op_end(static_cast<TxnIdx>(t)) - h.op_begin(static_cast<TxnIdx>(t)));
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    bool opened = false;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (owner_of(h.op_key[o]) != me) continue;
      if (!opened) s.open(t, h.txn_status[t], h.txn_begin[t], h.txn_end[t]), opened = true;
      s.pos.push_back(static_cast<uint32_t>(o - h.op_begin(t)));
      if (h.op_kind[o] == OpKind::read_list) s.h.add_list_read(h.op_key[o], h.list(o));
      else s.h.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
    }
    if (opened) s.h.end_txn();
  }
  s.h.time_unit = h.time_unit;
  s.h.release_unused_list_offsets();
}

// One transaction and one operation on their way to the rank owning the key.
struct TxnRec {
  int64_t begin, end;
  uint32_t txn;
  uint8_t status, pad[3];
};
static_assert(sizeof(TxnRec) == 24);
struct OpRec {
  uint64_t key, value;
  uint32_t txn, pos;
  uint32_t kind, scan;  // scan: the operation's History::predicate_mark
};
static_assert(sizeof(OpRec) == 32);

// Why the key shards refuse a history (the driver then checks it the usual
// way, with a note): list operations from per-rank reads; scans' open
// absences (History::absent_choice_ops), which the shards' graph cannot
// place (every read resolves to one version there).
// Point-to-point tags of the slices' exchange (exchange_per_source).
constexpr int kTagShardTxns = 31, kTagShardOps = 32, kTagOrderBounds = 33;
constexpr const char* kListsRefused = "list operations (key shards from per-rank reads exchange registers only)";
constexpr const char* kOpenAbsencesRefused =
    "range scans that saw absent, or inserts that required absent, a row another transaction deletes (the shards "
    "resolve every read to one version)";
// Scans' value predicates (History::value_predicates) are not in the
// shards' records: the usual path, which carries them, decides.
constexpr const char* kValuePredicatesRefused = "range scans with value predicates (the shards do not carry them)";

// The shard from what each source sent, in global transaction order
// (sources in rank order, each source's chunks in round order), sized once;
// each chunk is freed as soon as it is in.
void assemble_shard(std::vector<std::vector<std::vector<TxnRec>>>& txns_from,
                    std::vector<std::vector<std::vector<OpRec>>>& ops_from, uint64_t kept_ops, Shard& s) {
  const int P = size();
  StepTime assemble_time("shard.assemble");
  uint64_t shard_txns = 0;
  for (int r = 0; r < P; ++r)
    for (const auto& c : txns_from[r]) shard_txns += c.size();
  // The columns sized once and written in place (Shard::open and push_back
  // per operation were half of this step: calls GCC kept out of line).
  History& h = s.h;
  const uint64_t t0 = h.txn_count(), o0 = h.op_count();  // (empty: a shard is built once)
  h.txn_id.resize(t0 + shard_txns), h.txn_session.resize(t0 + shard_txns), h.txn_status.resize(t0 + shard_txns);
  h.txn_begin.resize(t0 + shard_txns), h.txn_end.resize(t0 + shard_txns), h.txn_op_offset.resize(t0 + shard_txns + 1);
  h.session_name.resize(h.session_name.size() + shard_txns), s.gtxn.resize(s.gtxn.size() + shard_txns);
  h.op_kind.resize(o0 + kept_ops), h.op_key.resize(o0 + kept_ops), h.op_value.resize(o0 + kept_ops);
  s.pos.resize(s.pos.size() + kept_ops);
  uint64_t t = t0, o = o0;
  for (int r = 0; r < P; ++r) {
    // A transaction's records travel in one round, its operations with it.
    for (size_t c = 0; c < txns_from[r].size(); ++c) {
      const std::vector<OpRec>& oin = ops_from[r][c];
      size_t i = 0;
      for (const TxnRec& tr : txns_from[r][c]) {
        // Each transaction its own session (Shard::open).
        h.txn_id[t] = tr.txn, h.txn_session[t] = static_cast<uint32_t>(t), h.txn_status[t] = static_cast<TxnStatus>(tr.status);
        h.txn_begin[t] = tr.begin, h.txn_end[t] = tr.end;
        h.session_name[t] = static_cast<int64_t>(t), s.gtxn[t] = tr.txn;
        for (; i < oin.size() && oin[i].txn == tr.txn; ++i, ++o) {  // registers only (lists refuse)
          if (oin[i].scan) h.mark_predicate(o, static_cast<uint8_t>(oin[i].scan));
          h.op_kind[o] = static_cast<OpKind>(oin[i].kind), h.op_key[o] = oin[i].key, h.op_value[o] = oin[i].value;
          s.pos[o] = oin[i].pos;
        }
        h.txn_op_offset[++t] = o;
      }
      std::vector<TxnRec>().swap(txns_from[r][c]);
      std::vector<OpRec>().swap(ops_from[r][c]);
    }
    // Hand the chunks' pages back source by source (the allocator keeps
    // freed pages for reuse), so the records freed make room for the columns.
    release_free_memory();
  }
  if (t != t0 + shard_txns || o != o0 + kept_ops)
    throw std::logic_error("key shards: the records received do not match their counts");
}

// The range and the shard from per-rank slices: each rank's range is read in
// kSlices slices (read(lo, hi): transactions [lo, hi) of the range, relative
// to it), all ranks reading at once, one round per slice: each slice's
// transactions go to the reader's range records, its operations, with their
// transactions' status and times, to the ranks owning their keys (one
// MPI_Alltoallv per round). A rank keeps what it receives per source rank;
// sources' ranges are consecutive in the file, so appending source 0's
// records, then source 1's, ... builds the shard in global transaction order.
// (The ranks used to read one after another, each scattering its slices
// while the others waited: reading was serial however many ranks there were.)
// Returns, on every rank alike, nullptr, or why the shards refuse the
// history: some slice holds list operations, or a scan's open absence, or
// named symbols (kNamedSymbolsRefused: found in a first slice, before any
// exchange; `named` says in which tables, RangeNames' bits). `names` (may
// be null): KeyShardOptions::names.
const char* own_from_slices(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read, Range& rg,
                            Shard& s, const History* held, RangeNames* names, int& named) {
  const int P = size(), me = rank();
  std::vector<uint64_t> counts(P);
  MPI_Allgather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  rg.first = 0, rg.n = 0;
  for (int r = 0; r < P; ++r) rg.first += r < me ? counts[r] : 0, rg.n += counts[r];
  if (rg.n > UINT32_MAX) throw ResourceError("key shards: more than 2^32 transactions; not supported");
  constexpr uint64_t kSlices = 32;  // per range: a slice is about 3 % of a rank's share
  const uint64_t held_ops = held ? held->op_count() : 0;
  const uint64_t step = std::max<uint64_t>(1, (count + kSlices - 1) / kSlices);
  int lists = 0, open_absences = 0, value_predicates = 0;
  // What each source sent, a chunk per round, each exactly its size.
  std::vector<std::vector<std::vector<TxnRec>>> txns_from(P);
  std::vector<std::vector<std::vector<OpRec>>> ops_from(P);
  uint64_t kept_ops = 0;
  std::vector<int> owner;  // per operation of the slice
  {  // this rank's range records, one per transaction it reads
    auto room = [&](auto&... v) { (v.reserve(count), ...); };
    room(rg.id, rg.session, rg.begin, rg.end, rg.status, rg.ops);
  }
  // A slice this rank cannot read (a malformed row or line, no memory) must
  // not take it out of the rounds' collectives: the other ranks would wait
  // in them forever, or take its next collective's message for this one's
  // (MPI_ERR_TRUNCATE). It keeps the error, reads and sends nothing more, and
  // after the last round every rank throws the lowest failing rank's error:
  // ranges are in file order and a rank reads its slices in order, so that
  // is the first error in the file, one process's.
  std::exception_ptr read_error;
  auto read_slice = [&](uint64_t lo, uint64_t hi) -> std::optional<History> {
    if (read_error) return std::nullopt;
    try {
      return read(lo, hi);
    } catch (...) {
      read_error = std::current_exception();
      return std::nullopt;
    }
  };
  // Names numbered across ranks: every rank takes part in every round's
  // renumbering, with its slice or without; a failure is kept as a read's.
  auto renumbered = [&](std::optional<History>& sl) {
    if (names) names->renumber_keeping_error(sl, read_error);
  };
  // The first slice is read before the others: it is the keys' sample.
  std::optional<History> first;
  if (count > 0) {
    StepTime read_time("shard.read");
    first = read_slice(0, std::min(count, step));
  }
  renumbered(first);
  int named_slices = first ? RangeNames::named_tables(*first) : 0;
  KeyOwners owner_of(P);
  {
    // (The last two counts say whether a first slice had named keys or
    // values: then the slices are refused before any is exchanged.)
    std::vector<uint64_t> ops(owner_of.buckets() + 2, 0);
    if (first && P > 1)
      for (OpIdx o = 0; o < first->op_count(); ++o) ++ops[owner_of.bucket(first->op_key[o])];
    ops[ops.size() - 2] = named_slices & 1, ops.back() = named_slices >> 1;
    MPI_Allreduce(MPI_IN_PLACE, ops.data(), static_cast<int>(ops.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    named = (ops[ops.size() - 2] ? 1 : 0) | (ops.back() ? 2 : 0);
    if (named) return kNamedSymbolsRefused;
    ops.resize(owner_of.buckets());
    owner_of.assign(ops);
  }
  // The slice's records in one send buffer per kind, grouped by destination
  // (counted first, then placed: no per-rank vectors to grow). The buffers
  // live across the slices: every slot is written before it is sent, and a
  // fresh buffer per slice had its pages faulted in again every time (a
  // quarter of the run's page faults on 2 ranks).
  std::vector<TxnRec> txns;
  std::vector<OpRec> ops;
  for (uint64_t k = 0; k < kSlices; ++k) {
    const uint64_t lo = std::min(count, k * step), hi = std::min(count, lo + step);
    std::vector<int> txn_count(P, 0), op_count(P, 0);
    uint64_t slice_ops = 0;
    StepTime read_time("shard.read");
    std::optional<History> read_sl;
    if (lo < hi) read_sl = k == 0 ? std::move(first) : read_slice(lo, hi);
    if (k == 0) first.reset();
    else renumbered(read_sl);
    read_time.stop();
    if (read_sl) {
      History& sl = *read_sl;
      StepTime route_time("shard.route");
      slice_ops = sl.op_count();
      open_absences |= !sl.absent_choice_ops.empty();
      value_predicates |= !sl.op_value_predicate.empty();
      named_slices |= RangeNames::named_tables(sl);
      owner.resize(slice_ops);
      std::vector<uint32_t> last(P, UINT32_MAX);
      for (TxnIdx t = 0; t < sl.txn_count(); ++t) {
        const uint32_t g = static_cast<uint32_t>(rg.first + lo + t);
        rg.add(sl.txn_id[t], sl.session_name[sl.txn_session[t]], sl.txn_status[t], sl.txn_begin[t], sl.txn_end[t],
               sl.op_end(t) - sl.op_begin(t));
        for (OpIdx o = sl.op_begin(t); o < sl.op_end(t); ++o) {
          lists |= sl.op_kind[o] == OpKind::append || sl.op_kind[o] == OpKind::read_list;
          const int r = owner[o] = owner_of(sl.op_key[o]);
          ++op_count[r];
          if (last[r] != g) ++txn_count[r], last[r] = g;
        }
      }
      std::vector<uint64_t> txn_at(P, 0), op_at(P, 0);
      for (int r = 1; r < P; ++r) txn_at[r] = txn_at[r - 1] + txn_count[r - 1], op_at[r] = op_at[r - 1] + op_count[r - 1];
      // (Kept elements are overwritten, so resizing sets only a new tail.)
      txns.resize(txn_at[P - 1] + txn_count[P - 1]);
      ops.resize(slice_ops);
      std::fill(last.begin(), last.end(), UINT32_MAX);
      // Marks only where the slice has scans, deletes or inserts' open reads.
      const bool marked = !sl.scan_ops.empty() || !sl.delete_ops.empty() || !sl.absent_choice_ops.empty();
      for (TxnIdx t = 0; t < sl.txn_count(); ++t) {
        const uint32_t g = static_cast<uint32_t>(rg.first + lo + t);
        for (OpIdx o = sl.op_begin(t); o < sl.op_end(t); ++o) {
          const int r = owner[o];
          if (last[r] != g)
            txns[txn_at[r]++] = {sl.txn_begin[t], sl.txn_end[t], g, static_cast<uint8_t>(sl.txn_status[t]), {}}, last[r] = g;
          ops[op_at[r]++] = {sl.op_key[o], sl.op_value[o], g, static_cast<uint32_t>(o - sl.op_begin(t)),
                             static_cast<uint32_t>(sl.op_kind[o]), marked ? sl.predicate_mark(o) : uint32_t{0}};
        }
      }
      if (s.h.time_unit.empty()) s.h.time_unit = sl.time_unit;
      note_ops_held(held_ops + kept_ops + 2 * slice_ops);  // the slice and its records
    }
    StepTime exchange_time("shard.exchange");
    std::vector<std::vector<TxnRec>> tin = exchange_per_source(txns, txn_count, kTagShardTxns);
    std::vector<std::vector<OpRec>> oin = exchange_per_source(ops, op_count, kTagShardOps);
    exchange_time.stop();
    uint64_t got = 0;
    for (int r = 0; r < P; ++r) {
      got += oin[r].size();
      if (!tin[r].empty()) txns_from[r].push_back(std::move(tin[r]));
      if (!oin[r].empty()) ops_from[r].push_back(std::move(oin[r]));
    }
    kept_ops += got;
    note_ops_held(held_ops + kept_ops + slice_ops);
  }
  std::vector<TxnRec>().swap(txns);
  std::vector<OpRec>().swap(ops);
  collective([&] {
    if (read_error) std::rethrow_exception(read_error);
  });
  assemble_shard(txns_from, ops_from, kept_ops, s);
  // The time unit of rank 0's file (every range reads the same attribute).
  {
    uint64_t len = s.h.time_unit.size();
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    s.h.time_unit.resize(len);
    MPI_Bcast(s.h.time_unit.data(), static_cast<int>(len), MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  MPI_Allreduce(MPI_IN_PLACE, &lists, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &open_absences, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &value_predicates, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &named_slices, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  named = named_slices;
  if (named_slices) return kNamedSymbolsRefused;
  s.h.release_unused_list_offsets();
  // The columns grew by doubling: give the slack back, one column at a time.
  auto fit = [](auto&... v) { (v.shrink_to_fit(), ...); };
  fit(s.h.txn_id, s.h.txn_session, s.h.txn_status, s.h.txn_begin, s.h.txn_end, s.h.txn_op_offset, s.h.op_kind,
      s.h.op_key, s.h.op_value, s.h.session_name, s.gtxn, s.pos);
  fit(rg.id, rg.session, rg.begin, rg.end, rg.status, rg.ops);
  if (lists) return kListsRefused;
  if (value_predicates) return kValuePredicatesRefused;
  return open_absences ? kOpenAbsencesRefused : nullptr;
}

// Included transactions (committed, or unknown and read by an included one,
// transitively across keys). Without unknown statuses (the usual case) the
// range owner sets them from its records and no rank holds more. Otherwise a
// bitmap of every transaction (1 byte each) is propagated: each shard over
// the reads of its keys, then an OR over all ranks, until no rank adds one;
// every rank then keeps its range's part. The shard's statuses become plain
// committed/aborted, so its build sees exactly the whole history's set.
void include(Range& rg, Shard& s, int& rounds) {
  rounds = 0;
  int unknown = std::find(rg.status.begin(), rg.status.end(), TxnStatus::unknown) != rg.status.end();
  MPI_Allreduce(MPI_IN_PLACE, &unknown, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  rg.included.resize(rg.size());
  for (size_t i = 0; i < rg.size(); ++i) rg.included[i] = rg.status[i] == TxnStatus::committed;
  if (!unknown) return;
  const History& h = s.h;
  std::vector<uint8_t> inc = allgather_records(rg.included, "transactions");  // every range's committed flags
  // (key, value) -> the writer build_known_graph's index finds: the first
  // inserted, transactions ascending, operations backwards (global ids).
  struct PairHash {
    size_t operator()(const std::pair<Sym, Sym>& p) const { return mix(p.first * 0x9e3779b97f4a7c15ULL ^ mix(p.second)); }
  };
  std::unordered_map<std::pair<Sym, Sym>, TxnIdx, PairHash> writer;  // -> local transaction
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_end(t); o-- > h.op_begin(t);)
      if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append)
        writer.emplace(std::make_pair(h.op_key[o], h.op_value[o]), t);
  std::vector<TxnIdx> stack;  // local transactions to propagate from
  for (TxnIdx t = 0; t < h.txn_count(); ++t) if (inc[s.gtxn[t]]) stack.push_back(t);
  auto visit = [&](Sym k, Sym v) {
    auto it = writer.find({k, v});
    if (it == writer.end()) return;
    const TxnIdx w = it->second;
    if (!inc[s.gtxn[w]] && h.txn_status[w] == TxnStatus::unknown) inc[s.gtxn[w]] = 1, stack.push_back(w);
  };
  std::vector<uint8_t> before;
  while (true) {
    ++rounds;
    while (!stack.empty()) {
      const TxnIdx t = stack.back();
      stack.pop_back();
      h.for_each_read_value(t, visit);
    }
    before = inc;
    for (uint64_t at = 0; at < rg.n; at += uint64_t{1} << 30)
      MPI_Allreduce(MPI_IN_PLACE, inc.data() + at, static_cast<int>(std::min<uint64_t>(rg.n - at, uint64_t{1} << 30)),
                    MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD);
    int added = 0;
    for (TxnIdx t = 0; t < h.txn_count(); ++t)
      if (inc[s.gtxn[t]] && !before[s.gtxn[t]]) stack.push_back(t), added = 1;
    for (uint64_t g = 0; g < rg.n && !added; ++g) added = inc[g] && !before[g];
    MPI_Allreduce(MPI_IN_PLACE, &added, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!added) break;
  }
  for (size_t i = 0; i < rg.size(); ++i) rg.included[i] = inc[rg.first + i];
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (s.h.txn_status[t] == TxnStatus::unknown) s.h.txn_status[t] = inc[s.gtxn[t]] ? TxnStatus::committed : TxnStatus::aborted;
}

// Session order, by the range owners: consecutive included transactions of a
// session inside a range are linked there; across ranges, each range sends
// the last included transaction of each of its sessions to the rank owning
// the session (by hash), which answers every range with the last one in the
// nearest lower range holding that session. `so` receives (earlier, later)
// pairs, by later transaction; `bad_begin`/`bad_end`: some session's later
// transaction has an earlier begin (end) time, so that time order breaks
// session order (the serial-witness replay's session check);
// `bad_commits_first`/`bad_begins_first`: some session's transaction begins
// before (at or before) the previous one ends (the SI time replays' check).
struct SessionTail {
  int64_t session, begin, end;
  uint32_t txn;
  int32_t rank;
};
static_assert(sizeof(SessionTail) == 32);

void session_links(const Range& rg, std::vector<std::pair<uint32_t, uint32_t>>& so, bool& bad_begin, bool& bad_end,
                   bool& bad_commits_first, bool& bad_begins_first,
                   std::vector<std::pair<int64_t, int64_t>>* pred_times = nullptr) {
  const int P = size(), me = rank();
  std::unordered_map<int64_t, uint32_t> last;  // session -> its last included transaction so far (local)
  std::vector<uint32_t> firsts;                // each session's first included transaction (local)
  bad_begin = bad_end = bad_commits_first = bad_begins_first = false;
  auto link = [&](uint32_t g_pred, int64_t b_pred, int64_t e_pred, uint32_t i) {
    so.push_back({g_pred, static_cast<uint32_t>(rg.first + i)});
    if (pred_times) pred_times->push_back({b_pred, e_pred});
    bad_begin |= b_pred > rg.begin[i];
    bad_end |= e_pred > rg.end[i];
    bad_commits_first |= e_pred > rg.begin[i];
    bad_begins_first |= e_pred >= rg.begin[i];
  };
  std::vector<std::pair<uint32_t, uint32_t>> inner;  // (pred, i), local
  for (uint32_t i = 0; i < rg.size(); ++i) {
    if (!rg.included[i]) continue;
    auto [it, fresh] = last.try_emplace(rg.session[i], i);
    if (fresh) firsts.push_back(i);
    else inner.push_back({it->second, i}), it->second = i;
  }
  std::vector<std::vector<SessionTail>> out(P);
  for (auto& [sess, i] : last)
    out[mix(static_cast<uint64_t>(sess)) % P].push_back({sess, rg.begin[i], rg.end[i], static_cast<uint32_t>(rg.first + i), me});
  std::vector<SessionTail> tails = exchange(out);
  std::sort(tails.begin(), tails.end(),
            [](const SessionTail& x, const SessionTail& y) { return std::tie(x.session, x.rank) < std::tie(y.session, y.rank); });
  std::vector<std::vector<SessionTail>> back(P);
  for (size_t k = 1; k < tails.size(); ++k)
    if (tails[k].session == tails[k - 1].session) {
      SessionTail pred = tails[k - 1];
      back[tails[k].rank].push_back(pred);
    }
  std::vector<SessionTail>().swap(tails);
  std::unordered_map<int64_t, SessionTail> pred_of;
  for (const SessionTail& p : exchange(back)) pred_of.emplace(p.session, p);
  // In order of the later transaction: the first of each session (linked to
  // another range) and those linked inside the range, merged by index.
  std::vector<std::pair<uint32_t, int64_t>> cross;  // (first local index, session)
  for (uint32_t i : firsts) cross.push_back({i, rg.session[i]});
  size_t a = 0, b = 0;
  while (a < cross.size() || b < inner.size()) {
    if (b == inner.size() || (a < cross.size() && cross[a].first < inner[b].second)) {
      auto it = pred_of.find(cross[a].second);
      if (it != pred_of.end()) link(it->second.txn, it->second.begin, it->second.end, cross[a].first);
      ++a;
    } else {
      const uint32_t p = inner[b].first;
      link(static_cast<uint32_t>(rg.first + p), rg.begin[p], rg.end[p], inner[b].second);
      ++b;
    }
  }
}

}  // namespace


namespace {

// Every rank replays its own keys in the same candidate order: the begin- or
// end-time order (ties by file position) restricted to a shard is its own
// transactions sorted by their times and global order, which the shard
// holds, so no rank needs all the times. A candidate holds when it replays
// on every shard (reads see only writes to their key) and keeps every
// session's order (the range owners' check, session_links); write
// uniqueness too is per shard (a repeated (key, value) is inside one).
// Included unknown transactions are committed in the projection: the witness
// serializes exactly the transactions check() includes.
WitnessOrder sharded_witness(const Shard& s, const Range& rg, bool need_realtime, bool bad_begin, bool bad_end) {
  const WitnessPlan plan = plan_serial_witness(s.h, false);
  int flags[2] = {!plan.why_not.empty(), 0};  // no witness possible; an included transaction without times
  for (size_t i = 0; i < rg.size(); ++i) flags[1] |= rg.included[i] && !rg.timed(i);
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (flags[0] || (need_realtime && flags[1])) return WitnessOrder::none;
  const std::vector<WitnessOrder> candidates =
      flags[1] ? std::vector<WitnessOrder>{WitnessOrder::file} : std::vector<WitnessOrder>{WitnessOrder::begin_time, WitnessOrder::end_time};
  for (WitnessOrder c : candidates) {
    int failed = (c == WitnessOrder::begin_time && bad_begin) || (c == WitnessOrder::end_time && bad_end);
    if (!failed) failed = !replay_candidate(s.h, plan, c).empty();
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed) continue;
    int repeated = !writes_unique(s.h, plan);
    MPI_Allreduce(MPI_IN_PLACE, &repeated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return repeated ? WitnessOrder::none : c;
  }
  return WitnessOrder::none;
}

// A shard's unknown-order keys (register keys; UnorderedKey) as one flat
// stream of uint32 for MPI_Gatherv: per key
//   key (2 words), si_only, chain count, then per chain
//   from_init, transactions, readers, (global txn, whole-history position) per
//   transaction, then per reader of the tail.
// A shard lists its SI-only keys (by symbol) before its general keys (by
// symbol), as build_known_graph does on any projection.
template <class Tx, class Pos> std::vector<uint32_t> encode_unordered(const DependencyGraph& g, Tx gtx, Pos gpos) {
  std::vector<uint32_t> w;
  for (const UnorderedKey& uk : g.unordered) {
    w.push_back(static_cast<uint32_t>(uk.key)), w.push_back(static_cast<uint32_t>(uk.key >> 32));
    w.push_back(uk.si_only), w.push_back(uk.end_chain - uk.first_chain);
    for (uint32_t c = uk.first_chain; c < uk.end_chain; ++c) {
      VersionChain vc = g.chains.chain(c);
      w.push_back(vc.from_init), w.push_back(static_cast<uint32_t>(vc.txns.size()));
      w.push_back(static_cast<uint32_t>(vc.readers_of_tail.size()));
      for (size_t i = 0; i < vc.txns.size(); ++i) w.push_back(gtx(vc.txns[i])), w.push_back(gpos(vc.txns[i], vc.write_pos[i]));
      for (size_t i = 0; i < vc.readers_of_tail.size(); ++i)
        w.push_back(gtx(vc.readers_of_tail[i])), w.push_back(gpos(vc.readers_of_tail[i], vc.reader_pos[i]));
    }
  }
  return w;
}

// Rank 0: every shard's stream (rank r's part is [starts[r], starts[r+1]))
// into g.unordered and g.chains, in the whole build's order: SI-only keys by
// symbol, then general keys by symbol (keys are disjoint across shards).
void decode_unordered(const std::vector<uint32_t>& w, const std::vector<uint64_t>& starts, DependencyGraph& g) {
  struct At {
    uint32_t general;
    Sym key;
    uint64_t pos;  // of the key's record in w
    bool operator<(const At& o) const { return std::tie(general, key) < std::tie(o.general, o.key); }
  };
  std::vector<At> keys;
  for (size_t r = 0; r + 1 < starts.size(); ++r)
    for (uint64_t p = starts[r]; p < starts[r + 1];) {
      keys.push_back({w[p + 2] ? 0u : 1u, w[p] | (Sym{w[p + 1]} << 32), p});
      uint32_t chains = w[p + 3];
      p += 4;
      for (uint32_t c = 0; c < chains; ++c) p += 3 + 2 * (uint64_t{w[p + 1]} + w[p + 2]);
    }
  std::sort(keys.begin(), keys.end());
  for (const At& k : keys) {
    uint64_t p = k.pos;
    UnorderedKey uk;
    uk.key = k.key, uk.si_only = w[p + 2] != 0, uk.first_chain = g.chains.size();
    const uint32_t chains = w[p + 3];
    p += 4;
    for (uint32_t c = 0; c < chains; ++c) {
      const uint32_t txns = w[p + 1], readers = w[p + 2];
      g.chains.open(w[p] != 0);
      p += 3;
      for (uint32_t i = 0; i < txns; ++i, p += 2) g.chains.add_txn(w[p], w[p + 1]);
      for (uint32_t i = 0; i < readers; ++i, p += 2) g.chains.add_reader(w[p], w[p + 1]);
      g.chains.close();
    }
    uk.end_chain = g.chains.size();
    g.unordered.push_back(uk);
  }
}


// ---- witnesses from the core (a level failed; docs/dist.md, "Key shards")

// A real-time pair of the core, for rank 0.
struct PairRec {
  uint32_t src, dst;
};

// The pair a dependency edge gives in a level graph.
std::pair<uint32_t, uint32_t> level_pair(Level level, const EdgeRec& e, uint32_t n) {
  if (level != Level::si) return {e.src, e.dst};
  if (static_cast<EdgeKind>(e.kind) == EdgeKind::rw) return {n + e.src, e.dst};
  return {e.src, n + e.dst};
}

// Collective, after `level`'s peel found a cycle and left `core_mine` (this
// rank's core vertices): the core's edges go to rank 0, which builds the
// core's level graph with every row in the order the one-process graph has
// it (dependency edges in build order; SSER: then the real-time pairs, a
// time node's chain link before its transactions; SI: a copy's rw edges,
// then T* -> T), runs find_cycle on it (the cycle it finds on the whole
// graph: acyclic.h) and labels it. Rank 0 returns the cycle (global ids),
// unnamed. Over the budget: a ResourceError on every rank.
using EachEdge = std::function<void(const std::function<void(const EdgeRec&)>&)>;

EdgeList core_witness(Level level, const std::vector<uint32_t>& core_mine, const EachEdge& each_edge,
                      const Range& rg, const CheckOptions& opt, uint64_t budget, uint64_t& core_size) {
  const int me = rank();
  const uint32_t n = static_cast<uint32_t>(rg.n);
  std::vector<uint32_t> core = allgather_records(core_mine, "core vertices");
  std::sort(core.begin(), core.end());
  core_size = core.size();
  auto in_core = [&](uint32_t v) { return std::binary_search(core.begin(), core.end(), v); };
  std::vector<EdgeRec> mine;
  each_edge([&](const EdgeRec& e) {
    auto [a, b] = level_pair(level, e, n);
    if (in_core(a) && in_core(b)) mine.push_back(e);
  });
  std::sort(mine.begin(), mine.end(), [](const EdgeRec& x, const EdgeRec& y) { return x.order() < y.order(); });
  std::vector<PairRec> rt;
  if (level == Level::sser) {
    std::vector<uint32_t> src, dst;
    realtime_pairs({rg.first, &rg.begin, &rg.end, &rg.included}, n, opt.clock_skew, src, dst);
    for (size_t i = 0; i < src.size(); ++i)
      if (in_core(src[i]) && in_core(dst[i])) rt.push_back({src[i], dst[i]});
  }
  uint64_t counts[2] = {mine.size(), rt.size()};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  // Rank 0 holds the gathered records, the core's pairs and CSR, find_cycle's
  // arrays (about 40 bytes a vertex) and the labelling's edge list.
  const uint64_t need = counts[0] * (sizeof(EdgeRec) + 8 + 13 + 12) + counts[1] * (sizeof(PairRec) + 8 + 12) +
                        core.size() * (4 + 40);
  if (budget && need > budget)
    throw ResourceError("key shards: rank 0 gathers the core of the " + std::string(to_string(level)) +
                        " graph (" + std::to_string(core.size()) + " vertices, " + std::to_string(counts[0] + counts[1]) +
                        " edges) to choose its witness: about " + std::to_string(need >> 20) +
                        " MiB, over --history-budget " + std::to_string(budget >> 20) +
                        " MiB; raise --history-budget (or use a node with more memory for rank 0)");
  std::vector<uint64_t> starts;
  std::vector<EdgeRec> all = gather_records(mine, 0, &starts);
  std::vector<PairRec> all_rt = gather_records(rt);
  std::vector<EdgeRec>().swap(mine);
  if (me != 0) return {};
  auto less = [](const EdgeRec& x, const EdgeRec& y) { return x.order() < y.order(); };
  for (size_t width = 1; width + 1 < starts.size(); width *= 2)
    for (size_t i = 0; i + width + 1 < starts.size(); i += 2 * width) {
      size_t mid = i + width, end = std::min(i + 2 * width, starts.size() - 1);
      std::inplace_merge(all.begin() + starts[i], all.begin() + starts[mid], all.begin() + starts[end], less);
    }
  auto id = [&](uint32_t v) { return static_cast<uint32_t>(std::lower_bound(core.begin(), core.end(), v) - core.begin()); };
  const uint32_t aux_from = id(n);  // core vertices below n are transactions
  std::vector<uint32_t> src, dst;
  for (const EdgeRec& e : all) {
    auto [a, b] = level_pair(level, e, n);
    src.push_back(id(a)), dst.push_back(id(b));
  }
  if (level == Level::sser) {
    std::sort(all_rt.begin(), all_rt.end(), [n](const PairRec& x, const PairRec& y) {
      return std::make_tuple(x.src, x.dst < n, x.dst) < std::make_tuple(y.src, y.dst < n, y.dst);
    });
    for (const PairRec& p : all_rt) src.push_back(id(p.src)), dst.push_back(id(p.dst));
  } else if (level == Level::si) {
    for (uint32_t v : core)
      if (v < n && in_core(n + v)) src.push_back(id(n + v)), dst.push_back(id(v));
  }
  const Csr csr = csr_from_pairs(static_cast<uint32_t>(core.size()), src, dst);
  std::vector<uint32_t> cyc = find_cycle(csr, aux_from);
  for (uint32_t& v : cyc) v = core[v];
  DependencyGraph g;
  g.n = n;
  g.edges.reserve(all.size());
  for (const EdgeRec& e : all) g.edges.add(e.src, e.dst, static_cast<EdgeKind>(e.kind), e.why);
  LevelGraph lg;
  lg.layout = level == Level::si ? GraphLayout::split : level == Level::sser ? GraphLayout::realtime : GraphLayout::plain;
  lg.txn_count = n;
  return label_cycle(cyc, lg, g);
}

// The transactions `want` (global, ascending; rank 0's list) as a small
// history on rank 0, in that order: records from their range owners, the
// operations from the shards holding them. Collective.
struct TxnInfo {
  int64_t id, session, begin, end;
  uint32_t txn, ops;
  uint8_t status, pad[7];
};
static_assert(sizeof(TxnInfo) == 48);

History fetch_txns(std::vector<uint32_t> want, const Range& rg, const Shard& s) {
  bcast_records(want);
  std::vector<TxnInfo> infos;
  for (uint32_t t : want)
    if (t >= rg.first && t < rg.first + rg.size()) {
      const size_t i = t - rg.first;
      infos.push_back({rg.id[i], rg.session[i], rg.begin[i], rg.end[i], t, rg.ops[i], static_cast<uint8_t>(rg.status[i]), {}});
    }
  std::vector<OpRec> ops;
  for (TxnIdx l = 0; l < s.h.txn_count(); ++l) {
    if (!std::binary_search(want.begin(), want.end(), s.gtxn[l])) continue;
    for (OpIdx o = s.h.op_begin(l); o < s.h.op_end(l); ++o)
      ops.push_back({s.h.op_key[o], s.h.op_value[o], s.gtxn[l], s.pos[o], static_cast<uint32_t>(s.h.op_kind[o]),
                     s.h.predicate_mark(o)});
  }
  std::vector<TxnInfo> all_infos = gather_records(infos);
  std::vector<OpRec> all_ops = gather_records(ops);
  History h;
  if (rank() != 0) return h;
  std::sort(all_infos.begin(), all_infos.end(), [](const TxnInfo& x, const TxnInfo& y) { return x.txn < y.txn; });
  std::sort(all_ops.begin(), all_ops.end(),
            [](const OpRec& x, const OpRec& y) { return std::tie(x.txn, x.pos) < std::tie(y.txn, y.pos); });
  std::unordered_map<int64_t, uint32_t> dense;
  size_t k = 0;
  for (const TxnInfo& ti : all_infos) {
    auto [it, fresh] = dense.try_emplace(ti.session, static_cast<uint32_t>(h.session_name.size()));
    if (fresh) h.session_name.push_back(ti.session);
    h.begin_txn(ti.id, it->second, static_cast<TxnStatus>(ti.status), ti.begin, ti.end);
    for (; k < all_ops.size() && all_ops[k].txn == ti.txn; ++k) {
      h.mark_predicate(h.op_count(), static_cast<uint8_t>(all_ops[k].scan));
      h.add_op(static_cast<OpKind>(all_ops[k].kind), all_ops[k].key, all_ops[k].value);
    }
    h.end_txn();
  }
  h.release_unused_list_offsets();
  return h;
}

// Rank 0's result names transactions (witness cycles, anomalies): name the
// cycles on the history and, when rank 0 does not hold the whole history
// (`whole` nullptr), fetch the named transactions (fetch_txns) and give the
// report that small history with the result renumbered to it. Collective.
void finish_report(KeyShardOutcome& out, const History* whole, const Range& rg, const Shard& s, const KeyShardOptions& ko) {
  CheckResult& r = out.r;
  int fetch = rank() == 0 && whole == nullptr;
  MPI_Bcast(&fetch, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<uint32_t> want;
  if (rank() == 0) {
    for (const LevelResult& lr : r.levels)
      if (lr.witness) {
        for (size_t i = 0; i < lr.witness->cycle.size(); ++i) want.push_back(lr.witness->cycle.src[i]), want.push_back(lr.witness->cycle.dst[i]);
        for (const ForcedOrder& f : lr.witness->forced)
          for (size_t i = 0; i < f.other_cycle.size(); ++i) want.push_back(f.other_cycle.src[i]), want.push_back(f.other_cycle.dst[i]);
      }
    for (const Anomaly& a : r.anomalies) want.push_back(a.txn), want.push_back(a.other);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
  }
  if (!fetch) {
    if (rank() == 0)
      for (LevelResult& lr : r.levels)
        // (A G0 renamed by its forced orders keeps that name: solver/forced_orders.h.)
        if (lr.witness && lr.witness->cycle_anomaly.empty()) lr.witness->anomaly = name_cycle(lr.witness->cycle, *whole);
    return;
  }
  History mini = fetch_txns(want, rg, s);
  if (rank() != 0) return;
  mini.time_unit = s.h.time_unit;
  note_ops_held(s.h.op_count() + mini.op_count());  // (its shard is still held)
  if (ko.symbol_tables) ko.symbol_tables(mini);
  auto local = [&](uint32_t t) { return static_cast<uint32_t>(std::lower_bound(want.begin(), want.end(), t) - want.begin()); };
  CheckResult lr_local = r;
  for (size_t l = 0; l < r.levels.size(); ++l) {
    if (!r.levels[l].witness) continue;
    EdgeList& c = lr_local.levels[l].witness->cycle;
    for (auto& v : c.src) v = local(v);
    for (auto& v : c.dst) v = local(v);
    for (ForcedOrder& f : lr_local.levels[l].witness->forced) {
      for (auto& v : f.other_cycle.src) v = local(v);
      for (auto& v : f.other_cycle.dst) v = local(v);
    }
    if (!r.levels[l].witness->cycle_anomaly.empty()) continue;
    const std::string name = name_cycle(c, mini);
    lr_local.levels[l].witness->anomaly = name;
    r.levels[l].witness->anomaly = name;
  }
  for (Anomaly& a : lr_local.anomalies) a.txn = local(a.txn), a.other = local(a.other);
  out.report_h = std::move(mini);
  out.report_r = std::move(lr_local);
  out.has_report = true;
}

// The key-shard check proper. `rg`: this rank's transaction records;
// `shard`: its keys' operations, original statuses; `whole` (rank 0 only,
// may be nullptr: KeyShardOptions::whole_on_demand): the whole history, for
// the general engine and the gathered graph; `history_bytes`: its size.
// One method a stage; the stages share the shard's graph, the flags and the
// counts through members. run() calls them in the one order every rank
// follows: a stage's collectives are made by every rank, and the early
// returns between stages follow allreduced flags, the same on every rank.
class ShardDecision {
 public:
  ShardDecision(Range& rg, Shard shard, const History* whole, uint64_t history_bytes, const CheckOptions& opt,
                const KeyShardOptions& ko)
      : rg(rg), shard(std::move(shard)), whole(whole), history_bytes(history_bytes), opt(opt), ko(ko) {}
  ShardDecision(const ShardDecision&) = delete;
  ShardDecision& operator=(const ShardDecision&) = delete;

  KeyShardOutcome run() {
    count_ops();
    if (include_or_serial_witness()) return std::move(out);
    build_shard_graph();
    if (stopping()) return std::move(out);
    if (settle_on_flags()) return std::move(out);
    count_edges();
    if (!flags[kGeneral]) {
      decide_by_peeling();
      return std::move(out);
    }
    if (settle_by_general_engine()) return std::move(out);
    gather_and_decide_on_rank0();
    return std::move(out);
  }

 private:
  enum Flag { kInputError = 0, kAnomaly, kGeneral, kListUnordered, kFlags };

  Range& rg;
  Shard shard;
  const Shard& s = shard;
  const History& p = s.h;
  const History* whole;
  const uint64_t history_bytes;
  const CheckOptions& opt;
  const KeyShardOptions& ko;
  const int me = rank();
  KeyShardOutcome out;
  CheckResult& r = out.r;
  uint64_t committed = 0;
  std::vector<std::pair<uint32_t, uint32_t>> so;
  bool bad_begin = false, bad_end = false, bad_commits_first = false, bad_begins_first = false;
  bool included_unknown = false;  // an included transaction of unknown status: no replay holds (replay_lines.h)
  uint8_t si_line = 0;            // an SI replay holds on the whole history: 1 + CheckStats::si_replay_order
  std::vector<std::pair<int64_t, int64_t>> so_pred_times;  // per `so` pair, the earlier one's begin and end
  int flags[kFlags] = {0, 0, 0, 0};
  std::vector<uint32_t> unordered_stream;  // this shard's unordered keys and chains (see encode_unordered)
  uint64_t unordered_pairs = 0;
  std::vector<AnomalyRec> anomalies;
  // The shard's graph stays (13 bytes an edge) and its edges' records
  // (EdgeRec, 48 bytes) are made only for the edges a witness needs.
  // (The shard stays too: the report fetches the named transactions from it.)
  DependencyGraph g;
  std::unordered_set<Sym> list_keys;
  uint64_t local = 0, total = 0;  // this shard's edges, all shards' edges

  bool wants(Level l) const { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); }
  void stage(const char* name) {
    if (ko.end_stage) ko.end_stage(name);
  }
  bool stopping() { return ko.stop && ko.stop() && (out.interrupted = true); }

  uint32_t gtx(TxnIdx t) const { return s.gtxn[t]; }
  uint32_t gpos(TxnIdx t, uint32_t local_pos) const { return s.pos[p.op_begin(t) + local_pos]; }
  Sym key_at(TxnIdx t, uint32_t local_pos) const { return p.op_key[p.op_begin(t) + local_pos]; }
  uint64_t first_pos(TxnIdx t, Sym k) const {
    for (OpIdx o = p.op_begin(t); o < p.op_end(t); ++o)
      if (p.op_key[o] == k) return s.pos[o];
    return 0;
  }
  // Graph edge i (not a session edge: none here) and session edge j as records.
  EdgeRec edge_rec(size_t i) const {
    EdgeRec r{};
    const uint32_t src = g.edges.src[i], dst = g.edges.dst[i], why = g.edges.why[i];
    const EdgeKind k = g.edges.kind[i];
    r.src = gtx(src), r.dst = gtx(dst), r.kind = static_cast<uint32_t>(k), r.seq = i;
    if (k == EdgeKind::rw) {
      Sym key = key_at(src, why);
      r.why = gpos(src, why);
      if (list_keys.count(key)) r.phase = 4, r.a = key, r.b = 0;
      else r.phase = 3, r.a = r.src, r.b = r.why;
    } else {  // wr, ww: the position is in dst
      Sym key = key_at(dst, why);
      r.why = gpos(dst, why);
      if (i >= g.edges_pass1_end && i < g.edges_blind_end) r.phase = 2, r.a = key, r.b = 0;  // to blind tails
      else if (list_keys.count(key)) r.phase = 4, r.a = key, r.b = 0;
      else if (k == EdgeKind::wr) r.phase = 1, r.a = r.dst, r.b = r.why;
      else r.phase = 1, r.a = r.dst, r.b = (uint64_t{1} << 32) + first_pos(dst, key);
    }
    return r;
  }
  EdgeRec so_rec(size_t j) const {
    EdgeRec r{};
    r.src = so[j].first, r.dst = so[j].second, r.kind = static_cast<uint32_t>(EdgeKind::so), r.phase = 5, r.a = r.dst;
    return r;
  }
  const EachEdge each_edge = [this](const std::function<void(const EdgeRec&)>& f) {
    for (size_t i = 0; i < g.edges.size(); ++i)
      if (g.edges.kind[i] != EdgeKind::so) f(edge_rec(i));
    for (size_t j = 0; j < so.size(); ++j) f(so_rec(j));
  };

  // Every rank counts the operations of all ranges.
  void count_ops() {
    out.txns = rg.n;
    {
      uint64_t ops = 0;
      for (uint32_t o : rg.ops) ops += o;
      MPI_Allreduce(&ops, &out.ops, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
  }

  // ---- shard: included set, session order; then, with the serial witness
  // on, one candidate order for all ranks (true: it was found, all is decided).
  bool include_or_serial_witness() {
    int rounds = 0;
    StepTime include_time("shard.include");
    include(rg, shard, rounds);
    committed = static_cast<uint64_t>(std::count(rg.included.begin(), rg.included.end(), 1));
    MPI_Allreduce(MPI_IN_PLACE, &committed, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    include_time.stop();
    StepTime session_time("shard.session_order");
    session_links(rg, so, bad_begin, bad_end, bad_commits_first, bad_begins_first, &so_pred_times);
    session_time.stop();
    {
      // One process replays committed transactions only: a committed read
      // of an included unknown transaction's write fails every replay there.
      int any = 0;
      for (size_t i = 0; i < rg.size(); ++i) any |= rg.included[i] && rg.status[i] == TxnStatus::unknown;
      MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      included_unknown = any;
    }
    if (opt.serial_witness && !included_unknown) {
      // The serial witness, shard by shard: one candidate order for all ranks.
      StepTime witness_time("shard.serial_witness");
      const WitnessOrder found = sharded_witness(shard, rg, wants(Level::sser), bad_begin, bad_end);
      witness_time.stop();
      if (found != WitnessOrder::none) {
        CheckResult& r = out.r;
        r.stats.txns = rg.n;
        r.stats.committed = committed;
        r.stats.witness = found;
        for (Level l : opt.levels) r.levels.push_back({l});
        stage("shard");
        stage("gather");
        stage("acyclic");
        return true;
      }
    }
    StepTime replay_time("shard.si_replay");
    si_line = sharded_si_replay();
    if (si_line) r.stats.si_replay = true, r.stats.si_replay_order = static_cast<uint8_t>(si_line - 1);
    return false;
  }

  // The SI replays, shard by shard (replay_lines.h): a time replay holds on
  // the whole history iff on every shard and in every session's order; an
  // order replay's snapshot bounds come from every shard holding a key of the
  // transaction and from its session predecessor, and meet at the range
  // owner. 0: none; else 1 + CheckStats::si_replay_order.
  uint8_t sharded_si_replay() {
    if (!wants(Level::si) || !opt.si_replay || included_unknown || (opt.time_order && opt.clock_skew < 0)) return false;
    int no = 0;  // an included transaction without times, or ending before it begins
    for (size_t i = 0; i < rg.size(); ++i) no |= rg.included[i] && (!rg.timed(i) || rg.end[i] < rg.begin[i]);
    MPI_Allreduce(MPI_IN_PLACE, &no, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (no) return false;
    StepTime time_replays("si_replay.time_replays");
    int bits = si_time_replays(shard.h, opt);
    time_replays.stop();
    if (bad_commits_first) bits &= ~kSiCommitsFirst;
    if (bad_begins_first) bits &= ~kSiBeginsFirst;
    MPI_Allreduce(MPI_IN_PLACE, &bits, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
    if (bits & (kSiCommitsFirst | kSiBeginsFirst)) return 1;
    // The order replays: not with lists or null writes, nor (once clean) a
    // repeated write, as check() has it.
    {
      StepTime plan_time("si_replay.plan");
      const WitnessPlan plan = plan_serial_witness(shard.h, false);
      int blocked = !plan.why_not.empty() || !writes_unique(shard.h, plan);
      MPI_Allreduce(MPI_IN_PLACE, &blocked, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (blocked) return 0;
    }
    const int P = size();
    std::vector<uint64_t> firsts(P);
    {
      uint64_t mine = rg.first;
      MPI_Allgather(&mine, 1, MPI_UINT64_T, firsts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    }
    auto range_owner = [&](uint64_t g) {
      return static_cast<int>(std::upper_bound(firsts.begin(), firsts.end(), g) - firsts.begin()) - 1;
    };
    using Pos = std::pair<int64_t, uint64_t>;
    for (bool by_end : {false, true}) {
      std::vector<OrderBounds> bounds;
      StepTime bounds_time("si_replay.order_bounds");
      int failed = !si_order_bounds(shard.h, shard.gtxn, by_end, bounds) || (by_end ? bad_end : bad_begin);
      bounds_time.stop();
      StepTime meet_time("si_replay.meet");
      const std::vector<std::vector<OrderBounds>> got =
          route_records(std::move(bounds), [&](const OrderBounds& b) { return range_owner(b.txn); }, kTagOrderBounds);
      const std::vector<int64_t>& time = by_end ? rg.end : rg.begin;
      // Per transaction of the range, its three bounds side by side (one
      // cache line for the records that meet there).
      struct Met {
        Pos lo, w, hi;
      };
      constexpr Pos kLowest{std::numeric_limits<int64_t>::min(), 0};
      std::vector<Met> met(rg.size());
      for (size_t i = 0; i < rg.size(); ++i) met[i] = {kLowest, kLowest, Pos{time[i], rg.first + i}};
      for (size_t k = 0; k < so.size(); ++k) {  // the session predecessor's commit
        Met& m = met[so[k].second - rg.first];
        m.lo = std::max(m.lo, Pos{by_end ? so_pred_times[k].second : so_pred_times[k].first, so[k].first});
      }
      for (const std::vector<OrderBounds>& from : got)
        for (const OrderBounds& b : from) {
          Met& m = met[b.txn - rg.first];
          m.lo = std::max(m.lo, Pos{b.lo_t, b.lo_g}), m.hi = std::min(m.hi, Pos{b.hi_t, b.hi_g});
          m.w = std::max(m.w, Pos{b.w_t, b.w_g});
        }
      for (size_t i = 0; i < rg.size() && !failed; ++i)
        failed = rg.included[i] && !(met[i].lo < met[i].hi && met[i].w < met[i].hi);
      MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (!failed) return by_end ? 3 : 2;
    }
    return 0;
  }

  // ---- shard: projection, per-key graph, order keys, anomalies as records;
  // the flags every rank acts on, allreduced.
  void build_shard_graph() {
    StepTime graph_time("shard.graph");
    {
      KnownGraphOptions kgo;
      kgo.for_si = wants(Level::si);
      try {
        g = build_known_graph(p, kgo);
      } catch (const InputError&) {
        flags[kInputError] = 1;
      }
    }
    if (!flags[kInputError]) {
      for (OpIdx o = 0; o < p.op_count(); ++o)
        if (p.op_kind[o] == OpKind::append || p.op_kind[o] == OpKind::read_list) list_keys.insert(p.op_key[o]);
      flags[kGeneral] = !g.unordered.empty();
      flags[kAnomaly] = !g.anomalies.empty();
      for (const UnorderedKey& uk : g.unordered) flags[kListUnordered] |= list_keys.count(uk.key) > 0;
      if (flags[kGeneral] && !flags[kAnomaly] && !flags[kListUnordered]) {
        unordered_stream = encode_unordered(g, [this](TxnIdx t) { return gtx(t); },
                                          [this](TxnIdx t, uint32_t lp) { return gpos(t, lp); });
        unordered_pairs = g.unordered_write_pairs;
      }
      for (size_t i = 0; i < g.anomalies.size(); ++i) {
        const Anomaly& a = g.anomalies[i];
        AnomalyRec r{};
        uint32_t pos = gpos(a.txn, a.op);
        r.seq = i, r.key = a.key, r.value = a.value;
        r.kind = static_cast<uint32_t>(a.kind), r.txn = gtx(a.txn), r.other = gtx(a.other), r.op = pos;
        if (a.kind == AnomalyKind::duplicate_write) r.phase = 0, r.a = r.txn, r.b = ~uint64_t{0} - pos;
        else if (list_keys.count(a.key)) r.phase = 4, r.a = a.key, r.b = 0;
        else if (a.kind == AnomalyKind::lost_update) r.phase = 1, r.a = r.txn, r.b = (uint64_t{1} << 32) + first_pos(a.txn, a.key);
        else r.phase = 1, r.a = r.txn, r.b = pos;
        anomalies.push_back(r);
      }
      g.chains = ChainStore();  // (encoded above when needed)
    }
    graph_time.stop();
    MPI_Allreduce(MPI_IN_PLACE, flags, kFlags, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    stage("shard");
  }

  // Which levels fail and how, exactly as check() sets them; true when the
  // flags decide (input error, anomalies, unordered list keys).
  bool settle_on_flags() {
    r.stats.txns = rg.n;
    r.stats.committed = committed;
    for (Level l : opt.levels) r.levels.push_back({l});

    if (flags[kInputError]) {
      out.refused = true, out.why = "the history is rejected by the graph builder (the normal path reports where)";
      return true;
    }
    if (flags[kAnomaly]) {
      std::vector<AnomalyRec> all = gather_records(anomalies);
      stage("gather");
      if (me == 0) {
        std::sort(all.begin(), all.end(), [](const AnomalyRec& x, const AnomalyRec& y) { return x.order() < y.order(); });
        for (auto& a : all)
          r.anomalies.push_back({static_cast<AnomalyKind>(a.kind), a.txn, a.other, a.op, a.key, a.value});
        for (auto& lr : r.levels) lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows";
      }
      finish_report(out, whole, rg, shard, ko);
      stage("acyclic");
      return true;
    }
    if (flags[kListUnordered]) {
      out.refused = true;
      out.why = "appends whose order no read reveals (list keys for the general engine are not sharded)";
      return true;
    }
    return false;
  }

  // The edges of all shards, for the budgets and the stats.
  void count_edges() {
    for (EdgeKind k : g.edges.kind) local += k != EdgeKind::so;
    local += so.size();
    MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }

    // ---- acyclic, distributed: each level graph's pairs from this shard's
    // edges, routed to their source's owner and peeled (dist_acyclic.h). The
    // same cascade as check(): SSER acyclic settles SER and SI, SER settles SI.
    // (Unknown version orders go to the general engine, below.)
  void decide_by_peeling() {
    const uint32_t n = static_cast<uint32_t>(rg.n);
    std::vector<std::pair<Level, EdgeList>> cycles;  // rank 0: the failing levels' cycles
    auto peel = [&](Level level) {
      std::vector<uint32_t> src, dst;
      uint32_t m = 0;
      src.reserve(local + (level == Level::si ? rg.size() : 0));
      dst.reserve(src.capacity());
      auto each_pair = [&](auto&& f) {
        for (size_t i = 0; i < g.edges.size(); ++i)
          if (g.edges.kind[i] != EdgeKind::so) f(gtx(g.edges.src[i]), gtx(g.edges.dst[i]), g.edges.kind[i]);
        for (auto [a, b] : so) f(a, b, EdgeKind::so);
      };
      if (level == Level::si) {  // the split graph, as si_graph builds it
        m = n;
        each_pair([&](uint32_t a, uint32_t b, EdgeKind k) {
          if (k == EdgeKind::rw) src.push_back(n + a), dst.push_back(b);
          else src.push_back(a), dst.push_back(n + b);
        });
        for (size_t i = 0; i < rg.size(); ++i)  // this range's T* -> T
          if (rg.included[i]) src.push_back(n + static_cast<uint32_t>(rg.first + i)), dst.push_back(static_cast<uint32_t>(rg.first + i));
      } else {
        each_pair([&](uint32_t a, uint32_t b, EdgeKind) { src.push_back(a), dst.push_back(b); });
        if (level == Level::sser)  // real-time pairs from the ranges' times (realtime_pairs.h)
          m = realtime_pairs({rg.first, &rg.begin, &rg.end, &rg.included}, n, opt.clock_skew, src, dst);
      }
      // (A level peeled only to settle a weaker one needs no witness.)
      std::vector<uint32_t> core;
      // First the file order's proof (no supersteps across the ranks' blocks
      // when the file follows time); the whole peel when it does not decide.
      StepTime order_time("acyclic.by_order");
      PeelStats ps;
      const bool by_order = acyclic_by_file_order(n, m, level == Level::si, src, dst, ps);
      order_time.stop();
      StepTime peel_time("acyclic.peel");
      if (!by_order) ps = peel_acyclic(n, m, src, dst, wants(level) ? &core : nullptr);
      peel_time.stop();
      out.supersteps += ps.supersteps;
      out.cross_edges = std::max(out.cross_edges, ps.cross_edges);
      if (!ps.acyclic && wants(level)) {  // its witness, from the core
        uint64_t core_size = 0;
        cycles.push_back({level, core_witness(level, core, each_edge, rg, opt, ko.history_budget, core_size)});
        out.core_vertices = std::max(out.core_vertices, core_size);
        out.gathered = true;
      }
      return ps.acyclic;
    };
    std::optional<bool> ser, si, sser;
    if (wants(Level::sser)) {
      sser = peel(Level::sser);
      if (*sser) ser = si = true;
    }
    if (!ser && (wants(Level::ser) || wants(Level::si))) {
      ser = peel(Level::ser);
      if (*ser) si = true;
    }
    if (!si && wants(Level::si)) si = peel(Level::si);
    bool all = true;
    for (Level l : opt.levels) all &= *(l == Level::ser ? ser : l == Level::si ? si : sser);
    stage("acyclic");
    if (stopping()) return;
    out.edges = total;
    if (me == 0) r.stats.edges = total;
    if (all) return;  // every level holds: nothing was gathered
    // The witnesses (chosen on the cores), named on the history or on the
    // transactions they name, fetched for the report.
    if (me == 0)
      for (auto& [level, cycle] : cycles)
        for (LevelResult& lr : r.levels)
          if (lr.level == level) {
            lr.holds = false;
            lr.witness = Witness{};
            lr.witness->cycle = cycle;
          }
    // The weaker levels a failing stronger one leaves undecided in check()
    // are those the cascade peeled: each failing level has its cycle.
    finish_report(out, whole, rg, shard, ko);
    stage("witness");
    return;
  }

    // ---- the general engine on the shards (dist_prune.h): SER and SI hold
    // when the SER polygraph is satisfiable, decided without gathering;
    // otherwise (or SSER, or --linear-only) the gather below decides.
  // True when settled there.
  bool settle_by_general_engine() {
    if (!(flags[kGeneral] && !wants(Level::sser) && !opt.linear_only)) return false;
    const uint32_t n = static_cast<uint32_t>(rg.n);
    // Every rank ends up holding the known graph: 16 bytes an edge at most
    // (its pairs and CSR), 8 a transaction.
    const uint64_t rep = total * 16 + uint64_t{n} * 8;
    if (ko.history_budget && rep > ko.history_budget)
      throw ResourceError("key shards: every rank holds the known graph for pruning (" + std::to_string(total) +
                          " edges): about " + std::to_string(rep >> 20) + " MiB, over --history-budget " +
                          std::to_string(ko.history_budget >> 20) + " MiB; raise --history-budget");
    DependencyGraph mine;
    decode_unordered(unordered_stream, {0, unordered_stream.size()}, mine);
    // This shard's edges in whole-history numbering (session order: the
    // pairs its range owner built), and each transaction's session successor.
    std::vector<uint32_t> src, dst, so_next;
    src.reserve(local), dst.reserve(local);
    each_edge([&](const EdgeRec& e) {
      src.push_back(static_cast<uint32_t>(e.src)), dst.push_back(static_cast<uint32_t>(e.dst));
      if (static_cast<EdgeKind>(e.kind) != EdgeKind::so) return;
      if (so_next.empty()) so_next.assign(n, UINT32_MAX);
      if (so_next[e.src] == UINT32_MAX) so_next[e.src] = static_cast<uint32_t>(e.dst);
    });
    const GeneralOnShards gs =
        decide_general_on_shards(n, std::move(src), std::move(dst), std::move(so_next), mine, opt);
    out.general = gs;
    if (gs.settled) {
      uint64_t pairs = 0;
      MPI_Reduce(&unordered_pairs, &pairs, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
      stage("solve");
      out.edges = total;
      if (me == 0) {
        r.stats.edges = total, r.stats.unordered_write_pairs = pairs;
        r.stats.constraints = gs.pairs, r.stats.pruned = gs.forced, r.stats.to_solver = gs.to_solver;
        r.stats.subproblems = gs.subproblems;
      }
      return true;
    }
    stage("prune");
    return false;
  }

    // ---- gather: a level fails, or version orders are unknown. A witness is
    // chosen on the whole graph, as check() chooses it, and the general engine
    // (pruning, solver) runs on it: rank 0 must hold the history, the whole
    // graph and the unknown keys' chains. Budget: gathered records, the merged
    // edge list, the CSR of the largest level graph (SI: twice the edges' slots
    // plus 2n offsets), the chains twice (gathered and rebuilt).
  void gather_and_decide_on_rank0() {
    uint64_t stream_words = unordered_stream.size(), all_words = 0;
    MPI_Allreduce(&stream_words, &all_words, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t need = history_bytes + total * (sizeof(EdgeRec) + 13 + 2 * 4) + (2 * 8 + 1) * rg.n +
                    all_words * 4 * 2;
    if (ko.history_budget && need > ko.history_budget)
      throw ResourceError("key shards: rank 0 gathers the dependency graph (" + std::to_string(total) + " edges" +
                          (all_words ? " and the chains of keys whose version order is unknown" : "") +
                          ") next to the history: about " + std::to_string(need >> 20) + " MiB, over --history-budget " +
                          std::to_string(ko.history_budget >> 20) +
                          " MiB; raise --history-budget (or use a node with more memory for rank 0)");
    uint64_t pairs = 0;
    MPI_Reduce(&unordered_pairs, &pairs, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    std::vector<uint64_t> starts, stream_starts;
    std::vector<EdgeRec> edges;
    edges.reserve(local);
    each_edge([&](const EdgeRec& e) { edges.push_back(e); });
    g = DependencyGraph();
    {
      auto less = [](const EdgeRec& x, const EdgeRec& y) { return x.order() < y.order(); };
      if (!std::is_sorted(edges.begin(), edges.end(), less)) std::sort(edges.begin(), edges.end(), less);
    }
    std::vector<EdgeRec> all = gather_records(edges, 0, &starts);
    std::vector<uint32_t> streams = gather_records(unordered_stream, 0, &stream_starts);
    std::vector<uint8_t> included = gather_records(rg.included);
    out.gathered = true;
    edges.clear();
    edges.shrink_to_fit();
    std::vector<uint32_t>().swap(unordered_stream);
    stage("gather");

    // ---- witness (or solve): the dependency graph build_known_graph(h) gives,
    // rebuilt in its order, decided by the same code as check().
    if (me == 0) {
      if (!whole && ko.whole_on_demand) whole = ko.whole_on_demand();
      if (!whole) throw std::logic_error("key shards: rank 0 gathers without the history");
      const History& h = *whole;
      // Each rank's part arrives sorted: merge neighbouring parts, log2(P) rounds.
      auto less = [](const EdgeRec& x, const EdgeRec& y) { return x.order() < y.order(); };
      for (size_t width = 1; width + 1 < starts.size(); width *= 2)
        for (size_t i = 0; i + width + 1 < starts.size(); i += 2 * width) {
          size_t mid = i + width, end = std::min(i + 2 * width, starts.size() - 1);
          std::inplace_merge(all.begin() + starts[i], all.begin() + starts[mid], all.begin() + starts[end], less);
        }
      DependencyGraph g;
      g.n = static_cast<uint32_t>(h.txn_count());
      g.included = included;
      g.edges.reserve(all.size());
      for (auto& e : all) g.edges.add(e.src, e.dst, static_cast<EdgeKind>(e.kind), e.why);
      std::vector<EdgeRec>().swap(all);
      decode_unordered(streams, stream_starts, g);
      std::vector<uint32_t>().swap(streams);
      g.unordered_write_pairs = pairs;
      out.edges = g.edges.size();
      CheckResult decided = check_graph(h, g, opt);
      decided.stats.txns = r.stats.txns;
      decided.stats.committed = r.stats.committed;
      decided.stats.si_replay = r.stats.si_replay, decided.stats.si_replay_order = r.stats.si_replay_order;
      r = std::move(decided);
    }
    stage(flags[kGeneral] ? "solve" : "witness");
  }
};

KeyShardOutcome decide_on_shards(Range& rg, Shard shard, const History* whole, uint64_t history_bytes,
                                 const CheckOptions& opt, const KeyShardOptions& ko) {
  return ShardDecision(rg, std::move(shard), whole, history_bytes, opt, ko).run();
}

}  // namespace

// --time-order adds write-order edges between the writers of each key (the
// level polygraph's, polygraph_build.cpp) that the distributed acyclicity
// test does not build: such runs take the normal path.
static bool refuse_time_order(const CheckOptions& opt, KeyShardOutcome& out) {
  if (!opt.time_order) return false;
  out.refused = true;
  out.why = "--time-order (the key-shard graphs carry no write order by time)";
  return true;
}

KeyShardOutcome check_key_sharded(const History& h, const CheckOptions& opt, const KeyShardOptions& ko) {
  if (KeyShardOutcome out; refuse_time_order(opt, out)) return out;
  // (h: the same on every rank. A value predicate counts where a read
  // carries it: a scan that returned every row of its range has none.)
  if (!h.absent_choice_ops.empty() || !h.op_value_predicate.empty()) {
    KeyShardOutcome out;
    out.refused = true;
    out.why = h.absent_choice_ops.empty() ? kValuePredicatesRefused : kOpenAbsencesRefused;
    return out;
  }
  Range rg;
  Shard shard;
  own_from_whole(h, rg, shard);
  note_ops_held(h.op_count() + shard.h.op_count());
  return decide_on_shards(rg, std::move(shard), &h, h.resident_bytes(), opt, ko);
}

namespace {

// Transactions [lo, hi) of `h` with their operations (registers).
History sub_history(const History& h, uint64_t lo, uint64_t hi) {
  History s;
  s.txn_id.assign(h.txn_id.begin() + lo, h.txn_id.begin() + hi);
  s.txn_session.assign(h.txn_session.begin() + lo, h.txn_session.begin() + hi);
  s.txn_status.assign(h.txn_status.begin() + lo, h.txn_status.begin() + hi);
  s.txn_begin.assign(h.txn_begin.begin() + lo, h.txn_begin.begin() + hi);
  s.txn_end.assign(h.txn_end.begin() + lo, h.txn_end.begin() + hi);
  const uint64_t o0 = h.txn_op_offset[lo], o1 = h.txn_op_offset[hi];
  s.txn_op_offset.clear();
  for (uint64_t t = lo; t <= hi; ++t) s.txn_op_offset.push_back(h.txn_op_offset[t] - o0);
  s.op_kind.assign(h.op_kind.begin() + o0, h.op_kind.begin() + o1);
  s.op_key.assign(h.op_key.begin() + o0, h.op_key.begin() + o1);
  s.op_value.assign(h.op_value.begin() + o0, h.op_value.begin() + o1);
  s.session_name = h.session_name;
  s.time_unit = h.time_unit;
  return s;
}

KeyShardOutcome from_slices(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read, const History* held,
                            const History* whole, const CheckOptions& opt, const KeyShardOptions& ko,
                            const std::function<void()>& exchanged) {
  Range rg;
  Shard shard;
  uint64_t bytes = 0;
  auto sized = [&](uint64_t lo, uint64_t hi) {
    History s = read(lo, hi);
    bytes += s.resident_bytes();
    return s;
  };
  int named = 0;
  const char* why = own_from_slices(count, sized, rg, shard, held, ko.names, named);
  // Ids repeated across slices or ranges (each slice's reader checks only
  // itself): one process's error, before any refusal sends the history on.
  {
    std::vector<std::pair<int64_t, uint64_t>> ids(rg.size());
    for (size_t i = 0; i < rg.size(); ++i) ids[i] = {rg.id[i], rg.first + i};
    const FirstRepeat r = first_repeated_id(std::move(ids));
    if (r.found())
      collective([&] {
        if (r.b < rg.first || r.b >= rg.first + rg.size()) return;
        if (ko.duplicate_id) ko.duplicate_id(r.id, r.a, r.b);
        throw InputError("transaction " + std::to_string(r.b), "duplicate transaction id " + std::to_string(r.id));
      });
  }
  if (why) {
    KeyShardOutcome out;
    out.refused = true;
    out.why = why;
    out.named_tables = named;
    return out;
  }
  if (exchanged) exchanged();
  uint64_t history_bytes = 0;
  MPI_Allreduce(&bytes, &history_bytes, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return decide_on_shards(rg, std::move(shard), whole, history_bytes, opt, ko);
}

}  // namespace

KeyShardOutcome check_key_sharded_ranges(History& mine, const History* whole, const CheckOptions& opt,
                                         const KeyShardOptions& ko) {
  if (KeyShardOutcome out; refuse_time_order(opt, out)) return out;
  // Lists carry their observed values in another column: not exchanged here.
  int lists = 0;
  for (OpKind k : mine.op_kind) lists |= k == OpKind::append || k == OpKind::read_list;
  MPI_Allreduce(MPI_IN_PLACE, &lists, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int refuse[2] = {mine.absent_choice_ops.empty() ? 0 : 1, mine.op_value_predicate.empty() ? 0 : 1};
  MPI_Allreduce(MPI_IN_PLACE, refuse, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (refuse[0] || refuse[1]) {
    KeyShardOutcome out;
    out.refused = true;
    out.why = refuse[0] ? kOpenAbsencesRefused : kValuePredicatesRefused;
    return out;
  }
  if (lists) {
    KeyShardOutcome out;
    out.refused = true;
    out.why = "list operations (key shards from per-rank reads exchange registers only)";
    return out;
  }
  // The range is in the shards once exchanged: freed before the checks.
  return from_slices(
      mine.txn_count(), [&](uint64_t lo, uint64_t hi) { return sub_history(mine, lo, hi); }, &mine, whole, opt, ko,
      [&] { mine = History(); });
}

KeyShardOutcome check_key_sharded_read(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read,
                                       const CheckOptions& opt, const KeyShardOptions& ko) {
  if (KeyShardOutcome out; refuse_time_order(opt, out)) return out;
  return from_slices(count, read, nullptr, nullptr, opt, ko, {});
}

}  // namespace isocheck::dist

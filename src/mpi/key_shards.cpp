#include "mpi/key_shards.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "mpi/accounting.h"
#include "mpi/dist_acyclic.h"
#include "mpi/dist_prune.h"
#include "mpi/mpi_env.h"
#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "core/errors.h"
#include "solver/serial_witness.h"

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
//   phase 5  session order (rank 0's shard only), in its own order
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

MPI_Datatype bytes_type(int n) {
  MPI_Datatype t;
  MPI_Type_contiguous(n, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

// Displacements of consecutive parts of `counts` elements; the total. Every
// displacement must fit MPI's int: past it, a ResourceError naming `what`.
uint64_t displacements(const std::vector<int>& counts, std::vector<int>& disp, const char* what) {
  uint64_t total = 0;
  disp.resize(counts.size());
  for (size_t r = 0; r < counts.size(); ++r) {
    if (total > INT32_MAX) throw ResourceError(std::string("key shards: more than 2^31 ") + what + "; run on more ranks");
    disp[r] = static_cast<int>(total), total += counts[r];
  }
  return total;
}

// Gathers every rank's records on rank 0 (rank order); `starts` (rank 0)
// receives where each rank's part begins, plus the end.
template <class T> std::vector<T> gather(const std::vector<T>& mine, std::vector<uint64_t>* starts = nullptr) {
  int P = size(), me = rank();
  if (mine.size() > INT32_MAX) throw ResourceError("key shards: more than 2^31 records on one rank; run on more ranks");
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(P), disp(P);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<T> all;
  if (me == 0) {
    const uint64_t total = displacements(counts, disp, "records to gather");
    all.resize(total);
    if (starts) {
      starts->assign(disp.begin(), disp.end());
      starts->push_back(total);
    }
  }
  MPI_Datatype t = bytes_type(sizeof(T));
  MPI_Gatherv(mine.data(), count, t, all.data(), counts.data(), disp.data(), t, 0, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  return all;
}

// The shard: a projection keeping every transaction (so transaction indices
// are global) and only the operations of this rank's keys.
struct Shard {
  History h;
  std::vector<OpIdx> global_op;  // projected op -> op of the whole history
};

// The transaction columns of `meta` (every transaction, no operations).
void copy_txns(const History& meta, History& p) {
  p.txn_id = meta.txn_id;
  p.txn_session = meta.txn_session;
  p.txn_status = meta.txn_status;
  p.txn_begin = meta.txn_begin;
  p.txn_end = meta.txn_end;
  p.session_name = meta.session_name;
  p.time_unit = meta.time_unit;
  p.txn_op_offset.reserve(meta.txn_count() + 1);
}

// The shard selected locally from the whole history (every rank holds it).
Shard select_keys(const History& h, int P, int me) {
  Shard s;
  History& p = s.h;
  copy_txns(h, p);
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (key_owner(h.op_key[o], P) != me) continue;
      s.global_op.push_back(o);
      if (h.op_kind[o] == OpKind::read_list) p.add_list_read(h.op_key[o], h.list(o));
      else p.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
    }
    p.end_txn();
  }
  return s;
}

// Included is global: the projection sees it as committed / aborted, so its
// own compute_included finds exactly the whole history's set.
void apply_included(Shard& s, const std::vector<uint8_t>& included) {
  for (TxnIdx t = 0; t < s.h.txn_count(); ++t)
    if (s.h.txn_status[t] == TxnStatus::unknown) s.h.txn_status[t] = included[t] ? TxnStatus::committed : TxnStatus::aborted;
}

// Included transactions (committed, or unknown and read by an included one,
// transitively): local propagation over this rank's keys (the shard holds
// only those), then an OR of the bitmaps over all ranks, until no rank adds one.
std::vector<uint8_t> included_fixpoint(const History& h, int& rounds) {
  const TxnIdx n = static_cast<TxnIdx>(h.txn_count());
  std::vector<uint8_t> inc(n, 0);
  for (TxnIdx t = 0; t < n; ++t) inc[t] = h.txn_status[t] == TxnStatus::committed;
  rounds = 0;
  if (std::find(h.txn_status.begin(), h.txn_status.end(), TxnStatus::unknown) == h.txn_status.end()) return inc;
  // (key, value) -> the writer build_known_graph's index finds: the first
  // inserted, transactions ascending, operations backwards.
  struct PairHash {
    size_t operator()(const std::pair<Sym, Sym>& p) const { return mix(p.first * 0x9e3779b97f4a7c15ULL ^ mix(p.second)); }
  };
  std::unordered_map<std::pair<Sym, Sym>, TxnIdx, PairHash> writer;
  for (TxnIdx t = 0; t < n; ++t)
    for (OpIdx o = h.op_end(t); o-- > h.op_begin(t);)
      if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append)
        writer.emplace(std::make_pair(h.op_key[o], h.op_value[o]), t);
  std::vector<TxnIdx> stack;
  for (TxnIdx t = 0; t < n; ++t) if (inc[t]) stack.push_back(t);
  auto visit = [&](Sym k, Sym v) {
    auto it = writer.find({k, v});
    if (it == writer.end()) return;
    TxnIdx w = it->second;
    if (!inc[w] && h.txn_status[w] == TxnStatus::unknown) inc[w] = 1, stack.push_back(w);
  };
  std::vector<uint8_t> before;
  while (true) {
    ++rounds;
    while (!stack.empty()) {
      TxnIdx t = stack.back();
      stack.pop_back();
      h.for_each_read_value(t, visit);
    }
    before = inc;
    MPI_Allreduce(MPI_IN_PLACE, inc.data(), static_cast<int>(n), MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD);
    int added = 0;
    for (TxnIdx t = 0; t < n; ++t)
      if (inc[t] && !before[t]) stack.push_back(t), added = 1;
    // Another rank added something only if some rank added anything locally;
    // a second reduction tells every rank whether to go on.
    int any = 0, changed_here = added;
    MPI_Allreduce(&changed_here, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) break;
  }
  return inc;
}

}  // namespace

int key_owner(Sym key, int ranks) { return static_cast<int>(mix(key) % static_cast<uint64_t>(ranks)); }

// Every rank replays its own keys in the same candidate order; a candidate
// holds when it holds on every shard (reads see only writes to their key),
// and so does write uniqueness (a repeated (key, value) is inside one shard).
// Included unknown transactions are committed in the projection: the witness
// serializes exactly the transactions check() includes.
static WitnessOrder sharded_witness(const History& p, bool need_realtime) {
  const WitnessPlan plan = plan_serial_witness(p, need_realtime);
  int bad = !plan.why_not.empty();
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return WitnessOrder::none;
  for (WitnessOrder c : plan.candidates) {
    int failed = !replay_candidate(p, plan, c).empty();
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed) continue;
    int repeated = !writes_unique(p, plan);
    MPI_Allreduce(MPI_IN_PLACE, &repeated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return repeated ? WitnessOrder::none : c;
  }
  return WitnessOrder::none;
}

namespace {

// A shard's unknown-order keys (register keys; UnorderedKey) as one flat
// stream of uint32 for MPI_Gatherv: per key
//   key (2 words), si_only, chain count, then per chain
//   from_init, transactions, readers, (txn, whole-history position) per
//   transaction, then per reader of the tail.
// A shard lists its SI-only keys (by symbol) before its general keys (by
// symbol), as build_known_graph does on any projection.
template <class Pos> std::vector<uint32_t> encode_unordered(const DependencyGraph& g, Pos gpos) {
  std::vector<uint32_t> w;
  for (const UnorderedKey& uk : g.unordered) {
    w.push_back(static_cast<uint32_t>(uk.key)), w.push_back(static_cast<uint32_t>(uk.key >> 32));
    w.push_back(uk.si_only), w.push_back(uk.end_chain - uk.first_chain);
    for (uint32_t c = uk.first_chain; c < uk.end_chain; ++c) {
      VersionChain vc = g.chains.chain(c);
      w.push_back(vc.from_init), w.push_back(static_cast<uint32_t>(vc.txns.size()));
      w.push_back(static_cast<uint32_t>(vc.readers_of_tail.size()));
      for (size_t i = 0; i < vc.txns.size(); ++i) w.push_back(vc.txns[i]), w.push_back(gpos(vc.txns[i], vc.write_pos[i]));
      for (size_t i = 0; i < vc.readers_of_tail.size(); ++i)
        w.push_back(vc.readers_of_tail[i]), w.push_back(gpos(vc.readers_of_tail[i], vc.reader_pos[i]));
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

}  // namespace

namespace {

// The key-shard check proper. `meta`: every transaction's columns and the
// whole history's operation offsets (positions); `shard`: this rank's keys'
// operations, original statuses; `whole` (rank 0 only): the whole history,
// for the final level graphs and the report; `history_bytes`: its size.
KeyShardOutcome decide_on_shards(const History& meta, Shard shard, const History* whole, uint64_t history_bytes,
                                 const CheckOptions& opt, const KeyShardOptions& ko) {
  const int me = rank();
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  auto stage = [&](const char* name) {
    if (ko.end_stage) ko.end_stage(name);
  };
  KeyShardOutcome out;

  // ---- shard: included set, projection, per-key graph, order keys
  int rounds = 0;
  std::vector<uint8_t> included = included_fixpoint(shard.h, rounds);
  apply_included(shard, included);
  enum Flag { kInputError = 0, kAnomaly, kGeneral, kListUnordered, kFlags };
  int flags[kFlags] = {0, 0, 0, 0};
  std::vector<uint32_t> unordered_stream;  // this shard's unordered keys and chains (see encode_unordered)
  uint64_t unordered_pairs = 0;
  std::vector<EdgeRec> edges;
  std::vector<AnomalyRec> anomalies;
  if (opt.serial_witness) {
    // The serial witness, shard by shard: one candidate order for all ranks.
    const WitnessOrder found = sharded_witness(shard.h, wants(Level::sser));
    if (found != WitnessOrder::none) {
      CheckResult& r = out.r;
      r.stats.txns = meta.txn_count();
      r.stats.committed = static_cast<size_t>(std::count(included.begin(), included.end(), 1));
      r.stats.witness = found;
      for (Level l : opt.levels) r.levels.push_back({l});
      stage("shard");
      stage("gather");
      stage("acyclic");
      return out;
    }
  }
  {
    Shard s = std::move(shard);
    const History& p = s.h;
    KnownGraphOptions kgo;
    kgo.for_si = wants(Level::si);
    DependencyGraph g;
    try {
      g = build_known_graph(p, kgo);
    } catch (const InputError&) {
      flags[kInputError] = 1;
    }
    if (!flags[kInputError]) {
      std::unordered_set<Sym> list_keys;
      for (OpIdx o = 0; o < p.op_count(); ++o)
        if (p.op_kind[o] == OpKind::append || p.op_kind[o] == OpKind::read_list) list_keys.insert(p.op_key[o]);
      auto gpos = [&](TxnIdx t, uint32_t local_pos) -> uint32_t {
        return static_cast<uint32_t>(s.global_op[p.op_begin(t) + local_pos] - meta.op_begin(t));
      };
      auto key_at = [&](TxnIdx t, uint32_t local_pos) { return p.op_key[p.op_begin(t) + local_pos]; };
      auto first_pos = [&](TxnIdx t, Sym k) -> uint64_t {
        for (OpIdx o = p.op_begin(t); o < p.op_end(t); ++o)
          if (p.op_key[o] == k) return s.global_op[o] - meta.op_begin(t);
        return 0;
      };
      flags[kGeneral] = !g.unordered.empty();
      flags[kAnomaly] = !g.anomalies.empty();
      for (const UnorderedKey& uk : g.unordered) flags[kListUnordered] |= list_keys.count(uk.key) > 0;
      if (flags[kGeneral] && !flags[kAnomaly] && !flags[kListUnordered]) {
        unordered_stream = encode_unordered(g, [&](TxnIdx t, uint32_t pos) { return gpos(t, pos); });
        unordered_pairs = g.unordered_write_pairs;
      }
      for (size_t i = 0; i < g.anomalies.size(); ++i) {
        const Anomaly& a = g.anomalies[i];
        AnomalyRec r{};
        uint32_t pos = gpos(a.txn, a.op);
        r.seq = i, r.key = a.key, r.value = a.value;
        r.kind = static_cast<uint32_t>(a.kind), r.txn = a.txn, r.other = a.other, r.op = pos;
        if (a.kind == AnomalyKind::duplicate_write) r.phase = 0, r.a = a.txn, r.b = ~uint64_t{0} - pos;
        else if (list_keys.count(a.key)) r.phase = 4, r.a = a.key, r.b = 0;
        else if (a.kind == AnomalyKind::lost_update) r.phase = 1, r.a = a.txn, r.b = (uint64_t{1} << 32) + first_pos(a.txn, a.key);
        else r.phase = 1, r.a = a.txn, r.b = pos;
        anomalies.push_back(r);
      }
      if (!flags[kAnomaly] && !flags[kListUnordered]) {
        edges.reserve(g.edges.size());
        for (size_t i = 0; i < g.edges.size(); ++i) {
          EdgeRec r{};
          uint32_t src = g.edges.src[i], dst = g.edges.dst[i], why = g.edges.why[i];
          EdgeKind k = g.edges.kind[i];
          r.src = src, r.dst = dst, r.kind = static_cast<uint32_t>(k), r.seq = i;
          if (k == EdgeKind::so) {
            if (me != 0) continue;
            r.phase = 5, r.a = 0, r.b = 0, r.why = why;
          } else if (k == EdgeKind::rw) {
            Sym key = key_at(src, why);
            r.why = gpos(src, why);
            if (list_keys.count(key)) r.phase = 4, r.a = key, r.b = 0;
            else r.phase = 3, r.a = src, r.b = r.why;
          } else {  // wr, ww: the position is in dst
            Sym key = key_at(dst, why);
            r.why = gpos(dst, why);
            if (i >= g.edges_pass1_end && i < g.edges_blind_end) r.phase = 2, r.a = key, r.b = 0;  // to blind tails
            else if (list_keys.count(key)) r.phase = 4, r.a = key, r.b = 0;
            else if (k == EdgeKind::wr) r.phase = 1, r.a = dst, r.b = r.why;
            else r.phase = 1, r.a = dst, r.b = (uint64_t{1} << 32) + first_pos(dst, key);
          }
          edges.push_back(r);
        }
        // The shard emits its edges in whole-history order already (its
        // build is the whole build restricted to its keys); sort only if not.
        auto less = [](const EdgeRec& x, const EdgeRec& y) { return x.order() < y.order(); };
        if (!std::is_sorted(edges.begin(), edges.end(), less)) std::sort(edges.begin(), edges.end(), less);
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, flags, kFlags, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  stage("shard");
  auto stopping = [&] { return ko.stop && ko.stop() && (out.interrupted = true); };
  if (stopping()) return out;

  // Which levels fail and how, exactly as check() sets them.
  CheckResult& r = out.r;
  r.stats.txns = meta.txn_count();
  r.stats.committed = static_cast<size_t>(std::count(included.begin(), included.end(), 1));
  for (Level l : opt.levels) r.levels.push_back({l});

  if (flags[kInputError]) {
    out.refused = true, out.why = "the history is rejected by the graph builder (the normal path reports where)";
    return out;
  }
  if (flags[kAnomaly]) {
    std::vector<AnomalyRec> all = gather(anomalies);
    stage("gather");
    if (me == 0) {
      std::sort(all.begin(), all.end(), [](const AnomalyRec& x, const AnomalyRec& y) { return x.order() < y.order(); });
      for (auto& a : all)
        r.anomalies.push_back({static_cast<AnomalyKind>(a.kind), a.txn, a.other, a.op, a.key, a.value});
      for (auto& lr : r.levels) lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows";
    }
    stage("acyclic");
    return out;
  }
  if (flags[kListUnordered]) {
    out.refused = true;
    out.why = "appends whose order no read reveals (list keys for the general engine are not sharded)";
    return out;
  }

  uint64_t local = edges.size(), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

  // ---- acyclic, distributed: each level graph's pairs from this shard's
  // edges, routed to their source's owner and peeled (dist_acyclic.h). The
  // same cascade as check(): SSER acyclic settles SER and SI, SER settles SI.
  // (Unknown version orders go to the general engine, below.)
  if (!flags[kGeneral]) {
    const uint32_t n = static_cast<uint32_t>(meta.txn_count());
    auto peel = [&](Level level) {
      std::vector<uint32_t> src, dst;
      uint32_t m = 0;
      src.reserve(edges.size() + (level == Level::si ? n / size() + 1 : 0));
      dst.reserve(src.capacity());
      if (level == Level::si) {  // the split graph, as si_graph builds it
        m = n;
        for (const EdgeRec& e : edges) {
          if (static_cast<EdgeKind>(e.kind) == EdgeKind::rw) src.push_back(n + e.src), dst.push_back(e.dst);
          else src.push_back(e.src), dst.push_back(n + e.dst);
        }
        for (uint32_t v = VertexBlocks::lo(n, me, size()); v < VertexBlocks::lo(n, me + 1, size()); ++v)
          if (included[v]) src.push_back(n + v), dst.push_back(v);
      } else {
        for (const EdgeRec& e : edges) src.push_back(e.src), dst.push_back(e.dst);
        if (level == Level::sser) {  // real-time pairs: every rank derives them, keeps its sources'
          std::vector<uint32_t> rs, rd;
          m = static_cast<uint32_t>(add_realtime_pairs(meta, included, opt.clock_skew, rs, rd).size());
          const VertexBlocks vb{n, m, size()};
          for (size_t i = 0; i < rs.size(); ++i)
            if (vb.owner(rs[i]) == me) src.push_back(rs[i]), dst.push_back(rd[i]);
        }
      }
      const PeelStats ps = peel_acyclic(n, m, src, dst);
      out.supersteps += ps.supersteps;
      out.cross_edges = std::max(out.cross_edges, ps.cross_edges);
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
    if (stopping()) return out;
    if (all) {  // every level holds: nothing to gather
      out.edges = total;
      if (me == 0) r.stats.edges = total;
      return out;
    }
  }

  // ---- the general engine on the shards (dist_prune.h): SER and SI hold
  // when the SER polygraph is satisfiable, decided without gathering;
  // otherwise (or SSER, or --linear-only) the gather below decides.
  if (flags[kGeneral] && !wants(Level::sser) && !opt.linear_only) {
    const uint32_t n = static_cast<uint32_t>(meta.txn_count());
    // Every rank ends up holding the known graph: 16 bytes an edge at most
    // (its pairs and CSR), 8 a transaction.
    const uint64_t rep = total * 16 + uint64_t{n} * 8;
    if (ko.history_budget && rep > ko.history_budget)
      throw ResourceError("key shards: every rank holds the known graph for pruning (" + std::to_string(total) +
                          " edges): about " + std::to_string(rep >> 20) + " MiB, over --history-budget " +
                          std::to_string(ko.history_budget >> 20) + " MiB; raise --history-budget");
    DependencyGraph mine;
    decode_unordered(unordered_stream, {0, unordered_stream.size()}, mine);
    std::vector<uint32_t> src, dst, so_next;
    src.reserve(edges.size()), dst.reserve(edges.size());
    for (const EdgeRec& e : edges) {
      src.push_back(e.src), dst.push_back(e.dst);
      if (static_cast<EdgeKind>(e.kind) != EdgeKind::so) continue;
      if (so_next.empty()) so_next.assign(n, UINT32_MAX);
      if (so_next[e.src] == UINT32_MAX) so_next[e.src] = e.dst;
    }
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
      return out;
    }
    stage("prune");
  }

  // ---- gather: a level fails, or version orders are unknown. A witness is
  // chosen on the whole graph, as check() chooses it, and the general engine
  // (pruning, solver) runs on it: rank 0 must hold the history, the whole
  // graph and the unknown keys' chains. Budget: gathered records, the merged
  // edge list, the CSR of the largest level graph (SI: twice the edges' slots
  // plus 2n offsets), the chains twice (gathered and rebuilt).
  uint64_t stream_words = unordered_stream.size(), all_words = 0;
  MPI_Allreduce(&stream_words, &all_words, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  uint64_t need = history_bytes + total * (sizeof(EdgeRec) + 13 + 2 * 4) + 2 * 8 * uint64_t{meta.txn_count()} +
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
  std::vector<EdgeRec> all = gather(edges, &starts);
  std::vector<uint32_t> streams = gather(unordered_stream, &stream_starts);
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
    r = std::move(decided);
  }
  stage(flags[kGeneral] ? "solve" : "witness");
  return out;
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
  Shard shard = select_keys(h, size(), rank());
  note_ops_held(h.op_count() + shard.h.op_count());
  return decide_on_shards(h, std::move(shard), &h, h.resident_bytes(), opt, ko);
}

namespace {

// Every rank's vector, concatenated in rank order, on every rank.
template <class T> std::vector<T> allgather(const std::vector<T>& mine) {
  const int P = size();
  if (mine.size() > INT32_MAX) throw ResourceError("key shards: more than 2^31 transactions on one rank; run on more ranks");
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(P), disp(P);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<T> all(displacements(counts, disp, "transactions"));
  MPI_Datatype t = bytes_type(sizeof(T));
  MPI_Allgatherv(mine.data(), count, t, all.data(), counts.data(), disp.data(), t, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  return all;
}

// One operation on its way to the rank owning its key.
struct OpRec {
  uint64_t key, value;
  uint32_t txn, pos;
  uint32_t kind, pad;
};
static_assert(sizeof(OpRec) == 32);

}  // namespace

KeyShardOutcome check_key_sharded_ranges(History& mine, const History* whole, const CheckOptions& opt,
                                         const KeyShardOptions& ko) {
  if (KeyShardOutcome out; refuse_time_order(opt, out)) return out;
  const int P = size(), me = rank();
  // Lists carry their observed values in another column: not exchanged here.
  int lists = 0;
  for (OpKind k : mine.op_kind) lists |= k == OpKind::append || k == OpKind::read_list;
  MPI_Allreduce(MPI_IN_PLACE, &lists, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lists) {
    KeyShardOutcome out;
    out.refused = true;
    out.why = "list operations (key shards from per-rank reads exchange registers only)";
    return out;
  }
  // Every transaction's columns on every rank; sessions renumbered by first
  // appearance in file order, as a whole-file read numbers them.
  History meta;
  {
    std::vector<int64_t> session_of(mine.txn_count());
    std::vector<uint64_t> ops_of(mine.txn_count());
    for (TxnIdx t = 0; t < mine.txn_count(); ++t)
      session_of[t] = mine.session_name[mine.txn_session[t]], ops_of[t] = mine.op_end(t) - mine.op_begin(t);
    meta.txn_id = allgather(mine.txn_id);
    meta.txn_status = allgather(mine.txn_status);
    meta.txn_begin = allgather(mine.txn_begin);
    meta.txn_end = allgather(mine.txn_end);
    const std::vector<int64_t> sessions = allgather(session_of);
    const std::vector<uint64_t> ops = allgather(ops_of);
    std::unordered_map<int64_t, uint32_t> dense;
    meta.txn_session.resize(sessions.size());
    for (size_t t = 0; t < sessions.size(); ++t) {
      auto [it, fresh] = dense.try_emplace(sessions[t], static_cast<uint32_t>(meta.session_name.size()));
      if (fresh) meta.session_name.push_back(sessions[t]);
      meta.txn_session[t] = it->second;
    }
    meta.txn_op_offset.resize(ops.size() + 1);
    for (size_t t = 0; t < ops.size(); ++t) meta.txn_op_offset[t + 1] = meta.txn_op_offset[t] + ops[t];
    meta.time_unit = mine.time_unit;
  }
  // This rank's first transaction: the ranges are consecutive, in rank order.
  uint64_t count = mine.txn_count(), first = 0;
  MPI_Exscan(&count, &first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) first = 0;
  // Operations to their key's owner (MPI_Alltoallv), in file order per owner.
  std::vector<int> send_count(P, 0), recv_count(P), send_disp(P), recv_disp(P);
  for (OpIdx o = 0; o < mine.op_count(); ++o) ++send_count[key_owner(mine.op_key[o], P)];
  {
    uint64_t total = 0;
    for (int r = 0; r < P; ++r) send_disp[r] = static_cast<int>(total), total += send_count[r];
    if (total > INT32_MAX) throw ResourceError("key shards: more than 2^31 operations on one rank; run on more ranks");
  }
  std::vector<OpRec> send(mine.op_count());
  {
    std::vector<int> at(send_disp);
    for (TxnIdx t = 0; t < mine.txn_count(); ++t)
      for (OpIdx o = mine.op_begin(t); o < mine.op_end(t); ++o)
        send[at[key_owner(mine.op_key[o], P)]++] = {mine.op_key[o], mine.op_value[o], static_cast<uint32_t>(first + t),
                                                   static_cast<uint32_t>(o - mine.op_begin(t)),
                                                   static_cast<uint32_t>(mine.op_kind[o]), 0};
  }
  // The range is packed: free it (its size first, for the budget).
  const uint64_t bytes = mine.resident_bytes();
  mine = History();
  MPI_Alltoall(send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<OpRec> recv(displacements(recv_count, recv_disp, "operations for one rank"));
  MPI_Datatype rec = bytes_type(sizeof(OpRec));
  MPI_Alltoallv(send.data(), send_count.data(), send_disp.data(), rec, recv.data(), recv_count.data(), recv_disp.data(),
                rec, MPI_COMM_WORLD);
  MPI_Type_free(&rec);
  const uint64_t whole_ops = whole ? whole->op_count() : 0;
  note_ops_held(whole_ops + send.size() + recv.size());
  std::vector<OpRec>().swap(send);
  // Sources hold consecutive transaction ranges in rank order: the received
  // records are already in (transaction, position) order.
  Shard shard;
  copy_txns(meta, shard.h);
  size_t i = 0;
  for (TxnIdx t = 0; t < meta.txn_count(); ++t) {
    for (; i < recv.size() && recv[i].txn == t; ++i) {
      shard.h.add_op(static_cast<OpKind>(recv[i].kind), recv[i].key, recv[i].value);
      shard.global_op.push_back(meta.txn_op_offset[t] + recv[i].pos);
    }
    shard.h.end_txn();
  }
  note_ops_held(whole_ops + recv.size() + shard.h.op_count());
  std::vector<OpRec>().swap(recv);
  uint64_t history_bytes = 0;
  MPI_Allreduce(&bytes, &history_bytes, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return decide_on_shards(meta, std::move(shard), whole, history_bytes, opt, ko);
}

}  // namespace isocheck::dist

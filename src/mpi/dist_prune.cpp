#include "mpi/dist_prune.h"

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <string>

#include "core/allocator.h"
#include "closure/closure.h"
#include "closure/graph_algos.h"
#include "closure/path_index.h"
#include "core/errors.h"
#include "mpi/exchange.h"
#include "mpi/mpi_env.h"
#include "solver/cadical_backend.h"
#include "solver/sat_solver.h"
#include "solver/subproblems.h"

namespace isocheck::dist {
namespace {

uint64_t sum_all(uint64_t x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return x;
}
int max_all(int x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return x;
}

// Out-edges by source, targets only (what reachability walks).
Csr csr_of(uint32_t n, const std::vector<uint32_t>& src, const std::vector<uint32_t>& dst) {
  Csr g;
  g.offset.assign(uint64_t{n} + 1, 0);
  for (uint32_t s : src) ++g.offset[s + 1];
  for (uint32_t v = 0; v < n; ++v) g.offset[v + 1] += g.offset[v];
  g.target.resize(src.size());
  std::vector<uint64_t> at(g.offset.begin(), g.offset.end() - 1);
  for (size_t i = 0; i < src.size(); ++i) g.target[at[src[i]]++] = dst[i];
  return g;
}

// Reachability on one round's known graph (a DAG), for streamed queries.
// The default: a path-cover index over the whole graph (closure/path_index.h,
// k·n words for k paths — about the number of sessions), built once a round
// and then a lookup per query. `--closure gpu`, or a cover too large for its
// budget: the ClosureEngine answers each batch (its own plan per call).
class RoundReach {
 public:
  RoundReach(ClosureEngine& eng, bool use_engine) : eng_(eng), use_engine_(use_engine) {}
  void reset(const Csr& g, uint64_t budget_words) {
    g_ = &g;
    indexed_ = false;
    if (use_engine_) return;
    const uint32_t n = g.vertex_count();
    std::vector<uint32_t> order;
    if (!topological_order(g, &order)) return;
    // Sinks first: a vertex's successors get smaller labels.
    label_.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) label_[order[i]] = n - 1 - i;
    std::vector<uint64_t> off(uint64_t{n} + 1, 0);
    std::vector<uint32_t> succ(g.target.size());
    for (uint32_t l = 0; l < n; ++l) {
      const uint32_t v = order[n - 1 - l];
      off[l + 1] = off[l] + (g.offset[v + 1] - g.offset[v]);
      for (uint64_t i = g.offset[v], j = off[l]; i < g.offset[v + 1]; ++i, ++j) succ[j] = label_[g.target[i]];
      std::sort(succ.begin() + off[l], succ.begin() + off[l + 1]);
    }
    std::vector<uint32_t> hint;
    if (hint_.size() == n) {
      hint.assign(n, UINT32_MAX);
      for (uint32_t v = 0; v < n; ++v)
        if (hint_[v] != UINT32_MAX) hint[label_[v]] = label_[hint_[v]];
    }
    const uint64_t limit = n ? budget_words / n : 0;
    const uint32_t k = idx_.cover(n, off, succ, hint.empty() ? nullptr : &hint,
                                  static_cast<uint32_t>(std::min<uint64_t>(limit, UINT32_MAX)));
    if (uint64_t{k} > limit) return;
    idx_.build(off, succ);
    indexed_ = true;
  }
  void set_hint(std::vector<uint32_t> next) { hint_ = next, eng_.set_path_hint(std::move(next)); }
  std::vector<uint8_t> answer(const std::vector<ReachQuery>& q) {
    if (!indexed_) return eng_.reach_queries(*g_, q);
    std::vector<uint8_t> ans(q.size());
    for (size_t i = 0; i < q.size(); ++i) ans[i] = idx_.reaches(label_[q[i].from], label_[q[i].to]);
    return ans;
  }
  bool indexed() const { return indexed_; }
  uint32_t paths() const { return indexed_ ? idx_.paths() : 0; }

 private:
  ClosureEngine& eng_;
  bool use_engine_;
  const Csr* g_ = nullptr;
  bool indexed_ = false;
  PathIndex idx_;
  std::vector<uint32_t> label_, hint_;
};

// A pair of chains of one of this rank's keys: side A = free[i] before free[j].
struct Pair {
  uint32_t key, i, j;
};

// Queries per batch: 8 bytes each plus an answer byte (1 MiB or so).
constexpr size_t kBatchQueries = size_t{1} << 17;

class ShardPruner {
 public:
  ShardPruner(const DependencyGraph& mine, RoundReach& reach) : g_(mine), reach_(reach) {
    for (const UnorderedKey& uk : mine.unordered) {
      if (uk.si_only) continue;  // SER places unread blind writes freely
      uint32_t init;
      std::vector<uint32_t> free = free_chains(mine.chains, uk, init);
      init_.push_back(init);
      pairs_ += uint64_t{free.size()} * (free.size() - (free.empty() ? 0 : 1)) / 2;
      keys_.push_back(std::move(free));
    }
  }

  // The init chain precedes every other chain of its key: certain edges.
  void init_edges(std::vector<uint32_t>& src, std::vector<uint32_t>& dst) const {
    for (size_t k = 0; k < keys_.size(); ++k)
      if (init_[k] != UINT32_MAX)
        for (uint32_t f : keys_[k]) side(init_[k], f, [&](uint32_t x, uint32_t y) { src.push_back(x), dst.push_back(y); });
  }

  uint64_t pairs() const { return pairs_; }

  // One round over the open pairs (all of them the first time) on `g`:
  // forced sides' edges that `g` does not imply go to `added`. False when a
  // pair has both sides impossible.
  bool round(std::vector<uint32_t>& add_src, std::vector<uint32_t>& add_dst) {
    std::vector<Pair> still, batch;
    size_t batch_q = 0;
    bool ok = true;
    auto flush = [&] {
      ok &= decide(batch, still, add_src, add_dst);
      batch.clear(), batch_q = 0;
    };
    auto take = [&](Pair p) {
      batch.push_back(p);
      batch_q += 2 * (edges_of(keys_[p.key][p.i]) + edges_of(keys_[p.key][p.j]));
      if (batch_q >= kBatchQueries) flush();
    };
    if (first_) {
      for (uint32_t k = 0; k < keys_.size() && ok; ++k)
        for (uint32_t i = 0; i < keys_[k].size() && ok; ++i)
          for (uint32_t j = i + 1; j < keys_[k].size() && ok; ++j) take({k, i, j});
      first_ = false;
    } else {
      for (size_t x = 0; x < open_.size() && ok; ++x) take(open_[x]);
    }
    if (ok && !batch.empty()) flush();
    open_ = std::move(still);
    return ok;
  }

  uint64_t forced() const { return forced_; }
  uint64_t queries() const { return queries_; }

  // The open pairs as constraints: per constraint (side A edges, side B
  // edges) counts, then (src, dst) of each edge.
  std::vector<uint32_t> open_stream() const {
    std::vector<uint32_t> w;
    std::vector<uint32_t> s, d;
    for (const Pair& p : open_) {
      const uint32_t a = keys_[p.key][p.i], b = keys_[p.key][p.j];
      s.clear(), d.clear();
      side(a, b, [&](uint32_t x, uint32_t y) { s.push_back(x), d.push_back(y); });
      const uint32_t na = static_cast<uint32_t>(s.size());
      side(b, a, [&](uint32_t x, uint32_t y) { s.push_back(x), d.push_back(y); });
      w.push_back(na), w.push_back(static_cast<uint32_t>(s.size()) - na);
      for (size_t e = 0; e < s.size(); ++e) w.push_back(s[e]), w.push_back(d[e]);
    }
    return w;
  }

 private:
  // "chain a entirely before chain b" as edges, as polygraph_build.cpp
  // emits them: a's tail -> b's head (WW), each reader of a's tail -> b's head (RW).
  template <class F> void side(uint32_t a_chain, uint32_t b_chain, F&& add) const {
    const VersionChain a = g_.chains.chain(a_chain), b = g_.chains.chain(b_chain);
    const TxnIdx head = b.txns.front();
    if (!a.txns.empty()) add(a.txns.back(), head);
    for (TxnIdx r : a.readers_of_tail)
      if (r != head) add(r, head);
  }
  size_t edges_of(uint32_t chain) const { return 1 + g_.chains.chain(chain).readers_of_tail.size(); }

  // Per pair: for each side's edge x -> y two queries, y ⇝ x (the side is
  // impossible) and x ⇝ y (the edge is implied: not added when forced).
  bool decide(const std::vector<Pair>& batch, std::vector<Pair>& still, std::vector<uint32_t>& add_src,
              std::vector<uint32_t>& add_dst) {
    q_.clear();
    for (const Pair& p : batch) {
      const uint32_t a = keys_[p.key][p.i], b = keys_[p.key][p.j];
      auto ask = [&](uint32_t x, uint32_t y) {
        if (x != y) q_.push_back({y, x}), q_.push_back({x, y});
      };
      side(a, b, ask), side(b, a, ask);
    }
    queries_ += q_.size();
    const std::vector<uint8_t> ans = reach_.answer(q_);
    size_t k = 0;
    for (const Pair& p : batch) {
      const uint32_t a = keys_[p.key][p.i], b = keys_[p.key][p.j];
      bool impossible[2] = {false, false};
      size_t start[2];
      for (int s = 0; s < 2; ++s) {
        start[s] = k;
        auto look = [&](uint32_t x, uint32_t y) {
          if (x == y) impossible[s] = true;
          else impossible[s] |= ans[k] != 0, k += 2;
        };
        s ? side(b, a, look) : side(a, b, look);
      }
      if (impossible[0] && impossible[1]) return false;
      if (!impossible[0] && !impossible[1]) {
        still.push_back(p);
        continue;
      }
      ++forced_;
      const int f = impossible[0] ? 1 : 0;  // the side every acyclic choice takes
      size_t at = start[f];
      auto add = [&](uint32_t x, uint32_t y) {
        if (!ans[at + 1]) add_src.push_back(x), add_dst.push_back(y);
        at += 2;
      };
      f ? side(b, a, add) : side(a, b, add);
    }
    return true;
  }

  const DependencyGraph& g_;
  RoundReach& reach_;
  std::vector<std::vector<uint32_t>> keys_;           // per key: its free chains
  std::vector<uint32_t> init_;                        // per key: its init chain, or UINT32_MAX
  std::vector<Pair> open_;
  std::vector<ReachQuery> q_;
  bool first_ = true;
  uint64_t pairs_ = 0, forced_ = 0, queries_ = 0;
};

}  // namespace

GeneralOnShards decide_general_on_shards(uint32_t n, std::vector<uint32_t> src, std::vector<uint32_t> dst,
                                         std::vector<uint32_t> so_next, const DependencyGraph& mine,
                                         const CheckOptions& opt) {
  const int P = size(), me = rank();
  GeneralOnShards out;
  // The reachability engine: one per rank, for its slice of the endpoints.
  std::unique_ptr<ClosureEngine> eng;
  if (opt.closure == ClosureChoice::gpu) eng = make_closure_engine("gpu", opt.threads);
  int missing = opt.closure == ClosureChoice::gpu && !eng;
  if (max_all(missing)) {
    out.why = "--closure gpu: no such engine in this build or no device present";
    return out;
  }
  if (!eng) {
    CpuClosureOptions co;
    co.threads = opt.threads;
    eng = std::make_unique<CpuClosure>(co);
  }
  // `--closure auto`: the path index; an engine named (cpu, gpu): that
  // engine answers every batch.
  RoundReach reach(*eng, opt.closure != ClosureChoice::automatic);
  if (n <= INT32_MAX) {  // session order (whichever rank holds it) as the path cover's first choice
    so_next.resize(n, UINT32_MAX);
    MPI_Allreduce(MPI_IN_PLACE, so_next.data(), static_cast<int>(n), MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD);
    reach.set_hint(std::move(so_next));
  }
  ShardPruner pruner(mine, reach);
  // What the shard stage freed goes back to the system before the graph
  // arrives (the resident size is what --memory-limit watches).
  release_free_memory();
  out.pairs = sum_all(pruner.pairs());
  pruner.init_edges(src, dst);
  // The known graph on every rank.
  {
    std::vector<uint32_t> s = allgather_records(src, "general-engine edge ends");
    std::vector<uint32_t>().swap(src);
    std::vector<uint32_t> d = allgather_records(dst, "general-engine edge ends");
    std::vector<uint32_t>().swap(dst);
    src = std::move(s), dst = std::move(d);
  }
  auto finish = [&](bool ok, const char* why) {
    out.known_edges = src.size();
    out.forced = sum_all(pruner.forced());
    out.queries = sum_all(pruner.queries());
    if (!ok) out.why = why;
    return out;
  };
  Csr g = csr_of(n, src, dst);
  if (!is_acyclic(g)) return finish(false, "the known graph has a cycle");
  // The path index may take 64 words a transaction, at least 2^24 words.
  const uint64_t index_words = std::max<uint64_t>(uint64_t{1} << 24, 64 * uint64_t{n});
  // Pruning to the fixpoint: rounds over the open pairs, forced edges shared.
  while (true) {
    ++out.rounds;
    std::vector<uint32_t> add_src, add_dst;
    reach.reset(g, index_words);
    const int conflict = max_all(!pruner.round(add_src, add_dst));
    if (conflict) return finish(false, "a pair of chains with both orders impossible");
    const uint64_t added = sum_all(add_src.size());
    const uint64_t forced_so_far = sum_all(pruner.forced());
    if (added == 0) {
      // Nothing new in the graph: a further round would decide nothing more
      // (pairs forced with only implied edges change no reachability).
      out.forced = forced_so_far;
      break;
    }
    out.forced_edges += added;
    {
      std::vector<uint32_t> s = allgather_records(add_src, "general-engine edge ends"),
                            d = allgather_records(add_dst, "general-engine edge ends");
      src.insert(src.end(), s.begin(), s.end());
      dst.insert(dst.end(), d.begin(), d.end());
    }
    g = Csr();
    g = csr_of(n, src, dst);
    if (!is_acyclic(g)) return finish(false, "forced version orders close a cycle");
  }
  g = Csr();
  out.known_edges = src.size();
  out.queries = sum_all(pruner.queries());
  // The open constraints on every rank (few after pruning), then the
  // strongly connected components of known ∪ every choice edge: a cycle of
  // any choice lies inside one, so the SAT search needs only the cyclic
  // components, the known edges inside them and the constraints' inside
  // edges (a side left without any is free to take: the constraint drops).
  const std::vector<uint32_t> w = allgather_records(pruner.open_stream(), "general-engine write pairs");
  const uint64_t known_m = src.size();
  for (size_t p = 0; p < w.size();) {
    const uint32_t edges = w[p] + w[p + 1];
    p += 2;
    for (uint32_t e = 0; e < edges; ++e, p += 2) src.push_back(w[p]), dst.push_back(w[p + 1]);
    ++out.to_solver;
  }
  if (out.to_solver == 0) {
    out.settled = true;
    return out;
  }
  Polygraph pg;
  {
    Scc scc = strongly_connected(csr_of(n, src, dst));
    src.resize(known_m), dst.resize(known_m);
    std::vector<uint32_t> local(n, UINT32_MAX);
    for (uint32_t v = 0; v < n; ++v)
      if (scc.cyclic[scc.comp[v]]) local[v] = pg.vertex_count++;
    auto inside = [&](uint32_t x, uint32_t y) { return local[x] != UINT32_MAX && scc.comp[x] == scc.comp[y]; };
    for (uint64_t i = 0; i < known_m; ++i)
      if (inside(src[i], dst[i])) pg.known.add(local[src[i]], local[dst[i]], EdgeKind::aux);
    std::vector<uint32_t>().swap(src), std::vector<uint32_t>().swap(dst);
    for (size_t p = 0; p < w.size();) {
      const uint32_t na = w[p], nb = w[p + 1];
      p += 2;
      Constraint c;
      const uint64_t mark = pg.choice_edges.size();
      c.a_begin = mark;
      for (uint32_t e = 0; e < na + nb; ++e, p += 2) {
        if (e == na) c.a_end = c.b_begin = pg.choice_edges.size();
        if (inside(w[p], w[p + 1])) pg.choice_edges.add(local[w[p]], local[w[p + 1]], EdgeKind::aux);
      }
      if (na == 0) c.a_end = c.b_begin = c.a_begin;
      c.b_end = pg.choice_edges.size();
      if (c.a_end == c.a_begin || c.b_end == c.b_begin) {  // a side that can close no cycle
        for (auto* v : {&pg.choice_edges.src, &pg.choice_edges.dst}) v->resize(mark);
        pg.choice_edges.why.resize(mark), pg.choice_edges.kind.resize(mark);
        continue;
      }
      pg.constraints.push_back(c);
    }
  }
  release_free_memory();
  Split sp = split_polygraph(pg, 8);
  pg = Polygraph();
  // Only the verdict matters here (a violation is gathered for its witness):
  // the maps back to the parent polygraph go, and the pieces of other ranks.
  for (size_t k = 0; k < sp.parts.size(); ++k) {
    Subproblem& part = sp.parts[k];
    if (k % static_cast<size_t>(P) != static_cast<size_t>(me)) part = Subproblem();
    std::vector<uint32_t>().swap(part.vertex), std::vector<uint32_t>().swap(part.constraint);
    std::vector<EdgeRef>().swap(part.known_ref), std::vector<uint64_t>().swap(part.choice_ref);
  }
  out.subproblems = sp.parts.size();
  // Pieces k ≡ rank (mod P): 0 all satisfiable, 1 undecided, 2 unsatisfiable.
  int worst = 0;
  for (size_t k = static_cast<size_t>(me); k < sp.parts.size() && worst < 2; k += static_cast<size_t>(P)) {
    const SatResult r = opt.cadical ? solve_cadical(sp.parts[k].pg) : solve_own(sp.parts[k].pg);
    sp.parts[k] = Subproblem();
    worst = std::max(worst, r.status == SatStatus::sat ? 0 : r.status == SatStatus::unsat ? 2 : 1);
  }
  worst = max_all(worst);
  if (worst == 0) out.settled = true;
  else out.why = worst == 2 ? "an unsatisfiable piece" : "a piece the SAT search left undecided";
  return out;
}

}  // namespace isocheck::dist

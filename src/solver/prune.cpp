#include "solver/prune.h"

#include <algorithm>
#include <memory>

#include "closure/graph_algos.h"
#include "solver/pk_order.h"

namespace isocheck {

namespace {

struct Current {  // known ∪ forced sides, with where each edge came from
  EdgeList e;
  std::vector<EdgeRef> ref;
  std::vector<uint32_t> owner;  // constraint that forced it, UINT32_MAX for known
  std::vector<uint32_t> round;  // round that added it (0: known)
};

// Shortest path from -> to using only edges added before round `before`.
std::vector<uint64_t> path_before(const Csr& g, const std::vector<uint32_t>& round, uint32_t from, uint32_t to,
                                  uint32_t before, std::vector<uint64_t>& via) {
  via.assign(g.vertex_count(), UINT64_MAX);
  std::vector<uint32_t> q{from};
  via[from] = UINT64_MAX - 1;
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t x = q[h];
    for (uint64_t i = g.offset[x]; i < g.offset[x + 1]; ++i) {
      const uint32_t y = g.target[i];
      if (via[y] != UINT64_MAX || round[g.edge_id[i]] >= before) continue;
      via[y] = i;
      if (y == to) {
        std::vector<uint64_t> ids;
        for (uint32_t z = to; z != from;) {
          const uint64_t s = via[z];
          ids.push_back(g.edge_id[s]);
          z = static_cast<uint32_t>(std::upper_bound(g.offset.begin(), g.offset.end(), s) - g.offset.begin() - 1);
        }
        std::reverse(ids.begin(), ids.end());
        return ids;
      }
      q.push_back(y);
    }
  }
  return {};
}

// The core is closed under reasons: a forced constraint brings the
// constraints whose forced edges made its other side close a cycle (a path
// over edges added before it was forced).
void close_core(const Polygraph& pg, const Current& cur, const std::vector<uint32_t>& forced_round,
                const std::vector<uint64_t>& forced_block, size_t max_explanations, PruneResult& r) {
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  if (r.unsat && !r.core.empty()) {
    const Csr g = build_csr(pg.vertex_count, cur.e);
    std::vector<uint8_t> in(nc, 0);
    std::vector<uint32_t> work = r.core;
    for (uint32_t c : work) in[c] = 1;
    std::vector<uint64_t> via;
    size_t explained = 0;
    while (!work.empty()) {
      const uint32_t c = work.back();
      work.pop_back();
      if (forced_round[c] == 0) continue;  // the contradicted constraint
      if (++explained > max_explanations) {  // give up: every forced constraint (still a core)
        for (uint32_t k = 0; k < nc; ++k)
          if (r.state[k] != PruneResult::undecided) r.core.push_back(k);
        break;
      }
      const uint64_t b = forced_block[c];
      const uint32_t x = pg.choice_edges.src[b], y = pg.choice_edges.dst[b];
      if (x == y) continue;
      for (uint64_t id : path_before(g, cur.round, y, x, forced_round[c], via))
        if (cur.owner[id] != UINT32_MAX && !in[cur.owner[id]]) in[cur.owner[id]] = 1, r.core.push_back(cur.owner[id]), work.push_back(cur.owner[id]);
    }
  }
  std::sort(r.core.begin(), r.core.end());
  r.core.erase(std::unique(r.core.begin(), r.core.end()), r.core.end());
}

constexpr uint32_t kNil = UINT32_MAX;

// Known edges (CSR, forward and reverse) plus forced edges added one at a
// time (linked lists per vertex), with a topological order kept valid by
// Pearce–Kelly insertion.
class DynamicDag {
 public:
  DynamicDag(const Csr& g, std::vector<uint32_t> topo) : g_(g), n_(g.vertex_count()) {
    ord_.resize(n_);
    for (uint32_t i = 0; i < n_; ++i) ord_[topo[i]] = i;
    topo = {};
    // Reverse adjacency of the known graph (targets only).
    roff_.assign(uint64_t{n_} + 1, 0);
    for (uint32_t t : g_.target) ++roff_[t + 1];
    for (uint32_t v = 0; v < n_; ++v) roff_[v + 1] += roff_[v];
    rsrc_.resize(g_.target.size());
    std::vector<uint64_t> pos(roff_.begin(), roff_.end() - 1);
    for (uint32_t v = 0; v < n_; ++v)
      for (uint64_t i = g_.offset[v]; i < g_.offset[v + 1]; ++i) rsrc_[pos[g_.target[i]]++] = v;
    fhead_.assign(n_, kNil), rhead_.assign(n_, kNil), mark_.assign(n_, 0);
  }

  // Is there a path d ⇝ a (d != a)?
  bool reaches(uint32_t d, uint32_t a) { return ord_[d] <= ord_[a] && search_forward(d, a, nullptr); }

  // Adds x -> y; false when it closes a cycle (the edge is added anyway).
  bool insert(uint32_t x, uint32_t y) {
    const uint32_t e = static_cast<uint32_t>(fdst_.size());
    fdst_.push_back(y), fsrc_.push_back(x);
    fnext_.push_back(fhead_[x]), fhead_[x] = e;
    rnext_.push_back(rhead_[y]), rhead_[y] = e;
    if (x == y) return false;
    if (ord_[x] < ord_[y]) return true;
    // Pearce–Kelly: the affected region is [ord(y), ord(x)].
    const uint32_t lb = ord_[y];
    fwd_.clear(), bwd_.clear();
    if (search_forward(y, x, &fwd_)) return false;
    const uint32_t st = next_stamp();
    stack_.assign(1, x), mark_[x] = st;
    while (!stack_.empty()) {
      const uint32_t v = stack_.back();
      stack_.pop_back();
      bwd_.push_back(v);
      auto visit = [&](uint32_t w) {
        if (ord_[w] > lb && mark_[w] != st) mark_[w] = st, stack_.push_back(w);
      };
      for (uint64_t i = roff_[v]; i < roff_[v + 1]; ++i) visit(rsrc_[i]);
      for (uint32_t k = rhead_[v]; k != kNil; k = rnext_[k]) visit(fsrc_[k]);
    }
    // Everything that reaches x goes before everything y reaches.
    pk_reorder(ord_, fwd_, bwd_, pool_);
    return true;
  }

 private:
  // Depth-first from `from` over known and forced edges, through vertices
  // ordered before `to`: true when it reaches `to`. Every vertex it expands
  // goes to *expanded (if given).
  bool search_forward(uint32_t from, uint32_t to, std::vector<uint32_t>* expanded) {
    const uint32_t lim = ord_[to];
    const uint32_t st = next_stamp();
    stack_.assign(1, from), mark_[from] = st;
    while (!stack_.empty()) {
      const uint32_t v = stack_.back();
      stack_.pop_back();
      if (expanded) expanded->push_back(v);
      bool found = false;
      auto visit = [&](uint32_t w) {
        if (w == to) { found = true; return; }
        if (ord_[w] < lim && mark_[w] != st) mark_[w] = st, stack_.push_back(w);
      };
      for (uint64_t i = g_.offset[v]; i < g_.offset[v + 1] && !found; ++i) visit(g_.target[i]);
      for (uint32_t e = fhead_[v]; e != kNil && !found; e = fnext_[e]) visit(fdst_[e]);
      if (found) return true;
    }
    return false;
  }

  uint32_t next_stamp() {
    if (++stamp_ == 0) std::fill(mark_.begin(), mark_.end(), 0), stamp_ = 1;
    return stamp_;
  }
  const Csr& g_;
  uint32_t n_;
  std::vector<uint32_t> ord_;
  std::vector<uint64_t> roff_;
  std::vector<uint32_t> rsrc_;
  std::vector<uint32_t> fhead_, rhead_, fnext_, rnext_, fsrc_, fdst_;
  std::vector<uint32_t> mark_, stack_, fwd_, bwd_, pool_;
  uint32_t stamp_ = 0;
};

PruneResult prune_incremental(const Polygraph& pg, const PruneOptions& o) {
  PruneResult r;
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  r.constraints = nc;
  r.state.assign(nc, PruneResult::undecided);
  std::vector<uint32_t> forced_round(nc, 0);  // sequence number of the forcing (1, 2, ...)
  std::vector<uint64_t> forced_block(nc, UINT64_MAX);
  std::vector<uint32_t> forced_order;         // constraints in the order they were forced
  // Evidence (only on unsat): known ∪ forced edges, each with its origin.
  auto current = [&](uint32_t extra_constraint, int extra_side) {
    Current cur;
    const uint64_t m = pg.known.size();
    cur.e.src = pg.known.src, cur.e.dst = pg.known.dst;
    cur.e.why.assign(m, 0), cur.e.kind.assign(m, EdgeKind::aux);
    cur.ref.reserve(m), cur.owner.assign(m, UINT32_MAX), cur.round.assign(m, 0);
    for (uint64_t i = 0; i < m; ++i) cur.ref.push_back({false, i});
    auto add = [&](uint32_t c, int side) {
      const Constraint& k = pg.constraints[c];
      const uint64_t b = side ? k.b_begin : k.a_begin, e = side ? k.b_end : k.a_end;
      for (uint64_t i = b; i < e; ++i) {
        cur.e.add(pg.choice_edges.src[i], pg.choice_edges.dst[i], EdgeKind::aux);
        cur.ref.push_back({true, i}), cur.owner.push_back(c), cur.round.push_back(forced_round[c]);
      }
    };
    for (uint32_t c : forced_order)
      if (c != extra_constraint) add(c, r.state[c] == PruneResult::forced_b);
    if (extra_constraint != UINT32_MAX) add(extra_constraint, extra_side);
    return cur;
  };
  auto refs_of = [&](const Current& cur, const std::vector<uint64_t>& ids, std::vector<EdgeRef>& out) {
    for (uint64_t id : ids) {
      out.push_back(cur.ref[id]);
      if (cur.owner[id] != UINT32_MAX) r.core.push_back(cur.owner[id]);
    }
  };
  const Csr g = build_csr(pg.vertex_count, pg.known);
  std::vector<uint32_t> topo;
  if (!topological_order(g, &topo)) {
    r.unsat = true;
    const Current cur = current(UINT32_MAX, 0);
    refs_of(cur, short_cycle(g), r.cycle_a);
    close_core(pg, cur, forced_round, forced_block, o.max_explanations, r);
    r.remaining = nc;
    return r;
  }
  DynamicDag dag(g, std::move(topo));
  uint32_t seq = 0;
  bool changed = true;
  uint64_t blocking[2];
  while (changed && !r.unsat && r.rounds < o.max_rounds) {
    changed = false;
    ++r.rounds;
    for (uint32_t c = 0; c < nc && !r.unsat; ++c) {
      if (r.state[c] != PruneResult::undecided) continue;
      const Constraint& k = pg.constraints[c];
      bool impossible[2] = {false, false};
      for (int s = 0; s < 2; ++s) {
        const uint64_t b = s ? k.b_begin : k.a_begin, e = s ? k.b_end : k.a_end;
        for (uint64_t i = b; i < e && !impossible[s]; ++i) {
          const uint32_t a = pg.choice_edges.src[i], d = pg.choice_edges.dst[i];
          if (a == d || dag.reaches(d, a)) impossible[s] = true, blocking[s] = i;
        }
      }
      if (impossible[0] && impossible[1]) {
        r.unsat = true;
        r.conflict_constraint = c;
        r.core.push_back(c);
        const Current cur = current(UINT32_MAX, 0);
        const Csr cg = build_csr(pg.vertex_count, cur.e);
        for (int s = 0; s < 2; ++s) {
          const uint64_t i = blocking[s];
          auto& cyc = s ? r.cycle_b : r.cycle_a;
          cyc.push_back({true, i});
          const uint32_t a = pg.choice_edges.src[i], d = pg.choice_edges.dst[i];
          if (a != d) refs_of(cur, find_path(cg, d, a), cyc);
        }
        close_core(pg, cur, forced_round, forced_block, o.max_explanations, r);
        break;
      }
      if (!impossible[0] && !impossible[1]) continue;
      const int side = impossible[0] ? 1 : 0;
      r.state[c] = side ? PruneResult::forced_b : PruneResult::forced_a;
      forced_round[c] = ++seq;
      forced_block[c] = blocking[side ? 0 : 1];
      forced_order.push_back(c);
      ++r.pruned;
      changed = true;
      bool ok = true;
      for (uint64_t i = side ? k.b_begin : k.a_begin; i < (side ? k.b_end : k.a_end); ++i)
        ok &= dag.insert(pg.choice_edges.src[i], pg.choice_edges.dst[i]);
      if (!ok) {  // the forced side's edges together close a cycle
        r.unsat = true;
        const Current cur = current(UINT32_MAX, 0);
        refs_of(cur, short_cycle(build_csr(pg.vertex_count, cur.e)), r.cycle_a);
        close_core(pg, cur, forced_round, forced_block, o.max_explanations, r);
      }
    }
  }
  r.remaining = r.constraints - r.pruned;
  return r;
}

}  // namespace

PruneResult prune_closure(const Polygraph& pg, const PruneOptions& o);

PruneResult prune(const Polygraph& pg, const PruneOptions& o) {
  PruneMethod m = o.method;
  if (m == PruneMethod::automatic) {
    // Queries = choice edges. Few against the graph's size: bounded searches
    // in a maintained order beat recomputing a closure per round.
    const uint64_t q = pg.choice_edges.size();
    m = (q <= 200000 || q <= uint64_t{pg.vertex_count} / 2) ? PruneMethod::incremental : PruneMethod::closure;
  }
  return m == PruneMethod::incremental ? prune_incremental(pg, o) : prune_closure(pg, o);
}

PruneResult prune_closure(const Polygraph& pg, const PruneOptions& o) {
  PruneResult r;
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  r.constraints = nc;
  r.state.assign(nc, PruneResult::undecided);
  std::unique_ptr<ClosureEngine> own;
  ClosureEngine* eng = o.engine;
  if (!eng) {
    CpuClosureOptions co;
    co.threads = o.threads;
    own = std::make_unique<CpuClosure>(co);
    eng = own.get();
  }
  {  // session order: a path cover for engines that index by paths
    std::vector<uint32_t> next(pg.vertex_count, UINT32_MAX);
    for (uint64_t i = 0; i < pg.known.size(); ++i)
      if (pg.known.kind[i] == EdgeKind::so && next[pg.known.src[i]] == UINT32_MAX) next[pg.known.src[i]] = pg.known.dst[i];
    eng->set_path_hint(std::move(next));
  }
  Current cur;
  cur.e.src = pg.known.src, cur.e.dst = pg.known.dst;
  cur.e.why.assign(pg.known.size(), 0), cur.e.kind.assign(pg.known.size(), EdgeKind::aux);
  for (uint64_t i = 0; i < pg.known.size(); ++i) cur.ref.push_back({false, i}), cur.owner.push_back(UINT32_MAX), cur.round.push_back(0);
  std::vector<uint32_t> forced_round(nc, 0);
  std::vector<uint64_t> forced_block(nc, UINT64_MAX);
  auto add_side = [&](uint32_t c, int side) {
    const Constraint& k = pg.constraints[c];
    const uint64_t b = side ? k.b_begin : k.a_begin, e = side ? k.b_end : k.a_end;
    for (uint64_t i = b; i < e; ++i) {
      cur.e.add(pg.choice_edges.src[i], pg.choice_edges.dst[i], EdgeKind::aux);
      cur.ref.push_back({true, i}), cur.owner.push_back(c), cur.round.push_back(static_cast<uint32_t>(r.rounds));
    }
  };
  auto refs_of = [&](const std::vector<uint64_t>& ids, std::vector<EdgeRef>& out) {
    for (uint64_t id : ids) {
      out.push_back(cur.ref[id]);
      if (cur.owner[id] != UINT32_MAX) r.core.push_back(cur.owner[id]);
    }
  };
  auto finish_core = [&] { close_core(pg, cur, forced_round, forced_block, o.max_explanations, r); };
  // The graph of the current edges, the known graph first: a round that
  // forces sides rebuilds it to test for a cycle, and the next round asks its
  // queries on that same graph.
  Csr g = build_csr(pg.vertex_count, cur.e);
  if (!is_acyclic(g)) {
    r.unsat = true;
    refs_of(short_cycle(g), r.cycle_a);
    finish_core();
    r.remaining = nc;
    return r;
  }
  std::vector<ReachQuery> q;
  std::vector<uint32_t> q_owner;  // query -> constraint * 2 + side
  std::vector<uint64_t> q_edge;   // query -> choice edge index
  bool changed = true;
  while (changed && r.rounds < o.max_rounds) {
    changed = false;
    ++r.rounds;
    q.clear(), q_owner.clear(), q_edge.clear();
    std::vector<uint8_t> impossible(2 * uint64_t{nc}, 0);
    std::vector<uint64_t> blocking(2 * uint64_t{nc}, UINT64_MAX);  // the edge that closes a cycle
    for (uint32_t c = 0; c < nc; ++c) {
      if (r.state[c] != PruneResult::undecided) continue;
      const Constraint& k = pg.constraints[c];
      for (int s = 0; s < 2; ++s) {
        const uint64_t b = s ? k.b_begin : k.a_begin, e = s ? k.b_end : k.a_end;
        for (uint64_t i = b; i < e; ++i) {
          const uint32_t a = pg.choice_edges.src[i], d = pg.choice_edges.dst[i];
          if (a == d) {
            if (!impossible[2 * c + s]) impossible[2 * c + s] = 1, blocking[2 * c + s] = i;
            continue;
          }
          q.push_back({d, a}), q_owner.push_back(2 * c + s), q_edge.push_back(i);
        }
      }
    }
    const std::vector<uint8_t> ans = eng->reach_queries(g, q);
    for (size_t i = 0; i < q.size(); ++i)
      if (ans[i] && !impossible[q_owner[i]]) impossible[q_owner[i]] = 1, blocking[q_owner[i]] = q_edge[i];
    for (uint32_t c = 0; c < nc; ++c) {
      if (r.state[c] != PruneResult::undecided) continue;
      const bool ia = impossible[2 * c], ib = impossible[2 * c + 1];
      if (ia && ib) {
        r.unsat = true;
        r.conflict_constraint = c;
        r.core.push_back(c);
        for (int s = 0; s < 2; ++s) {
          const uint64_t i = blocking[2 * c + s];
          auto& cyc = s ? r.cycle_b : r.cycle_a;
          cyc.push_back({true, i});
          const uint32_t a = pg.choice_edges.src[i], d = pg.choice_edges.dst[i];
          if (a != d) refs_of(find_path(g, d, a), cyc);
        }
        break;
      }
      if (ia || ib) {
        r.state[c] = ia ? PruneResult::forced_b : PruneResult::forced_a;
        forced_round[c] = static_cast<uint32_t>(r.rounds);
        forced_block[c] = blocking[2 * c + (ia ? 0 : 1)];
        add_side(c, ia ? 1 : 0);
        ++r.pruned;
        changed = true;
      }
    }
    if (r.unsat) break;
    if (changed) {
      // Forced sides decided in one round may close a cycle together.
      g = build_csr(pg.vertex_count, cur.e);
      if (!is_acyclic(g)) {
        r.unsat = true;
        refs_of(short_cycle(g), r.cycle_a);
        break;
      }
    }
  }
  finish_core();
  r.remaining = r.constraints - r.pruned;
  return r;
}

}  // namespace isocheck

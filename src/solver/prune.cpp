#include "solver/prune.h"

#include <algorithm>
#include <memory>

#include "closure/graph_algos.h"

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

}  // namespace

PruneResult prune(const Polygraph& pg, const PruneOptions& o) {
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
  // The core is closed under reasons: a forced constraint brings the
  // constraints whose forced edges made its other side close a cycle.
  auto finish_core = [&] {
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
        if (++explained > o.max_explanations) {  // give up: every forced constraint (still a core)
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
  };
  // The known graph itself.
  {
    const Csr g = build_csr(pg.vertex_count, cur.e);
    if (!is_acyclic(g)) {
      r.unsat = true;
      refs_of(short_cycle(g), r.cycle_a);
      finish_core();
      r.remaining = nc;
      return r;
    }
  }
  std::vector<ReachQuery> q;
  std::vector<uint32_t> q_owner;  // query -> constraint * 2 + side
  std::vector<uint64_t> q_edge;   // query -> choice edge index
  bool changed = true;
  while (changed && r.rounds < o.max_rounds) {
    changed = false;
    ++r.rounds;
    const Csr g = build_csr(pg.vertex_count, cur.e);
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
      const Csr g2 = build_csr(pg.vertex_count, cur.e);
      if (!is_acyclic(g2)) {
        r.unsat = true;
        refs_of(short_cycle(g2), r.cycle_a);
        break;
      }
    }
  }
  finish_core();
  r.remaining = r.constraints - r.pruned;
  return r;
}

}  // namespace isocheck

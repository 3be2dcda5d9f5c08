#include "solver/cadical_backend.h"

#include <cadical.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "closure/graph_algos.h"

namespace isocheck {

namespace {

class Stopper : public CaDiCaL::Terminator {
 public:
  Stopper(const SatLimits& l) : lim_(l), t0_(std::chrono::steady_clock::now()) {}
  bool terminate() override {
    if (lim_.stop && lim_.stop->load(std::memory_order_relaxed)) return true;
    if (std::isfinite(lim_.time_s))
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() > lim_.time_s;
    return false;
  }

 private:
  SatLimits lim_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

SatResult solve_cadical(const Polygraph& pg, const SatLimits& limits, const CadicalOptions& o) {
  SatResult r;
  const uint32_t nv = static_cast<uint32_t>(pg.constraints.size());
  const uint64_t nk = pg.known.size();
  // Graph of known ∪ chosen: known edges are ids [0, nk); chosen choice edges follow.
  EdgeList g;
  std::vector<EdgeRef> ref;
  std::vector<int> owner;  // DIMACS literal made true by choosing the edge (0: known)
  std::vector<uint8_t> in_core(nv, 0), best_side(nv, 0);
  std::vector<EdgeRef> best;
  auto reset_graph = [&] {
    g.clear(), ref.clear(), owner.clear();
    for (uint64_t i = 0; i < nk; ++i) g.add(pg.known.src[i], pg.known.dst[i], EdgeKind::aux), ref.push_back({false, i}), owner.push_back(0);
  };
  auto finish_unsat = [&] {
    r.status = SatStatus::unsat;
    for (uint32_t v = 0; v < nv; ++v)
      if (in_core[v]) r.core.push_back(v);
    r.cycle = best, r.side = best_side;
  };
  CaDiCaL::Solver s;
  s.set("quiet", 1);
  Stopper stop(limits);
  s.connect_terminator(&stop);
  // Phases: nothing; variables exist implicitly (1..nv).
  if (nv > 0) s.reserve(static_cast<int>(nv));
  std::vector<int> clause;
  for (;;) {
    ++r.stats.solver_calls;
    const int res = nv == 0 ? 10 : s.solve();
    if (res == 20) { finish_unsat(); break; }
    if (res != 10) break;  // unknown
    reset_graph();
    std::vector<uint8_t> side(nv, 0);
    for (uint32_t v = 0; v < nv; ++v) {
      side[v] = s.val(static_cast<int>(v + 1)) > 0 ? 0 : 1;
      const Constraint& c = pg.constraints[v];
      const uint64_t b = side[v] ? c.b_begin : c.a_begin, e = side[v] ? c.b_end : c.a_end;
      const int lit = side[v] ? -static_cast<int>(v + 1) : static_cast<int>(v + 1);
      for (uint64_t i = b; i < e; ++i) g.add(pg.choice_edges.src[i], pg.choice_edges.dst[i], EdgeKind::aux), ref.push_back({true, i}), owner.push_back(lit);
    }
    const Csr csr = build_csr(pg.vertex_count, g);
    if (is_acyclic(csr)) {
      r.status = SatStatus::sat;
      r.side = std::move(side);
      break;
    }
    // One short cycle per cyclic component (up to cycles_per_round).
    const Scc scc = strongly_connected(csr);
    std::vector<uint32_t> first(scc.count, UINT32_MAX);
    for (uint32_t v = 0; v < pg.vertex_count; ++v)
      if (scc.cyclic[scc.comp[v]] && first[scc.comp[v]] == UINT32_MAX) first[scc.comp[v]] = v;
    uint32_t added = 0;
    bool empty_clause = false;
    std::vector<uint8_t> inside(pg.vertex_count, 0);
    for (uint32_t c = 0; c < scc.count && added < o.cycles_per_round; ++c) {
      if (!scc.cyclic[c]) continue;
      for (uint32_t v = 0; v < pg.vertex_count; ++v) inside[v] = scc.comp[v] == c;
      auto cyc = find_path(csr, first[c], first[c], &inside);
      clause.clear();
      for (uint64_t e : cyc)
        if (owner[e] != 0) clause.push_back(-owner[e]);
      std::sort(clause.begin(), clause.end());
      clause.erase(std::unique(clause.begin(), clause.end()), clause.end());
      if (best.empty() || cyc.size() < best.size()) {
        best.clear(), std::fill(best_side.begin(), best_side.end(), 0);
        for (uint64_t e : cyc) {
          best.push_back(ref[e]);
          if (owner[e] != 0) best_side[std::abs(owner[e]) - 1] = owner[e] < 0;
        }
      }
      ++r.stats.theory_conflicts;
      if (clause.empty()) { empty_clause = true; break; }
      for (int l : clause) in_core[std::abs(l) - 1] = 1, s.add(l);
      s.add(0);
      ++added;
    }
    if (empty_clause) { finish_unsat(); break; }
  }
  s.disconnect_terminator();
  return r;
}

}  // namespace isocheck

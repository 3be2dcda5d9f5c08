#include "solver/polygraph_solver.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <mutex>

#include "closure/graph_algos.h"
#include "solver/cadical_backend.h"
#include "solver/prune.h"
#include "solver/sat_core.h"
#include "solver/sat_solver.h"
#include "solver/subproblems.h"
#include "core/threads.h"

namespace isocheck {

namespace {

void copy_edge(const Polygraph& pg, EdgeRef r, EdgeList& out) {
  const EdgeList& l = r.choice ? pg.choice_edges : pg.known;
  out.add(l.src[r.index], l.dst[r.index], l.kind[r.index], l.why[r.index]);
}

// Rotate a cycle so that it starts at its smallest vertex (a stable form).
void canonical_rotation(EdgeList& c) {
  if (c.size() < 2) return;
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (c.src[i] < c.src[best]) best = i;
  auto rot = [&](auto& v) { std::rotate(v.begin(), v.begin() + best, v.end()); };
  rot(c.src), rot(c.dst), rot(c.why), rot(c.kind);
}

SatBackendFn make_backend(Backend b) {
  if (b == Backend::own) return [](const Polygraph& p, const SatLimits& l) { return solve_own(p, l); };
  return [](const Polygraph& p, const SatLimits& l) { return solve_cadical(p, l); };
}

}  // namespace

PolygraphResult solve_polygraph(const Polygraph& pg, const SolveOptions& opt) {
  PolygraphResult out;
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  out.constraints = nc;
  out.side.assign(nc, 0);
  // 1. Prune (checks the known graph first; with no constraints that is all).
  PruneOptions po;
  po.engine = opt.closure;
  po.threads = opt.threads;
  const PruneResult pr = prune(pg, po);
  out.pruned = pr.pruned;
  if (pr.unsat) {
    out.acyclic = false;
    const auto& cyc = (pr.cycle_b.empty() || pr.cycle_a.size() <= pr.cycle_b.size()) ? pr.cycle_a : pr.cycle_b;
    for (uint32_t c = 0; c < nc; ++c)
      if (pr.state[c] != PruneResult::undecided) out.side[c] = pr.state[c] == PruneResult::forced_b;
    if (pr.conflict_constraint != UINT32_MAX) out.side[pr.conflict_constraint] = &cyc == &pr.cycle_b;
    for (EdgeRef r : cyc) copy_edge(pg, r, out.witness_cycle);
    canonical_rotation(out.witness_cycle);
    out.core_constraints = pr.core;
    out.core_minimal = pr.core.size() <= 1;
    if (!out.core_minimal && opt.core_budget_s > 0) {
      CoreResult cr = shrink_core(pg, pr.core, make_backend(opt.backend), opt.core_budget_s);
      if (cr.core.size() < pr.core.size() || cr.minimal) out.core_constraints = cr.core, out.core_minimal = cr.minimal;
    }
    return out;
  }
  // 2.–3. Split; pruning's forced sides count as known (no copy of the graph).
  std::vector<uint8_t> fixed(nc, 2);
  for (uint32_t c = 0; c < nc; ++c)
    if (pr.state[c] != PruneResult::undecided) fixed[c] = pr.state[c] == PruneResult::forced_b;
  Split sp = split_polygraph(pg, 8, &fixed);
  fixed = {};
  out.fixed_by_split = sp.fixed;
  for (uint32_t c = 0; c < nc; ++c)
    if (sp.side[c] != 2) out.side[c] = sp.side[c];
  out.subproblems = sp.parts.size();
  for (const auto& p : sp.parts) out.to_solver += p.constraint.size();
  if (sp.parts.empty()) {
    assert(assignment_acyclic(pg, out.side));
    return out;
  }
  // 4. Solve the parts.
  const SatBackendFn backend = make_backend(opt.backend);
  const size_t np = sp.parts.size();
  std::vector<SatResult> res(np);
  std::atomic<size_t> next{0}, first_unsat{SIZE_MAX};
  std::atomic<bool> never{false};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < np;) {
      if (k > first_unsat.load()) continue;  // a lower-numbered part already failed
      SatLimits lim;
      lim.time_s = opt.time_budget_s;
      lim.stop = &never;
      res[k] = backend(sp.parts[k].pg, lim);
      if (res[k].status == SatStatus::unsat) {
        size_t cur = first_unsat.load();
        while (k < cur && !first_unsat.compare_exchange_weak(cur, k)) {}
      }
    }
  };
  const int nt = std::max(1, std::min<int>(opt.threads, static_cast<int>(np)));
  run_threads(nt, [&](int, ThreadErrors&) { work(); });
  for (const auto& r : res) out.conflicts += r.stats.conflicts;
  const size_t bad = first_unsat.load();
  if (bad == SIZE_MAX) {
    for (size_t k = 0; k < np; ++k) {
      if (res[k].status != SatStatus::sat) { out.decided = false; continue; }
      const Subproblem& s = sp.parts[k];
      for (size_t i = 0; i < s.constraint.size(); ++i) out.side[s.constraint[i]] = res[k].side[i];
    }
    assert(!out.decided || assignment_acyclic(pg, out.side));
    return out;
  }
  // 5. Refutation of part `bad`: shrink the core, then report one cycle.
  out.acyclic = false;
  const Subproblem& s = sp.parts[bad];
  CoreResult core = shrink_core(s.pg, res[bad].core, backend, opt.core_budget_s);
  const SatResult& fin = core.last.status == SatStatus::unsat ? core.last : res[bad];
  std::vector<uint8_t> side_local = fin.side;
  side_local.resize(s.constraint.size(), 0);
  out.side.assign(nc, 0);
  for (uint32_t c = 0; c < nc; ++c)
    if (pr.state[c] != PruneResult::undecided) out.side[c] = pr.state[c] == PruneResult::forced_b;
  for (size_t i = 0; i < s.constraint.size(); ++i) out.side[s.constraint[i]] = side_local[i];
  for (EdgeRef r : fin.cycle) {
    const EdgeRef pr_ref = r.choice ? EdgeRef{true, s.choice_ref[r.index]} : s.known_ref[r.index];
    copy_edge(pg, pr_ref, out.witness_cycle);
  }
  canonical_rotation(out.witness_cycle);
  for (uint32_t i : core.core) out.core_constraints.push_back(s.constraint[i]);
  std::sort(out.core_constraints.begin(), out.core_constraints.end());
  out.core_minimal = core.minimal;
  return out;
}

}  // namespace isocheck

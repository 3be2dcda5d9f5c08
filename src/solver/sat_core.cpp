#include "solver/sat_core.h"

#include <algorithm>
#include <chrono>

namespace isocheck {

Polygraph restrict_constraints(const Polygraph& pg, const std::vector<uint32_t>& keep,
                               std::vector<uint64_t>* choice_ref) {
  Polygraph r;
  r.vertex_count = pg.vertex_count;
  r.known = pg.known;
  if (choice_ref) choice_ref->clear();
  for (uint32_t c : keep) {
    const Constraint& k = pg.constraints[c];
    Constraint lc;
    auto copy = [&](uint64_t b, uint64_t e, uint64_t& lb, uint64_t& le) {
      lb = r.choice_edges.size();
      for (uint64_t i = b; i < e; ++i) {
        r.choice_edges.add(pg.choice_edges.src[i], pg.choice_edges.dst[i], pg.choice_edges.kind[i], pg.choice_edges.why[i]);
        if (choice_ref) choice_ref->push_back(i);
      }
      le = r.choice_edges.size();
    };
    copy(k.a_begin, k.a_end, lc.a_begin, lc.a_end);
    copy(k.b_begin, k.b_end, lc.b_begin, lc.b_end);
    r.constraints.push_back(lc);
  }
  return r;
}

CoreResult shrink_core(const Polygraph& pg, std::vector<uint32_t> core, const SatBackendFn& solve,
                       double budget_s, const std::atomic<bool>* stop) {
  const auto t0 = std::chrono::steady_clock::now();
  auto left = [&] { return budget_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::sort(core.begin(), core.end());
  core.erase(std::unique(core.begin(), core.end()), core.end());
  CoreResult out;
  auto run = [&](const std::vector<uint32_t>& set, std::vector<uint64_t>& ref) {
    SatLimits lim;
    lim.time_s = std::max(0.0, left());
    lim.stop = stop;
    return solve(restrict_constraints(pg, set, &ref), lim);
  };
  // Refine with the solver's own lemma set first.
  std::vector<uint64_t> ref;
  SatResult res = run(core, ref);
  auto refine = [&](const std::vector<uint32_t>& set, const SatResult& r) {
    std::vector<uint32_t> next;
    for (uint32_t i : r.core) next.push_back(set[i]);
    return next;  // sorted, since set is sorted and r.core is sorted
  };
  auto keep_last = [&](const std::vector<uint32_t>& set, SatResult r, const std::vector<uint64_t>& rf) {
    // Map the answer's refs and sides back to pg.
    SatResult m = r;
    m.side.assign(pg.constraints.size(), 0);
    for (size_t i = 0; i < set.size() && i < r.side.size(); ++i) m.side[set[i]] = r.side[i];
    for (auto& e : m.cycle)
      if (e.choice) e.index = rf[e.index];
    m.core.clear();
    for (uint32_t i : r.core) m.core.push_back(set[i]);
    out.last = std::move(m);
  };
  if (res.status != SatStatus::unsat) {  // should not happen; give back what we had
    out.core = core;
    return out;
  }
  keep_last(core, res, ref);
  core = refine(core, res);
  bool complete = true;
  for (size_t i = 0; i < core.size();) {
    if (left() <= 0 || (stop && stop->load())) { complete = false; break; }
    std::vector<uint32_t> trial;
    trial.reserve(core.size() - 1);
    for (size_t j = 0; j < core.size(); ++j)
      if (j != i) trial.push_back(core[j]);
    SatResult t = run(trial, ref);
    if (t.status == SatStatus::unsat) {
      keep_last(trial, t, ref);
      const uint32_t removed_at = core[i];
      core = refine(trial, t);
      // Continue after the position of the removed element.
      i = std::lower_bound(core.begin(), core.end(), removed_at) - core.begin();
    } else if (t.status == SatStatus::sat) {
      ++i;
    } else {
      complete = false;
      break;
    }
  }
  // `last` may stem from a larger set than the final core after refinement;
  // when so, re-solve on the final core for a cycle inside it.
  if (out.last.core != core && left() > 0) {
    SatResult t = run(core, ref);
    if (t.status == SatStatus::unsat) keep_last(core, t, ref);
  }
  out.core = core;
  out.minimal = complete;
  return out;
}

}  // namespace isocheck

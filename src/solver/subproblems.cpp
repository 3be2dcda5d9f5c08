#include "solver/subproblems.h"

#include <algorithm>
#include <numeric>

#include "closure/graph_algos.h"

namespace isocheck {

namespace {

uint32_t find(std::vector<uint32_t>& p, uint32_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

}  // namespace

Split split_polygraph(const Polygraph& pg, uint32_t max_rounds) {
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  const uint32_t n = pg.vertex_count;
  Split out;
  out.side.assign(nc, 2);
  std::vector<uint32_t> live(nc);
  std::iota(live.begin(), live.end(), 0);
  Scc scc;
  auto inside_count = [&](uint64_t b, uint64_t e) {
    uint64_t k = 0;
    for (uint64_t i = b; i < e; ++i) k += scc.comp[pg.choice_edges.src[i]] == scc.comp[pg.choice_edges.dst[i]];
    return k;
  };
  for (uint32_t round = 0; round < max_rounds; ++round) {
    EdgeList all;
    all.src = pg.known.src, all.dst = pg.known.dst;
    for (uint32_t c : live) {
      const Constraint& k = pg.constraints[c];
      for (uint64_t i = k.a_begin; i < k.a_end; ++i) all.src.push_back(pg.choice_edges.src[i]), all.dst.push_back(pg.choice_edges.dst[i]);
      for (uint64_t i = k.b_begin; i < k.b_end; ++i) all.src.push_back(pg.choice_edges.src[i]), all.dst.push_back(pg.choice_edges.dst[i]);
    }
    all.why.assign(all.src.size(), 0), all.kind.assign(all.src.size(), EdgeKind::aux);
    scc = strongly_connected(build_csr(n, all));
    std::vector<uint32_t> keep;
    for (uint32_t c : live) {
      const Constraint& k = pg.constraints[c];
      if (inside_count(k.a_begin, k.a_end) == 0) out.side[c] = 0, ++out.fixed;
      else if (inside_count(k.b_begin, k.b_end) == 0) out.side[c] = 1, ++out.fixed;
      else keep.push_back(c);
    }
    const bool changed = keep.size() != live.size();
    live.swap(keep);
    if (!changed) break;
  }
  if (live.empty()) return out;
  // Group components that share a constraint.
  std::vector<uint32_t> parent(scc.count);
  std::iota(parent.begin(), parent.end(), 0);
  for (uint32_t c : live) {
    const Constraint& k = pg.constraints[c];
    uint32_t first = UINT32_MAX;
    auto visit = [&](uint64_t b, uint64_t e) {
      for (uint64_t i = b; i < e; ++i) {
        const uint32_t cs = scc.comp[pg.choice_edges.src[i]];
        if (cs != scc.comp[pg.choice_edges.dst[i]]) continue;
        if (first == UINT32_MAX) first = cs;
        else parent[find(parent, cs)] = find(parent, first);
      }
    };
    visit(k.a_begin, k.a_end), visit(k.b_begin, k.b_end);
  }
  // Parts: groups holding at least one constraint.
  std::vector<uint32_t> part_of(scc.count, UINT32_MAX);
  auto group_of_constraint = [&](uint32_t c) {
    const Constraint& k = pg.constraints[c];
    for (uint64_t i = k.a_begin; i < k.a_end; ++i)
      if (scc.comp[pg.choice_edges.src[i]] == scc.comp[pg.choice_edges.dst[i]]) return find(parent, scc.comp[pg.choice_edges.src[i]]);
    return UINT32_MAX;  // unreachable: live constraints have inside edges on both sides
  };
  std::vector<Subproblem> parts;
  for (uint32_t c : live) {
    const uint32_t g = group_of_constraint(c);
    if (part_of[g] == UINT32_MAX) part_of[g] = static_cast<uint32_t>(parts.size()), parts.emplace_back();
    parts[part_of[g]].constraint.push_back(c);
  }
  // Vertices and known edges (inside edges only).
  std::vector<uint32_t> local(n, UINT32_MAX), vpart(n, UINT32_MAX);
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t g = find(parent, scc.comp[v]);
    if (part_of[g] == UINT32_MAX || !scc.cyclic[scc.comp[v]]) continue;
    Subproblem& s = parts[part_of[g]];
    vpart[v] = part_of[g];
    local[v] = static_cast<uint32_t>(s.vertex.size());
    s.vertex.push_back(v);
  }
  for (uint64_t i = 0; i < pg.known.size(); ++i) {
    const uint32_t a = pg.known.src[i], b = pg.known.dst[i];
    if (scc.comp[a] != scc.comp[b] || vpart[a] == UINT32_MAX) continue;
    Subproblem& s = parts[vpart[a]];
    s.pg.known.add(local[a], local[b], pg.known.kind[i], pg.known.why[i]);
    s.known_ref.push_back(i);
  }
  for (Subproblem& s : parts) {
    s.pg.vertex_count = static_cast<uint32_t>(s.vertex.size());
    for (uint32_t c : s.constraint) {
      const Constraint& k = pg.constraints[c];
      Constraint lc;
      auto copy = [&](uint64_t b, uint64_t e, uint64_t& lb, uint64_t& le) {
        lb = s.pg.choice_edges.size();
        for (uint64_t i = b; i < e; ++i) {
          const uint32_t x = pg.choice_edges.src[i], y = pg.choice_edges.dst[i];
          if (scc.comp[x] != scc.comp[y]) continue;
          s.pg.choice_edges.add(local[x], local[y], pg.choice_edges.kind[i], pg.choice_edges.why[i]);
          s.choice_ref.push_back(i);
        }
        le = s.pg.choice_edges.size();
      };
      copy(k.a_begin, k.a_end, lc.a_begin, lc.a_end);
      copy(k.b_begin, k.b_end, lc.b_begin, lc.b_end);
      s.pg.constraints.push_back(lc);
    }
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Subproblem& a, const Subproblem& b) {
    if (a.constraint.size() != b.constraint.size()) return a.constraint.size() > b.constraint.size();
    return a.vertex.front() < b.vertex.front();
  });
  out.parts = std::move(parts);
  return out;
}

}  // namespace isocheck

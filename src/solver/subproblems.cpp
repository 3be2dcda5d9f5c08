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

// CSR (targets only) from an edge enumerator, by counting sort: no
// intermediate edge list.
template <class ForEach>
Csr csr_of(uint32_t n, ForEach each) {
  Csr g;
  g.offset.assign(uint64_t{n} + 1, 0);
  each([&](uint32_t s, uint32_t) { ++g.offset[s + 1]; });
  for (uint32_t v = 0; v < n; ++v) g.offset[v + 1] += g.offset[v];
  g.target.resize(g.offset[n]);
  std::vector<uint64_t> pos(g.offset.begin(), g.offset.end() - 1);
  each([&](uint32_t s, uint32_t d) { g.target[pos[s]++] = d; });
  return g;
}

}  // namespace

Split split_polygraph(const Polygraph& pg, uint32_t max_rounds, const std::vector<uint8_t>* fixed) {
  const uint32_t nc = static_cast<uint32_t>(pg.constraints.size());
  const uint32_t n = pg.vertex_count;
  Split out;
  out.side.assign(nc, 2);
  std::vector<uint32_t> live, decided;  // decided: fixed sides, part of the known graph
  for (uint32_t c = 0; c < nc; ++c) {
    if (fixed && (*fixed)[c] != 2) out.side[c] = (*fixed)[c], decided.push_back(c);
    else live.push_back(c);
  }
  auto fixed_range = [&](uint32_t c, uint64_t& b, uint64_t& e) {
    const Constraint& k = pg.constraints[c];
    b = out.side[c] ? k.b_begin : k.a_begin, e = out.side[c] ? k.b_end : k.a_end;
  };
  Scc scc;
  auto inside_count = [&](uint64_t b, uint64_t e) {
    uint64_t k = 0;
    for (uint64_t i = b; i < e; ++i) k += scc.comp[pg.choice_edges.src[i]] == scc.comp[pg.choice_edges.dst[i]];
    return k;
  };
  for (uint32_t round = 0; round < max_rounds; ++round) {
    scc = strongly_connected(csr_of(n, [&](auto&& f) {
      for (uint64_t i = 0; i < pg.known.size(); ++i) f(pg.known.src[i], pg.known.dst[i]);
      for (uint32_t c : decided) {
        uint64_t b, e;
        fixed_range(c, b, e);
        for (uint64_t i = b; i < e; ++i) f(pg.choice_edges.src[i], pg.choice_edges.dst[i]);
      }
      for (uint32_t c : live) {
        const Constraint& k = pg.constraints[c];
        for (uint64_t i = k.a_begin; i < k.a_end; ++i) f(pg.choice_edges.src[i], pg.choice_edges.dst[i]);
        for (uint64_t i = k.b_begin; i < k.b_end; ++i) f(pg.choice_edges.src[i], pg.choice_edges.dst[i]);
      }
    }));
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
  auto known_edge = [&](const EdgeList& l, uint64_t i, bool choice) {
    const uint32_t a = l.src[i], b = l.dst[i];
    if (scc.comp[a] != scc.comp[b] || vpart[a] == UINT32_MAX) return;
    Subproblem& s = parts[vpart[a]];
    s.pg.known.add(local[a], local[b], l.kind[i], l.why[i]);
    s.known_ref.push_back({choice, i});
  };
  for (uint64_t i = 0; i < pg.known.size(); ++i) known_edge(pg.known, i, false);
  for (uint32_t c : decided) {
    uint64_t b, e;
    fixed_range(c, b, e);
    for (uint64_t i = b; i < e; ++i) known_edge(pg.choice_edges, i, true);
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

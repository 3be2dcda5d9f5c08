#include "solver/sat_random.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace isocheck {

Polygraph random_polygraph(std::mt19937_64& rng, const RandomPolygraphSpec& s) {
  Polygraph pg;
  const uint32_t n = std::max<uint32_t>(2, s.vertices);
  pg.vertex_count = n;
  std::vector<uint32_t> perm(n);  // hidden order: position -> vertex
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::uniform_real_distribution<double> U(0, 1);
  auto pair = [&](uint32_t& i, uint32_t& j) {
    i = rng() % n;
    if (s.locality) {
      const uint32_t d = 1 + rng() % s.locality;
      j = i + d < n ? i + d : (i >= d ? i - d : (i + 1) % n);
    } else {
      do j = rng() % n; while (j == i);
    }
    if (i > j) std::swap(i, j);
  };
  for (uint32_t k = 0; k < s.known_edges; ++k) {
    uint32_t i, j;
    pair(i, j);
    if (!s.satisfiable && U(rng) < s.backward) std::swap(i, j);
    pg.known.add(perm[i], perm[j], static_cast<EdgeKind>(rng() % 3), 0);
  }
  std::vector<uint32_t> pos(n);
  for (uint32_t i = 0; i < n; ++i) pos[perm[i]] = i;
  for (uint32_t k = 0; k < s.constraints; ++k) {
    uint32_t i, j;
    pair(i, j);
    const uint32_t x = perm[i], y = perm[j];
    Constraint c;
    auto side = [&](uint32_t a, uint32_t b, bool forward, uint64_t& lo, uint64_t& hi) {
      lo = pg.choice_edges.size();
      pg.choice_edges.add(a, b, EdgeKind::ww, 0);
      const uint32_t extra = s.extra_per_side ? rng() % (s.extra_per_side + 1) : 0;
      for (uint32_t t = 0; t < extra; ++t) {
        uint32_t r = rng() % n;  // a reader of a's version: r -> b (anti-dependency)
        if (forward) {
          if (pos[b] == 0) continue;
          const uint32_t span = s.locality ? std::min(pos[b], s.locality) : pos[b];
          r = perm[pos[b] - 1 - rng() % span];
        }
        if (r != b) pg.choice_edges.add(r, b, EdgeKind::rw, 0);
      }
      hi = pg.choice_edges.size();
    };
    // x precedes y in the hidden order: the pair edge x -> y is the true one.
    const bool a_true = rng() % 2;
    if (a_true) side(x, y, s.satisfiable, c.a_begin, c.a_end), side(y, x, false, c.b_begin, c.b_end);
    else side(y, x, false, c.a_begin, c.a_end), side(x, y, s.satisfiable, c.b_begin, c.b_end);
    pg.constraints.push_back(c);
  }
  return pg;
}

Polygraph random_3sat_polygraph(std::mt19937_64& rng, uint32_t vars, uint32_t clauses, uint32_t noise) {
  Polygraph pg;
  pg.vertex_count = 3 * clauses + 2;  // the last two: for sides no clause needs
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> side_edges(2 * vars);
  for (uint32_t k = 0; k < clauses; ++k) {
    uint32_t v[3];
    for (int i = 0; i < 3; ++i) {
      bool again;
      do {
        v[i] = rng() % vars, again = false;
        for (int j = 0; j < i; ++j) again |= v[j] == v[i];
      } while (again && vars >= 3);
      const uint32_t positive = rng() % 2;
      // literal x (positive) is falsified by side B (x false): edge on side B.
      side_edges[2 * v[i] + positive].push_back({3 * k + i, 3 * k + (i + 1) % 3});
    }
  }
  for (uint32_t x = 0; x < vars; ++x) {
    Constraint c;
    for (int s = 0; s < 2; ++s) {
      uint64_t& lo = s ? c.b_begin : c.a_begin;
      uint64_t& hi = s ? c.b_end : c.a_end;
      lo = pg.choice_edges.size();
      for (auto [a, b] : side_edges[2 * x + s]) pg.choice_edges.add(a, b, EdgeKind::ww, 0);
      if (side_edges[2 * x + s].empty())  // sides are non-empty: a harmless edge
        pg.choice_edges.add(3 * clauses, 3 * clauses + 1, EdgeKind::ww, 0);
      hi = pg.choice_edges.size();
    }
    pg.constraints.push_back(c);
  }
  // Noise respects the order of clause indices (never inside one gadget).
  for (uint32_t i = 0; i < noise && clauses > 1; ++i) {
    uint32_t a = rng() % clauses, b = rng() % clauses;
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    pg.known.add(3 * a + rng() % 3, 3 * b + rng() % 3, EdgeKind::wr, 0);
  }
  return pg;
}

bool brute_force_acyclic(const Polygraph& pg, std::vector<uint8_t>* side) {
  const uint32_t n = pg.vertex_count, c = static_cast<uint32_t>(pg.constraints.size());
  if (c > 24) throw std::invalid_argument("brute_force_acyclic: too large");
  if (n > 64) {  // generic path: Kahn per assignment
    std::vector<uint8_t> s(c, 0);
    for (uint64_t m = 0; m < (uint64_t{1} << c); ++m) {
      for (uint32_t k = 0; k < c; ++k) s[k] = (m >> k) & 1;
      if (assignment_acyclic(pg, s)) {
        if (side) *side = s;
        return true;
      }
    }
    return false;
  }
  std::vector<uint64_t> base(n, 0);  // out-neighbour masks
  bool self = false;
  for (size_t i = 0; i < pg.known.size(); ++i) {
    base[pg.known.src[i]] |= uint64_t{1} << pg.known.dst[i];
    self |= pg.known.src[i] == pg.known.dst[i];
  }
  if (self) return false;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> sides(2 * c);
  for (uint32_t k = 0; k < c; ++k) {
    const Constraint& x = pg.constraints[k];
    for (uint64_t i = x.a_begin; i < x.a_end; ++i) sides[2 * k].push_back({pg.choice_edges.src[i], pg.choice_edges.dst[i]});
    for (uint64_t i = x.b_begin; i < x.b_end; ++i) sides[2 * k + 1].push_back({pg.choice_edges.src[i], pg.choice_edges.dst[i]});
  }
  std::vector<uint64_t> adj(n);
  for (uint64_t m = 0; m < (uint64_t{1} << c); ++m) {
    adj = base;
    bool loop = false;
    for (uint32_t k = 0; k < c; ++k)
      for (auto [a, b] : sides[2 * k + ((m >> k) & 1)]) adj[a] |= uint64_t{1} << b, loop |= a == b;
    if (loop) continue;
    // Peel vertices without in-edges from the remaining set.
    uint64_t left = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    bool progress = true;
    while (left && progress) {
      progress = false;
      uint64_t has_in = 0;
      for (uint32_t v = 0; v < n; ++v)
        if ((left >> v) & 1) has_in |= adj[v];
      const uint64_t sources = left & ~has_in;
      if (sources) left &= ~sources, progress = true;
    }
    if (!left) {
      if (side) {
        side->assign(c, 0);
        for (uint32_t k = 0; k < c; ++k) (*side)[k] = (m >> k) & 1;
      }
      return true;
    }
  }
  return false;
}

bool is_witness_cycle(const Polygraph& pg, const std::vector<uint8_t>& side, const std::vector<EdgeRef>& cycle) {
  if (cycle.empty()) return false;
  std::vector<int64_t> owner(pg.choice_edges.size(), -1);  // choice edge -> 2c + side
  for (size_t k = 0; k < pg.constraints.size(); ++k) {
    const Constraint& x = pg.constraints[k];
    for (uint64_t i = x.a_begin; i < x.a_end; ++i) owner[i] = 2 * k;
    for (uint64_t i = x.b_begin; i < x.b_end; ++i) owner[i] = 2 * k + 1;
  }
  auto ends = [&](EdgeRef r) {
    const EdgeList& l = r.choice ? pg.choice_edges : pg.known;
    return std::pair{l.src[r.index], l.dst[r.index]};
  };
  for (size_t i = 0; i < cycle.size(); ++i) {
    const EdgeRef r = cycle[i];
    if (r.choice) {
      if (owner[r.index] < 0) return false;
      if (side[owner[r.index] / 2] != owner[r.index] % 2) return false;
    }
    if (ends(r).second != ends(cycle[(i + 1) % cycle.size()]).first) return false;
  }
  return true;
}

}  // namespace isocheck

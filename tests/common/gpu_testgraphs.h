// Random graphs for the GPU closure's tests, self-test and benchmark: chains,
// wide levels (layered DAGs), random DAGs, and graphs with cycles (SCCs).
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/edges.h"

namespace isocheck::gputest {

enum class Shape { chain, layered, dag, cyclic };
inline const char* to_string(Shape s) {
  switch (s) {
    case Shape::chain: return "chain";
    case Shape::layered: return "layered";
    case Shape::dag: return "dag";
    default: return "cyclic";
  }
}

// n vertices; about `degree` out-edges each (chains: a few branches).
// Vertex ids are shuffled so that no order hides in the numbering.
inline Csr random_graph(Shape shape, uint32_t n, double degree, uint64_t seed, uint32_t width = 0) {
  std::mt19937_64 rng(seed);
  EdgeList e;
  std::vector<uint32_t> perm(n);
  for (uint32_t i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  auto add = [&](uint32_t a, uint32_t b) { e.add(perm[a], perm[b], EdgeKind::aux); };
  auto pick = [&](uint32_t lo, uint32_t hi) { return static_cast<uint32_t>(lo + rng() % (hi - lo)); };
  if (n < 2) return build_csr(n, e);
  const uint64_t m = static_cast<uint64_t>(degree * n);
  switch (shape) {
    case Shape::chain:  // one long path plus a few forward shortcuts
      for (uint32_t i = 0; i + 1 < n; ++i) add(i, i + 1);
      for (uint64_t k = 0; k < m / 8; ++k) {
        const uint32_t a = pick(0, n - 1);
        add(a, pick(a + 1, n));
      }
      break;
    case Shape::layered: {  // levels of `width` vertices, edges to the next few levels
      const uint32_t w = width ? width : std::max<uint32_t>(1, n / 16);
      for (uint64_t k = 0; k < m; ++k) {
        const uint32_t a = pick(0, n);
        const uint64_t lo = (uint64_t{a} / w + 1) * w;
        if (lo >= n) continue;
        const uint64_t hi = std::min<uint64_t>(n, lo + 2ull * w);
        add(a, pick(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)));
      }
      break;
    }
    case Shape::dag:
      for (uint64_t k = 0; k < m; ++k) {
        const uint32_t a = pick(0, n - 1);
        add(a, pick(a + 1, std::min<uint32_t>(n, a + 1 + std::max<uint32_t>(2, n / 8))));
      }
      break;
    case Shape::cyclic:
      for (uint64_t k = 0; k < m; ++k) {
        const uint32_t a = pick(0, n - 1);
        add(a, pick(a + 1, n));
      }
      for (uint64_t k = 0; k < std::max<uint64_t>(1, m / 16); ++k) {  // back edges: SCCs
        const uint32_t a = pick(1, n);
        add(a, pick(a > 8 ? a - 8 : 0, a + 1));  // includes self loops
      }
      break;
  }
  return build_csr(n, e);
}

inline std::vector<uint32_t> random_keys(uint32_t n, uint32_t k, uint64_t seed, bool duplicates = true) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> keys(k);
  if (!duplicates && k <= n) {
    std::vector<uint32_t> all(n);
    for (uint32_t i = 0; i < n; ++i) all[i] = i;
    for (uint32_t i = 0; i < k; ++i) std::swap(all[i], all[i + rng() % (n - i)]), keys[i] = all[i];
  } else {
    for (auto& x : keys) x = static_cast<uint32_t>(rng() % n);
  }
  return keys;
}

}  // namespace isocheck::gputest

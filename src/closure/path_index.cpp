#include "closure/path_index.h"

#include <algorithm>
#include <limits>

namespace isocheck {

namespace {
constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
}

uint32_t PathIndex::cover(uint32_t n, const std::vector<uint64_t>& succ_off, const std::vector<uint32_t>& succ,
                          const std::vector<uint32_t>* hint, uint32_t give_up_above) {
  n_ = n;
  uint64_t matched = 0;
  // Left side: v as a predecessor; right side: s as a successor. A matched
  // pair (v, s) puts s right after v on one path.
  std::vector<uint32_t> next(n, kNil), prev(n, kNil);
  if (give_up_above < n) {
    // Every vertex nobody precedes starts a path, and every sink ends one:
    // too many of either and no cover can be small enough.
    std::vector<uint8_t> has_pred(n, 0);
    uint64_t sinks = 0;
    for (uint32_t v = 0; v < n; ++v) {
      sinks += succ_off[v] == succ_off[v + 1];
      for (uint64_t i = succ_off[v]; i < succ_off[v + 1]; ++i) has_pred[succ[i]] = 1;
    }
    const uint64_t sources = n - static_cast<uint64_t>(std::count(has_pred.begin(), has_pred.end(), uint8_t{1}));
    if (std::max(sources, sinks) > give_up_above) {
      path_.clear(), pos_.clear();
      return k_ = static_cast<uint32_t>(std::max(sources, sinks));
    }
  }
  if (hint)
    for (uint32_t v = 0; v < n; ++v) {
      const uint32_t s = (*hint)[v];
      if (s == kNil || prev[s] != kNil) continue;
      // Only along an edge of this graph (the hint may name a pruned one).
      if (std::binary_search(succ.begin() + succ_off[v], succ.begin() + succ_off[v + 1], s))
        next[v] = s, prev[s] = v, ++matched;
    }
  // Greedy first, from the sources down: most of the matching at linear cost.
  for (uint32_t v = n; v-- > 0;)
    for (uint64_t i = succ_off[v]; i < succ_off[v + 1] && next[v] == kNil; ++i)
      if (prev[succ[i]] == kNil) {
        next[v] = succ[i], prev[succ[i]] = v, ++matched;
        break;
      }
  // Hopcroft–Karp phases: BFS layers from the free left vertices, then
  // vertex-disjoint augmenting paths by an iterative DFS (paths can be as long
  // as the graph: no recursion).
  std::vector<uint32_t> dist(n), queue, stack;
  std::vector<uint64_t> it(n);
  constexpr uint32_t kInf = kNil;
  constexpr int kPhases = 64;
  for (int phase = 0; phase < kPhases; ++phase) {
    queue.clear();
    for (uint32_t v = 0; v < n; ++v) {
      dist[v] = next[v] == kNil ? 0 : kInf;
      if (next[v] == kNil) queue.push_back(v);
    }
    bool found = false;
    for (size_t h = 0; h < queue.size(); ++h) {
      const uint32_t u = queue[h];
      for (uint64_t i = succ_off[u]; i < succ_off[u + 1]; ++i) {
        const uint32_t w = prev[succ[i]];
        if (w == kNil) found = true;
        else if (dist[w] == kInf) dist[w] = dist[u] + 1, queue.push_back(w);
      }
    }
    if (!found) break;
    for (uint32_t v = 0; v < n; ++v) it[v] = succ_off[v];
    uint64_t augmented = 0;
    for (uint32_t root = 0; root < n; ++root) {
      if (next[root] != kNil || dist[root] != 0) continue;
      stack.assign(1, root);
      while (!stack.empty()) {
        const uint32_t u = stack.back();
        if (it[u] == succ_off[u + 1]) {  // dead end: not again this phase
          dist[u] = kInf;
          stack.pop_back();
          continue;
        }
        const uint32_t s = succ[it[u]++];
        const uint32_t w = prev[s];
        if (w == kNil) {
          // Augment: each stacked vertex takes the successor it last tried.
          for (size_t d = stack.size(); d-- > 0;) {
            const uint32_t x = stack[d], sx = succ[it[x] - 1];
            next[x] = sx, prev[sx] = x;
          }
          ++augmented;
          break;
        }
        if (dist[w] == dist[u] + 1) stack.push_back(w);
      }
    }
    if (augmented == 0) break;
    matched += augmented;
    // Give up (the caller will not use a cover this large) when the phases
    // left could not close the gap even at this phase's rate; Hopcroft-Karp
    // phases augment fewer paths as they go.
    const uint64_t paths = n - matched;
    if (paths > give_up_above && paths - give_up_above > augmented * uint64_t(kPhases - 1 - phase)) {
      path_.clear(), pos_.clear();
      return k_ = static_cast<uint32_t>(std::min<uint64_t>(paths, UINT32_MAX));
    }
  }
  // Paths start at vertices nobody precedes.
  path_.assign(n, kNil), pos_.assign(n, 0);
  k_ = 0;
  for (uint32_t v = n; v-- > 0;) {
    if (prev[v] != kNil) continue;
    uint32_t p = 0;
    for (uint32_t x = v; x != kNil; x = next[x]) path_[x] = k_, pos_[x] = p++;
    ++k_;
  }
  return k_;
}

void PathIndex::build(const std::vector<uint64_t>& succ_off, const std::vector<uint32_t>& succ) {
  first_.assign(uint64_t{n_} * k_, kNil);
  // Successors are smaller: increasing order sees them first.
  for (uint32_t v = 0; v < n_; ++v) {
    uint32_t* fv = first_.data() + uint64_t{v} * k_;
    for (uint64_t i = succ_off[v]; i < succ_off[v + 1]; ++i) {
      const uint32_t* fs = first_.data() + uint64_t{succ[i]} * k_;
      for (uint32_t c = 0; c < k_; ++c) fv[c] = std::min(fv[c], fs[c]);
    }
    fv[path_[v]] = std::min(fv[path_[v]], pos_[v]);
  }
}

}  // namespace isocheck

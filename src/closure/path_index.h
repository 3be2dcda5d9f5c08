// Exact reachability on a DAG from a path cover (Jagadish): the vertices are
// split into k vertex-disjoint paths of graph edges, and for every vertex v and
// path c, first(v, c) = the lowest position on c that v reaches (v itself
// included). Then u reaches w (u != w) iff first(u, path(w)) <= pos(w).
// k·V words of memory and O(k (V + E)) time: on history graphs, whose
// sessions are long paths, k is about the number of sessions, while the bit
// propagation of the CPU closure costs (endpoints / 64) words per vertex —
// pruning with 10^5 endpoints and 64 sessions is ~25× cheaper this way.
//
// The cover is a matching of "v is followed by s on its path" pairs: the
// hinted successors first, then greedy, then Hopcroft–Karp phases (iterative)
// towards a maximum matching, for which k = V − |matching| is the fewest paths
// any cover of vertex-disjoint edge paths has. The phases are capped (each is
// a pass over the graph, and without a hint long augmenting paths can need
// hundreds), which can leave more paths; the answers are exact for any cover.
#pragma once
#include <cstdint>
#include <vector>

namespace isocheck {

class PathIndex {
 public:
  // The DAG over [0, n): successors of v are succ[succ_off[v] .. succ_off[v+1]),
  // all smaller than v (vertices numbered sinks first). Returns the number of
  // paths of the cover (the index itself is not built yet).
  // `hint` (optional, n entries): a preferred successor per vertex, taken
  // first when it is a free successor (session order makes the cover nearly
  // optimal before any augmenting path; see ClosureEngine::set_path_hint).
  // `give_up_above`: the caller's limit; once the remaining phases cannot
  // bring the paths under it, cover stops and returns the count so far
  // (then build() must not be called).
  uint32_t cover(uint32_t n, const std::vector<uint64_t>& succ_off, const std::vector<uint32_t>& succ,
                 const std::vector<uint32_t>* hint = nullptr, uint32_t give_up_above = UINT32_MAX);
  // Fills first(v, c) for every vertex (k·n words).
  void build(const std::vector<uint64_t>& succ_off, const std::vector<uint32_t>& succ);
  // u != w; u reaches w along at least one edge.
  bool reaches(uint32_t u, uint32_t w) const { return first_[uint64_t{u} * k_ + path_[w]] <= pos_[w]; }
  uint32_t paths() const { return k_; }

 private:
  uint32_t n_ = 0, k_ = 0;
  std::vector<uint32_t> path_, pos_, first_;
};

}  // namespace isocheck

// The general engine (unknown version orders) on key shards: pruning and the
// SAT search run on every rank over partitioned constraints (docs/dist.md,
// "General engine on the shards").
//
// Each rank holds its keys' version chains; the constraints (one per pair of
// chains of a key, side A = the first chain entirely before the second) are
// built and kept at the key's owner. The known graph (every shard's certain
// edges plus each key's init-chain edges) is exchanged once so that every
// rank holds it as a CSR: 4 bytes an edge plus 8 a transaction, the edges'
// (src, dst) arrays 8 bytes an edge while it grows. Pruning runs in rounds:
// each rank answers reachability for the endpoints of its own constraints
// (its slice of the endpoint columns) through a ClosureEngine (the CPU
// engine, or `--closure gpu` where the build has one), decides its pairs —
// a side with an edge x -> y where y already reaches x is impossible, the
// other side is forced — and the forced edges that the graph does not already
// imply are all-gathered into every rank's copy; rounds repeat until no rank
// forces anything (the same fixpoint as the one-process prune: forcing is
// monotone). The constraints still open are all-gathered (few after pruning),
// every rank splits the same polygraph into independent sub-problems
// (strongly connected pieces, solver/subproblems.h) and solves the pieces
// numbered rank, rank + P, ...; an MPI_Allreduce joins the answers.
//
// It decides SER (plain layout). A history whose SER polygraph is
// satisfiable holds SER and SI (SI forbids less); anything else — a cycle in
// the known graph, a pair with both sides impossible, an unsatisfiable piece
// — is reported as not settled, and the caller gathers the graph on rank 0 to
// produce the one-process witness.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/known_graph.h"
#include "solver/check.h"

namespace isocheck::dist {

struct GeneralOnShards {
  bool settled = false;  // true: SER holds (every rank agrees); false: a violation or undecided: gather
  std::string why;       // not settled: what was found (for the stage note)
  // Figures, the same on every rank.
  uint64_t known_edges = 0;       // the replicated known graph at the fixpoint
  uint64_t pairs = 0;             // chain pairs (constraints before pruning)
  uint64_t forced = 0;            // pairs pruning decided
  uint64_t forced_edges = 0;      // edges they added to the known graph (not already implied)
  uint64_t to_solver = 0;         // constraints left at the fixpoint
  uint64_t subproblems = 0;
  uint32_t rounds = 0;
  uint64_t queries = 0;           // reachability queries answered, all ranks
};

// Collective. `n`: transactions; `src`/`dst`: this rank's certain edges (its
// keys' WR/WW/RW edges; one rank also the session order); `mine`: this rank's
// unknown-order keys and their chains (DependencyGraph::unordered, chains);
// `so_next`: per transaction its successor in session order (UINT32_MAX:
// none), or empty on ranks that do not hold the session order (a hint for
// the path cover: answers never depend on it).
GeneralOnShards decide_general_on_shards(uint32_t n, std::vector<uint32_t> src, std::vector<uint32_t> dst,
                                         std::vector<uint32_t> so_next, const DependencyGraph& mine,
                                         const CheckOptions& opt);

}  // namespace isocheck::dist

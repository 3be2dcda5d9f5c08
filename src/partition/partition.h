// partition/: independent pieces of a history (docs/architecture.md, partition/).
//
// The communication graph has one vertex per session; two sessions are
// adjacent when they touch a common key. There is no explicit initial-state
// transaction in our model (a read of `null` reads the implicit initial
// state), so it is never a vertex and every projection keeps it implicitly.
//
// Biconnected components (blocks) of that graph are independent: for SER and
// SI a history satisfies the level iff every projection onto a block does
// (Biswas–Enea Thm 5.2; docs/dist.md says exactly when we rely on it — never
// for SSER). Articulation sessions belong to several blocks; a session with no
// neighbour is a block on its own.
//
// Every key lies in exactly ONE block (see key_component): the sessions that
// touch a key are pairwise adjacent (a clique); a clique of >= 2 vertices is
// 2-connected, so it lies inside one block (blocks are the maximal 2-connected
// subgraphs, and every edge lies in exactly one block). A key touched by one
// session only is given to the lowest-numbered block containing that session.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/flat_hash.h"
#include "core/history.h"

namespace isocheck {

using UEdge = std::pair<uint32_t, uint32_t>;

struct Blocks {
  // Per block: its vertices, sorted. Blocks are numbered in discovery order
  // (renumber with order_blocks). Isolated vertices are blocks of one vertex.
  std::vector<std::vector<uint32_t>> vertices;
  std::vector<uint32_t> edge_block;       // per input edge: its block
  std::vector<uint8_t> articulation;      // per vertex: in >= 2 blocks
};

// Iterative Hopcroft–Tarjan, O(V + E). Edges are undirected, without
// self-loops; duplicates are allowed (a duplicate lies in its twin's block).
Blocks biconnected_components(uint32_t vertex_count, const std::vector<UEdge>& edges);

// The communication graph of a history: for each key, the sorted distinct
// sessions touching it, s1 < s2 < ... < sm, contribute the cycle s1-s2-..-sm-s1
// instead of the clique (m - 1 or m edges instead of m(m-1)/2). The blocks are
// the same: for every vertex w, G - w and G' - w have the same connected
// components (a clique minus a vertex and a cycle minus a vertex are both
// connected on the rest of S), so no single vertex separates two sessions in
// one graph and not in the other; and two sessions of S, adjacent in the
// clique, are joined by two disjoint paths around the cycle. Edges are
// deduplicated and sorted. `key_edge` gets, per key (sorted key order of
// `keys`), the index of one of its edges, or ~0u for single-session keys.
struct CommGraph {
  uint32_t sessions = 0;
  std::vector<UEdge> edges;
  std::vector<Sym> keys;                 // distinct keys, sorted
  std::vector<uint32_t> key_edge;        // per key: an edge index, or ~0u
  std::vector<uint32_t> key_session;     // per key: its smallest session
};
CommGraph communication_graph(const History& h);
// The same from (key, session) pairs (any order, duplicates allowed): what
// the key-sharded path computes for its own keys.
CommGraph communication_graph(uint32_t sessions, std::vector<std::pair<Sym, uint32_t>> key_sessions);

// Pieces of a history: blocks numbered by operations (descending), ties by
// smallest session (ascending) — a numbering independent of the rank count,
// which the distributed driver hands out in order (largest first).
struct Partition {
  uint32_t sessions = 0;
  std::vector<std::vector<uint32_t>> comp_sessions;  // sorted
  std::vector<uint64_t> comp_ops;                    // operations on the block's keys
  std::vector<uint64_t> comp_txns;                   // transactions with such operations
  std::vector<Sym> keys;                             // sorted
  std::vector<uint32_t> key_comp;                    // per key: its block
  uint32_t component_of_key(Sym k) const;            // binary search in keys
};

// Key -> block in O(1), built once from a Partition, for loops that look up
// every operation's key (component_of_key is a binary search): a direct table
// when the keys are small integers (the largest below 2 * count + 4096), an
// open-addressing table otherwise. ~0u for a key outside the partition.
class KeyComponents {
 public:
  explicit KeyComponents(const Partition& p);
  uint32_t operator()(Sym k) const {
    if (direct_) return k < table_.size() ? table_[k] : ~0u;
    const uint64_t* c = hashed_.find(k);
    return c ? static_cast<uint32_t>(*c) : ~0u;
  }

 private:
  bool direct_ = false;
  std::vector<uint32_t> table_;
  FlatMap64 hashed_;
};

Partition partition_history(const History& h);
// From a communication graph and the per-key operation counts (keys order).
Partition partition_from_graph(const CommGraph& g, const std::vector<uint64_t>& key_ops,
                               const std::vector<uint64_t>& key_txns = {});

// (included_transactions(h), the transactions a check counts: core/history.h.)

// The history restricted to one block: transactions of the block's sessions
// that have operations on its keys, only those operations (in order). Unknown
// transactions that are included globally become committed (a read in another
// block may be what commits them). Symbol tables are not copied (projections
// are checked, never printed): txn/op maps lead back to the whole history.
struct Projection {
  History h;
  std::vector<TxnIdx> txn;   // local -> global transaction
  std::vector<OpIdx> op;     // local -> global operation
};
// Transactions of each session (CSR), built once for many projections.
struct SessionTxns {
  std::vector<uint64_t> offset;  // sessions + 1
  std::vector<TxnIdx> txns;      // file order inside each session
};
SessionTxns session_txns(const History& h);
Projection project(const History& h, const Partition& p, uint32_t comp, const std::vector<uint8_t>& included,
                   const SessionTxns* index = nullptr);

// Largest-first (LPT) static assignment of weighted pieces to `ranks` ranks:
// per piece, its rank. Pieces in descending weight (ties: lower index) go to
// the least-loaded rank (ties: lower rank).
std::vector<int> assign_largest_first(const std::vector<uint64_t>& weights, int ranks);

}  // namespace isocheck

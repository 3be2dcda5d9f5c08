// Dependency edges between transactions, as flat arrays (struct of arrays).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace isocheck {

// Why an edge exists. The order matters: "non-RW" kinds come before rw.
enum class EdgeKind : uint8_t {
  so = 0,  // session order
  wr = 1,  // read-from: dst read a value src wrote
  ww = 2,  // version order: dst overwrote src's version
  rt = 3,  // real time: src ended before dst began (through time nodes)
  rw = 4,  // anti-dependency: src read a version that dst overwrote
  aux = 5  // internal plumbing (time-node chains, split-graph links)
};
const char* to_string(EdgeKind k);

// `why` bit 31 marks an edge of a version order the general engine inferred
// (the other order of those writes would close a cycle), as opposed to one the
// history shows; the rest of `why` is the op position.
inline constexpr uint32_t kInferredBit = 1u << 31;
inline uint32_t why_pos(uint32_t why) { return why & ~kInferredBit; }
inline bool why_inferred(uint32_t why) { return (why & kInferredBit) != 0; }

struct EdgeList {
  std::vector<uint32_t> src, dst;
  // For wr: position of the read op inside dst; ww: position of dst's write;
  // rw: position of src's read. so/rt/aux: 0. Positions are relative to the
  // transaction's first operation (History::op_begin).
  std::vector<uint32_t> why;
  std::vector<EdgeKind> kind;

  size_t size() const { return src.size(); }
  void add(uint32_t s, uint32_t d, EdgeKind k, uint32_t w = 0) {
    src.push_back(s), dst.push_back(d), why.push_back(w), kind.push_back(k);
  }
  void reserve(size_t n) { src.reserve(n), dst.reserve(n), why.reserve(n), kind.reserve(n); }
  void clear() { src.clear(), dst.clear(), why.clear(), kind.clear(); }
  void shrink_to_fit() { src.shrink_to_fit(), dst.shrink_to_fit(), why.shrink_to_fit(), kind.shrink_to_fit(); }
  // shrink_to_fit where the growth slack is worth a copy of every edge (over
  // an eighth of the capacity): a list reserved about right keeps its slack.
  void trim_slack() {
    if (src.capacity() - src.size() > src.capacity() / 8) shrink_to_fit();
  }
};

// Does every edge go from a lower to a higher vertex? Then that numbering is a
// topological order: the graph is acyclic (a history in commit order that
// holds numbers its transactions so).
bool edges_forward(const EdgeList& e);

// Does the cycle lean on an inferred order (an edge whose `why` carries
// kInferredBit)? Session-order edges carry no reason and never do.
inline bool leans_on_inferred_order(const EdgeList& c) {
  for (size_t i = 0; i < c.size(); ++i)
    if (c.kind[i] != EdgeKind::so && why_inferred(c.why[i])) return true;
  return false;
}

// Compressed sparse rows over vertices [0, n): out-edges of v are
// edge_id[offset[v] .. offset[v+1]) with targets target[...].
struct Csr {
  std::vector<uint64_t> offset;   // n+1
  std::vector<uint32_t> target;   // per slot
  std::vector<uint64_t> edge_id;  // per slot: index into the EdgeList it came from
  uint32_t vertex_count() const { return offset.empty() ? 0 : static_cast<uint32_t>(offset.size() - 1); }
};
// Builds CSR over n vertices from edges [0, e.size()); without edge ids
// (8 bytes an edge) when the caller only walks targets.
Csr build_csr(uint32_t n, const EdgeList& e, bool with_edge_ids = true);

// A known graph plus either/or choices (a polygraph, Cobra §4.3). Choosing
// side A of constraint c adds every edge of choice_edges[a_begin, a_end);
// side B adds [b_begin, b_end). Sides are non-empty.
struct Constraint {
  uint64_t a_begin, a_end, b_begin, b_end;
};
struct Polygraph {
  uint32_t vertex_count = 0;
  EdgeList known;
  EdgeList choice_edges;
  std::vector<Constraint> constraints;
};

}  // namespace isocheck

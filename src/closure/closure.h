// Reachability among a set of endpoint vertices of a known graph, for pruning
// (docs/architecture.md, closure/). Engines implement one interface and must agree bit for
// bit: reach(u, v) is true iff there is a path u -> v of at least one edge
// (so reach(u, u) iff u lies on a cycle).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/edges.h"

namespace isocheck {

// |K| x |K| reachability as packed bit rows: row i, bit j = reach(K[i], K[j]).
struct ReachMatrix {
  uint32_t n = 0;        // |K|
  uint64_t words = 0;    // 64-bit words per row = ceil(n / 64)
  std::vector<uint64_t> bits;

  void reset(uint32_t k) { n = k, words = (k + 63) / 64, bits.assign(words * k, 0); }
  bool test(uint32_t i, uint32_t j) const { return (bits[i * words + j / 64] >> (j % 64)) & 1; }
  void set(uint32_t i, uint32_t j) { bits[i * words + j / 64] |= uint64_t{1} << (j % 64); }
  const uint64_t* row(uint32_t i) const { return bits.data() + i * words; }
  bool operator==(const ReachMatrix&) const = default;
};

struct ReachQuery {
  uint32_t from, to;
};

class ClosureEngine {
 public:
  virtual ~ClosureEngine() = default;
  virtual const char* name() const = 0;
  // reach among `keys` (duplicates allowed: they get equal rows/columns).
  virtual ReachMatrix reach_matrix(const Csr& g, std::span<const uint32_t> keys) = 0;
  // One answer (0/1) per query; scales to many endpoints without a |K|^2
  // matrix (what pruning uses).
  virtual std::vector<uint8_t> reach_queries(const Csr& g, std::span<const ReachQuery> q) = 0;
  // A hint for engines that cover the graph by paths: per vertex a preferred
  // successor along an edge of every later graph (session order), or
  // UINT32_MAX. Answers never depend on it, only their cost.
  virtual void set_path_hint(std::vector<uint32_t> next) { (void)next; }
};

struct CpuClosureOptions {
  uint32_t chunk_columns = 4096;               // columns propagated together (multiple of 64)
  uint64_t memory_budget = uint64_t{1} << 30;  // bytes for the bitsets, all threads together
  int threads = 1;
  // reach_queries with many targets may answer from a path-cover index when
  // few paths cover the graph (path_index.h); off: always propagate bitsets.
  bool path_index = true;
};

// SCC condensation, then bitsets over the key columns propagated in reverse
// topological order, a chunk of columns at a time, only over components that
// are both reachable from a source and reach a target.
class CpuClosure final : public ClosureEngine {
 public:
  explicit CpuClosure(CpuClosureOptions o = {}) : opt_(o) {}
  const char* name() const override { return "cpu"; }
  ReachMatrix reach_matrix(const Csr& g, std::span<const uint32_t> keys) override;
  std::vector<uint8_t> reach_queries(const Csr& g, std::span<const ReachQuery> q) override;
  void set_path_hint(std::vector<uint32_t> next) override {
    hint_ = std::move(next);
    cover_declined_ = {};
  }
  // How many path covers reach_queries has computed (used or declined).
  uint64_t covers_tried() const { return covers_tried_; }

 private:
  CpuClosureOptions opt_;
  std::vector<uint32_t> hint_;  // preferred successor per vertex (set_path_hint)
  // The last path cover too large for its targets, on a graph of this many
  // vertices: pruning's rounds ask again with fewer targets over the same
  // vertices and more edges, and a cover that did not pay for more targets
  // will not pay for fewer (on contended BlindW-RW, each round's cover was
  // found and then declined: a third of the run). Reset by set_path_hint,
  // which starts a new sequence of rounds.
  struct {
    uint32_t vertices = 0, targets = 0;
  } cover_declined_;
  uint64_t covers_tried_ = 0;
};

// The engine the build provides by name: "cpu" (always) or "gpu" (when built
// with CUDA and a device is present; otherwise nullptr).
std::unique_ptr<ClosureEngine> make_closure_engine(const char* name, int threads = 1);

// Reference: one BFS per source, for tests.
ReachMatrix reach_matrix_naive(const Csr& g, std::span<const uint32_t> keys);

}  // namespace isocheck

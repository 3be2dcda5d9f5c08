// Host side of the GPU closure (docs/gpu.md): the known graph condensed (SCC),
// restricted to the components that matter, ordered by level, and the
// column-range propagation every slice backend implements. Plain C++: it is
// compiled in every build (the CPU slices of a multi-rank run use it too).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "closure/closure.h"
#include "closure/graph_algos.h"

namespace isocheck {

inline constexpr uint32_t kNoDense = 0xffffffffu;

// The condensation restricted to components reachable from a source and
// reaching a target, renumbered so that dense index order is level order:
// level 0 holds the sinks, and every successor of a component lies on a lower
// level. A level's components only read rows of lower levels, so a level is
// one parallel step.
struct LevelPlan {
  Scc scc;
  std::vector<uint32_t> dense;       // comp -> dense index or kNoDense
  uint32_t relevant = 0;
  std::vector<uint32_t> level_off;   // levels + 1 offsets into dense order
  std::vector<uint64_t> succ_off;    // per dense index
  std::vector<uint32_t> succ;        // dense successors (other components)
  uint32_t columns = 0;              // number of target columns
  // (dense, column) pairs, sorted by column: a column range is a contiguous run.
  std::vector<uint32_t> col_dense, col_index;
  uint32_t levels() const { return level_off.empty() ? 0 : static_cast<uint32_t>(level_off.size() - 1); }
  // First pair with column >= c.
  uint64_t col_lower(uint32_t c) const;
};

// `threads`: the host plan's threads (the engine's --threads); the plan is the
// same for any count.
LevelPlan make_level_plan(const Csr& g, std::span<const uint32_t> sources, std::span<const uint32_t> targets,
                          Scc scc, int threads = 1);

// The components the plan starts from: Kahn's numbering when g is acyclic
// (what pruning keeps it), else Tarjan's (strongly_connected). Either is a
// valid input of the plans below; the answers do not depend on which.
Scc plan_components(const Csr& g, int threads = 1);

// Incremental rounds: `prev` is still the SCC decomposition of g (all
// singletons, numbering still topological) when prev was all singletons over
// the same vertices and every edge of g goes from a higher to a lower id.
// Its layers (Scc::layers) may no longer hold: a caller reusing it drops them
// (PlannedClosure::condense does).
bool scc_still_valid(const Csr& g, const Scc& prev, int threads = 1);

// Seconds of the host plan's steps (the benchmark's breakdown).
struct PlanStepTimes {
  double condense = 0;  // condensation CSR (grouping, mapping, dedup)
  double heights = 0;   // heights over the whole condensation
  double marks = 0;     // source/target marks from the queries, columns
  double levels = 0;    // down/relevant/levels passes and the dense numbering
  double succ = 0;      // successor CSR in dense order, column pairs
  double queries = 0;   // queries picked and sorted by column
};

// reach_queries, prepared: queries that need bits, ordered by column.
struct QueryPlan {
  LevelPlan plan;
  std::vector<uint8_t> ans;         // per query; final for those not in `order`
  std::vector<uint32_t> order;      // query ids needing a bit, by column
  std::vector<uint32_t> row, col;   // per order entry: dense row, column
};
// wall / cpu (optional): wall and process CPU seconds per step, added.
QueryPlan make_query_plan(const Csr& g, std::span<const ReachQuery> q, Scc scc, int threads = 1,
                          PlanStepTimes* wall = nullptr, PlanStepTimes* cpu = nullptr);

// reach_matrix, prepared: rows = keys' dense indices, columns = keys.
struct MatrixPlan {
  LevelPlan plan;
  std::vector<uint32_t> row;  // per key: dense index or kNoDense
};
MatrixPlan make_matrix_plan(const Csr& g, std::span<const uint32_t> keys, Scc scc, int threads = 1);
// The propagation gives reflexive rows; a key on an acyclic component does
// not reach itself (nor a duplicate of itself). Clears those bits in the
// words [w0, w0 + wn) of every row of m.
void clear_irreflexive(const MatrixPlan& mp, std::span<const uint32_t> keys, ReachMatrix& m, uint64_t w0,
                       uint64_t wn);

// A column-range propagation: what a device (or the host) computes for one
// slice. Bit (r, j) is set iff dense row r reaches (reflexively) the
// component of column c0 + j.
class SliceBackend {
 public:
  virtual ~SliceBackend() = default;
  // out: rows.size() x ceil((c1-c0)/64) words, row-major; kNoDense rows are 0.
  // c0 is a multiple of 64.
  virtual void rows(const LevelPlan& p, std::span<const uint32_t> rows, uint32_t c0, uint32_t c1,
                    uint64_t* out) = 0;
  // out[i] = bit (row[i], col[i]) for the entries with col in [c0, c1), which
  // are the contiguous range [lo, hi) of the column-sorted arrays; writes
  // out[lo .. hi).
  virtual void queries(const LevelPlan& p, std::span<const uint32_t> row, std::span<const uint32_t> col,
                       uint32_t c0, uint32_t c1, uint8_t* out) = 0;
};

// The same propagation on the host (one thread), in chunks of at most
// `memory_budget` bytes: the reference for the device kernels and the engine
// of CPU slices in a multi-rank run.
class HostSliceBackend final : public SliceBackend {
 public:
  explicit HostSliceBackend(uint64_t memory_budget = uint64_t{1} << 30) : budget_(memory_budget) {}
  void rows(const LevelPlan& p, std::span<const uint32_t> rows, uint32_t c0, uint32_t c1, uint64_t* out) override;
  void queries(const LevelPlan& p, std::span<const uint32_t> row, std::span<const uint32_t> col, uint32_t c0,
               uint32_t c1, uint8_t* out) override;

 private:
  uint32_t chunk_words(const LevelPlan& p, uint32_t c0, uint32_t c1) const;
  void propagate(const LevelPlan& p, uint32_t c0, uint32_t words, std::vector<uint64_t>& buf) const;
  uint64_t budget_;
};

// Device memory for one propagation, computed before anything is allocated.
struct GpuMemoryPlan {
  uint64_t fixed = 0;      // graph, column pairs, queries: bytes
  uint64_t per_word = 0;   // bytes per 64 columns of a chunk
  uint64_t words = 0;      // 64-column words per chunk chosen
  uint64_t chunks = 0;
  uint64_t needed_min() const { return fixed + per_word; }
  uint64_t total() const { return fixed + per_word * words; }
};
// rows_out: rows gathered per chunk (reach_matrix), queries: query count.
// Throws ResourceError("GPU closure needs X GiB, device has Y GiB ...") when
// not even a 64-column chunk fits in `available` bytes.
GpuMemoryPlan plan_gpu_memory(const LevelPlan& p, uint64_t rows_out, uint64_t queries, uint32_t c0, uint32_t c1,
                              uint64_t available, uint64_t device_total);
GpuMemoryPlan plan_gpu_memory_counts(uint64_t relevant, uint64_t succ_edges, uint64_t col_pairs, uint64_t levels,
                                     uint64_t rows_out, uint64_t queries, uint64_t columns, uint64_t available,
                                     uint64_t device_total);
std::string gib(uint64_t bytes);  // "1.5 GiB"

}  // namespace isocheck

#include <cstring>

#include "closure/gpu_closure.h"

namespace isocheck {

Scc PlannedClosure::condense(const Csr& g) {
  ++st_.calls;
  if (scc_still_valid(g, prev_, threads_)) {
    ++st_.scc_reused;
    // New edges may join two components of one layer: layers are off.
    prev_.layers.clear();
    return prev_;
  }
  prev_ = plan_components(g, threads_);
  return prev_;
}

ReachMatrix PlannedClosure::reach_matrix(const Csr& g, std::span<const uint32_t> keys) {
  ReachMatrix m;
  m.reset(static_cast<uint32_t>(keys.size()));
  if (keys.empty()) return m;
  const MatrixPlan mp = make_matrix_plan(g, keys, condense(g), threads_);
  b_->rows(mp.plan, mp.row, 0, m.n, m.bits.data());
  clear_irreflexive(mp, keys, m, 0, m.words);
  return m;
}

std::vector<uint8_t> PlannedClosure::reach_queries(const Csr& g, std::span<const ReachQuery> q) {
  if (q.empty()) return {};
  QueryPlan qp = make_query_plan(g, q, condense(g), threads_);
  std::vector<uint8_t> bits(qp.order.size(), 0);
  if (!qp.order.empty()) b_->queries(qp.plan, qp.row, qp.col, 0, qp.plan.columns, bits.data());
  for (size_t k = 0; k < qp.order.size(); ++k) qp.ans[qp.order[k]] = bits[k];
  return std::move(qp.ans);
}

std::unique_ptr<PlannedClosure> make_gpu_closure(const GpuClosureOptions& o) {
  std::unique_ptr<SliceBackend> b;
  try {
    b = make_gpu_slice_backend(o);
  } catch (const std::exception&) {  // a driver that cannot start: no device
    return nullptr;
  }
  if (!b) return nullptr;
  return std::make_unique<PlannedClosure>(std::move(b), "gpu", o.threads);
}

}  // namespace isocheck

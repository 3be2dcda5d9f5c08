#include "closure/windowed_closure.h"

#include "closure/graph_algos.h"

namespace isocheck {

WindowedClosure::WindowedClosure(ClosureEngine& inner, TimeWindows w)
    : inner_(inner), w_(std::move(w)), name_(std::string("windowed ") + inner.name()) {}

int WindowedClosure::by_time(uint32_t u, uint32_t v) const {
  if (u >= w_.lo.size() || v >= w_.lo.size()) return -1;
  if (w_.lo[u] == TimeWindows::kUnknown || w_.lo[v] == TimeWindows::kUnknown) return -1;
  // end(u) + δ < begin(v), without overflow.
  if (static_cast<__int128>(w_.hi[u]) + w_.skew < w_.lo[v]) return 1;
  if (static_cast<__int128>(w_.hi[v]) + w_.skew < w_.lo[u]) return 0;
  return -1;
}

std::vector<uint8_t> WindowedClosure::reach_queries(const Csr& g, std::span<const ReachQuery> q) {
  // The "not before" rule needs an acyclic graph (a cycle through u and v
  // makes both directions reachable): otherwise the inner engine answers all.
  if (!is_acyclic(g)) {
    computed_ += q.size();
    return inner_.reach_queries(g, q);
  }
  std::vector<uint8_t> ans(q.size(), 0);
  std::vector<ReachQuery> open;
  std::vector<size_t> where;
  for (size_t i = 0; i < q.size(); ++i) {
    // reach(u, u) is false on an acyclic graph; by_time never says 1 for it.
    const int t = q[i].from == q[i].to ? 0 : by_time(q[i].from, q[i].to);
    if (t >= 0) {
      ans[i] = static_cast<uint8_t>(t);
      ++by_time_;
    } else {
      open.push_back(q[i]);
      where.push_back(i);
    }
  }
  computed_ += open.size();
  if (!open.empty()) {
    const std::vector<uint8_t> inner = inner_.reach_queries(g, open);
    for (size_t j = 0; j < open.size(); ++j) ans[where[j]] = inner[j];
  }
  return ans;
}

ReachMatrix WindowedClosure::reach_matrix(const Csr& g, std::span<const uint32_t> keys) {
  // The matrix is dense by definition: the inner engine computes it.
  return inner_.reach_matrix(g, keys);
}

}  // namespace isocheck

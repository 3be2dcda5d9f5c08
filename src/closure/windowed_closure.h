// The windowed compact closure for timed graphs (Vbox §4):
// in a strict-serializability graph (realtime layout) real time
// already decides reachability between two transactions whose intervals do
// not overlap — end(u) + δ < begin(v) puts a path u → time nodes → v in the
// graph, and then v ⇝ u would be a cycle. Only pairs whose intervals overlap
// need the closure, so only their endpoints are handed to the inner engine
// (and stored there). Exact for graphs that contain those real-time paths and
// are acyclic; on a cyclic graph every query goes to the inner engine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "closure/closure.h"

namespace isocheck {

struct TimeWindows {
  // Per vertex of the graph: [lo, hi] = [begin, end] for a transaction whose
  // real-time edges are in the graph; kUnknown for every other vertex.
  static constexpr int64_t kUnknown = INT64_MIN;
  std::vector<int64_t> lo, hi;
  int64_t skew = 0;  // δ
};

class WindowedClosure final : public ClosureEngine {
 public:
  WindowedClosure(ClosureEngine& inner, TimeWindows w);
  const char* name() const override { return name_.c_str(); }
  ReachMatrix reach_matrix(const Csr& g, std::span<const uint32_t> keys) override;
  std::vector<uint8_t> reach_queries(const Csr& g, std::span<const ReachQuery> q) override;
  void set_path_hint(std::vector<uint32_t> next) override { inner_.set_path_hint(std::move(next)); }

  // Queries answered by time, and handed to the inner engine, so far.
  uint64_t by_time() const { return by_time_; }
  uint64_t computed() const { return computed_; }

 private:
  // 1: u ⇝ v by time, 0: not (acyclic graphs), -1: the intervals overlap.
  int by_time(uint32_t u, uint32_t v) const;
  ClosureEngine& inner_;
  TimeWindows w_;
  std::string name_;
  uint64_t by_time_ = 0, computed_ = 0;
};

}  // namespace isocheck

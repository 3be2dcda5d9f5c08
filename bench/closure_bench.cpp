// Closure engine timings on random graphs of growing size (not a test).
// Usage: closure_bench [max_vertices=1000000] [threads=1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "closure/closure.h"
#include "closure/graph_algos.h"

using namespace isocheck;

int main(int argc, char** argv) {
  const uint32_t max_n = argc > 1 ? static_cast<uint32_t>(std::atol(argv[1])) : 1'000'000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  std::printf("%10s %10s %8s %10s %10s %12s %12s\n", "vertices", "edges", "keys", "scc_s", "matrix_s", "queries", "queries_s");
  for (uint32_t n = 10'000; n <= max_n; n *= 10) {
    std::mt19937_64 rng(n);
    EdgeList e;
    // Local edges along a hidden order (like session/version chains), a few back edges.
    for (uint32_t v = 0; v < n; ++v)
      for (int k = 0; k < 3; ++k) {
        const uint32_t d = 1 + rng() % 64;
        if (v + d < n) e.add(v, v + d, EdgeKind::wr);
      }
    for (uint32_t i = 0; i < n / 1000; ++i) {
      const uint32_t v = rng() % n;
      if (v >= 8) e.add(v, v - 1 - rng() % 8, EdgeKind::rw);
    }
    const Csr g = build_csr(n, e);
    for (uint32_t k : {1024u, 8192u}) {
      std::vector<uint32_t> keys;
      for (uint32_t i = 0; i < k; ++i) keys.push_back(rng() % n);
      CpuClosureOptions o;
      o.threads = threads;
      CpuClosure cpu(o);
      auto t0 = std::chrono::steady_clock::now();
      const Scc s = strongly_connected(g);
      auto t1 = std::chrono::steady_clock::now();
      const ReachMatrix m = cpu.reach_matrix(g, keys);
      auto t2 = std::chrono::steady_clock::now();
      std::vector<ReachQuery> q;
      for (uint32_t i = 0; i < 4 * k; ++i) {
        const uint32_t a = rng() % n;
        q.push_back({a, std::min(n - 1, a + static_cast<uint32_t>(rng() % 2000))});
      }
      const auto ans = cpu.reach_queries(g, q);
      auto t3 = std::chrono::steady_clock::now();
      size_t ones = 0;
      for (uint8_t a : ans) ones += a;
      std::printf("%10u %10zu %8u %10.3f %10.3f %12zu %12.3f  (sccs %u, reachable %zu)\n", n, e.size(), k,
                  std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(), q.size(),
                  std::chrono::duration<double>(t3 - t2).count(), s.count, ones);
    }
  }
}

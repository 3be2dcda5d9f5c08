// `mpiexec -n N gpu_sliced_selftest [--cpu-only] [--graphs G]`: the sliced
// closure (MPI, NCCL among GPU ranks) against the CPU engine on random
// graphs, reach_matrix and reach_queries. Exit 0 when every rank agrees.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "common/gpu_testgraphs.h"
#include "closure/sliced_closure.h"

using namespace isocheck;
using namespace isocheck::gputest;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bool cpu_only = false;
  int graphs = 60;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cpu-only")) cpu_only = true;
    else if (!std::strcmp(argv[i], "--graphs") && i + 1 < argc) graphs = std::atoi(argv[++i]);
  }
  int rank = 0, size = 1, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    SlicedOptions o;
    o.use_gpu = !cpu_only;
    o.gpu_share = 2.0;
    o.cpu_memory_budget = 1 << 16;  // force several chunks on the CPU slices too
    SlicedClosure sc(MPI_COMM_WORLD, o);
    std::printf("%s\n", sc.describe().c_str());
    std::fflush(stdout);
    CpuClosure cpu;
    for (int t = 0; t < graphs; ++t) {
      const Shape shape = static_cast<Shape>(t % 4);
      const uint32_t n = 50 + (t * 37) % 900;
      const Csr g = random_graph(shape, n, 1.0 + (t % 3), 1000 + t);
      const auto keys = random_keys(n, 1 + (t * 53) % 700, 77 + t);
      if (sc.reach_matrix(g, keys) != cpu.reach_matrix(g, keys)) {
        ++bad;
        std::fprintf(stderr, "rank %d: reach_matrix differs on graph %d (%s, n=%u, k=%zu)\n", rank, t,
                     to_string(shape), n, keys.size());
      }
      std::mt19937_64 rng(5 + t);
      std::vector<ReachQuery> q(2000);
      for (auto& x : q) x = {static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)};
      if (sc.reach_queries(g, q) != cpu.reach_queries(g, q)) {
        ++bad;
        std::fprintf(stderr, "rank %d: reach_queries differs on graph %d (%s, n=%u)\n", rank, t, to_string(shape), n);
      }
    }
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("sliced closure: %d ranks, %d GPU slices%s: %d graphs, %s\n", size, sc.gpu_ranks(),
                  sc.nccl() ? " (NCCL)" : "", graphs, total ? "MISMATCH" : "all equal to the CPU engine");
    bad = total;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}

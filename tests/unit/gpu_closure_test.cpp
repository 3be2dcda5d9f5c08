// GPU closure (docs/gpu.md). Host-side parts (level plan, host slice
// backend, memory plan, incremental rounds, MPI slices on CPU ranks) run
// everywhere; the device tests are skipped visibly without a CUDA device.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "closure/closure.h"
#include "closure/gpu_closure.h"
#include "closure/gpu_plan.h"
#include "common/gpu_testgraphs.h"
#include "core/errors.h"

using namespace isocheck;
using namespace isocheck::gputest;

namespace {

std::vector<ReachQuery> random_queries(uint32_t n, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ReachQuery> q(count);
  for (auto& x : q) x = {static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)};
  return q;
}

// Compares `eng` with the CPU engine on `count` random graphs of every shape.
void expect_same_as_cpu(ClosureEngine& eng, int count, uint32_t max_n, uint64_t seed) {
  CpuClosure cpu;
  for (int t = 0; t < count; ++t) {
    const Shape shape = static_cast<Shape>(t % 4);
    const uint32_t n = 1 + static_cast<uint32_t>((seed + t * 7919ull) % max_n);
    const double degree = 0.5 + (t % 5) * 0.75;
    const Csr g = random_graph(shape, n, degree, seed + t, 1 + n / (2 + t % 30));
    const auto keys = random_keys(n, 1 + static_cast<uint32_t>((t * 131ull) % 400), seed * 3 + t);
    ASSERT_EQ(eng.reach_matrix(g, keys), cpu.reach_matrix(g, keys))
        << to_string(shape) << " n=" << n << " keys=" << keys.size() << " graph " << t;
    const auto q = random_queries(n, 1 + (t * 37) % 3000, seed * 5 + t);
    ASSERT_EQ(eng.reach_queries(g, q), cpu.reach_queries(g, q)) << to_string(shape) << " n=" << n << " graph " << t;
  }
}

// Prune-like rounds: edges only added, always going down a topological order.
void expect_incremental_rounds(PlannedClosure& eng) {
  CpuClosure cpu;
  const uint32_t n = 3000;
  std::mt19937_64 rng(9);
  EdgeList e;
  for (int i = 0; i < 2000; ++i) {
    uint32_t a = rng() % n, b = rng() % n;
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    e.add(b, a, EdgeKind::aux);  // high -> low: a DAG
  }
  const auto q = random_queries(n, 5000, 3);
  const uint64_t before = eng.stats().scc_reused;
  for (int round = 0; round < 6; ++round) {
    const Csr g = build_csr(n, e);
    ASSERT_EQ(eng.reach_queries(g, q), cpu.reach_queries(g, q)) << "round " << round;
    for (int i = 0; i < 300; ++i) {
      uint32_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      e.add(b, a, EdgeKind::aux);
    }
  }
  // The numbering of Tarjan on a DAG is not the vertex order, so the first
  // rounds may recompute; later ones must reuse at least once.
  EXPECT_GE(eng.stats().scc_reused, before);
  // A back edge makes a cycle: the decomposition must be recomputed.
  e.add(0, n - 1, EdgeKind::aux);
  e.add(n - 1, 0, EdgeKind::aux);
  const Csr g = build_csr(n, e);
  ASSERT_EQ(eng.reach_queries(g, q), cpu.reach_queries(g, q));
  const auto keys = random_keys(n, 300, 4);
  ASSERT_EQ(eng.reach_matrix(g, keys), cpu.reach_matrix(g, keys));
}

bool have_device() { return !gpu_devices().empty(); }
#define REQUIRE_DEVICE()                                                                       \
  do {                                                                                         \
    std::string why;                                                                           \
    if (gpu_devices(&why).empty()) GTEST_SKIP() << "no CUDA device here (" << why << ")";      \
  } while (0)

int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string& path) {
  std::string s;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, k);
    std::fclose(f);
  }
  return s;
}

// The program under test: $ISOCHECK_BINARY when set (a build folder carried to
// another machine), else the one this test was built with.
std::string isocheck_bin() {
  const char* e = std::getenv("ISOCHECK_BINARY");
  return e && *e ? e : ISOCHECK_BINARY;
}

std::string bin_dir() {
  std::string b = isocheck_bin();
  return b.substr(0, b.rfind('/'));
}

}  // namespace

// ---- host side: always runs ------------------------------------------------

TEST(GpuPlan, HostBackendMatchesCpuEngine) {
  PlannedClosure eng(std::make_unique<HostSliceBackend>(1 << 12), "host");  // tiny budget: many chunks
  expect_same_as_cpu(eng, 200, 700, 11);
}

TEST(GpuPlan, LevelsOrderSuccessorsFirst) {
  const Csr g = random_graph(Shape::cyclic, 2000, 2.0, 5);
  const auto keys = random_keys(2000, 500, 6);
  const LevelPlan p = make_level_plan(g, keys, keys, strongly_connected(g));
  ASSERT_GT(p.relevant, 0u);
  std::vector<uint32_t> level_of(p.relevant);
  for (uint32_t l = 0; l < p.levels(); ++l)
    for (uint32_t d = p.level_off[l]; d < p.level_off[l + 1]; ++d) level_of[d] = l;
  for (uint32_t d = 0; d < p.relevant; ++d)
    for (uint64_t i = p.succ_off[d]; i < p.succ_off[d + 1]; ++i) EXPECT_LT(level_of[p.succ[i]], level_of[d]);
  for (size_t i = 1; i < p.col_index.size(); ++i) EXPECT_LE(p.col_index[i - 1], p.col_index[i]);
}

TEST(GpuPlan, IncrementalRoundsReuseTheOrder) {
  PlannedClosure eng(std::make_unique<HostSliceBackend>(), "host");
  expect_incremental_rounds(eng);
  // A DAG whose edges all go down the previous numbering reuses it.
  PlannedClosure e2(std::make_unique<HostSliceBackend>(), "host");
  EdgeList e;
  e.add(2, 1, EdgeKind::aux), e.add(1, 0, EdgeKind::aux);
  const std::vector<ReachQuery> q{{2, 0}, {0, 2}};
  e2.reach_queries(build_csr(3, e), q);
  e.add(2, 0, EdgeKind::aux);
  const Csr g = build_csr(3, e);
  const Scc s = strongly_connected(g);
  if (s.comp[2] > s.comp[1] && s.comp[1] > s.comp[0]) {  // Tarjan numbered 2,1,0 top-down
    EXPECT_EQ(e2.reach_queries(g, q), (std::vector<uint8_t>{1, 0}));
    EXPECT_EQ(e2.stats().scc_reused, 1u);
  }
}

TEST(GpuPlan, MemoryPlanFitsTenMillionVerticesInChunks) {
  // 10^7 components, 3*10^7 edges, 10^5 endpoint columns on an 80 GB card:
  // fits, in a few column chunks.
  const uint64_t card = 80ull << 30, usable = card - card / 20 - (256ull << 20);
  const GpuMemoryPlan m = plan_gpu_memory_counts(10'000'000, 30'000'000, 100'000, 1000, 0, 1'000'000, 100'000,
                                                 usable, card);
  EXPECT_LE(m.total(), usable);
  EXPECT_GE(m.words, 64u);
  EXPECT_EQ(m.chunks, (1563 + m.words - 1) / m.words);
  EXPECT_GT(m.chunks, 1u);
}

TEST(GpuPlan, MemoryPlanSaysWhatItNeeds) {
  try {
    plan_gpu_memory_counts(10'000'000, 30'000'000, 100'000, 1000, 0, 0, 100'000, 64ull << 20, 80ull << 30);
    FAIL() << "expected a ResourceError";
  } catch (const ResourceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("GPU closure needs "), std::string::npos) << m;
    EXPECT_NE(m.find(" GiB, device has "), std::string::npos) << m;
  }
}

TEST(GpuPlan, GpuEngineAbsentMeansNullptr) {
  if (have_device()) GTEST_SKIP() << "a CUDA device is present (checked by the GpuDevice tests)";
  EXPECT_EQ(make_closure_engine("gpu"), nullptr);
  // verify --closure gpu without a device is a clear usage error (exit 2).
  const std::string bin = isocheck_bin(), dir = ::testing::TempDir();
  ASSERT_EQ(run(bin + " generate --workload blindw-rw --txns 300 --seed 2 -q --out " + dir + "/nogpu.jsonl"), 0);
  EXPECT_EQ(run(bin + " verify -q " + dir + "/nogpu.jsonl --closure gpu >/dev/null 2>" + dir + "/nogpu.err"), 2);
  EXPECT_NE(slurp(dir + "/nogpu.err").find("--closure gpu"), std::string::npos) << slurp(dir + "/nogpu.err");
}

TEST(GpuSliced, MpiCpuSlicesMatchCpuEngine) {
#if ISOCHECK_HAVE_SLICED
  const std::string self = bin_dir() + "/gpu_sliced_selftest";
  if (run("command -v mpiexec >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpiexec not found";
  const std::string env = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 ";
  const std::string out = ::testing::TempDir() + "/sliced.out";
  EXPECT_EQ(run(env + "mpiexec -n 3 " + self + " --cpu-only --graphs 24 >" + out + " 2>&1"), 0) << slurp(out);
  EXPECT_NE(slurp(out).find("all equal to the CPU engine"), std::string::npos) << slurp(out);
#else
  GTEST_SKIP() << "built without MPI: no sliced closure";
#endif
}

// ---- device: skipped visibly without a CUDA device ---------------------------

TEST(GpuDevice, ReachabilityEqualsCpuOnThousandRandomGraphs) {
  REQUIRE_DEVICE();
  auto eng = make_closure_engine("gpu");
  ASSERT_NE(eng, nullptr);
  EXPECT_STREQ(eng->name(), "gpu");
  expect_same_as_cpu(*eng, 1000, 3000, 101);
}

TEST(GpuDevice, ManyChunksEqualCpu) {
  REQUIRE_DEVICE();
  GpuClosureOptions o;
  o.max_chunk_words = 1;  // 64 columns per chunk
  auto eng = make_gpu_closure(o);
  ASSERT_NE(eng, nullptr);
  expect_same_as_cpu(*eng, 60, 2000, 202);
  // Deep chains exercise the single-block launches over many narrow levels.
  CpuClosure cpu;
  const Csr g = random_graph(Shape::chain, 20000, 1.0, 7);
  const auto keys = random_keys(20000, 700, 8);
  EXPECT_EQ(eng->reach_matrix(g, keys), cpu.reach_matrix(g, keys));
}

TEST(GpuDevice, IncrementalRoundsEqualCpu) {
  REQUIRE_DEVICE();
  auto eng = make_gpu_closure();
  ASSERT_NE(eng, nullptr);
  expect_incremental_rounds(*eng);
}

TEST(GpuDevice, TooLittleMemoryIsAResourceError) {
  REQUIRE_DEVICE();
  GpuClosureOptions o;
  o.memory_limit = 4096;
  auto eng = make_gpu_closure(o);
  ASSERT_NE(eng, nullptr);
  const Csr g = random_graph(Shape::dag, 5000, 2.0, 3);
  const auto keys = random_keys(5000, 1000, 4);
  try {
    eng->reach_matrix(g, keys);
    FAIL() << "expected a ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU closure needs "), std::string::npos) << e.what();
  }
}

TEST(GpuDevice, VerdictsWithGpuClosureEqualCpu) {
  REQUIRE_DEVICE();
  const std::string bin = isocheck_bin(), dir = ::testing::TempDir();
  struct Case { const char* args; };
  const Case cases[] = {
      {"--workload blindw-rw --txns 4000 --seed 1"},
      {"--workload blindw-wh --txns 3000 --seed 2"},
      {"--workload blindw-rm --txns 4000 --seed 3"},
      {"--workload blindw-rw --txns 3000 --seed 4 --plant write-skew"},
      {"--workload blindw-wh --txns 3000 --seed 5 --plant g-single --plant g1c"},
      {"--workload rmw --txns 3000 --seed 6 --plant g0"},
  };
  int k = 0;
  for (const auto& c : cases) {
    const std::string h = dir + "/gpuv" + std::to_string(k++) + ".jsonl";
    ASSERT_EQ(run(bin + " generate -q --out " + h + " " + c.args), 0) << c.args;
    int rc[2];
    std::string out[2];
    const char* eng[2] = {"cpu", "gpu"};
    for (int i = 0; i < 2; ++i) {
      const std::string o = h + "." + eng[i] + ".txt";
      rc[i] = run(bin + " verify -q " + h + " --level ser,si,sser --closure " + eng[i] + " >" + o + " 2>&1");
      out[i] = slurp(o);
    }
    EXPECT_EQ(rc[0], rc[1]) << c.args << "\ncpu:\n" << out[0] << "\ngpu:\n" << out[1];
    EXPECT_TRUE(rc[0] == 0 || rc[0] == 1) << c.args << "\n" << out[0];
    EXPECT_EQ(out[0], out[1]) << c.args;
  }
}

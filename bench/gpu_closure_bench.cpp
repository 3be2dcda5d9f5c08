// GPU vs CPU closure engine on generated graphs (docs/gpu.md):
//   gpu_closure_bench [--vertices N] [--endpoints K] [--queries Q]
//                     [--degree D] [--cpu-fraction F] [--threads T] [--seed S]
//                     [--plan-only 1 [--repeat R] [--reference 1]]
// A layered DAG of N vertices (about D out-edges each, levels of N/64), K
// random endpoint vertices, Q random reachability queries among them (what
// pruning asks). Times: the host plan (SCC, levels), the device propagation,
// the GPU engine end to end, and the CPU engine (all T threads) on a fraction
// F of the endpoint columns, scaled up by 1/F when F < 1 (marked "est.").
// The GPU answers are checked against the CPU's on the columns both ran.
// --plan-only 1: only the host plan (no CPU engine, no device), timed per step
// over --repeat R runs (what a machine without a device can measure);
// with --reference 1, the first host plan instead (Tarjan as first written,
// then the rest of the plan), for before/after figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <ctime>

#include "closure/closure.h"
#include "closure/gpu_closure.h"
#include "common/gpu_testgraphs.h"
#include "common/gpu_plan_reference.h"

using namespace isocheck;
using Clock = std::chrono::steady_clock;

static double secs(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

static double cpu_secs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The host plan alone, `repeat` times: wall and process CPU seconds of the
// SCC and of each step of make_query_plan; then the least of each over the
// repeats (the machine may be shared: CPU seconds are the steadier figure).
static void print_steps(const char* tag, int threads, double scc, const PlanStepTimes& s, double total) {
  std::printf("%s threads=%d  scc %.3f  condense %.3f  heights %.3f  marks %.3f  levels %.3f  succ %.3f  "
              "queries %.3f  total %.3f s\n",
              tag, threads, scc, s.condense, s.heights, s.marks, s.levels, s.succ, s.queries, total);
}

static int reference_plan_bench(const Csr& g, const std::vector<ReachQuery>& q, int repeat) {
  double best_scc = 1e300, best_total = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const double c0 = cpu_secs();
    Scc scc = reference::reference_strongly_connected(g);
    const double c_scc = cpu_secs() - c0;
    const QueryPlan qp = reference::reference_query_plan(g, q, std::move(scc));
    const double c_total = cpu_secs() - c0;
    std::printf("reference plan cpu  scc %.3f  rest %.3f  total %.3f s  (%u relevant, %zu queries need bits)\n", c_scc,
                c_total - c_scc, c_total, qp.plan.relevant, qp.order.size());
    best_scc = std::min(best_scc, c_scc), best_total = std::min(best_total, c_total);
  }
  std::printf("least reference cpu  scc %.3f  total %.3f s\n", best_scc, best_total);
  return 0;
}

static int plan_only_bench(const Csr& g, const std::vector<ReachQuery>& q, int threads, int repeat) {
  const double inf = 1e300;
  PlanStepTimes best_w{inf, inf, inf, inf, inf, inf}, best_c = best_w;
  double bw_scc = inf, bc_scc = inf, bw_total = inf, bc_total = inf;
  auto least = [](PlanStepTimes& b, const PlanStepTimes& s) {
    b.condense = std::min(b.condense, s.condense), b.heights = std::min(b.heights, s.heights);
    b.marks = std::min(b.marks, s.marks), b.levels = std::min(b.levels, s.levels);
    b.succ = std::min(b.succ, s.succ), b.queries = std::min(b.queries, s.queries);
  };
  for (int r = 0; r < repeat; ++r) {
    const double c0 = cpu_secs();
    auto t0 = Clock::now();
    Scc scc = plan_components(g, threads);
    const double w_scc = secs(t0), c_scc = cpu_secs() - c0;
    PlanStepTimes sw, sc;
    QueryPlan qp = make_query_plan(g, q, std::move(scc), threads, &sw, &sc);
    const double w_total = secs(t0), c_total = cpu_secs() - c0;
    print_steps("plan wall", threads, w_scc, sw, w_total);
    print_steps("plan cpu ", threads, c_scc, sc, c_total);
    std::printf("          %u relevant, %u levels, %zu succ edges, %zu queries need bits\n", qp.plan.relevant,
                qp.plan.levels(), qp.plan.succ.size(), qp.order.size());
    least(best_w, sw), least(best_c, sc);
    bw_scc = std::min(bw_scc, w_scc), bc_scc = std::min(bc_scc, c_scc);
    bw_total = std::min(bw_total, w_total), bc_total = std::min(bc_total, c_total);
  }
  print_steps("least wall", threads, bw_scc, best_w, bw_total);
  print_steps("least cpu ", threads, bc_scc, best_c, bc_total);
  return 0;
}

int main(int argc, char** argv) {
  uint64_t n = 1'000'000, k = 10'000, nq = 2'000'000, seed = 1;
  double degree = 3.0, frac = 1.0;
  bool plan_only = false, reference_plan = false, path_index = true;
  int repeat = 1;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--vertices") n = std::stoull(v);
    else if (a == "--endpoints") k = std::stoull(v);
    else if (a == "--queries") nq = std::stoull(v);
    else if (a == "--degree") degree = std::stod(v);
    else if (a == "--cpu-fraction") frac = std::stod(v);
    else if (a == "--threads") threads = std::stoi(v);
    else if (a == "--seed") seed = std::stoull(v);
    else if (a == "--plan-only") plan_only = std::stoi(v) != 0;
    else if (a == "--reference") reference_plan = std::stoi(v) != 0;
    else if (a == "--repeat") repeat = std::max(1, std::stoi(v));
    else if (a == "--path-index") path_index = std::stoi(v) != 0;
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 2; }
  }
  auto t0 = Clock::now();
  const Csr g = gputest::random_graph(gputest::Shape::layered, static_cast<uint32_t>(n), degree, seed,
                                      static_cast<uint32_t>(std::max<uint64_t>(1, n / 64)));
  const auto keys = gputest::random_keys(static_cast<uint32_t>(n), static_cast<uint32_t>(k), seed + 1, false);
  std::mt19937_64 rng(seed + 2);
  std::vector<ReachQuery> q(nq);
  for (auto& x : q) x = {keys[rng() % k], keys[rng() % k]};
  std::fprintf(stderr, "graph: %llu vertices, %zu edges, %llu endpoints, %zu queries (%.1f s to build)\n",
               (unsigned long long)n, g.target.size(), (unsigned long long)k, q.size(), secs(t0));

  if (plan_only && reference_plan) return reference_plan_bench(g, q, repeat);
  if (plan_only) return plan_only_bench(g, q, threads, repeat);

  // CPU engine on the queries whose target is among the first frac of endpoints.
  const uint64_t kc = std::max<uint64_t>(1, static_cast<uint64_t>(k * frac));
  std::vector<uint8_t> in_sample(n, 0);
  for (uint64_t i = 0; i < kc; ++i) in_sample[keys[i]] = 1;
  std::vector<ReachQuery> qc;
  std::vector<size_t> qc_index;
  for (size_t i = 0; i < q.size(); ++i)
    if (in_sample[q[i].to]) qc.push_back(q[i]), qc_index.push_back(i);
  CpuClosureOptions co;
  co.threads = threads;
  co.memory_budget = 16ull << 30;
  co.path_index = path_index;
  CpuClosure cpu(co);
  t0 = Clock::now();
  const auto ans_cpu = cpu.reach_queries(g, qc);
  const double t_cpu_sample = secs(t0);
  const double t_cpu = frac < 1 ? t_cpu_sample / frac : t_cpu_sample;

  double t_plan = 0, t_dev = 0, t_gpu = 0;
  size_t mismatches = 0, positives = 0;
  for (uint8_t a : ans_cpu) positives += a;
  std::string card = "none";
  GpuClosureOptions go;
  go.threads = threads;  // host plan threads, as the CPU engine's
  auto eng = make_gpu_closure(go);
  if (!eng) {  // the host plan is plain C++: time it anyway
    t0 = Clock::now();
    QueryPlan qp = make_query_plan(g, q, plan_components(g, threads), threads);
    t_plan = secs(t0);
    std::fprintf(stderr, "host plan (no device): %.3f s, %u relevant components, %u levels\n", t_plan,
                 qp.plan.relevant, qp.plan.levels());
  }
  if (eng) {
    const auto devs = gpu_devices();
    if (!devs.empty()) card = devs[0].name;
    {  // warm-up: context, module load, first allocations
      const Csr w = gputest::random_graph(gputest::Shape::dag, 1000, 2, 1);
      eng->reach_queries(w, std::vector<ReachQuery>{{1, 2}, {3, 4}});
    }
    t0 = Clock::now();
    QueryPlan qp = make_query_plan(g, q, plan_components(g, threads), threads);
    t_plan = secs(t0);
    std::vector<uint8_t> bits(qp.order.size(), 0);
    t0 = Clock::now();
    if (!qp.order.empty()) eng->backend().queries(qp.plan, qp.row, qp.col, 0, qp.plan.columns, bits.data());
    t_dev = secs(t0);
    t0 = Clock::now();
    const auto ans_gpu = eng->reach_queries(g, q);
    t_gpu = secs(t0);
    for (size_t i = 0; i < qc.size(); ++i) mismatches += ans_gpu[qc_index[i]] != ans_cpu[i];
  }
  std::printf("closure  vertices=%-9llu endpoints=%-7llu queries=%-8zu card=\"%s\"  cpu(%d thr)=%8.3f s%s  "
              "gpu=%7.3f s (plan %.3f + device %.3f)  speedup=%.1fx (device only %.1fx)  check=%s (%zu of %zu positive)\n",
              (unsigned long long)n, (unsigned long long)k, q.size(), card.c_str(), threads, t_cpu,
              frac < 1 ? " est." : "", t_gpu, t_plan, t_dev, t_gpu > 0 ? t_cpu / t_gpu : 0.0,
              t_dev > 0 ? std::max(0.0, t_cpu - t_plan) / t_dev : 0.0, !eng ? "no-gpu" : mismatches ? "MISMATCH" : "ok",
              positives, qc.size());
  return mismatches ? 1 : 0;
}

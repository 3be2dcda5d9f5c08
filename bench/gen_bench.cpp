// Generation speed: transactions per second per workload, into a sink that
// only counts (generator cost alone) and into JSONL text in memory.
// Usage: gen_bench [txns=1000000] [workload ...] [--out FILE.jsonl|FILE.h5]
// (--out: also time writing through open_sink to that file)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gen/gen.h"
#include "io/jsonl.h"

using namespace isocheck;

namespace {
struct NullSink : HistorySink {
  void append(const History& c) override { ops += c.op_count(); }
  void finish() override {}
  size_t ops = 0;
};
struct JsonlSink : HistorySink {
  void append(const History& c) override {
    std::ostringstream s;
    write_jsonl(c, s);
    bytes += s.str().size();
  }
  void finish() override {}
  size_t bytes = 0;
};

template <class F>
double seconds(F f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  const uint64_t txns = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::vector<std::string> workloads;
  std::string out;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--out" && i + 1 < argc)
      out = argv[++i];
    else
      workloads.push_back(argv[i]);
  }
  if (workloads.empty()) workloads = {"rmw"};
  for (const auto& w : workloads) {
    GenOptions o;
    o.workload = w;
    o.txns = txns;
    NullSink n;
    GenSummary s;
    const double t = seconds([&] { s = generate(o, n); });
    JsonlSink j;
    const double tj = seconds([&] { generate(o, j); });
    std::printf("%-10s %10llu txns %11llu ops  gen %7.3f s = %6.2f M txn/s   +jsonl %7.3f s = %6.2f M txn/s (%.1f MB)\n",
                w.c_str(), static_cast<unsigned long long>(s.txns), static_cast<unsigned long long>(s.ops), t,
                s.txns / t / 1e6, tj, s.txns / tj / 1e6, j.bytes / 1e6);
    if (!out.empty()) {
      const double tf = seconds([&] {
        auto sink = open_sink(out, format_from_extension(out), kGenTimeUnit);
        generate(o, *sink);
      });
      std::printf("%-10s -> %s %7.3f s = %6.2f M txn/s\n", w.c_str(), out.c_str(), tf, s.txns / tf / 1e6);
    }
  }
}

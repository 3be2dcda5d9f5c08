#include "mpi/accounting.h"

#include <sys/resource.h>

#include <atomic>
#include <mutex>

namespace isocheck::dist {

namespace {
std::atomic<uint64_t> g_ops_peak{0};
std::vector<std::pair<std::string, double>> g_steps;
std::mutex g_steps_mutex;  // rank 0's worker thread solves pieces too
}  // namespace

void note_ops_held(uint64_t ops) {
  uint64_t seen = g_ops_peak.load(std::memory_order_relaxed);
  while (ops > seen && !g_ops_peak.compare_exchange_weak(seen, ops, std::memory_order_relaxed)) {
  }
}

uint64_t ops_held_peak() { return g_ops_peak.load(std::memory_order_relaxed); }

void note_step(const char* name, double seconds) {
  std::lock_guard<std::mutex> lock(g_steps_mutex);
  for (auto& [n, t] : g_steps)
    if (n == name) {
      t += seconds;
      return;
    }
  g_steps.emplace_back(name, seconds);
}

std::vector<std::pair<std::string, double>> steps_noted() {
  std::lock_guard<std::mutex> lock(g_steps_mutex);
  return g_steps;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace isocheck::dist

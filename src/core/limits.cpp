#include "core/limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/errors.h"

namespace isocheck {
namespace {
std::atomic<const char*> g_stage{"start"};
unsigned long long g_memory_limit = 0;
}

unsigned long long memory_limit() { return g_memory_limit; }

void set_stage(const char* s) { g_stage.store(s); }
const char* current_stage() { return g_stage.load(); }

unsigned long long parse_bytes(const std::string& s, const char* option) {
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (...) {
    throw UsageError(std::string(option) + ": expected a size like 512M or 8G, got \"" + s + "\"");
  }
  std::string suf = s.substr(pos);
  unsigned long long mul = 1;
  if (suf == "" || suf == "B") mul = 1;
  else if (suf == "K" || suf == "KiB" || suf == "k") mul = 1ULL << 10;
  else if (suf == "M" || suf == "MiB") mul = 1ULL << 20;
  else if (suf == "G" || suf == "GiB") mul = 1ULL << 30;
  else if (suf == "T" || suf == "TiB") mul = 1ULL << 40;
  else throw UsageError(std::string(option) + ": unknown size suffix \"" + suf + "\" (use K, M, G or T)");
  return v * mul;
}

double parse_seconds(const std::string& s, const char* option) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    throw UsageError(std::string(option) + ": expected a duration like 90, 90s, 5m or 2h, got \"" + s + "\"");
  }
  std::string suf = s.substr(pos);
  if (suf == "" || suf == "s") return v;
  if (suf == "m") return v * 60;
  if (suf == "h") return v * 3600;
  throw UsageError(std::string(option) + ": unknown duration suffix \"" + suf + "\" (use s, m or h)");
}

void apply_memory_limit(unsigned long long bytes) {
  g_memory_limit = bytes;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = bytes;
  setrlimit(RLIMIT_AS, &rl);
}

void apply_time_limit(double seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    std::fprintf(stderr, "isocheck: time limit of %gs reached during stage \"%s\"; raise --time-limit\n", seconds,
                 current_stage());
    std::fflush(stderr);
    _exit(3);
  }).detach();
}

}  // namespace isocheck

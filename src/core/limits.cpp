#include "core/limits.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/errors.h"

namespace isocheck {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::once_flag g_watch_once;
// This process's rank in a job of several (set_limit_rank), for the message.
std::atomic<int> g_rank{0}, g_ranks{1};

[[noreturn]] void give_up(const std::string& msg) {
  const int ranks = g_ranks.load();
  if (ranks > 1) std::fprintf(stderr, "isocheck: rank %d: %s\n", g_rank.load(), msg.c_str());
  else std::fprintf(stderr, "isocheck: %s\n", msg.c_str());
  std::fflush(stderr);
  _exit(3);
}

// Samples the resident size and the clock every 10 ms between the checks
// (a stage without a check point cannot run past a limit), once a check passed.
void watch() {
  namespace ld = limits_detail;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!ld::armed.load()) continue;
    // A report is claimed by disarming: not when a check point (or the
    // ranks' agreement) disarmed first and reports it itself.
    auto claim = [] {
      bool was = true;
      return ld::armed.compare_exchange_strong(was, false);
    };
    if (const uint64_t lim = ld::memory_limit.load()) {
      const uint64_t r = resident_for_limit(lim);
      if (r > lim && claim()) give_up(memory_limit_message(r));
    }
    if (const int64_t d = ld::deadline_ns.load(); d && ld::now_ns() >= d && claim()) give_up(time_limit_message());
  }
}

void start_watchdog() {
  std::call_once(g_watch_once, [] { std::thread(watch).detach(); });
}

}  // namespace

unsigned long long parse_bytes(const std::string& s, const char* option) {
  auto bad = [&](const std::string& why) {
    return UsageError(std::string(option) + ": " + why + ", got \"" + s + "\"");
  };
  size_t pos = 0;
  unsigned long long v = 0;
  for (; pos < s.size() && is_digit(s[pos]); ++pos)
    if (__builtin_mul_overflow(v, 10ULL, &v) || __builtin_add_overflow(v, static_cast<unsigned>(s[pos] - '0'), &v))
      throw bad("too large");
  if (pos == 0) throw bad("expected a positive size like 512M or 8G");
  const std::string suf = s.substr(pos);
  unsigned long long mul = 1;
  if (suf == "" || suf == "B") mul = 1;
  else if (suf == "K" || suf == "KiB" || suf == "k") mul = 1ULL << 10;
  else if (suf == "M" || suf == "MiB") mul = 1ULL << 20;
  else if (suf == "G" || suf == "GiB") mul = 1ULL << 30;
  else if (suf == "T" || suf == "TiB") mul = 1ULL << 40;
  else throw UsageError(std::string(option) + ": unknown size suffix \"" + suf + "\" (use K, M, G or T)");
  if (v == 0) throw bad("must be positive");
  if (__builtin_mul_overflow(v, mul, &v)) throw bad("too large");
  return v;
}

double parse_seconds(const std::string& s, const char* option) {
  const UsageError usage(std::string(option) + ": expected a positive duration like 90, 90s, 5m or 2h, got \"" + s +
                         "\"");
  // A plain decimal number: no sign, no inf/nan, no hexadecimal.
  size_t pos = 0;
  while (pos < s.size() && (is_digit(s[pos]) || s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E' ||
                            ((s[pos] == '+' || s[pos] == '-') && pos > 0 && (s[pos - 1] == 'e' || s[pos - 1] == 'E'))))
    ++pos;
  if (pos == 0 || !(is_digit(s[0]) || s[0] == '.')) throw usage;
  const std::string num = s.substr(0, pos);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) throw usage;
  const std::string suf = s.substr(pos);
  if (suf == "m") v *= 60;
  else if (suf == "h") v *= 3600;
  else if (suf != "" && suf != "s")
    throw UsageError(std::string(option) + ": unknown duration suffix \"" + suf + "\" (use s, m or h)");
  if (!(v > 0)) throw UsageError(std::string(option) + ": must be positive, got \"" + s + "\"");
  return v;  // may be +inf (past the double range): no limit
}

void set_limit_rank(int rank, int ranks) {
  g_rank.store(rank);
  g_ranks.store(ranks);
}

void apply_memory_limit(unsigned long long bytes) {
  limits_detail::memory_limit.store(bytes);
  limits_detail::memory_limit_is_default.store(false);
  if (bytes) start_watchdog();
}

namespace {

// A control group file's limit in bytes; 0 when absent or unlimited ("max",
// or cgroup v1's page-rounded 2^63).
uint64_t cgroup_limit(const std::string& file) {
  std::ifstream in(file);
  std::string v;
  if (!(in >> v) || v.empty() || !is_digit(v[0])) return 0;
  const unsigned long long b = std::strtoull(v.c_str(), nullptr, 10);
  return b >= (1ULL << 60) ? 0 : b;
}

// The smallest limit on the way from this process's group up to the root.
uint64_t cgroup_memory_limit() {
  uint64_t best = 0;
  auto take = [&](uint64_t b) {
    if (b && (!best || b < best)) best = b;
  };
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "0::/path" (v2) or "N:memory:/path" (v1; also "N:cpu,memory:/path").
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    std::string root, file;
    if (controllers.empty()) root = "/sys/fs/cgroup", file = "memory.max";
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
      root = "/sys/fs/cgroup/memory", file = "memory.limit_in_bytes";
    else continue;
    for (;;) {
      take(cgroup_limit(root + (path == "/" ? "" : path) + "/" + file));
      if (path.empty() || path == "/") break;
      const size_t cut = path.rfind('/');
      path = cut == 0 || cut == std::string::npos ? "/" : path.substr(0, cut);
    }
  }
  return best;
}

// SLURM's "2(x3),1": tasks per node, node by node; the entry of node `node`.
unsigned slurm_tasks_on_node(const char* spec, unsigned node) {
  const char* p = spec;
  while (*p) {
    char* end = nullptr;
    const unsigned long tasks = std::strtoul(p, &end, 10);
    if (end == p) return 0;
    unsigned long times = 1;
    p = end;
    if (*p == '(') {
      if (p[1] != 'x') return 0;
      times = std::strtoul(p + 2, &end, 10);
      if (*end != ')') return 0;
      p = end + 1;
    }
    if (node < times) return static_cast<unsigned>(tasks);
    node -= static_cast<unsigned>(times);
    if (*p == ',') ++p;
    else if (*p) return 0;
  }
  return 0;
}

}  // namespace

uint64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  uint64_t phys = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  const uint64_t cg = cgroup_memory_limit();
  if (cg && (!phys || cg < phys)) phys = cg;
  return phys;
}

unsigned processes_on_this_machine() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"})
    if (const char* v = std::getenv(var)) {
      const unsigned long n = std::strtoul(v, nullptr, 10);
      if (n >= 1 && n < (1UL << 20)) return static_cast<unsigned>(n);
    }
  const char* spec = std::getenv("SLURM_STEP_TASKS_PER_NODE");
  if (!spec) spec = std::getenv("SLURM_TASKS_PER_NODE");
  const char* node = std::getenv("SLURM_NODEID");
  if (spec && node) {
    const unsigned n = slurm_tasks_on_node(spec, static_cast<unsigned>(std::strtoul(node, nullptr, 10)));
    if (n >= 1) return n;
  }
  return 1;
}

uint64_t default_memory_limit(uint64_t machine, unsigned processes) {
  if (machine == 0) return 0;  // unknown: no default
  return machine / 10 * 9 / std::max(1u, processes);
}

void apply_default_memory_limit() {
  const uint64_t machine = machine_memory_bytes();
  const uint64_t lim = default_memory_limit(machine, processes_on_this_machine());
  limits_detail::memory_limit.store(lim);
  limits_detail::machine_memory.store(machine);
  limits_detail::memory_limit_is_default.store(lim != 0);
  if (lim) start_watchdog();
}

// Past about 30 years a limit cannot be reached: none is set.
void apply_time_limit(double seconds) {
  if (!(seconds > 0) || !(seconds < 1e9)) return;
  limits_detail::time_limit_s.store(seconds);
  limits_detail::deadline_ns.store(limits_detail::now_ns() + static_cast<int64_t>(seconds * 1e9));
  start_watchdog();
}

}  // namespace isocheck

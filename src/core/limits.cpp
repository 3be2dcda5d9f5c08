#include "core/limits.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
    if (const uint64_t lim = ld::memory_limit.load()) {
      const uint64_t r = private_resident_bytes();
      if (r > lim) give_up(memory_limit_message(r));
    }
    if (const int64_t d = ld::deadline_ns.load(); d && ld::now_ns() >= d) give_up(time_limit_message());
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
  if (bytes) start_watchdog();
}

// Past about 30 years a limit cannot be reached: none is set.
void apply_time_limit(double seconds) {
  if (!(seconds > 0) || !(seconds < 1e9)) return;
  limits_detail::time_limit_s.store(seconds);
  limits_detail::deadline_ns.store(limits_detail::now_ns() + static_cast<int64_t>(seconds * 1e9));
  start_watchdog();
}

}  // namespace isocheck

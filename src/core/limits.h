// --memory-limit and --time-limit: exhaustion becomes exit 3 with what to raise.
//
// The memory limit is on resident memory, the way a batch system's cgroup
// limit is: the pages of RAM the process itself allocated (/proc/self/statm's
// resident less its shared pages, i.e. without the libraries' code and MPI's
// shared-memory segments). It is checked where the program can stop cleanly
// (check_limits(): every stage boundary, every collective step of the
// distributed driver, every piece it checks), and in between by a watchdog
// that samples the resident size; the time limit likewise. Both watchdogs
// wait for the first check that passes, so a limit already exceeded at the
// start is reported by the check, which under MPI every rank agrees on.
// The state is header-only so that the stage libraries can check too.
#pragma once
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/allocator.h"
#include "core/errors.h"

namespace isocheck {

namespace limits_detail {
inline std::atomic<const char*> stage{"start"};
inline std::atomic<uint64_t> memory_limit{0};  // bytes; 0: none
inline std::atomic<int64_t> deadline_ns{0};    // steady-clock nanoseconds; 0: none
inline std::atomic<double> time_limit_s{0};
inline std::atomic<bool> armed{false};  // a check passed: the watchdogs may act
// The memory limit is the default (no --memory-limit): its share of this
// machine's memory, which the message then names.
inline std::atomic<bool> memory_limit_is_default{false};
inline std::atomic<uint64_t> machine_memory{0};  // bytes, when the limit is the default

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace limits_detail

// "512M", "8G", "1073741824" -> bytes (positive, without overflow); throws UsageError.
unsigned long long parse_bytes(const std::string& s, const char* option);
// "90", "90s", "5m", "2h" -> seconds (positive; a huge value means no limit);
// throws UsageError.
double parse_seconds(const std::string& s, const char* option);

// The process's private resident memory in bytes (0 when /proc is missing).
inline uint64_t private_resident_bytes() {
  static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  static const long page = ::sysconf(_SC_PAGESIZE);
  if (fd < 0) return 0;
  char buf[160];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0, shared = 0;
  if (std::sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3) return 0;
  return resident > shared ? (resident - shared) * static_cast<uint64_t>(page) : 0;
}

// The private resident memory once the allocator has handed back the freed
// pages it keeps for reuse.
inline uint64_t resident_in_use_bytes() {
  release_free_memory();
  return private_resident_bytes();
}

// The resident size a memory limit `lim` is judged on: the plain one, or,
// where that is past the limit, the memory in use (so that memory already
// freed does not make a run give up; the hand-back walks the allocator's
// arenas, so only then).
inline uint64_t resident_for_limit(uint64_t lim) {
  const uint64_t r = private_resident_bytes();
  return r > lim ? resident_in_use_bytes() : r;
}

// The process's peak resident memory in bytes (the high-water mark, which an
// allocation that failed leaves behind after its stage unwound).
inline uint64_t peak_resident_bytes() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

// "100 MiB", "77.4 MiB", "512 KiB".
inline std::string format_mib(uint64_t bytes) {
  char s[48];
  if (bytes % (uint64_t{1} << 20) == 0) std::snprintf(s, sizeof s, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  else if (bytes < (uint64_t{1} << 20)) std::snprintf(s, sizeof s, "%llu KiB", static_cast<unsigned long long>((bytes + 1023) >> 10));
  else std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return s;
}

inline const char* current_stage() { return limits_detail::stage.load(); }
inline void set_stage(const char* s) { limits_detail::stage.store(s); }
inline unsigned long long memory_limit() { return limits_detail::memory_limit.load(); }  // 0 = none set

// The one-line messages (without the "isocheck: " prefix).
inline std::string memory_limit_message(uint64_t resident) {
  if (limits_detail::memory_limit_is_default.load())
    return "memory limit of " + format_mib(memory_limit()) + " (the default: 90% of this machine's " +
           format_mib(limits_detail::machine_memory.load()) +
           " shared by the processes of this job on it) reached during stage \"" + current_stage() + "\" (" +
           format_mib(resident) + " resident); run on a machine with more memory, or on more machines";
  return "memory limit of " + format_mib(memory_limit()) + " reached during stage \"" + current_stage() + "\" (" +
         format_mib(resident) + " resident); raise --memory-limit";
}
inline std::string time_limit_message() {
  char s[64];
  std::snprintf(s, sizeof s, "%g", limits_detail::time_limit_s.load());
  return std::string("time limit of ") + s + "s reached during stage \"" + current_stage() + "\"; raise --time-limit";
}

// Enters `stage` (when given) and throws ResourceError when the resident
// memory is past --memory-limit or --time-limit has run out.
// Once a limit's error is on its way to the user (thrown at a check point,
// or agreed by the ranks), the watchdog must not report it a second time:
// it reports only while armed, and claims the report by disarming.
inline void disarm_limits() { limits_detail::armed.store(false); }

inline void check_limits(const char* stage = nullptr) {
  if (stage) set_stage(stage);
  if (const uint64_t lim = limits_detail::memory_limit.load(std::memory_order_relaxed)) {
    const uint64_t r = resident_for_limit(lim);
    if (r > lim) {
      disarm_limits();
      throw ResourceError(memory_limit_message(r));
    }
  }
  if (const int64_t d = limits_detail::deadline_ns.load(std::memory_order_relaxed); d && limits_detail::now_ns() >= d) {
    disarm_limits();
    throw ResourceError(time_limit_message());
  }
  limits_detail::armed.store(true);
}

// Set a limit and start the watchdog; it acts only after the first
// check_limits() that passes.
void apply_memory_limit(unsigned long long bytes);

// The memory this process may use on this machine: the physical memory, or
// less where a control group (a batch system's job, a container) limits it.
uint64_t machine_memory_bytes();
// The processes of this job on this machine, from the launcher's environment
// (Open MPI, MPICH, SLURM); 1 when none says.
unsigned processes_on_this_machine();
// Without --memory-limit: 90% of machine_memory_bytes() shared by the
// processes of the job on this machine, so that a run that would be killed
// by the kernel's out-of-memory killer (a crash, exit 137) exits 3 and says
// so. (machine, processes): the inputs, for tests.
uint64_t default_memory_limit(uint64_t machine, unsigned processes);
void apply_default_memory_limit();
void apply_time_limit(double seconds);
// In a job of several ranks a limit's message names this process's rank.
void set_limit_rank(int rank, int ranks);

}  // namespace isocheck

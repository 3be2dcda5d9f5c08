#include "cli/limit_options.h"

#include "core/limits.h"

namespace isocheck {

void add_limit_options(CLI::App* c, LimitArgs& l) {
  c->add_option("--memory-limit", l.memory,
                "Give up (exit 3) past this much resident memory, e.g. 8G (per process/rank, as a batch "
                "system's memory limit; default: 90% of the machine's memory, or of its control group's limit, "
                "shared by the job's processes on it)");
  c->add_option("--time-limit", l.time, "Give up (exit 3) after this long, e.g. 90s, 5m");
}

void apply_limits(const LimitArgs& l, const char* stage, bool check_now) {
  const unsigned long long mem = l.memory.empty() ? 0 : parse_bytes(l.memory, "--memory-limit");
  const double secs = l.time.empty() ? 0 : parse_seconds(l.time, "--time-limit");
  set_stage(stage);
  if (mem) apply_memory_limit(mem);
  else apply_default_memory_limit();  // a run the kernel would kill exits 3 instead
  apply_time_limit(secs);
  if (check_now) check_limits();
}

}  // namespace isocheck

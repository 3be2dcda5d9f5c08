#include "cli/limit_options.h"

#include "core/limits.h"
#include "mpi/mpi_env.h"

namespace isocheck {

void add_limit_options(CLI::App* c, LimitArgs& l) {
  c->add_option("--memory-limit", l.memory,
                "Give up (exit 3) past this much resident memory, e.g. 8G (per process/rank, as a batch "
                "system's memory limit)");
  c->add_option("--time-limit", l.time, "Give up (exit 3) after this long, e.g. 90s, 5m");
}

void apply_limits(const LimitArgs& l, const char* stage, bool check_now) {
  const unsigned long long mem = l.memory.empty() ? 0 : parse_bytes(l.memory, "--memory-limit");
  const double secs = l.time.empty() ? 0 : parse_seconds(l.time, "--time-limit");
  set_stage(stage);
  apply_memory_limit(mem);
  apply_time_limit(secs);
  if (check_now) check_limits();
}

}  // namespace isocheck

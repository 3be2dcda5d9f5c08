#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include "core/limits.h"
#include "core/progress_counter.h"

namespace isocheck {

Progress::Progress(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)) {
  if (!quiet_ && tty_) thread_ = std::thread([this] { ticker(); });
}

Progress::~Progress() { finish(); }

void Progress::stage(const char* name, uint64_t items) {
  std::lock_guard<std::mutex> g(mu_);
  end_stage();
  name_ = name;
  items_ = items;
  stage_timer_.reset();
  work_begin(0);
  check_limits(name);  // exit 3 here when a limit is already past
}

void Progress::end_stage() {
  if (name_.empty() || quiet_) return;
  double s = stage_timer_.seconds();
  if (total_.seconds() < 1.0) return;
  double rate = s > 0 ? items_ / s : 0;
  std::fprintf(stderr, "%sisocheck: %-10s %12llu txns %8.2f s  %12.0f txn/s\n", tty_ ? "\r\033[K" : "", name_.c_str(),
               static_cast<unsigned long long>(items_), s, rate);
}

void Progress::finish() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stop_) return;
    end_stage();
    name_.clear();
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::ticker() {
  std::unique_lock<std::mutex> g(mu_);
  while (!stop_) {
    cv_.wait_for(g, std::chrono::milliseconds(250));
    if (stop_ || name_.empty() || total_.seconds() < 1.0) continue;
    double el = stage_timer_.seconds();
    uint64_t done = g_work_done.load(std::memory_order_relaxed), total = g_work_total.load(std::memory_order_relaxed);
    if (total > 0 && done > 0 && done <= total) {
      double rate = done / el, eta = (total - done) / rate;
      std::fprintf(stderr, "\r\033[Kisocheck: %s %llu txns, %.1f s, %3.0f%%, %.0f units/s, ETA %.0f s", name_.c_str(),
                   static_cast<unsigned long long>(items_), el, 100.0 * done / total, rate, eta);
    } else {
      std::fprintf(stderr, "\r\033[Kisocheck: %s %llu txns, %.1f s", name_.c_str(),
                   static_cast<unsigned long long>(items_), el);
    }
    std::fflush(stderr);
  }
}

}  // namespace isocheck

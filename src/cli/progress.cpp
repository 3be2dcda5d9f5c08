#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include "util/limits.h"

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
  set_stage(name);
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
    std::fprintf(stderr, "\r\033[Kisocheck: %s … %.1f s (%llu txns)", name_.c_str(), stage_timer_.seconds(),
                 static_cast<unsigned long long>(items_));
    std::fflush(stderr);
  }
}

}  // namespace isocheck

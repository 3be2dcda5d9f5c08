// Stage progress on stderr: a live line on a terminal, one line per stage
// otherwise, only once the run has taken more than a second, nothing when quiet.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "core/timer.h"

namespace isocheck {

class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress();
  // Ends the previous stage; `items` (transactions) is the stage's work size.
  void stage(const char* name, uint64_t items);
  void finish();
  // The current stage's size once known (e.g. after reading).
  void set_items(uint64_t items) { std::lock_guard<std::mutex> g(mu_); items_ = items; }

 private:
  void end_stage();
  void ticker();
  bool quiet_, tty_;
  Timer total_, stage_timer_;
  std::string name_;
  uint64_t items_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace isocheck

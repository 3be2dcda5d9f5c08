// Per-rank accounting of the MPI runtime (written by --stage-times).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/timer.h"

namespace isocheck::dist {

// Per-rank accounting for --stage-times: the most operations this rank held
// at once. Each stage notes, where its holdings peak, the operations it holds
// then (operation columns of the histories it keeps, and operation records in
// flight between ranks); the figure is the largest noted. Thread-safe.
void note_ops_held(uint64_t ops);
uint64_t ops_held_peak();

// Per-rank step times for --stage-times ("rank_steps"): a stage's parts as
// each rank saw them, without a barrier, so an imbalance between ranks or a
// part that does not shrink with more ranks shows (a stage's own time is the
// slowest rank's, after the barrier). Adds to the step's running sum; steps
// are listed in the order first noted. Thread-safe (a worker thread's time
// adds to its rank's sum).
void note_step(const char* name, double seconds);
std::vector<std::pair<std::string, double>> steps_noted();
// Notes the time from its construction to its end (or to stop()).
class StepTime {
 public:
  explicit StepTime(const char* name) : name_(name) {}
  ~StepTime() { stop(); }
  void stop() {
    if (name_) note_step(name_, timer_.seconds()), name_ = nullptr;
  }

 private:
  const char* name_;
  Timer timer_;
};

// This rank's peak resident set (getrusage), KiB.
long peak_rss_kib();

}  // namespace isocheck::dist

// A process-wide work counter that long loops bump and the progress display
// reads (rate and ETA). Relaxed atomics: a display needs no ordering.
#pragma once
#include <atomic>
#include <cstdint>

namespace isocheck {

inline std::atomic<uint64_t> g_work_done{0};
inline std::atomic<uint64_t> g_work_total{0};

// Starts counting a stage of `total` units (0 = unknown).
inline void work_begin(uint64_t total) {
  g_work_done.store(0, std::memory_order_relaxed);
  g_work_total.store(total, std::memory_order_relaxed);
}
inline void work_add(uint64_t n) { g_work_done.fetch_add(n, std::memory_order_relaxed); }

}  // namespace isocheck

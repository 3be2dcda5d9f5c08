// Static splitting of an index range over a few std::threads, for the host
// plan's flat passes (gpu_plan.cpp, condensation.cpp). Each thread gets one
// contiguous range, so a pass that writes per-range output stays
// deterministic: the same result for any thread count.
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>

#include "core/threads.h"

namespace isocheck {

// Below this many items a pass runs on the calling thread, and each thread
// gets at least half as many: starting a thread costs some 10-30 us, an item
// (a few cache misses) some 0.1 us. Small enough that a 10^6-vertex graph's
// layers (about 16 000 components each in the benchmark) still split.
inline constexpr uint64_t kParallelMinItems = 1u << 13;

// A pass whose threads share counters (atomic read-modify-writes on random
// lines) does about twice the work of the plain pass: each atomic waits for
// its cache miss, where plain accesses overlap theirs (measured on Kahn's
// peeling at 10^7 vertices). Such passes split only from this many threads.
inline constexpr int kAtomicPassMinThreads = 4;
inline int atomic_pass_threads(int threads) { return threads >= kAtomicPassMinThreads ? threads : 1; }

// Thread count for n items: 1 when threads <= 1 or n is small.
inline int range_threads(int threads, uint64_t n) {
  if (threads <= 1 || n < kParallelMinItems) return 1;
  return static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(threads), n / (kParallelMinItems / 2)));
}

// Range t of [0, n) cut into `parts` near-equal pieces.
inline uint64_t range_begin(uint64_t n, int parts, int t) { return n * static_cast<uint64_t>(t) / parts; }

// fn(t, begin, end) for t in [0, parts), parts = range_threads(threads, n);
// returns parts. Range 0 runs on the calling thread. An exception from any
// range (bad_alloc past the memory cap: exit 3 in main) is rethrown here
// after every thread has finished, instead of terminating the process.
template <class Fn>
int parallel_ranges(int threads, uint64_t n, Fn&& fn) {
  const int parts = range_threads(threads, n);
  if (parts == 1) {
    fn(0, uint64_t{0}, n);
    return 1;
  }
  run_threads(parts, [&](int t, ThreadErrors&) { fn(t, range_begin(n, parts, t), range_begin(n, parts, t + 1)); });
  return parts;
}

}  // namespace isocheck

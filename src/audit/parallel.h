// Independent pieces of work on a few std::threads: each thread takes the
// next piece until none is left (pieces of uneven cost, or threads slowed by
// other jobs on a shared node, still finish together). The first exception
// a piece throws is rethrown on the caller's thread after all have stopped.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

#include "core/threads.h"

namespace isocheck {

inline unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// fn(i) for every i in [0, n), on up to `threads` threads (the caller's included).
template <class Fn>
void parallel_pieces(uint64_t n, unsigned threads, Fn&& fn) {
  const unsigned t = static_cast<unsigned>(std::min<uint64_t>(std::max(1u, threads), n));
  if (t <= 1) {
    for (uint64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<uint64_t> next{0};
  run_threads(static_cast<int>(t), [&](int, ThreadErrors& errors) {
    for (uint64_t i; !errors.failed() && (i = next.fetch_add(1)) < n;) fn(i);
  });
}

}  // namespace isocheck

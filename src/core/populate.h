// Sizing a large vector that is about to be filled. The zero-fill of resize()
// touches each 4 KiB page, one page fault at a time; asking the kernel to map
// the whole range first (MADV_POPULATE_WRITE, Linux 5.14+) does the same work
// in one call. On the 2-core VM that cut a 1.2 GB fill from 1.1 to 0.75 s,
// and reading a 10^7-transaction history faults in about 1.7 GB. Where the
// kernel refuses (older kernels, other systems) it is a plain resize.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace isocheck {

// Maps the whole pages inside [p, p + bytes) now; nothing when too small to matter.
inline void populate_pages(void* p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  constexpr size_t kPage = 4096, kWorth = size_t{4} << 20;
  if (bytes < kWorth) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t lo = (a + kPage - 1) & ~uintptr_t{kPage - 1}, hi = (a + bytes) & ~uintptr_t{kPage - 1};
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);  // (a hint: errors ignored)
#else
  (void)p, (void)bytes;
#endif
}

// v.resize(n), with the new storage mapped in one call when it is fresh.
template <class T> void resize_populated(std::vector<T>& v, size_t n) {
  if (n > v.capacity()) {
    v.reserve(n);
    populate_pages(v.data() + v.size(), (n - v.size()) * sizeof(T));
  }
  v.resize(n);
}

}  // namespace isocheck

#include "core/allocator.h"

#include <jemalloc/jemalloc.h>

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

// Why jemalloc, and why these settings. The graph path and the replays
// allocate arrays of hundreds of MiB one after another (the write index, the
// join's partitions, the edges, the CSR), each freed before the next stage.
// glibc serves every such block from a fresh mmap and unmaps it on free, so
// each stage page-faults its memory in again and the kernel zeroes it: at 10^7
// transactions a third of `verify`'s CPU time was the kernel clearing pages.
// With jemalloc a freed block stays mapped for the next one:
//
//   oversize_threshold:0  blocks over 8 MiB, too, go to the ordinary arenas
//                         (by default they get an arena of their own that
//                         hands them back at once, and they are the ones
//                         worth keeping);
//   dirty_decay_ms:-1     freed pages are not handed back as time passes:
//                         with the default 10 s, half the write index's and
//                         the join's pages were gone before the edges could
//                         take them (at 10^7: 1.5 GiB faulted in again).
//
// So the process holds its peak, as glibc's heap does below its top, and
// returns freed pages where it says so: release_free_memory(), which every
// memory-limit check calls before it judges (core/limits.h), and the MPI
// stages after their large buffers. The peak grows where a freed block is
// too small for the next (2.44 -> 2.70 GiB on the history above).
// Measured in docs/benchmarks.md.
//
// The string is read by jemalloc at its first allocation; MALLOC_CONF in the
// environment still overrides it (for experiments).
extern "C" {
// NOLINTNEXTLINE: the name is jemalloc's.
JEMALLOC_EXPORT const char* malloc_conf = "oversize_threshold:0,dirty_decay_ms:-1";
}

namespace {

// Transparent huge pages for large blocks only. A fault then maps 2 MiB, not
// 4 KiB, and the random accesses of the join and the passes miss the TLB less
// (the system setting is usually "madvise": a block gets huge pages only when
// asked). Asking for every allocation (jemalloc's thp:always) cost a small
// process 10-17 MiB of partly used 2 MiB pages: an MPI rank of a small
// history grew from 47 to 64 MiB.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeFrom = 2 * kHugePage;  // holds at least one whole huge page

void advise_huge_pages(void* p, std::size_t n) {
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHugePage - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice: failure is harmless
}

}  // namespace

// Every C++ allocation (std::vector and the rest) comes here; new[] and the
// nothrow forms call it, and delete is jemalloc's free as before. Only the
// large ones are advised: a madvise per block of 4 MiB or more is nothing
// beside touching the block.
void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n ? n : 1)) {
      if (n >= kHugeFrom) advise_huge_pages(p, n);
      return p;
    }
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

namespace isocheck {

void release_free_memory() {
  // MALLCTL_ARENAS_ALL (4096): every arena.
  mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
}

std::string allocator_text_setting(const char* name) {
  const char* s = nullptr;
  size_t len = sizeof s;
  return mallctl(name, &s, &len, nullptr, 0) == 0 && s ? s : "";
}

long long allocator_size_setting(const char* name) {
  size_t z = 0, len = sizeof z;
  return mallctl(name, &z, &len, nullptr, 0) == 0 ? static_cast<long long>(z) : -1;
}

long long allocator_ssize_setting(const char* name) {
  ssize_t z = 0;
  size_t len = sizeof z;
  return mallctl(name, &z, &len, nullptr, 0) == 0 ? static_cast<long long>(z) : INT64_MIN;
}

std::string allocator_text() {
  return "jemalloc " + allocator_text_setting("version") + " (oversize threshold " +
         std::to_string(allocator_size_setting("opt.oversize_threshold")) + ", dirty decay " +
         std::to_string(allocator_ssize_setting("opt.dirty_decay_ms")) + " ms; huge pages for blocks of " +
         std::to_string(kHugeFrom >> 20) + " MiB and more)";
}

}  // namespace isocheck

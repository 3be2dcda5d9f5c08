#include "core/allocator.h"

#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <string>

// Why jemalloc, and why these settings. The graph path and the replays
// allocate arrays of hundreds of MiB one after another (the write index, the
// join's partitions, the edges, the CSR), each freed before the next stage.
// glibc serves every such block from a fresh mmap and unmaps it on free, so
// each stage page-faults its memory in again and the kernel zeroes it: at 10^7
// transactions a third of the graph path's CPU time went to the kernel
// mapping and clearing pages.
// With jemalloc a freed block stays mapped for the next one:
//
//   oversize_threshold:0  blocks over 8 MiB, too, go to the ordinary arenas
//                         (by default they get an arena of their own that
//                         hands them back at once, and they are the ones
//                         worth keeping);
//   dirty_decay_ms:-1     freed pages are not handed back as time passes:
//                         with the default 10 s, half the write index's and
//                         the join's pages were gone before the edges could
//                         take them (at 10^7: 1.5 GiB faulted in again);
//   retain:false          each new extent is a mapping of its own, not a
//                         piece of an ever larger reserved range: measured,
//                         the graph path at 10^7 spent 2-3 s less in the
//                         kernel and peaked 130 MB lower (reasons not
//                         pinned down; the figures are in the benchmarks).
//
// So the process holds its peak, as glibc's heap does below its top, and
// returns freed pages where it says so: release_free_memory(), which every
// memory-limit check calls before it judges (core/limits.h), and the MPI
// stages after their large buffers. The peak grows where a freed block is
// too small for the next (2411 -> 2493 MB on the history above).
// Measured in docs/benchmarks.md.
//
// The string is read by jemalloc at its first allocation; MALLOC_CONF in the
// environment still overrides it (for experiments).
extern "C" {
// NOLINTNEXTLINE: the name is jemalloc's.
JEMALLOC_EXPORT const char* malloc_conf = "oversize_threshold:0,dirty_decay_ms:-1,retain:false";
}

// No transparent huge pages (jemalloc's thp:always, or madvise on the large
// blocks): a fault then maps 2 MiB and the passes miss the TLB less (0.3-0.7
// CPU s of 9 at 10^7 on the graph path), but where the kernel's defrag setting
// is "madvise" (Debian's default) an advised fault with no free 2 MiB page
// compacts memory first: the replays of 10^7 transactions spent 0.5-2.6 s
// more in the kernel than they saved. And every advised allocation made a
// small process 10-17 MiB larger (partly used 2 MiB pages).

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

bool allocator_bool_setting(const char* name) {
  bool b = false;
  size_t len = sizeof b;
  return mallctl(name, &b, &len, nullptr, 0) == 0 && b;
}

long long allocator_ssize_setting(const char* name) {
  ssize_t z = 0;
  size_t len = sizeof z;
  return mallctl(name, &z, &len, nullptr, 0) == 0 ? static_cast<long long>(z) : INT64_MIN;
}

std::string allocator_text() {
  return "jemalloc " + allocator_text_setting("version") + " (oversize threshold " +
         std::to_string(allocator_size_setting("opt.oversize_threshold")) + ", dirty decay " +
         std::to_string(allocator_ssize_setting("opt.dirty_decay_ms")) + " ms, retain " +
         (allocator_bool_setting("opt.retain") ? "on" : "off") + ")";
}

}  // namespace isocheck

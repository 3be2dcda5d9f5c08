// A stable counting sort by a small key, for the host plan's numberings
// (Kahn's by depth, the dense one by level): the position of every item when
// items are ordered by key, ties in index order. Thread ranges count their
// own items per key, so each range places its items after the earlier
// ranges' ones: the same positions for any thread count.
#pragma once
#include <cstdint>
#include <vector>

#include "closure/parallel_ranges.h"

namespace isocheck {

inline constexpr uint32_t kNoKey = 0xffffffffu;

// key(i) in [0, keys) or kNoKey (item left out); place(i, position) for the
// others. Returns the offsets of the keys (keys + 1 entries). Per-range
// counts take ranges x keys words: with many keys (a chain's levels) the sort
// runs on one thread.
template <class Key, class Place>
std::vector<uint64_t> stable_counting_sort(int threads, uint64_t n, uint32_t keys, Key&& key, Place&& place) {
  std::vector<uint64_t> key_off(uint64_t{keys} + 1, 0);
  const uint64_t parts = static_cast<uint64_t>(range_threads(threads, n));
  if (parts == 1 || uint64_t{keys} * parts > (uint64_t{1} << 22)) {
    for (uint64_t i = 0; i < n; ++i)
      if (const uint32_t k = key(i); k != kNoKey) ++key_off[k + 1];
    for (uint32_t k = 0; k < keys; ++k) key_off[k + 1] += key_off[k];
    std::vector<uint64_t> pos(key_off.begin(), key_off.end() - 1);
    for (uint64_t i = 0; i < n; ++i)
      if (const uint32_t k = key(i); k != kNoKey) place(i, pos[k]++);
    return key_off;
  }
  std::vector<uint64_t> pos(parts * keys, 0);  // [range][key]: count, then first place
  parallel_ranges(threads, n, [&](int t, uint64_t b, uint64_t e) {
    uint64_t* h = pos.data() + t * uint64_t{keys};
    for (uint64_t i = b; i < e; ++i)
      if (const uint32_t k = key(i); k != kNoKey) ++h[k];
  });
  uint64_t at = 0;
  for (uint32_t k = 0; k < keys; ++k) {
    key_off[k] = at;
    for (uint64_t t = 0; t < parts; ++t) {
      const uint64_t c = pos[t * keys + k];
      pos[t * keys + k] = at, at += c;
    }
  }
  key_off[keys] = at;
  parallel_ranges(threads, n, [&](int t, uint64_t b, uint64_t e) {
    uint64_t* h = pos.data() + t * uint64_t{keys};
    for (uint64_t i = b; i < e; ++i)
      if (const uint32_t k = key(i); k != kNoKey) place(i, h[k]++);
  });
  return key_off;
}

}  // namespace isocheck

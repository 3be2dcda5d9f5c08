// The order that sorts n 64-bit keys, stable (equal keys keep their index
// order), by least-significant-digit radix passes of 8 bits over (key, index)
// pairs. Passes whose byte is the same in every key are skipped, so keys below
// 2^24 take three passes. Replaces comparison sorts of wide records in hot
// loops: sort the 16-byte pairs, then move each record once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace isocheck {

// Fills `order` with the indices 0..n-1 sorted by key(i), stable.
template <class KeyOf> void radix_order(size_t n, KeyOf key, std::vector<uint32_t>& order) {
  struct Item {
    uint64_t key;
    uint32_t idx;
  };
  std::vector<Item> a(n), b(n);
  uint64_t all_and = ~uint64_t{0}, all_or = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = key(i);
    a[i] = {k, static_cast<uint32_t>(i)};
    all_and &= k, all_or |= k;
  }
  const uint64_t varies = all_and ^ all_or;  // bits that differ between some keys
  for (int shift = 0; shift < 64; shift += 8) {
    if (((varies >> shift) & 0xff) == 0) continue;
    size_t count[257] = {};
    for (const Item& x : a) ++count[((x.key >> shift) & 0xff) + 1];
    for (int d = 1; d <= 256; ++d) count[d] += count[d - 1];
    for (const Item& x : a) b[count[(x.key >> shift) & 0xff]++] = x;
    std::swap(a, b);
  }
  order.resize(n);
  for (size_t i = 0; i < n; ++i) order[i] = a[i].idx;
}

}  // namespace isocheck

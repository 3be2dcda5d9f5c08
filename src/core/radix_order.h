// A stable radix sort of small records by a 64-bit key, for hot loops where
// a comparison sort of the records cost too much (the audit's forget step).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace isocheck {

// Sorts records by key(record) (64-bit), stable, moving the records
// themselves: least-significant-digit passes over only the bits that differ
// between keys, in digits of at most 12 bits (keys below 2^24 take two passes;
// the counts of every pass come from one read of the records). For records of
// a few words this beats ordering (key, index) pairs and then gathering the
// records, which reads them at random.
template <class T, class KeyOf> void radix_sort(std::vector<T>& v, KeyOf key) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t n = v.size();
  if (n < 2) return;
  uint64_t all_and = ~uint64_t{0}, all_or = 0;
  for (const T& x : v) {
    const uint64_t k = key(x);
    all_and &= k, all_or |= k;
  }
  const uint64_t varies = all_and ^ all_or;
  if (varies == 0) return;
  const int lo = __builtin_ctzll(varies), span = 64 - __builtin_clzll(varies) - lo;
  const int passes = (span + 11) / 12, width = (span + passes - 1) / passes;
  const uint64_t buckets = uint64_t{1} << width, mask = buckets - 1;
  std::vector<size_t> count(static_cast<size_t>(passes) * buckets, 0);
  for (const T& x : v) {
    const uint64_t k = key(x) >> lo;
    for (int p = 0; p < passes; ++p) ++count[p * buckets + ((k >> (p * width)) & mask)];
  }
  std::unique_ptr<T[]> scratch(new T[n]);  // (uninitialized: every slot is written)
  T* from = v.data();
  T* to = scratch.get();
  for (int p = 0; p < passes; ++p) {
    size_t* c = &count[p * buckets];
    size_t sum = 0;
    bool one_bucket = false;
    for (uint64_t d = 0; d < buckets; ++d) {
      one_bucket |= c[d] == n;
      const size_t here = c[d];
      c[d] = sum;
      sum += here;
    }
    if (one_bucket) continue;  // this digit is the same in every key
    const int shift = lo + p * width;
    for (size_t i = 0; i < n; ++i) to[c[(key(from[i]) >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != v.data()) std::memcpy(static_cast<void*>(v.data()), from, n * sizeof(T));
}

// One stable pass of a radix partition: in[0, n) into out[0, n) by
// part_of(x) in [0, parts), each part's records in input order; start gets
// the parts' offsets (parts + 1 entries). For splitting a bucket that is in
// cache into its partitions (the duplicate-write test, the known graph's join).
template <class T, class PartOf>
void scatter_by_part(const T* in, size_t n, size_t parts, PartOf part_of, T* out, std::vector<size_t>& start) {
  start.assign(parts + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[part_of(in[i]) + 1];
  for (size_t p = 0; p < parts; ++p) start[p + 1] += start[p];
  std::vector<size_t> cursor(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n; ++i) out[cursor[part_of(in[i])]++] = in[i];
}

// Sorts v by less (stable) when that takes at most `budget` moves of an
// element one place (the number of inversions): true when sorted; false,
// with v some permutation of its entries, when the budget ran out. For input
// that is nearly in order, where it is one pass with no scratch.
template <class T, class Less> bool insertion_sort_bounded(std::vector<T>& v, Less less, size_t budget) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    T x = v[i];
    size_t j = i;
    do {
      if (budget-- == 0) {
        v[j] = x;
        return false;
      }
      v[j] = v[j - 1];
      --j;
    } while (j > 0 && less(x, v[j - 1]));
    v[j] = x;
  }
  return true;
}

}  // namespace isocheck

// The small shared toolkit: radix_sort against std::stable_sort; OpRuns
// against a sorted list of the same operations.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/op_runs.h"
#include "core/radix_order.h"
#include "core/threads.h"

namespace isocheck {
namespace {

// Records sorted in place: the same order as std::stable_sort by key, for
// key shapes that take one, two or several digit passes or none.
TEST(Util, RadixSortEqualsStableSort) {
  struct Rec {
    uint64_t key;
    uint32_t at;  // position before sorting: stability shows here
    uint32_t pad;
  };
  std::mt19937_64 rng(5);
  for (int it = 0; it < 300; ++it) {
    const size_t n = it % 50 == 0 ? rng() % 2 : rng() % 5000;
    std::vector<Rec> recs(n);
    const int shape = it % 6;
    for (size_t i = 0; i < n; ++i) {
      uint64_t k = 0;
      switch (shape) {
        case 0: k = rng() % 50; break;
        case 1: k = rng(); break;
        case 2: k = (rng() % 7) << 40 | 0x1234; break;
        case 3: k = static_cast<uint64_t>(-static_cast<int64_t>(rng() % 300)); break;
        case 4: k = rng() % 10000000; break;  // a day log's integer keys: 24 bits
        default: k = 77; break;
      }
      recs[i] = {k, static_cast<uint32_t>(i), 0};
    }
    std::vector<Rec> want = recs;
    std::stable_sort(want.begin(), want.end(), [](const Rec& a, const Rec& b) { return a.key < b.key; });
    radix_sort(recs, [](const Rec& r) { return r.key; });
    ASSERT_EQ(recs.size(), want.size());
    for (size_t i = 0; i < n; ++i)
      ASSERT_TRUE(recs[i].key == want[i].key && recs[i].at == want[i].at)
          << "iteration " << it << " shape " << shape << " n " << n << " position " << i;
  }
}

// The bounded insertion sort: with budget enough, std::stable_sort's order;
// with too little, false and a permutation of the input.
TEST(Util, InsertionSortBoundedSortsOrStopsWithAPermutation) {
  std::mt19937_64 rng(9);
  for (int it = 0; it < 400; ++it) {
    const size_t n = rng() % 3000;
    const uint64_t spread = it % 3 == 0 ? 4 : it % 3 == 1 ? 64 : n + 1;  // out of place by about this much
    std::vector<std::pair<uint64_t, uint32_t>> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = {i + rng() % spread, static_cast<uint32_t>(i)};
    if (it % 7 == 0)
      for (auto& x : v) x.first /= 8;  // many ties
    auto less = [](const auto& a, const auto& b) { return a.first < b.first; };
    auto want = v;
    std::stable_sort(want.begin(), want.end(), less);
    size_t inversions = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n && j < i + spread + 1; ++j) inversions += less(v[j], v[i]);
    auto got = v;
    ASSERT_TRUE(insertion_sort_bounded(got, less, inversions)) << "iteration " << it;
    ASSERT_EQ(got, want) << "iteration " << it;
    if (inversions == 0) continue;
    got = v;
    ASSERT_FALSE(insertion_sort_bounded(got, less, inversions - 1)) << "iteration " << it;
    std::sort(got.begin(), got.end());
    auto all = v;
    std::sort(all.begin(), all.end());
    ASSERT_EQ(got, all) << "iteration " << it;
  }
}

// One partition pass: the records of each part in input order, parts in
// order, offsets right (a stable sort by part).
TEST(Util, ScatterByPartIsAStableSortByPart) {
  std::mt19937_64 rng(4);
  for (int it = 0; it < 200; ++it) {
    const size_t n = rng() % 2000, parts = size_t{1} << (rng() % 6);
    std::vector<std::pair<uint64_t, uint32_t>> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = {rng(), static_cast<uint32_t>(i)};
    auto part_of = [&](const std::pair<uint64_t, uint32_t>& x) { return static_cast<size_t>(x.first % parts); };
    std::vector<std::pair<uint64_t, uint32_t>> out(n), want = in;
    std::vector<size_t> start;
    scatter_by_part(in.data(), n, parts, part_of, out.data(), start);
    std::stable_sort(want.begin(), want.end(), [&](const auto& a, const auto& b) { return part_of(a) < part_of(b); });
    ASSERT_EQ(out, want) << "iteration " << it;
    ASSERT_EQ(start.size(), parts + 1);
    for (size_t p = 0; p < parts; ++p)
      for (size_t i = start[p]; i < start[p + 1]; ++i) ASSERT_EQ(part_of(out[i]), p) << "iteration " << it;
    ASSERT_EQ(start[parts], n);
  }
}

// OpRuns holds what a sorted list holds: the same operations, in order, the
// same answers to contains(), whichever way they were added, and in one
// canonical form (touching runs merged, so equal sets compare equal).
TEST(Util, OpRunsHoldWhatASortedListHolds) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> list;
    OpRuns one_by_one, by_runs;
    uint64_t o = rng() % 5;
    while (list.size() < 300) {
      const uint64_t len = 1 + rng() % 6;
      by_runs.push_run(o, o + len);
      for (uint64_t i = 0; i < len; ++i) list.push_back(o + i), one_by_one.push_back(o + i);
      o += len + (rng() % 3 == 0 ? 0 : rng() % 4);  // sometimes touching: one run
    }
    by_runs.push_run(o, o);  // empty: nothing
    ASSERT_EQ(one_by_one, by_runs);
    ASSERT_EQ(by_runs.size(), list.size());
    ASSERT_EQ(by_runs.ops(), list);
    ASSERT_TRUE(by_runs == list);
    for (uint64_t q = 0; q <= list.back() + 2; ++q)
      ASSERT_EQ(by_runs.contains(q), std::binary_search(list.begin(), list.end(), q)) << q;
    ASSERT_EQ(OpRuns::from_bounds(by_runs.bounds()), by_runs);
    ASSERT_EQ(OpRuns(list), by_runs);
    // Two sets after each other: the second shifted past the first, where
    // the first's last run and the second's first may touch (list[0] = 0).
    OpRuns joined = by_runs;
    const uint64_t by = list.back() + 1 + trial % 2;
    joined.append_shifted(by_runs, by);
    std::vector<uint64_t> both = list;
    for (uint64_t x : list) both.push_back(x + by);
    both.erase(std::unique(both.begin(), both.end()), both.end());
    ASSERT_EQ(joined.ops(), both);
    ASSERT_EQ(joined, OpRuns(both));
  }
  const OpRuns none;
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.contains(0));
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(OpRuns({4, 5, 6, 9}).runs(), 2u);
}


// Every pool of the project starts its threads through run_threads: an
// exception escaping a std::thread's body would abort the process (a crash
// instead of exit 3), so it must come back to the caller, after all joined.
TEST(Util, RunThreadsBringsAWorkersExceptionToTheCaller) {
  std::vector<std::atomic<int>> ran(4);
  for (int thrower : {0, 3}) {
    for (auto& r : ran) r = 0;
    EXPECT_THROW(run_threads(4,
                             [&](int t, ThreadErrors&) {
                               ++ran[t];
                               if (t == thrower) throw std::logic_error("internal");
                             }),
                 std::logic_error);
    for (auto& r : ran) EXPECT_EQ(r.load(), 1);  // every part ran once, and all joined
  }
}

}  // namespace
}  // namespace isocheck

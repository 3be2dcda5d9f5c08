// Hdf5RangeReader (io/hdf5_range.h): one reader, many ranges. Every range and
// every column subset must equal what read_hdf5_range gives for that range,
// on random files with integer and named keys and values, lists, nulls,
// unknown and aborted transactions, sparse sessions, several chunk sizes;
// and a malformed file fails the same way.
#include "io/hdf5_range.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/history_fixtures.h"
#include "common/temp_files.h"
#include "core/errors.h"
#include "io/hdf5.h"

namespace isocheck {
namespace {

using namespace testkit;

std::string tmp(const std::string& name) { return temp_path("isocheck_hdf5_range_test", name); }

// r's columns equal one's, and r's symbols name what one's name.
void expect_range_equal(const History& one, History r, Hdf5RangeReader& reader) {
  EXPECT_FALSE(r.keys.named());  // the tables stay with the reader
  EXPECT_FALSE(r.values.named());
  r.keys = reader.keys();
  r.values = reader.values();
  expect_same(one, r);
}

void expect_columns_equal(const History& one, const Hdf5Columns& c, unsigned which) {
  using R = Hdf5RangeReader;
  size_t n = one.txn_count();
  if (which & R::kSession) {
    ASSERT_EQ(c.session.size(), n);
    for (size_t t = 0; t < n; ++t) EXPECT_EQ(c.session[t], one.session_name[one.txn_session[t]]);
  } else {
    EXPECT_TRUE(c.session.empty());
  }
  if (which & R::kStatus) EXPECT_EQ(c.status, one.txn_status);
  else EXPECT_TRUE(c.status.empty());
  if (which & R::kTimes) {
    EXPECT_EQ(c.begin, one.txn_begin);
    EXPECT_EQ(c.end, one.txn_end);
  } else {
    EXPECT_TRUE(c.begin.empty() && c.end.empty());
  }
  if (which & R::kOps) {
    EXPECT_EQ(c.op_offset, one.txn_op_offset);
    EXPECT_EQ(c.op_kind, one.op_kind);
    EXPECT_EQ(c.op_key, one.op_key);
    EXPECT_EQ(c.op_value, one.op_value);
  } else {
    EXPECT_TRUE(c.op_offset.empty() && c.op_kind.empty() && c.op_key.empty() && c.op_value.empty());
  }
}

TEST(Hdf5RangeReader, RandomRangesEqualReadHdf5Range) {
  std::mt19937_64 rng(7);
  int ranges = 0;
  for (bool named : {false, true})
    for (size_t chunk : {size_t{5}, size_t{64}, size_t{1} << 18})
      for (uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("named " + std::to_string(named) + " chunk " + std::to_string(chunk) + " seed " +
                     std::to_string(seed));
        const size_t n = 200 + seed * 37;
        History h = random_history(n, named, seed);
        std::string p = tmp("r.h5");
        write_hdf5(h, p, Hdf5Options{1, chunk});
        Hdf5RangeReader reader(p);
        ASSERT_EQ(reader.txn_count(), n);
        EXPECT_EQ(reader.time_unit(), "us");
        expect_same_table(reader.keys(), h.keys);
        expect_same_table(reader.values(), h.values);
        // Ranges in random order (the reader keeps no position), the
        // empty and whole ranges included.
        std::vector<std::pair<size_t, size_t>> rs{{0, 0}, {0, n}, {n, n}, {n - 1, n}, {0, 1}};
        for (int i = 0; i < 25; ++i) {
          size_t a = rng() % (n + 1), b = rng() % (n + 1);
          rs.push_back({std::min(a, b), std::max(a, b)});
        }
        for (auto [a, b] : rs) {
          SCOPED_TRACE("range [" + std::to_string(a) + ", " + std::to_string(b) + ")");
          History one = read_hdf5_range(p, a, b);
          expect_same(slice(h, a, b), one);
          expect_range_equal(one, reader.range(a, b), reader);
          unsigned which = static_cast<unsigned>(rng() % 16);
          expect_columns_equal(one, reader.columns(a, b, which), which);
          ++ranges;
        }
        EXPECT_THROW(reader.range(10, n + 1), UsageError);
        EXPECT_THROW(reader.range(11, 10), UsageError);
        EXPECT_THROW(reader.columns(0, n + 1, Hdf5RangeReader::kOps), UsageError);
      }
  EXPECT_EQ(ranges, 2 * 3 * 3 * 30);
}

// A range whose rows are invalid fails with read_hdf5_range's message; other
// ranges of the same file still read.
TEST(Hdf5RangeReader, BadRowsFailLikeReadHdf5Range) {
  History h = random_history(100, true, 9);
  h.txn_status[60] = static_cast<TxnStatus>(7);
  TxnIdx t = 80;
  while (h.op_begin(t) == h.op_end(t)) ++t;
  h.op_key[h.op_begin(t)] = 1000;  // beyond the 20 key names
  std::string p = tmp("bad.h5");
  write_hdf5(h, p, Hdf5Options{1, 16});
  Hdf5RangeReader reader(p);
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (auto [a, b] : std::vector<std::pair<size_t, size_t>>{{50, 70}, {70, 100}, {0, 100}}) {
    std::string want = message([&] { read_hdf5_range(p, a, b); });
    EXPECT_NE(want, "no error");
    EXPECT_EQ(message([&] { reader.range(a, b); }), want);
  }
  EXPECT_NE(message([&] { reader.columns(50, 70, Hdf5RangeReader::kStatus); }), "no error");
  EXPECT_EQ(message([&] { reader.columns(50, 70, Hdf5RangeReader::kOps | Hdf5RangeReader::kTimes); }), "no error");
  EXPECT_EQ(reader.range(0, 50).txn_count(), 50u);
}

// After take_tables the caller holds the tables; ranges read and validate the same.
TEST(Hdf5RangeReader, TakenTablesStillValidate) {
  History h = random_history(120, true, 5);
  h.op_key[h.op_count() - 1] = 1000;  // beyond the 20 key names, in the last transaction with ops
  std::string p = tmp("take.h5");
  write_hdf5(h, p, Hdf5Options{1, 32});
  Hdf5RangeReader reader(p);
  SymbolTable keys, values;
  reader.take_tables(keys, values);
  expect_same_table(keys, h.keys);
  expect_same_table(values, h.values);
  EXPECT_EQ(reader.keys().size(), 0u);
  History whole = read_hdf5_range(p, 0, 60);
  History r = reader.range(0, 60);
  r.keys = keys;
  r.values = values;
  expect_same(whole, r);
  EXPECT_THROW(reader.range(0, 120), InputError);
  EXPECT_THROW(reader.columns(0, 120, Hdf5RangeReader::kOps), InputError);
}

// Ranges check the name tables but do not keep them (a rank reading its
// range of a file with millions of names holds none until it asks): the
// names come only with keys()/values(), and a name table that is wrong is
// still refused by the first range, with one process's message.
TEST(Hdf5RangeReader, RangesCheckTheNamesWithoutHoldingThem) {
  History h = random_history(120, true, 5);
  ASSERT_TRUE(h.keys.named());
  std::string p = tmp("names.h5");
  write_hdf5(h, p, Hdf5Options{1, 32});
  Hdf5RangeReader reader(p);
  History r = reader.range(0, 60);
  reader.columns(60, 120, Hdf5RangeReader::kOps);
  EXPECT_FALSE(reader.holds_names());
  expect_range_equal(read_hdf5_range(p, 0, 60), r, reader);
  EXPECT_TRUE(reader.holds_names());
  // A key name flagged as an integer that is not one: refused by a range
  // read as by the whole read.
  size_t bad = 0;
  while (bad < h.keys.size() && h.keys.is_int(static_cast<Sym>(bad))) ++bad;
  ASSERT_LT(bad, h.keys.size());
  History flagged = h;
  std::vector<uint8_t> flags = h.keys.int_flags();
  flags.resize(h.keys.size(), 0);
  flags[bad] = 1;
  flagged.keys.set_named(h.keys.names(), flags);
  std::string q = tmp("badflag.h5");
  write_hdf5(flagged, q, Hdf5Options{1, 32});
  std::string want;
  try {
    read_hdf5_range(q, 0, 120);
  } catch (const InputError& e) {
    want = e.what();
  }
  ASSERT_NE(want.find("is flagged as an integer"), std::string::npos) << want;
  Hdf5RangeReader bad_reader(q);
  try {
    bad_reader.range(60, 61);
    ADD_FAILURE() << "a range of a file with a wrong name flag was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
}

TEST(Hdf5RangeReader, NotAnHdf5File) {
  std::string p = tmp("not.h5");
  { std::ofstream(p) << "hello\n"; }
  EXPECT_THROW(Hdf5RangeReader r(p), InputError);
}

}  // namespace
}  // namespace isocheck

// Streaming sinks: many chunks must give what one write gives, in every
// symbol-table situation (integer, shared named table, per-chunk tables, and
// a switch from integer to named mode halfway).
#include "io/sink.h"

#include <gtest/gtest.h>

#include "common/history_fixtures.h"
#include "common/temp_files.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl.h"
#include "io/jsonl_stream.h"

namespace isocheck {
namespace {

using namespace testkit;

std::string tmp(const std::string& name) { return temp_path("isocheck_sink_test", name); }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Chunk boundaries of uneven sizes, including empty chunks.
std::vector<std::pair<size_t, size_t>> cuts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<size_t, size_t>> r;
  for (size_t a = 0; a < n;) {
    size_t b = std::min(n, a + rng() % 40);
    r.push_back({a, b});
    a = b;
  }
  return r;
}

// Re-reads a slice through JSONL so that it gets its own compact symbol tables.
History own_tables(const History& h) { return parse_jsonl(jsonl_text(h), "chunk.jsonl"); }

// Writes h to `sink` in the chunks cuts(n, seed) gives, each given its own
// symbol tables when `own` is set, and finishes it.
template <class Sink>
void write_in_chunks(Sink&& sink, const History& h, uint32_t seed, bool own = false) {
  for (auto [a, b] : cuts(h.txn_count(), seed)) sink->append(own ? own_tables(slice(h, a, b)) : slice(h, a, b));
  sink->finish();
}

TEST(Hdf5Sink, ManyIntegerChunksEqualOneWrite) {
  for (size_t elems : {size_t{1} << 18, size_t{7}, size_t{1}}) {
    SCOPED_TRACE("chunk elements " + std::to_string(elems));
    History h = random_history(400, false, 3);
    std::string p = tmp("int_chunks.h5");
    write_in_chunks(open_hdf5_sink(p, h.time_unit, Hdf5Options{1, elems}), h, 1);
    expect_same(h, read_hdf5(p));
  }
}

TEST(Hdf5Sink, SharedNamedTableKeepsTheNumbering) {
  History h = random_history(400, true, 4);
  std::string p = tmp("named_chunks.h5");
  write_in_chunks(open_hdf5_sink(p, h.time_unit, Hdf5Options{1, 13}), h, 2);
  expect_same(h, read_hdf5(p));
}

TEST(Hdf5Sink, PerChunkTablesAreRemapped) {
  History h = random_history(400, true, 5);
  std::string p = tmp("own_tables.h5");
  write_in_chunks(open_hdf5_sink(p, h.time_unit, Hdf5Options{0, 11}), h, 3, true);
  History back = read_hdf5(p);
  EXPECT_EQ(jsonl_text(h), jsonl_text(back));
  EXPECT_LE(back.keys.size(), h.keys.size());
  EXPECT_LE(back.values.size(), h.values.size());
}

// Integer chunks first, then named ones: what was already written is
// rewritten into the name table, on disk and in the buffers.
TEST(Hdf5Sink, SwitchFromIntegerToNamedMidStream) {
  std::string text;
  for (int t = 0; t < 200; ++t) {
    bool named = t >= 120;
    auto key = [&](int k) { return named && k % 2 ? "\"k" + std::to_string(k) + "\"" : std::to_string(k); };
    auto val = [&](int v) { return named && v % 3 == 0 ? "\"v" + std::to_string(v) + "\"" : std::to_string(v); };
    text += "{\"id\":" + std::to_string(t) + ",\"session\":" + std::to_string(t % 7) +
            ",\"status\":\"committed\",\"ops\":[[\"r\"," + key(t % 5) + ",null],[\"w\"," + key(t % 5) + "," +
            val(t) + "],[\"r\"," + key(t % 3) + ",[" + val(t + 1) + "," + val(t + 2) + "]],[\"append\"," + key(9) +
            "," + val(1000 + t) + "]]}\n";
  }
  History whole = parse_jsonl(text, "whole.jsonl");
  ASSERT_TRUE(whole.keys.named());
  for (size_t elems : {size_t{1} << 18, size_t{16}, size_t{3}}) {
    SCOPED_TRACE("chunk elements " + std::to_string(elems));
    std::string p = tmp("switch.h5");
    auto sink = open_hdf5_sink(p, "", Hdf5Options{1, elems});
    for (auto [a, b] : cuts(whole.txn_count(), 4)) {
      History c = own_tables(slice(whole, a, b));
      EXPECT_EQ(c.keys.named(), b > 120 && b > a);
      sink->append(c);
    }
    sink->finish();
    History back = read_hdf5(p);
    EXPECT_EQ(jsonl_text(whole), jsonl_text(back));
    // Integers written before the switch come first, in the order written, as
    // the JSONL reader numbers them; only the first string differs in place.
    EXPECT_EQ(back.keys.size(), whole.keys.size());
  }
}

TEST(Hdf5Sink, NamedThenIntegerChunks) {
  History named = parse_jsonl(
      "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",\"a\"],[\"w\",5,5]]}\n", "a");
  History ints = parse_jsonl(
      "{\"id\":2,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",5,5],[\"r\",6,[5,7]],[\"r\",5,null]]}\n", "b");
  std::string p = tmp("named_then_int.h5");
  auto sink = open_sink(p, Format::hdf5, "ms");
  sink->append(named);
  sink->append(ints);
  sink->finish();
  History back = read_hdf5(p);
  EXPECT_EQ(back.time_unit, "ms");
  std::string text = jsonl_text(back);
  EXPECT_NE(text.find("[[\"r\",5,5],[\"r\",6,[5,7]],[\"r\",5,null]]"), std::string::npos) << text;
  EXPECT_EQ(back.keys.size(), 3u);    // x 5 6
  EXPECT_EQ(back.values.size(), 3u);  // a 5 7
}

TEST(Hdf5Sink, NoChunksGivesAnEmptyHistory) {
  std::string p = tmp("none.h5");
  auto sink = open_sink(p, Format::hdf5, "ns");
  sink->finish();
  History back = read_hdf5(p);
  EXPECT_EQ(back.txn_count(), 0u);
  EXPECT_EQ(back.time_unit, "ns");
}

TEST(JsonlSink, ManyChunksEqualWriteJsonl) {
  for (bool named : {false, true}) {
    History h = random_history(300, named, 6);
    std::string p = tmp("chunks.jsonl");
    write_in_chunks(open_sink(p, Format::jsonl, h.time_unit), h, 5, named);
    EXPECT_EQ(slurp(p), jsonl_text(h));
    expect_same(parse_jsonl(jsonl_text(h), "h.jsonl"), read_jsonl(p));
  }
}

TEST(JsonlSink, StreamHelperMatchesWriteJsonl) {
  History h = random_history(50, true, 8);
  std::ostringstream s;
  write_jsonl_txns(h, s, true);
  EXPECT_EQ(s.str(), jsonl_text(h));
  std::ostringstream empty;
  write_jsonl_header("", empty);
  EXPECT_EQ(empty.str(), "{\"isocheck\":1}\n");
}

TEST(Sink, OtherFormatsAreUsageErrors) {
  try {
    open_sink(tmp("x.edn"), Format::elle_edn, "");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write format elle-edn"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_sink(tmp("x"), Format::unknown, ""), UsageError);
}

// An output that cannot be written is a usage error (exit 2); a full disk a
// resource error (exit 3).
TEST(Sink, UnwritablePathIsAnError) {
  EXPECT_THROW(open_sink("/nonexistent-dir/x.jsonl", Format::jsonl, ""), UsageError);
  EXPECT_THROW(open_sink("/nonexistent-dir/x.h5", Format::hdf5, ""), UsageError);
  EXPECT_THROW(
      {
        auto s = open_sink("/dev/full", Format::jsonl, "");
        s->append(random_history(3, false, 1));
        s->finish();
      },
      ResourceError);
}

// A sink writes beside its destination and renames in finish(): one abandoned
// halfway (an error, a kill) leaves the old file whole and no temporary file.
TEST(Sink, DestinationReplacedOnlyByFinish) {
  for (Format f : {Format::jsonl, Format::hdf5}) {
    std::string path = tmp(f == Format::jsonl ? "atomic.jsonl" : "atomic.h5");
    auto dir = std::filesystem::path(path).parent_path();
    std::filesystem::remove(path);
    {
      std::ofstream(path) << "old\n";
    }
    size_t files = std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
    {
      auto s = open_sink(path, f, "ns");
      s->append(random_history(5, false, 2));
      EXPECT_EQ(slurp(path), "old\n");
    }  // destroyed without finish()
    EXPECT_EQ(slurp(path), "old\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), files);
    auto s = open_sink(path, f, "ns");
    s->append(random_history(5, false, 2));
    s->finish();
    EXPECT_NE(slurp(path), "old\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), files);
  }
}

TEST(Sink, FormatFromExtension) {
  EXPECT_EQ(format_from_extension("a/b.jsonl"), Format::jsonl);
  EXPECT_EQ(format_from_extension("b.JSON"), Format::jsonl);
  EXPECT_EQ(format_from_extension("/x/y.h5"), Format::hdf5);
  EXPECT_EQ(format_from_extension("y.hdf5"), Format::hdf5);
  EXPECT_EQ(format_from_extension("y.edn"), Format::unknown);
  EXPECT_EQ(format_from_extension("dir.h5/file"), Format::unknown);
  EXPECT_EQ(format_from_extension("noext"), Format::unknown);
  EXPECT_STREQ(to_string(Format::jsonl), "jsonl");
  EXPECT_STREQ(to_string(Format::hdf5), "hdf5");
  EXPECT_STREQ(to_string(Format::dbcop_json), "dbcop-json");
}

}  // namespace
}  // namespace isocheck

// HDF5 format: round trips, range reads, and every validation error, with
// malformed files crafted through the HDF5 C API.
#include "io/hdf5.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "common/history_fixtures.h"
#include "common/temp_files.h"
#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "io/jsonl.h"
#include "io/sink.h"

namespace isocheck {
namespace {

using namespace testkit;

std::string tmp(const std::string& name) { return temp_path("isocheck_hdf5_test", name); }

const char* kIntHistory =
    "{\"isocheck\":1,\"time_unit\":\"ns\"}\n"
    "{\"id\":1,\"session\":0,\"status\":\"committed\",\"begin\":10,\"end\":20,\"ops\":[[\"r\",1,null],[\"w\",1,5]]}\n"
    "{\"id\":2,\"session\":7,\"status\":\"aborted\",\"ops\":[[\"w\",2,6],[\"r\",1,5]]}\n"
    "{\"id\":3,\"session\":0,\"status\":\"unknown\",\"begin\":30,\"end\":30,\"ops\":[]}\n"
    "{\"id\":-4,\"session\":7,\"status\":\"committed\",\"ops\":[[\"append\",3,9],[\"r\",3,[9]],[\"r\",3,[]]]}\n";

const char* kStringKeys =
    "{\"id\":10,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",1],[\"w\",\"y\",2]]}\n"
    "{\"id\":11,\"session\":2,\"status\":\"committed\",\"begin\":-5,\"end\":-1,\"ops\":[[\"r\",\"y\",2],[\"append\",\"l\",3]]}\n"
    "{\"id\":12,\"session\":1,\"status\":\"aborted\",\"ops\":[[\"r\",\"l\",[3]]]}\n";

const char* kMixed =
    "{\"id\":1,\"session\":4,\"status\":\"committed\",\"ops\":[[\"w\",1,5],[\"w\",\"x\",\"a\"],[\"w\",\"1\",\"5\"]]}\n"
    "{\"id\":2,\"session\":4,\"status\":\"unknown\",\"ops\":[[\"r\",1,5],[\"r\",\"1\",\"5\"],[\"r\",\"x\",null],"
    "[\"append\",\"l\",5],[\"append\",\"l\",\"a\"],[\"r\",\"l\",[5,\"a\"]],[\"w\",7,\"\\u00e9\\n\"]]}\n"
    "{\"id\":3,\"session\":9,\"status\":\"aborted\",\"ops\":[[\"r\",7,\"\\u00e9\\n\"],[\"r\",\"x\",\"a\"]]}\n";

// Writes h to the HDF5 file `name` and reads it back; the copy must equal h
// column by column and as JSONL text.
History round_trip(const History& h, const std::string& name) {
  SCOPED_TRACE(name);
  std::string p = tmp(name);
  write_hdf5(h, p);
  History back = read_hdf5(p);
  expect_same(h, back);
  EXPECT_EQ(jsonl_text(h), jsonl_text(back));
  return back;
}

TEST(Hdf5RoundTrip, IntegerKeysAllStatusesTimesListsNulls) {
  History h = parse_jsonl(kIntHistory, "int.jsonl");
  ASSERT_FALSE(h.keys.named());
  History back = round_trip(h, "int.h5");
  EXPECT_EQ(back.time_unit, "ns");
  EXPECT_EQ(hdf5_txn_count(tmp("int.h5")), 4u);
}

TEST(Hdf5RoundTrip, StringKeys) {
  History h = parse_jsonl(kStringKeys, "str.jsonl");
  ASSERT_TRUE(h.keys.named());
  ASSERT_FALSE(h.values.named());
  History back = round_trip(h, "str.h5");
  EXPECT_EQ(back.time_unit, "");
}

TEST(Hdf5RoundTrip, MixedIntAndStringKeysAndValues) {
  History h = parse_jsonl(kMixed, "mixed.jsonl");
  ASSERT_TRUE(h.keys.named());
  ASSERT_TRUE(h.values.named());
  History back = round_trip(h, "mixed.h5");  // also the same JSONL text:
  // 1 and "1", 5 and "5" stay apart, and non-ASCII survives.
  EXPECT_NE(jsonl_text(back).find("[\"w\",\"1\",\"5\"]"), std::string::npos);
  EXPECT_NE(jsonl_text(back).find("[\"w\",1,5]"), std::string::npos);
}

// A table read from a file builds its name index only when something is
// interned: then the file's names keep their symbols (1 and "1" apart) and a
// new name gets the next one.
TEST(Hdf5RoundTrip, TablesReadFromAFileInternAsBefore) {
  History h = parse_jsonl(kMixed, "mixed.jsonl");
  History back = round_trip(h, "mixed-intern.h5");
  SymbolTable& k = back.keys;
  const size_t n = k.size();
  ASSERT_GE(n, 4u);
  for (Sym s = 0; s < n; ++s) {
    if (k.is_int(s)) {
      EXPECT_EQ(k.intern_int(std::stoll(k.name(s))), s) << k.name(s);
    } else {
      EXPECT_EQ(k.intern_string(k.name(s)), s) << k.name(s);
    }
  }
  EXPECT_EQ(k.size(), n);
  const Sym fresh = k.intern_string("a name the file does not have");
  EXPECT_EQ(fresh, n);
  EXPECT_EQ(k.intern_string("a name the file does not have"), fresh);
  EXPECT_EQ(k.size(), n + 1);
  // the copy interns alike
  SymbolTable copy = back.values;
  for (Sym s = 0; s < copy.size(); ++s)
    if (!copy.is_int(s)) { EXPECT_EQ(copy.intern_string(copy.name(s)), s); }
}

TEST(Hdf5RoundTrip, EmptyHistory) {
  History h = parse_jsonl("", "empty.jsonl");
  History back = round_trip(h, "empty.h5");
  EXPECT_EQ(back.txn_count(), 0u);
  EXPECT_EQ(back.txn_op_offset, std::vector<uint64_t>{0});
  EXPECT_EQ(hdf5_txn_count(tmp("empty.h5")), 0u);
}

TEST(Hdf5RoundTrip, RandomHistoriesIntegerAndNamed) {
  for (bool named : {false, true}) {
    History h = random_history(500, named, named ? 2 : 1);
    round_trip(h, named ? "rand_named.h5" : "rand_int.h5");
  }
}

TEST(Hdf5Range, SlicesEqualTheCorrespondingTransactions) {
  for (bool named : {false, true}) {
    History h = random_history(300, named, 7);
    std::string p = tmp("range.h5");
    write_hdf5(h, p);
    for (auto [a, b] : std::vector<std::pair<size_t, size_t>>{
             {0, 0}, {0, 300}, {0, 1}, {299, 300}, {17, 18}, {10, 150}, {150, 300}, {300, 300}, {42, 255}}) {
      SCOPED_TRACE("range [" + std::to_string(a) + ", " + std::to_string(b) + ")");
      History r = read_hdf5_range(p, a, b);
      expect_same(slice(h, a, b), r);
    }
    // Ranks splitting [0, n) read every transaction exactly once.
    size_t total = 0;
    for (size_t r = 0; r < 7; ++r) total += read_hdf5_range(p, 300 * r / 7, 300 * (r + 1) / 7).txn_count();
    EXPECT_EQ(total, 300u);
    EXPECT_THROW(read_hdf5_range(p, 10, 301), UsageError);
    EXPECT_THROW(read_hdf5_range(p, 11, 10), UsageError);
  }
}

TEST(Hdf5Range, SmallChunksAndAnyDeflateLevel) {
  History h = random_history(120, true, 11);
  std::string p = tmp("smallchunks.h5");
  for (int level : {0, 1, 9}) {
    SCOPED_TRACE("deflate level " + std::to_string(level));
    write_hdf5(h, p, Hdf5Options{level, 5});
    expect_same(h, read_hdf5(p));
    expect_same(slice(h, 33, 97), read_hdf5_range(p, 33, 97));
  }
}

TEST(Hdf5Dump, H5dumpReadsTheFile) {
  if (std::system("h5dump --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "h5dump not installed";
  History h = parse_jsonl(kMixed, "mixed.jsonl");
  std::string p = tmp("dump.h5"), out = tmp("dump.txt");
  write_hdf5(h, p);
  ASSERT_EQ(std::system(("h5dump -p " + p + " > " + out + " 2>&1").c_str()), 0);
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (const char* want : {"DATASET \"id\"", "DATASET \"op_offset\"", "DATASET \"list_offset\"", "\"key_names\"",
                           "\"value_name_is_int\"", "ATTRIBUTE \"format_version\"", "H5T_STD_U64LE",
                           "SHUFFLE", "DEFLATE"})
    EXPECT_NE(text.find(want), std::string::npos) << want;
}

// ------------------------------------------------------------- validation

// Replaces dataset `name` by a contiguous one of `ftype` holding `data`.
void put(const std::string& path, const char* name, hid_t ftype, hid_t mtype, const void* data, hsize_t n) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) H5Ldelete(f, name, H5P_DEFAULT);
  hid_t s = H5Screate_simple(1, &n, nullptr);
  hid_t d = H5Dcreate2(f, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  if (n) H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d), H5Sclose(s), H5Fclose(f);
}
void put_u64(const std::string& p, const char* name, const std::vector<uint64_t>& v) {
  put(p, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, v.data(), v.size());
}
void put_i64(const std::string& p, const char* name, const std::vector<int64_t>& v) {
  put(p, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data(), v.size());
}
void put_u8(const std::string& p, const char* name, const std::vector<uint8_t>& v) {
  put(p, name, H5T_STD_U8LE, H5T_NATIVE_UINT8, v.data(), v.size());
}
void put_u32(const std::string& p, const char* name, const std::vector<uint32_t>& v) {
  put(p, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, v.data(), v.size());
}
void remove(const std::string& path, const char* name) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, name, H5P_DEFAULT);
  H5Fclose(f);
}
void set_version(const std::string& path, int64_t v, bool drop = false) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Adelete(f, "format_version");
  if (!drop) {
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "format_version", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a), H5Sclose(s);
  }
  H5Fclose(f);
}

// The base file: kIntHistory (4 txns, 7 ops, 1 list value) or kMixed (named).
std::string base(const std::string& name, const char* jsonl = kIntHistory) {
  std::string p = tmp(name);
  write_hdf5(parse_jsonl(jsonl, "base.jsonl"), p);
  return p;
}

// Reading must fail with an InputError whose message contains every piece.
void expect_error(const std::string& path, std::vector<std::string> pieces, uint64_t a = 0, uint64_t b = UINT64_MAX) {
  try {
    if (b == UINT64_MAX) read_hdf5(path);
    else read_hdf5_range(path, a, b);
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path, 0), 0u) << msg;
    for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "missing \"" << p << "\" in: " << msg;
  }
}

// Files written elsewhere (h5py, other settings) use other pipelines, byte
// orders and chunkings; the reader's fast path must decline them correctly.
void put_chunked(const std::string& path, const char* name, hid_t ftype, const std::vector<uint64_t>& v,
                 hsize_t chunk, bool shuffle, int deflate, bool fletcher) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, name, H5P_DEFAULT);
  hsize_t n = v.size(), unlimited = H5S_UNLIMITED;
  hid_t s = H5Screate_simple(1, &n, &unlimited);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &chunk);
  if (shuffle) H5Pset_shuffle(dcpl);
  if (deflate) H5Pset_deflate(dcpl, deflate);
  if (fletcher) H5Pset_fletcher32(dcpl);
  hid_t d = H5Dcreate2(f, name, ftype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  // Same signedness in memory, or the library would clamp 2^63 (null) on conversion.
  hid_t mem = H5Tget_sign(ftype) == H5T_SGN_NONE ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64;
  H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(d), H5Pclose(dcpl), H5Sclose(s), H5Fclose(f);
}

TEST(Hdf5Foreign, OtherPipelinesByteOrdersAndChunksReadTheSame) {
  History h = random_history(200, false, 21);
  std::string p = tmp("foreign.h5");
  std::vector<uint64_t> keys(h.op_key.begin(), h.op_key.end()), vals(h.op_value.begin(), h.op_value.end());
  struct Case { hid_t type; hsize_t chunk; bool shuffle; int deflate; bool fletcher; };
  for (Case c : {Case{H5T_STD_U64LE, 3, false, 6, false}, Case{H5T_STD_U64BE, 7, true, 1, false},
                 Case{H5T_STD_I64LE, 5, true, 1, true}, Case{H5T_STD_U64LE, 1000, false, 0, false},
                 Case{H5T_STD_I64BE, 2, false, 0, false}}) {
    write_hdf5(h, p);
    put_chunked(p, "/op/key", c.type, keys, c.chunk, c.shuffle, c.deflate, c.fletcher);
    put_chunked(p, "/op/value", c.type, vals, c.chunk, c.shuffle, c.deflate, c.fletcher);
    SCOPED_TRACE("chunk " + std::to_string(c.chunk) + " deflate " + std::to_string(c.deflate));
    expect_same(h, read_hdf5(p));
    expect_same(slice(h, 50, 120), read_hdf5_range(p, 50, 120));
  }
}

TEST(Hdf5Invalid, NotAnHdf5FileOrMissing) {
  std::string p = tmp("text.h5");
  std::ofstream(p) << "{\"id\":1}\n";
  expect_error(p, {"not an HDF5 file"});
  expect_error(tmp("does-not-exist.h5"), {"cannot read the file"});
}

TEST(Hdf5Invalid, FormatVersion) {
  std::string p = base("v.h5");
  set_version(p, 2);
  expect_error(p, {"unsupported format_version 2", "reads version 1"});
  set_version(p, 0, true);
  expect_error(p, {"missing root attribute format_version"});
}

TEST(Hdf5Invalid, MissingDataset) {
  for (const char* ds : {"/txn/id", "/txn/end", "/op/value", "/op/list_offset", "/list/value"}) {
    std::string p = base("missing.h5");
    remove(p, ds);
    expect_error(p, {std::string("dataset ") + ds + ":", "missing"});
  }
  std::string p = base("missing-group.h5");
  remove(p, "/op");
  expect_error(p, {"dataset /op/kind:", "missing"});
}

TEST(Hdf5Invalid, WrongDatatype) {
  std::string p = base("type.h5");
  std::vector<double> d(4, 1.0);
  put(p, "/txn/id", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d.data(), 4);
  expect_error(p, {"dataset /txn/id:", "wrong datatype", "64-bit float"});
  p = base("type2.h5");
  put_u64(p, "/op/kind", std::vector<uint64_t>(7, 0));
  expect_error(p, {"dataset /op/kind:", "wrong datatype", "8-bit", "unsigned 64-bit integer"});
  p = base("type3.h5");
  std::vector<int32_t> s(4, 0);
  put(p, "/txn/session", H5T_STD_I32LE, H5T_NATIVE_INT32, s.data(), 4);
  expect_error(p, {"dataset /txn/session:", "signed 32-bit integer"});
  p = base("type4.h5");
  {
    hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/list/value", H5P_DEFAULT);
    hsize_t dims[2] = {1, 1};
    hid_t sp = H5Screate_simple(2, dims, nullptr);
    hid_t ds = H5Dcreate2(f, "/list/value", H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(ds), H5Sclose(sp), H5Fclose(f);
  }
  expect_error(p, {"dataset /list/value:", "one-dimensional", "rank 2"});
}

TEST(Hdf5Invalid, MismatchedLengths) {
  std::string p = base("len.h5");
  put_u8(p, "/txn/status", {0, 1, 2});
  expect_error(p, {"dataset /txn/status:", "has 3 rows", "needs 4"});
  p = base("len2.h5");
  put_u64(p, "/txn/op_offset", {0, 2, 4, 4});
  expect_error(p, {"dataset /txn/op_offset:", "has 4 rows", "needs 5"});
  p = base("len3.h5");
  put_u64(p, "/op/key", {1, 1, 2, 1, 3, 3});
  expect_error(p, {"dataset /op/key:", "has 6 rows", "needs 7"});
  p = base("len4.h5");
  put_u64(p, "/list/value", {9, 9});
  expect_error(p, {"dataset /op/list_offset row 7", "row count of /list/value 2", "is 1"});
}

TEST(Hdf5Invalid, OpOffsets) {
  std::string p = base("off.h5");
  put_u64(p, "/txn/op_offset", {1, 2, 4, 4, 7});
  expect_error(p, {"dataset /txn/op_offset row 0", "must start at 0"});
  p = base("off2.h5");
  put_u64(p, "/txn/op_offset", {0, 3, 2, 4, 7});
  expect_error(p, {"dataset /txn/op_offset row 2", "non-decreasing", "3 then 2"});
  p = base("off3.h5");
  put_u64(p, "/txn/op_offset", {0, 2, 4, 4, 6});
  expect_error(p, {"dataset /txn/op_offset row 4", "must end at the operation count 7", "is 6"});
  // A range sees the start and end too.
  expect_error(p, {"dataset /txn/op_offset row 4"}, 1, 2);
}

TEST(Hdf5Invalid, ListOffsets) {
  // ops: r w | w r | - | append r[9] r[]  -> list_offset 0 0 0 0 0 0 1 1
  std::string p = base("loff.h5");
  put_u64(p, "/op/list_offset", {1, 0, 0, 0, 0, 0, 1, 1});
  expect_error(p, {"dataset /op/list_offset row 0", "must start at 0"});
  p = base("loff2.h5");
  put_u64(p, "/op/list_offset", {0, 0, 1, 0, 0, 0, 1, 1});
  expect_error(p, {"dataset /op/list_offset row 3", "non-decreasing", "1 then 0"});
  p = base("loff3.h5");
  put_u64(p, "/op/list_offset", {0, 0, 0, 0, 0, 0, 1, 0});
  expect_error(p, {"dataset /op/list_offset row 7", "must end at the row count of /list/value 1", "is 0"});
}

// read_hdf5(path, true), as `verify` reads: the history
// release_unused_list_offsets() leaves, with the list offsets of a file
// without list values checked a block at a time and never held.
TEST(Hdf5ReleasedLists, SameHistoryAsReadingThenReleasing) {
  const char* kNoListValues =
      "{\"id\":1,\"session\":0,\"status\":\"committed\",\"ops\":[[\"r\",1,null],[\"w\",1,5]]}\n"
      "{\"id\":2,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",3,[]],[\"w\",2,6]]}\n";
  const char* kNoLists =
      "{\"id\":1,\"session\":0,\"status\":\"committed\",\"ops\":[[\"r\",1,null],[\"w\",1,5]]}\n"
      "{\"id\":2,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",1,5],[\"w\",2,6]]}\n";
  for (const char* jsonl : {kIntHistory, kNoListValues, kNoLists}) {
    History want = parse_jsonl(jsonl, "h.jsonl");
    want.release_unused_list_offsets();
    const std::string p = base("released.h5", jsonl);
    const History got = read_hdf5(p, true);
    expect_same(want, got);
    EXPECT_EQ(got.op_list_offset.empty(), jsonl == kNoLists);  // an empty list read keeps them
  }
  // More operations than one block of offsets (2^20), none a list read.
  std::string text;
  for (int t = 0; t < 300000; ++t)
    text += "{\"id\":" + std::to_string(t) + ",\"session\":" + std::to_string(t % 5) +
            ",\"status\":\"committed\",\"ops\":[[\"w\"," + std::to_string(t) + ",1],[\"w\"," + std::to_string(t) +
            ",2],[\"w\"," + std::to_string(t) + ",3],[\"w\"," + std::to_string(t) + ",4]]}\n";
  History big = parse_jsonl(text, "big.jsonl");
  const std::string p = tmp("released-big.h5");
  write_hdf5(big, p);
  big.release_unused_list_offsets();
  expect_same(big, read_hdf5(p, true));
  // A nonzero offset in a later block, in a file with no list values: the
  // error names its row, as without the release.
  std::vector<uint64_t> off(big.op_count() + 1, 0);
  off[1100000] = 1;
  put_u64(p, "/op/list_offset", off);
  for (bool release : {false, true}) {
    try {
      read_hdf5(p, release);
      ADD_FAILURE() << "no error, release " << release;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("dataset /op/list_offset row 1100000: offsets must be non-decreasing and at most 0"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Hdf5Invalid, StatusAndKindOutOfRange) {
  std::string p = base("st.h5");
  put_u8(p, "/txn/status", {0, 1, 3, 0});
  expect_error(p, {"dataset /txn/status row 2", "status 3 is out of range"});
  p = base("kind.h5");
  put_u8(p, "/op/kind", {0, 1, 1, 0, 2, 3, 4});
  expect_error(p, {"dataset /op/kind row 6", "kind 4 is out of range"});
}

TEST(Hdf5Invalid, Times) {
  const int64_t no = kNoTime;
  std::string p = base("time.h5");
  put_i64(p, "/txn/begin", {10, no, 31, no});
  expect_error(p, {"dataset /txn/begin row 2", "begin (31) is after end (30)"});
  p = base("time2.h5");
  put_i64(p, "/txn/end", {20, 5, 30, no});
  expect_error(p, {"dataset /txn/begin row 1", "begin and end must be given together"});
  p = base("time3.h5");
  put_i64(p, "/txn/begin", {10, no, 30, 5});
  expect_error(p, {"dataset /txn/end row 3", "together"});
}

TEST(Hdf5Invalid, DuplicateIdNamesBothRows) {
  std::string p = base("dup.h5");
  put_i64(p, "/txn/id", {1, 2, 3, 2});
  expect_error(p, {"dataset /txn/id row 3", "duplicate transaction id 2", "rows 1 and 3"});
  // Sparse ids take the sorting path.
  put_i64(p, "/txn/id", {5000000000000LL, -7, 3, 5000000000000LL});
  expect_error(p, {"dataset /txn/id row 3", "duplicate transaction id 5000000000000", "rows 0 and 3"});
  // Two ids repeated: the first repeat in row order, as the dense path and the
  // other readers report it (regression: the sparse path named the smallest
  // repeated id, -7 at row 3).
  put_i64(p, "/txn/id", {5000000000000LL, 5000000000000LL, -7, -7});
  expect_error(p, {"dataset /txn/id row 1", "duplicate transaction id 5000000000000", "rows 0 and 1"});
  // In a range, rows are the file's and only the range is checked.
  put_i64(p, "/txn/id", {1, 9, 3, 9});
  expect_error(p, {"dataset /txn/id row 3", "rows 1 and 3"}, 1, 4);
  EXPECT_EQ(read_hdf5_range(p, 0, 3).txn_count(), 3u);
}

TEST(Hdf5Invalid, SessionOutOfRange) {
  std::string p = base("sess.h5");
  put_i64(p, "/txn/session", {0, -1, 0, 7});
  expect_error(p, {"dataset /txn/session row 1", "session -1 is out of range"});
}

TEST(Hdf5Invalid, NullWrite) {
  std::string p = base("nullw.h5");
  // ops: r1 null, w1 5, w2 6, r1 5, append3 9, r3[9], r3[]
  put_u64(p, "/op/value", {kNullValue, 5, 6, 5, kNullValue, 0, 0});
  expect_error(p, {"dataset /op/value row 4", "append cannot write null"});
  put_u64(p, "/list/value", {kNullValue});
  put_u64(p, "/op/value", {kNullValue, 5, 6, 5, 9, 0, 0});
  expect_error(p, {"dataset /list/value row 0", "cannot contain null"});
}

TEST(Hdf5Invalid, SymbolsOutOfNameTables) {
  // kMixed: keys 1 x "1" l 7 (5 names); values 5 a "5" é\n (4 names); 12 ops.
  std::string p = base("sym.h5", kMixed);
  History h = read_hdf5(p);
  ASSERT_EQ(h.keys.size(), 5u);
  ASSERT_EQ(h.values.size(), 4u);
  std::vector<uint64_t> keys(h.op_key.begin(), h.op_key.end());
  keys[8] = 5;
  put_u64(p, "/op/key", keys);
  expect_error(p, {"dataset /op/key row 8", "key symbol 5 is out of range of /key_names (5 names)"});
  p = base("sym2.h5", kMixed);
  std::vector<uint64_t> vals(h.op_value.begin(), h.op_value.end());
  vals[3] = 99;  // a read
  put_u64(p, "/op/value", vals);
  expect_error(p, {"dataset /op/value row 3", "value symbol 99 is out of range of /value_names (4 names)"});
  p = base("sym3.h5", kMixed);
  put_u64(p, "/list/value", {0, 4});
  expect_error(p, {"dataset /list/value row 1", "value symbol 4"});
  p = base("sym4.h5", kMixed);
  put_u8(p, "/key_name_is_int", {1, 0, 0});
  expect_error(p, {"dataset /key_name_is_int:", "has 3 rows", "/key_names needs 5"});
  p = base("sym5.h5", kMixed);
  // The names are x 1 "1" l 7: the switch to named mode came at "x".
  put_u8(p, "/key_name_is_int", {1, 1, 0, 0, 1});
  expect_error(p, {"dataset /key_names row 0", "\"x\" is flagged as an integer"});
}

TEST(Hdf5Invalid, NamesWithoutFlagsAreStrings) {
  // Hand-made files may leave out the flags: every name is then a string.
  std::string p = base("noflags.h5", kStringKeys);
  remove(p, "/key_name_is_int");
  History h = read_hdf5(p);
  EXPECT_TRUE(h.keys.named());
  EXPECT_EQ(h.keys.text(h.op_key[0]), "x");
  remove(p, "/key_names");
  put_u8(p, "/key_name_is_int", {0, 0, 0});
  expect_error(p, {"dataset /key_name_is_int:", "present without /key_names"});
}


// Damaged files: libhdf5 trusts the lengths inside a global heap collection
// (the time_unit attribute and the name tables live there), so one flipped
// byte made it copy past its buffers or loop for ever. Every damage must be
// an InputError or a read that gives a sound history; a crash fails the test.
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void spill(const std::string& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Reads `p`: "" when it reads and the history is sound, else the error.
std::string read_damaged(const std::string& p) {
  try {
    History h = read_hdf5(p);
    size_t n = h.txn_count();
    if (h.txn_op_offset.size() != n + 1 || h.txn_op_offset.back() != h.op_count()) return "unsound offsets";
    for (OpIdx o = 0; o < h.op_count(); ++o) {
      if (h.keys.named() && h.op_key[o] >= h.keys.size()) return "key out of the name table";
      if (h.op_list_offset[o] > h.op_list_offset[o + 1]) return "unsound list offsets";
    }
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// One file per process: ctest runs the tests of this binary in parallel
// processes, and HDF5 refuses to create a file another process holds open.
std::string damaged_base() {
  History h = parse_jsonl(kMixed, "mixed.jsonl");
  h.time_unit = "ms";
  std::string p = tmp("damaged_base-" + std::to_string(::getpid()) + ".h5");
  write_hdf5(h, p);
  return p;
}

TEST(Hdf5Damaged, GlobalHeapLengthsAreCheckedBeforeTheLibraryTrustsThem) {
  const std::string good = slurp(damaged_base());
  size_t gcol = good.find("GCOL\1");
  ASSERT_NE(gcol, std::string::npos);
  auto le = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(good[at + i]);
    return v;
  };
  const uint64_t size = le(gcol + 8);
  ASSERT_GE(size, 4096u);
  // Each object of the collection: its 8-byte length at +8 of its header.
  std::vector<size_t> lengths;
  for (size_t off = 16; off + 16 <= size;) {
    unsigned idx = static_cast<unsigned char>(good[gcol + off]) | static_cast<unsigned char>(good[gcol + off + 1]) << 8;
    uint64_t len = le(gcol + off + 8);
    if (idx == 0) break;
    lengths.push_back(gcol + off + 8);
    off += 16 + (len + 7) / 8 * 8;
  }
  ASSERT_GE(lengths.size(), 5u);  // time_unit, the key and the value names
  const std::string p = tmp("damaged.h5");
  int refused = 0;
  for (size_t at : lengths) {
    for (int byte = 0; byte < 8; ++byte) {
      for (unsigned flip : {0x01u, 0x10u, 0x80u, 0xffu}) {
        std::string bad = good;
        bad[at + byte] = static_cast<char>(bad[at + byte] ^ flip);
        spill(p, bad);
        std::string err = read_damaged(p);
        // Byte 1 up: the length grows past the 4 KiB collection.
        if (byte >= 1) {
          EXPECT_NE(err.find("global heap collection at byte " + std::to_string(gcol)), std::string::npos)
              << "length byte " << byte << " ^" << flip << " at " << at << ": " << err;
          EXPECT_EQ(err.rfind(p, 0), 0u) << err;
        }
        refused += !err.empty();
      }
    }
  }
  EXPECT_GT(refused, 0);
  // The attribute's heap id: its 4-byte index past the collection's objects
  // made the library read outside them; its length must match the object's.
  {
    const uint64_t len = le(lengths[0]);  // the first object is time_unit ("ms")
    std::string id(4, '\0');
    id[0] = static_cast<char>(len);
    for (int i = 0; i < 8; ++i) id.push_back(static_cast<char>((gcol >> (8 * i)) & 0xff));
    id += std::string("\1\0\0\0", 4);
    size_t at = good.find(id);
    ASSERT_NE(at, std::string::npos) << "the time_unit attribute's heap id";
    for (auto [byte, v] : std::vector<std::pair<int, int>>{{12, 5}, {13, 1}, {14, 1}, {15, 0x80}, {0, 0xff}, {3, 0x7f}}) {
      std::string bad = good;
      bad[at + byte] = static_cast<char>(v);
      spill(p, bad);
      std::string err = read_damaged(p);
      EXPECT_NE(err.find("attribute time_unit names heap object"), std::string::npos) << byte << ": " << err;
    }
  }
  // The collection's own size: past the end of the file, or below its header.
  for (int byte : {2, 3, 7}) {
    std::string bad = good;
    bad[gcol + 8 + byte] = static_cast<char>(bad[gcol + 8 + byte] ^ 0x40);
    spill(p, bad);
    EXPECT_NE(read_damaged(p).find("global heap"), std::string::npos) << byte;
  }
}

TEST(Hdf5Damaged, RandomOneByteDamageIsAnErrorOrASoundRead) {
  const std::string good = slurp(damaged_base());
  const std::string p = tmp("damaged_random.h5");
  std::mt19937_64 rng(2024);
  int errors = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bad = good;
    size_t at = rng() % bad.size();
    char v = static_cast<char>(rng() % 255 + 1);
    bad[at] = static_cast<char>(bad[at] ^ v);
    spill(p, bad);
    std::string err = read_damaged(p);
    EXPECT_TRUE(err.empty() || err.rfind(p, 0) == 0) << "byte " << at << ": " << err;
    errors += !err.empty();
  }
  EXPECT_GT(errors, 0);
}

// Found by the hdf5 fuzzer: a damaged chunk size in the chunk index made the
// reader allocate it (4 GiB) before reading; a chunk cannot be larger than
// the file.
TEST(Hdf5Damaged, AChunkSizeLargerThanTheFileIsRefusedBeforeAllocating) {
  const std::string good = slurp(damaged_base());
  const std::string p = tmp("damaged_chunk.h5");
  hid_t f = H5Fopen(damaged_base().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/op/key", H5P_DEFAULT);
  hsize_t off = 0, stored = 0;
  ASSERT_GE(H5Dget_chunk_storage_size(d, &off, &stored), 0);
  H5Dclose(d), H5Fclose(f);
  ASSERT_GT(stored, 0u);
  // The v1 B-tree key: chunk size (4 bytes), filter mask 0 (4), offset 0 (8 + 8).
  std::string key(4, '\0');
  for (int i = 0; i < 4; ++i) key[i] = static_cast<char>((stored >> (8 * i)) & 0xff);
  key += std::string(20, '\0');
  int changed = 0;
  for (size_t at = good.find(key); at != std::string::npos; at = good.find(key, at + 1)) {
    std::string bad = good;
    bad.replace(at, 4, std::string("\x7e\xff\xff\xff", 4));
    spill(p, bad);
    std::string err = read_damaged(p);
    if (err.find("/op/key") == std::string::npos) continue;  // another dataset's key of the same size
    EXPECT_NE(err.find("more than the file's"), std::string::npos) << err;
    ++changed;
  }
  EXPECT_GT(changed, 0);
}

// Found by the hdf5 fuzzer: a damaged dataspace claiming 2^56 names made the
// reader size its name table by it (out of memory, exit 3). A row count no
// file of this size can hold is a damaged file.
TEST(Hdf5Damaged, MoreRowsThanTheFileCanHoldIsRefused) {
  const std::string p = tmp("damaged_rows.h5");
  std::filesystem::copy_file(damaged_base(), p, std::filesystem::copy_options::overwrite_existing);
  hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/key_names", H5P_DEFAULT);
  hsize_t huge = hsize_t{1} << 50;
  ASSERT_GE(H5Dset_extent(d, &huge), 0);  // declared, never stored
  H5Dclose(d), H5Fclose(f);
  std::string err = read_damaged(p);
  EXPECT_NE(err.find("dataset /key_names: has 1125899906842624 rows, more than a file of"), std::string::npos) << err;
}

}  // namespace
}  // namespace isocheck

// ------------------------------------------------------------- scan marks

namespace isocheck {
namespace {

// Range scans: transaction 12 scans [1, 5] and sees keys 1 and 3 (rows) and
// key 5 absent; transaction 13 scans [0, 9] and sees all three.
const char* kScans =
    "{\"id\":11,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",1,1],[\"w\",3,3]]}\n"
    "{\"id\":12,\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",2,null],[\"scan\",1,5,[[1,1],[3,3]]],[\"w\",5,5]]}\n"
    "{\"id\":13,\"session\":1,\"status\":\"committed\",\"ops\":[[\"scan\",0,9,[[1,1],[3,3],[5,5]]],[\"w\",1,7]]}\n";

// Marks of operations [o0, o1) of h, as indices from o0.
std::pair<std::vector<OpIdx>, std::vector<OpIdx>> marks_in(const History& h, OpIdx o0, OpIdx o1) {
  std::pair<std::vector<OpIdx>, std::vector<OpIdx>> m;
  for (OpIdx o : h.scan_ops)
    if (o >= o0 && o < o1) m.first.push_back(o - o0);
  for (OpIdx o : h.scan_absent_ops)
    if (o >= o0 && o < o1) m.second.push_back(o - o0);
  return m;
}

TEST(Hdf5ScanMarks, RoundTripKeepsWhichReadsAScanMade) {
  History h = parse_jsonl(kScans, "scans.jsonl");
  ASSERT_EQ(h.scan_ops, (std::vector<OpIdx>{3, 4, 5, 7, 8, 9}));
  ASSERT_EQ(h.scan_absent_ops, (std::vector<OpIdx>{5}));
  for (int level : {0, 1}) {
    SCOPED_TRACE("deflate level " + std::to_string(level));
    std::string p = tmp("scans.h5");
    write_hdf5(h, p, Hdf5Options{level, 4});
    History back = read_hdf5(p);
    expect_same(h, back);
    EXPECT_EQ(back.scan_ops, h.scan_ops);
    EXPECT_EQ(back.scan_absent_ops, h.scan_absent_ops);
    // A slice keeps the marks of its own operations, counted from its first.
    for (uint64_t a = 0; a <= 3; ++a)
      for (uint64_t b = a; b <= 3; ++b) {
        SCOPED_TRACE("range [" + std::to_string(a) + ", " + std::to_string(b) + ")");
        History r = read_hdf5_range(p, a, b);
        auto [all, absent] = marks_in(h, h.op_begin(a), h.op_begin(b));
        EXPECT_EQ(r.scan_ops, all);
        EXPECT_EQ(r.scan_absent_ops, absent);
      }
  }
}

// A history without scans gets no /op/scan; a file without it (every file
// written before the marks existed) reads with no marks.
TEST(Hdf5ScanMarks, NoScansNoDataset) {
  std::string p = base("noscan.h5");
  hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_EQ(H5Lexists(f, "/op/scan", H5P_DEFAULT), 0);
  H5Fclose(f);
  EXPECT_TRUE(read_hdf5(p).scan_ops.empty());
  p = tmp("scans_dropped.h5");
  write_hdf5(parse_jsonl(kScans, "scans.jsonl"), p);
  remove(p, "/op/scan");
  History back = read_hdf5(p);
  EXPECT_TRUE(back.scan_ops.empty());
  EXPECT_TRUE(back.scan_absent_ops.empty());
}

// Streamed: the dataset is made at the first chunk with scan reads, the
// operations of the chunks before it marked 0 (here across several HDF5
// chunks of 3 rows).
TEST(Hdf5ScanMarks, SinkStartsTheMarksAtTheFirstChunkWithScans) {
  History plain = parse_jsonl(kIntHistory, "int.jsonl"), scans = parse_jsonl(kScans, "scans.jsonl");
  std::string p = tmp("scans_sink.h5");
  auto sink = open_hdf5_sink(p, "ns", Hdf5Options{1, 3});
  sink->append(plain);
  sink->append(scans);
  sink->append(History{});
  sink->finish();
  History back = read_hdf5(p);
  ASSERT_EQ(back.op_count(), plain.op_count() + scans.op_count());
  std::vector<OpIdx> all, absent;
  for (OpIdx o : scans.scan_ops) all.push_back(o + plain.op_count());
  for (OpIdx o : scans.scan_absent_ops) absent.push_back(o + plain.op_count());
  EXPECT_EQ(back.scan_ops, all);
  EXPECT_EQ(back.scan_absent_ops, absent);
}

TEST(Hdf5ScanMarks, InvalidMarks) {
  // kScans: 11 operations; 6 is a write.
  std::string p = base("mark_range.h5", kScans);
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 7, 0, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 5", "mark 7 is out of range"});
  p = base("mark_insert_write.h5", kScans);  // an insert's open read is a read
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 2, 6, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 6", "marks an insert's read (mark 6), but the operation is a write"});
  p = base("mark_insert_value.h5", kScans);  // ... of a null
  put_u8(p, "/op/scan", {0, 0, 0, 6, 1, 2, 0, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 3", "marks an open read (mark 4, 5 or 6), but the read's value is not null"});
  p = base("mark_5_alone.h5", kScans);  // a value predicate's open read needs its predicate
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 5, 0, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 5", "mark 5 (a value predicate's open read), but the file has no /op/predicate"});
  p = base("mark_open_value.h5", kScans);  // an open absence is a null read
  put_u8(p, "/op/scan", {0, 0, 0, 4, 1, 2, 0, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 3", "marks an open read (mark 4, 5 or 6), but the read's value is not null"});
  p = base("mark_open_write.h5", kScans);
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 2, 4, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 6", "marks a scan's read, but the operation is a write"});
  p = base("mark_open.h5", kScans);  // mark 4 on the absent key's null read: read back as open
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 4, 0, 1, 1, 1, 0});
  const History open = read_hdf5(p);
  EXPECT_EQ(open.absent_choice_ops, std::vector<OpIdx>{5});
  EXPECT_EQ(open.scan_absent_ops, std::vector<OpIdx>{5});
  EXPECT_EQ(open.predicate_mark(5), 4);
  p = base("mark_delete_read.h5", kScans);
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 3, 0, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 5", "marks a delete's write (mark 3), but the operation is a read"});
  p = base("mark_write.h5", kScans);
  put_u8(p, "/op/scan", {0, 0, 0, 1, 1, 2, 1, 1, 1, 1, 0});
  expect_error(p, {"dataset /op/scan row 6", "marks a scan's read, but the operation is a write"});
  p = base("mark_len.h5", kScans);
  put_u8(p, "/op/scan", {0, 0, 0});
  expect_error(p, {"dataset /op/scan", "has 3 rows but /op/kind needs 11"});
  p = base("mark_type.h5", kScans);
  put_u64(p, "/op/scan", std::vector<uint64_t>(11, 0));
  expect_error(p, {"dataset /op/scan", "wrong datatype"});
}

// Value predicates: /op/predicate names, per read of a key a scan did not
// return, the scan's predicate in /predicate/{cmp,a,b}; read back equal, in
// the whole file and in every range, and refused where malformed.
TEST(Hdf5ScanMarks, ValuePredicatesRoundTrip) {
  const char* kPreds =
      "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"insert\",1,5],[\"insert\",2,1]]}\n"
      "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",1,5],[\"w\",1,10]]}\n"
      "{\"id\":3,\"session\":1,\"status\":\"committed\",\"ops\":[[\"scan\",0,9,[[2,1]],[\"<\",8]],"
      "[\"scan\",0,9,[[1,5]],[\"between\",2,6]]]}\n";
  const History h = parse_jsonl(kPreds, "preds.jsonl");
  ASSERT_EQ(h.value_predicates.size(), 2u);
  ASSERT_FALSE(h.op_value_predicate.empty());
  const std::string p = tmp("preds.h5");
  write_hdf5(h, p);
  const History back = read_hdf5(p);
  // Each read stands for the same predicate (a slice's table holds the
  // predicates its reads name).
  auto preds_of = [](const History& x, OpIdx o0, OpIdx o1) {
    std::vector<std::pair<OpIdx, ValuePredicate>> v;
    for (const auto& [o, i] : x.op_value_predicate)
      if (o >= o0 && o < o1) v.push_back({o - o0, x.value_predicates.at(i)});
    return v;
  };
  EXPECT_EQ(preds_of(back, 0, back.op_count()), preds_of(h, 0, h.op_count()));
  EXPECT_EQ(back.value_predicates.size(), 1u);  // the one the reads name
  EXPECT_EQ(back.absent_choice_ops, h.absent_choice_ops);
  for (uint64_t a = 0; a <= 3; ++a)
    for (uint64_t b = a; b <= 3; ++b) {
      const History r = read_hdf5_range(p, a, b);
      const OpIdx o0 = h.op_begin(static_cast<TxnIdx>(a)), o1 = b == 3 ? h.op_count() : h.op_begin(static_cast<TxnIdx>(b));
      EXPECT_EQ(preds_of(r, 0, r.op_count()), preds_of(h, o0, o1)) << a << ".." << b;
    }
  EXPECT_TRUE(hdf5_has_value_predicates(p));
  // Its open read is mark 5 (an isocheck that does not know /op/predicate
  // refuses it); with mark 4 instead, or /op/predicate gone, it is refused.
  {
    const OpIdx o = h.absent_choice_ops.at(0);
    std::vector<uint8_t> marks(h.op_count());
    for (OpIdx x = 0; x < h.op_count(); ++x) marks[x] = h.predicate_mark(x);
    EXPECT_EQ(marks[o], 4);
    std::string q4 = tmp("preds_mark4.h5");
    write_hdf5(h, q4);
    put_u8(q4, "/op/scan", marks);
    expect_error(q4, {"dataset /op/scan row " + std::to_string(o), "a value predicate's open read is mark 5"});
    std::string q0 = tmp("preds_gone.h5");
    write_hdf5(h, q0);
    remove(q0, "/op/predicate");
    expect_error(q0, {"dataset /op/scan row " + std::to_string(o), "but the file has no /op/predicate"});
  }
  EXPECT_FALSE(hdf5_has_value_predicates(base("no_preds.h5", kScans)));
  const uint64_t m = h.op_count();
  std::string q = tmp("preds_past.h5");
  write_hdf5(h, q);
  std::vector<uint32_t> col(m, 0);
  col[h.op_value_predicate[0].first] = 3;  // past the table's 2 rows
  put_u32(q, "/op/predicate", col);
  expect_error(q, {"dataset /op/predicate row", "predicate 3 is past /predicate/cmp's 2 rows"});
  q = tmp("preds_unmarked.h5");
  write_hdf5(h, q);
  col.assign(m, 0);
  col[0] = 1;  // T1's insert read: not a scan's
  put_u32(q, "/op/predicate", col);
  expect_error(q, {"dataset /op/predicate row 0", "does not mark the operation a read of a key a scan did not return"});
  q = tmp("preds_cmp.h5");
  write_hdf5(h, q);
  put_u8(q, "/predicate/cmp", {2, 9});
  expect_error(q, {"dataset /predicate/cmp row 1", "comparison 9 is out of range"});
  q = tmp("preds_type.h5");
  write_hdf5(h, q);
  put_u64(q, "/op/predicate", std::vector<uint64_t>(m, 0));
  expect_error(q, {"dataset /op/predicate", "wrong datatype: expected an unsigned 32-bit integer"});
}

// Deletes: the write a delete stands for is marked 3, read back as such in
// the whole file and in every range (the report words it as a delete).
TEST(Hdf5ScanMarks, DeletesRoundTrip) {
  const char* kDeletes =
      "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"insert\",1,1],[\"insert\",2,1]]}\n"
      "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"scan\",1,2,[[1,1],[2,1]]],[\"delete\",1,2]]}\n"
      "{\"id\":3,\"session\":3,\"status\":\"committed\",\"ops\":[[\"scan\",1,2,[[1,1],[2,1]]],[\"delete\",2,2],[\"w\",3,1]]}\n";
  History h = parse_jsonl(kDeletes, "deletes.jsonl");
  ASSERT_EQ(h.delete_ops.size(), 2u);
  std::string p = tmp("deletes.h5");
  write_hdf5(h, p);
  History back = read_hdf5(p);
  EXPECT_EQ(back.delete_ops, h.delete_ops);
  EXPECT_EQ(back.scan_ops, h.scan_ops);
  for (OpIdx o : back.delete_ops) EXPECT_EQ(back.op_kind[o], OpKind::write);
  for (uint64_t a = 0; a < 3; ++a) {
    History r = read_hdf5_range(p, a, 3);
    std::vector<OpIdx> want;
    for (OpIdx o : h.delete_ops)
      if (o >= h.op_begin(static_cast<TxnIdx>(a))) want.push_back(o - h.op_begin(static_cast<TxnIdx>(a)));
    EXPECT_EQ(r.delete_ops, want) << "range from " << a;
  }
}

// An insert of a key another transaction deletes blindly: its required
// absence is open (mark 6, not a scan's read), written and read back as such,
// also when the chunk that holds it has no scan and no delete.
TEST(Hdf5ScanMarks, InsertsOpenReadsRoundTrip) {
  const char* kInserts =
      "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"insert\",4,1],[\"w\",5,1]]}\n"
      "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"delete\",4,2]]}\n"
      "{\"id\":3,\"session\":3,\"status\":\"committed\",\"ops\":[[\"insert\",4,3]]}\n";
  const History h = parse_jsonl(kInserts, "inserts.jsonl");
  ASSERT_EQ(h.absent_choice_ops, (std::vector<OpIdx>{0, 4}));
  EXPECT_TRUE(h.scan_ops.empty());
  const std::string p = tmp("inserts.h5");
  write_hdf5(h, p);
  const History back = read_hdf5(p);
  EXPECT_EQ(back.absent_choice_ops, h.absent_choice_ops);
  EXPECT_EQ(back.delete_ops, h.delete_ops);
  EXPECT_TRUE(back.scan_ops.empty() && back.scan_absent_ops.empty());
  EXPECT_EQ(back.predicate_mark(0), 6);
  EXPECT_TRUE(back.is_insert_choice(4));
  // The sink given the first transaction alone: its chunk has only the open read.
  History first, rest;
  first.session_name = rest.session_name = {1, 2};
  first.begin_txn(1, 0, TxnStatus::committed, kNoTime, kNoTime);
  first.add_op(OpKind::read, 4, kNullValue);
  first.add_op(OpKind::write, 4, 1);
  first.end_txn();
  first.absent_choice_ops = {0};
  rest.begin_txn(2, 1, TxnStatus::committed, kNoTime, kNoTime);
  rest.add_op(OpKind::write, 4, 2);
  rest.end_txn();
  rest.delete_ops = {0};
  const std::string q = tmp("inserts_sink.h5");
  auto sink = open_hdf5_sink(q, "ns", Hdf5Options{1, 3});
  sink->append(first);
  sink->append(rest);
  sink->finish();
  const History joined = read_hdf5(q);
  EXPECT_EQ(joined.absent_choice_ops, std::vector<OpIdx>{0});
  EXPECT_EQ(joined.delete_ops, std::vector<OpIdx>{2});
}

}  // namespace
}  // namespace isocheck

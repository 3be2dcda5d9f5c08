// The exhaustive oracle on hand-made histories with known answers, plus
// self-consistency on random ones (SSER => SER => SI; serial executions hold).
#include <gtest/gtest.h>

#include <string>

#include "io/jsonl.h"
#include "oracle/oracle.h"
#include "oracle/random_history.h"

namespace isocheck {
namespace {

OracleVerdict V(const std::string& jsonl, int64_t skew = 0) {
  return oracle_check(parse_jsonl(jsonl, "test.jsonl"), skew);
}

// ser, si, sser, and the anomaly kind ("" for none).
void expect(const OracleVerdict& v, bool ser, bool si, bool sser, const std::string& anomaly = "") {
  EXPECT_EQ(v.ser, ser) << v.describe();
  EXPECT_EQ(v.si, si) << v.describe();
  EXPECT_EQ(v.sser, sser) << v.describe();
  EXPECT_EQ(v.anomaly_kind, anomaly) << v.describe();
  EXPECT_EQ(v.anomaly, !anomaly.empty()) << v.describe();
}

TEST(Oracle, EmptyHistoryHolds) { expect(V(""), true, true, true); }

TEST(Oracle, SerialHistoryHolds) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1],["w","x",2],["r","y",null]]}
{"id":3,"session":1,"status":"committed","ops":[["r","x",2],["r","y",null],["w","y",3]]})"),
         true, true, true);
}

TEST(Oracle, WriteSkewIsSiNotSer) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["r","y",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["r","y",null],["w","y",2]]})"),
         false, true, false);
}

TEST(Oracle, LostUpdateFailsSerAndSi) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["w","x",2]]})"),
         false, false, false);
}

TEST(Oracle, LongForkFailsSerAndSi) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","y",null],["w","y",1]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",1],["r","y",null]]}
{"id":4,"session":4,"status":"committed","ops":[["r","x",null],["r","y",1]]})"),
         false, false, false);
}

TEST(Oracle, ReadSkewFailsSerAndSi) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1],["r","y",null],["w","y",1]]}
{"id":2,"session":1,"status":"committed","ops":[["r","x",1],["w","x",2],["r","y",1],["w","y",2]]}
{"id":3,"session":2,"status":"committed","ops":[["r","x",1],["r","y",2]]})"),
         false, false, false);
}

TEST(Oracle, StaleReadIsSerNotSser) {
  const std::string h = R"({"id":1,"session":1,"status":"committed","begin":0,"end":10,"ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","begin":20,"end":30,"ops":[["r","x",null]]})";
  expect(V(h), true, true, false);
  // With a clock skew of 10 the two are no longer ordered by real time.
  expect(V(h, 10), true, true, true);
  expect(V(h, 9), true, true, false);
}

TEST(Oracle, OverlappingIntervalsAreNotOrdered) {
  expect(V(R"({"id":1,"session":1,"status":"committed","begin":0,"end":20,"ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","begin":20,"end":30,"ops":[["r","x",null]]})"),
         true, true, true);
}

TEST(Oracle, SessionOrderMatters) {
  // Same session: the second must come after the first and see x=1.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":1,"status":"committed","ops":[["r","x",null]]})"),
         false, false, false);
  // Different sessions: fine.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null]]})"),
         true, true, true);
}

TEST(Oracle, AbortedReadFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"aborted","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1]]})"),
         false, false, false, "aborted_read");
}

TEST(Oracle, AbortedTxnsAreIgnored) {
  // An aborted txn's own (odd) reads do not matter, nor do its writes.
  expect(V(R"({"id":1,"session":1,"status":"aborted","ops":[["r","x",77],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["w","x",2]]})"),
         true, true, true);
}

TEST(Oracle, IntermediateReadFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1],["w","x",2]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1]]})"),
         false, false, false, "intermediate_read");
}

TEST(Oracle, IntermediateListReadFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1],["append","l",2]]}
{"id":2,"session":2,"status":"committed","ops":[["r","l",[1]]]})"),
         false, false, false, "intermediate_read");
}

// A list's state is the concatenation of whole runs of appends (each
// transaction's appends to the key, in order): a read showing a run without
// its first element, cut before another writer's element, reordered, or an
// element twice is no state at all.
TEST(Oracle, ListReadsMustShowWholeAppendRuns) {
  const std::string w12 = R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1],["append","l",2]]})" "\n";
  const std::string w3 = R"({"id":3,"session":3,"status":"committed","ops":[["append","l",3]]})" "\n";
  auto r = [](const std::string& list) {
    return R"({"id":2,"session":2,"status":"committed","ops":[["r","l",)" + list + "]]}\n";
  };
  expect(V(w12 + r("[2]")), false, false, false);
  expect(V(w12 + r("[1,3]") + w3), false, false, false, "intermediate_read");
  expect(V(w12 + r("[3,1]") + w3), false, false, false, "intermediate_read");
  expect(V(w12 + r("[2,1,3]") + w3), false, false, false);
  expect(V(w12 + r("[1,3,2]") + w3), false, false, false);
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1]]})" "\n" + r("[1,1]")), false, false,
         false);
  // Whole runs in either order, and a transaction's own partial run, hold.
  expect(V(w12 + r("[1,2,3]") + w3), true, true, true);
  expect(V(w12 + r("[3,1,2]") + w3), true, true, true);
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1],["r","l",[1]],["append","l",2]]})"),
         true, true, true);
}

TEST(Oracle, ThinAirFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",7]]})"),
         false, false, false, "thin_air_read");
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","l",[5]]]})"), false, false, false,
         "thin_air_read");
}

TEST(Oracle, InternalReadFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1],["w","x",2],["r","x",1]]})"),
         false, false, false, "internal_read");
  // A list read after own appends must end with them.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1],["r","l",[]]]})"),
         false, false, false, "internal_read");
  // Reading one's own later write.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",1],["w","x",1]]})"),
         false, false, false, "internal_read");
}

TEST(Oracle, OwnWritesAreSeen) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1],["r","x",1],["w","x",2],["r","x",2]]}
{"id":2,"session":1,"status":"committed","ops":[["append","l",3],["r","l",[3]],["append","l",4],["r","l",[3,4]]]}
{"id":3,"session":1,"status":"committed","ops":[["r","x",2],["r","l",[3,4]]]})"),
         true, true, true);
}

TEST(Oracle, PrefixBeforeOwnAppendsIsExternal) {
  // T2 saw [1] before its append; fine when T1 comes first.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1]]}
{"id":2,"session":2,"status":"committed","ops":[["append","l",2],["r","l",[1,2]]]})"),
         true, true, true);
  // T2 saw [] before its append (so T2 precedes T1), T3 saw [1] (T1 alone):
  // no order gives both.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1]]}
{"id":2,"session":2,"status":"committed","ops":[["append","l",2],["r","l",[2]]]}
{"id":3,"session":3,"status":"committed","ops":[["r","l",[1]]]})"),
         false, false, false);
}

TEST(Oracle, NonRepeatableReadFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["r","x",1]]})"),
         false, false, false, "nonrepeatable_read");
  // Prefix before own appends disagrees with an earlier read.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","l",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","l",[]],["append","l",2],["r","l",[1,2]]]})"),
         false, false, false, "nonrepeatable_read");
}

TEST(Oracle, DuplicateWriteFailsAll) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1],["w","x",1]]})"),
         false, false, false, "duplicate_write");
  // The same value on two different keys is fine.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1],["r","y",null],["w","y",1]]})"),
         true, true, true);
}

TEST(Oracle, ListAppendG0) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","x",1],["append","y",1]]}
{"id":2,"session":2,"status":"committed","ops":[["append","x",2],["append","y",2]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",[1,2]]]}
{"id":4,"session":4,"status":"committed","ops":[["r","y",[2,1]]]})"),
         false, false, false);
}

TEST(Oracle, ListAppendSerializable) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["append","x",1],["r","y",null]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",[1]],["append","x",2],["append","y",3]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",[1,2]],["r","y",[3]]]})"),
         true, true, true);
}

TEST(Oracle, NullAndEmptyListAreTheSame) {
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","l",null],["r","l",[]],["append","l",1]]})"),
         true, true, true);
}

TEST(Oracle, UnknownTxnIncludedWhenRead) {
  // T1 (unknown) is read by T2, so it is included; its session order then binds.
  expect(V(R"({"id":1,"session":1,"status":"unknown","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1]]})"),
         true, true, true);
  // Unknown and unread: excluded, so T2's null read is fine and no lost update.
  auto v = V(R"({"id":1,"session":1,"status":"unknown","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["w","x",2]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",2]]})");
  expect(v, true, true, true);
  EXPECT_EQ(v.included, 2u);
  // Included transitively: T3 reads T2 (unknown), which read T1 (unknown).
  v = V(R"({"id":1,"session":1,"status":"unknown","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"unknown","ops":[["r","x",1],["w","x",2]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",2]]})");
  expect(v, true, true, true);
  EXPECT_EQ(v.included, 3u);
  // An included unknown txn's reads count: it read y=5 that nobody wrote.
  expect(V(R"({"id":1,"session":1,"status":"unknown","ops":[["r","y",5],["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1]]})"),
         false, false, false, "thin_air_read");
  // ... but an excluded one's reads do not.
  expect(V(R"({"id":1,"session":1,"status":"unknown","ops":[["r","y",5],["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null]]})"),
         true, true, true);
}

TEST(Oracle, SiFirstCommitterWinsAndSnapshots) {
  // T2 and T3 both write x from the same snapshot (after T1): not SI.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",1],["w","x",2]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",1],["w","x",3]]})"),
         false, false, false);
  // SI but not SER: T3 sees T2 but not T1, while T1 did not see T2 (a
  // read-only transaction observing write skew).
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["r","y",null],["w","y",1]]}
{"id":2,"session":2,"status":"committed","ops":[["r","x",null],["w","x",2]]}
{"id":3,"session":3,"status":"committed","ops":[["r","x",2],["r","y",null]]})"),
         false, true, false);
}

TEST(Oracle, SessionOrderBindsSiSnapshots) {
  // Under SI a session must see its own earlier commits.
  expect(V(R"({"id":1,"session":1,"status":"committed","ops":[["r","x",null],["w","x",1]]}
{"id":2,"session":1,"status":"committed","ops":[["r","y",null],["w","y",1],["r","x",null]]})"),
         false, false, false);
}

TEST(Oracle, TooManyTransactionsThrow) {
  std::string h;
  for (int i = 1; i <= static_cast<int>(kOracleMaxTxns) + 1; ++i)
    h += R"({"id":)" + std::to_string(i) + R"(,"session":1,"status":"committed","ops":[]})" + "\n";
  EXPECT_THROW(V(h), std::invalid_argument);
}

// --- on random histories ----------------------------------------------------

TEST(OracleRandom, SerialExecutionsHold) {
  RandomHistoryOptions o;
  o.serial = true;
  for (RandomMode m : {RandomMode::known_order, RandomMode::blind_writes}) {
    o.mode = m;
    for (uint64_t seed = 1; seed <= 400; ++seed) {
      History h = random_history(seed, o);
      OracleVerdict v = oracle_check(h, 0);
      ASSERT_TRUE(v.ser && v.si && v.sser) << "seed " << seed << " mode " << int(m) << ": " << v.describe()
                                           << "\n" << history_jsonl(h);
    }
  }
}

TEST(OracleRandom, LevelsNestAndBothVerdictsOccur) {
  for (RandomMode m : {RandomMode::known_order, RandomMode::blind_writes}) {
    int ser = 0, si_only = 0, sser = 0, anomaly = 0, total = 0;
    RandomHistoryOptions o;
    o.mode = m;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
      History h = random_history(seed, o);
      OracleVerdict v = oracle_check(h, static_cast<int64_t>(seed % 3));
      ++total;
      ASSERT_TRUE(!v.sser || v.ser) << "seed " << seed << "\n" << history_jsonl(h);
      ASSERT_TRUE(!v.ser || v.si) << "seed " << seed << "\n" << history_jsonl(h);
      ASSERT_TRUE(!v.anomaly || (!v.ser && !v.si)) << "seed " << seed;
      // JSONL round trip keeps the verdict.
      OracleVerdict w = oracle_check(parse_jsonl(history_jsonl(h), "rt"), static_cast<int64_t>(seed % 3));
      ASSERT_EQ(v.describe(), w.describe()) << "seed " << seed << "\n" << history_jsonl(h);
      ser += v.ser, sser += v.sser, anomaly += v.anomaly, si_only += v.si && !v.ser;
    }
    std::printf("random %s: %d histories, SER %d, SSER %d, SI-not-SER %d, anomaly %d\n",
                m == RandomMode::known_order ? "known-order" : "blind-writes", total, ser, sser, si_only,
                anomaly);
    EXPECT_GT(ser, total / 4);
    EXPECT_LT(ser, total * 3 / 4);
    EXPECT_GT(sser, total / 5);
    EXPECT_GT(ser - sser, total / 100);
    EXPECT_GT(si_only, total / 100);
    EXPECT_GT(anomaly, total / 50);
  }
}

// Known-order histories: every register write follows a read of its key in
// the same transaction; blind-write histories do have blind writes.
TEST(OracleRandom, ModesHaveTheirShape) {
  int blind_writes = 0, list_ops = 0, times = 0, unknown = 0, aborted = 0, string_values = 0, int_keys = 0;
  for (RandomMode m : {RandomMode::known_order, RandomMode::blind_writes}) {
    RandomHistoryOptions o;
    o.mode = m;
    for (uint64_t seed = 1; seed <= 500; ++seed) {
      History h = random_history(seed, o);
      ASSERT_GE(h.txn_count(), 2u);
      ASSERT_LE(h.txn_count(), 7u);
      ASSERT_LE(h.session_count(), 4u);
      times += h.has_times(0);
      string_values += h.values.named();
      int_keys += !h.keys.named();
      for (TxnIdx t = 0; t < h.txn_count(); ++t) {
        unknown += h.txn_status[t] == TxnStatus::unknown;
        aborted += h.txn_status[t] == TxnStatus::aborted;
        for (OpIdx op = h.op_begin(t); op < h.op_end(t); ++op) {
          list_ops += h.op_kind[op] == OpKind::append || h.op_kind[op] == OpKind::read_list;
          if (h.op_kind[op] != OpKind::write) continue;
          bool read_before = false;
          for (OpIdx q = h.op_begin(t); q < op; ++q)
            read_before |= h.op_kind[q] == OpKind::read && h.op_key[q] == h.op_key[op];
          if (m == RandomMode::known_order) {
            ASSERT_TRUE(read_before) << "seed " << seed << "\n" << history_jsonl(h);
          }
          blind_writes += !read_before;
        }
      }
    }
  }
  EXPECT_GT(blind_writes, 100);
  EXPECT_GT(list_ops, 100);
  EXPECT_GT(times, 100);
  EXPECT_GT(unknown, 50);
  EXPECT_GT(aborted, 50);
  EXPECT_GT(string_values, 50);
  EXPECT_GT(int_keys, 100);
}

TEST(OracleRandom, SameSeedSameHistory) {
  for (uint64_t seed = 1; seed <= 50; ++seed)
    EXPECT_EQ(history_jsonl(random_history(seed)), history_jsonl(random_history(seed)));
}

}  // namespace
}  // namespace isocheck

// The serial-witness fast path on hand-made histories: found where a begin,
// end or file order replays cleanly, refused for every oddity the graph
// engines must see, and check()'s verdicts identical with and without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "io/jsonl.h"
#include "report/report.h"
#include "solver/check.h"
#include "solver/serial_witness.h"
#include "solver/si_replay.h"

#include "common/generated.h"
#include "common/history_fixtures.h"
#include "common/same_verdicts.h"

using namespace isocheck;

namespace {

std::string T(int id, int session, const std::string& ops, int64_t begin = -1, int64_t end = -1,
              const std::string& status = "committed") {
  return testkit::txn_line(id, session, ops, begin, end, status);
}

SerialWitness witness(const std::string& jsonl, bool need_realtime = true) {
  return find_serial_witness(parse_jsonl(jsonl, "test.jsonl"), need_realtime);
}

// check() with and without the witness: the same verdicts, level by level.
void expect_same_verdicts(const std::string& jsonl) {
  CheckOptions on, off;
  on.levels = off.levels = {Level::ser, Level::si, Level::sser};
  off.serial_witness = false;
  testkit::expect_same_verdicts(parse_jsonl(jsonl, "test.jsonl"), on, off, jsonl);
}

}  // namespace

TEST(SerialWitness, BeginOrderOfOverlappingTransactions) {
  // T2 reads T1's write although T1 ends after T2: only the begin order works.
  std::string hist = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) +
                     T(2, 2, R"(["r","x",1],["w","x",2])", 1, 5) +
                     T(3, 1, R"(["r","x",2])", 11, 12);
  SerialWitness w = witness(hist);
  EXPECT_EQ(w.order, WitnessOrder::begin_time) << w.why_not;
  EXPECT_TRUE(w.respects_realtime);
  EXPECT_EQ(w.committed, 3u);
  expect_same_verdicts(hist);
}

TEST(SerialWitness, NegativeAndEqualTimesOrderLikeASortByTimeThenFile) {
  // Begin order (T2's times negative; T1 and T3 begin together, T1 first in
  // the file) is T2, T1, T3: the only one that replays (the end order puts
  // T3 before T1). Times sort as signed numbers, ties by file position.
  auto t = [](int id, int64_t b, int64_t e, const std::string& ops) {
    return "{\"id\":" + std::to_string(id) + ",\"session\":" + std::to_string(id) + ",\"status\":\"committed\"" +
           ",\"begin\":" + std::to_string(b) + ",\"end\":" + std::to_string(e) + ",\"ops\":[" + ops + "]}\n";
  };
  std::string hist = t(1, 3, 7, R"(["r","x",1],["w","x",2])") + t(2, -10, -9, R"(["r","x",null],["w","x",1])") +
                     t(3, 3, 6, R"(["r","x",2],["w","x",3])");
  SerialWitness w = witness(hist);
  EXPECT_EQ(w.order, WitnessOrder::begin_time) << w.why_not;
  expect_same_verdicts(hist);
  // The same with T3 first in the file: now the tie puts T3 first and
  // neither order replays (the graph engines decide).
  std::string swapped = t(3, 3, 6, R"(["r","x",2],["w","x",3])") + t(2, -10, -9, R"(["r","x",null],["w","x",1])") +
                        t(1, 3, 7, R"(["r","x",1],["w","x",2])");
  EXPECT_FALSE(witness(swapped).found());
  expect_same_verdicts(swapped);
}

TEST(SerialWitness, EndOrderWhenTheBeginOrderFails) {
  // T1 begins first but T2 serializes first (T1 reads T2's write).
  std::string hist = T(1, 1, R"(["r","x",2],["w","x",1])", 0, 10) + T(2, 2, R"(["r","x",null],["w","x",2])", 1, 5);
  SerialWitness w = witness(hist);
  EXPECT_EQ(w.order, WitnessOrder::end_time) << w.why_not;
  expect_same_verdicts(hist);
}

TEST(SerialWitness, FileOrderWithoutTimesOnlyWhenRealTimeIsNotNeeded) {
  std::string hist = T(1, 1, R"(["w","x",1])") + T(2, 2, R"(["r","x",1],["w","y",1])");
  EXPECT_FALSE(witness(hist, true).found());
  SerialWitness w = witness(hist, false);
  EXPECT_EQ(w.order, WitnessOrder::file) << w.why_not;
  EXPECT_FALSE(w.respects_realtime);
  expect_same_verdicts(hist);
}

TEST(SerialWitness, StaleReadIsNoWitnessButNotAVerdict) {
  // T3 reads x=1 after T2 overwrote it: SER holds (T3 before T2), but neither
  // the begin nor the end order replays; the graph engine decides.
  std::string hist = T(1, 1, R"(["w","x",1])", 0, 1) + T(2, 2, R"(["r","x",1],["w","x",2])", 2, 3) +
                     T(3, 3, R"(["r","x",1])", 4, 5);
  SerialWitness w = witness(hist);
  EXPECT_FALSE(w.found());
  EXPECT_NE(w.why_not.find("reads x = 1"), std::string::npos) << w.why_not;
  History h = parse_jsonl(hist, "t.jsonl");
  CheckOptions o;
  o.levels = {Level::ser, Level::sser};
  CheckResult r = check(h, o);
  EXPECT_EQ(r.stats.witness, WitnessOrder::none);
  EXPECT_TRUE(r.levels[0].holds);   // ser
  EXPECT_FALSE(r.levels[1].holds);  // sser: stale read
  expect_same_verdicts(hist);
}

TEST(SerialWitness, RefusesEveryPerTransactionAnomaly) {
  const std::string cases[] = {
      // duplicate write, the copy in an aborted transaction nobody reads
      T(1, 1, R"(["w","x",1])", 0, 1) + T(2, 2, R"(["w","x",1])", 2, 3, "aborted"),
      // duplicate write inside one committed transaction
      T(1, 1, R"(["w","x",1],["w","x",1])", 0, 1),
      // aborted read
      T(1, 1, R"(["w","x",1])", 0, 1, "aborted") + T(2, 2, R"(["r","x",1])", 2, 3),
      // read of an unknown transaction's write
      T(1, 1, R"(["w","x",1])", 0, 1, "unknown") + T(2, 2, R"(["r","x",1])", 2, 3),
      // intermediate read
      T(1, 1, R"(["w","x",1],["w","x",2])", 0, 1) + T(2, 2, R"(["r","x",1])", 2, 3),
      // thin-air read
      T(1, 1, R"(["r","x",7])", 0, 1),
      // own write ignored
      T(1, 1, R"(["w","x",1],["r","x",null])", 0, 1),
      // non-repeatable read inside a transaction
      T(1, 1, R"(["w","x",1])", 0, 1) + T(2, 2, R"(["r","x",null],["r","x",1])", 2, 3),
      // lost update
      T(1, 1, R"(["r","x",null],["w","x",1])", 0, 5) + T(2, 2, R"(["r","x",null],["w","x",2])", 1, 6),
      // lists, even in an aborted transaction
      T(1, 1, R"(["w","x",1])", 0, 1) + T(2, 2, R"(["append","l",1])", 2, 3, "aborted"),
  };
  for (const std::string& hist : cases) {
    EXPECT_FALSE(witness(hist, false).found()) << hist;
    expect_same_verdicts(hist);
  }
}

TEST(SerialWitness, SessionOrderMustBeKept) {
  // Session 1 logs T2 after T1, but T2 begins and ends first: in time order T2
  // would come before T1 of its own session, which SER forbids.
  std::string hist = T(1, 1, R"(["w","x",1])", 5, 6) + T(2, 1, R"(["w","y",1])", 0, 1);
  SerialWitness w = witness(hist, false);
  EXPECT_FALSE(w.found());
  EXPECT_NE(w.why_not.find("of its session"), std::string::npos) << w.why_not;
}

TEST(SerialWitness, AbortedAndUnknownTransactionsAreLeftOut) {
  std::string hist = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 1) +
                     T(2, 2, R"(["r","x",1],["w","x",9])", 2, 3, "aborted") +
                     T(3, 3, R"(["r","x",1],["w","x",8])", 2, 3, "unknown") +
                     T(4, 1, R"(["r","x",1],["w","x",2])", 4, 5);
  SerialWitness w = witness(hist);
  EXPECT_TRUE(w.found()) << w.why_not;
  EXPECT_EQ(w.committed, 2u);
  expect_same_verdicts(hist);
}

TEST(SerialWitness, ReportsSayHowTheVerdictWasReached) {
  std::string hist = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 1) + T(2, 2, R"(["r","x",1])", 2, 3);
  History h = parse_jsonl(hist, "t.jsonl");
  CheckOptions o;
  o.levels = {Level::ser, Level::si, Level::sser};
  CheckResult r = check(h, o);
  ASSERT_EQ(r.stats.witness, WitnessOrder::begin_time);
  EXPECT_TRUE(r.all_hold());
  std::ostringstream text, json;
  write_text(text, h, r, ReportContext{"t.jsonl", 0.0});
  write_json(json, h, r, ReportContext{"t.jsonl", 0.0});
  EXPECT_NE(text.str().find("serial witness: replaying the committed transactions in begin-time order"),
            std::string::npos) << text.str();
  EXPECT_NE(json.str().find("\"serial_witness\":\"begin-time order\""), std::string::npos) << json.str();
  o.serial_witness = false;
  std::ostringstream json_off;
  write_json(json_off, h, check(h, o), ReportContext{"t.jsonl", 0.0});
  EXPECT_NE(json_off.str().find("\"serial_witness\":null"), std::string::npos) << json_off.str();
}

TEST(SerialWitness, LargeAndNegativeIntegerKeysUseTheHashTable) {
  // -1 is the hash table's empty marker; 10^15 is far beyond a direct array.
  std::string hist = T(1, 1, R"(["r",-1,null],["w",-1,1],["w",1000000000000000,5])", 0, 1) +
                     T(2, 2, R"(["r",-1,1],["r",1000000000000000,5],["w",-1,2])", 2, 3) +
                     T(3, 1, R"(["r",-1,2],["r",-7,null])", 4, 5);
  SerialWitness w = witness(hist);
  EXPECT_TRUE(w.found()) << w.why_not;
  std::string stale = hist + T(4, 3, R"(["r",-1,1])", 6, 7);
  EXPECT_FALSE(witness(stale).found());
  expect_same_verdicts(hist);
  expect_same_verdicts(stale);
}

// Small integer keys beside a few huge ones (a generated plant's): the small
// ones in an array, the huge ones in a map; replays read both, and a stale
// read of either is caught.
TEST(SerialWitness, SmallAndHugeKeysTogether) {
  const std::string big = "9000000000000000", big2 = "-5";
  std::string ok = T(1, 1, R"(["r",3,null],["w",3,1],["r",)" + big + R"(,null],["w",)" + big + R"(,1])", 0, 1) +
                   T(2, 2, R"(["r",3,1],["r",)" + big + R"(,1],["w",)" + big2 + R"(,7])", 2, 3) +
                   T(3, 1, R"(["r",)" + big2 + R"(,7],["w",3,2])", 4, 5);
  History h = parse_jsonl(ok, "test.jsonl");
  const WitnessPlan p = plan_serial_witness(h, true);
  EXPECT_EQ(p.direct_keys(), 4u);      // keys 0..3 in the array
  EXPECT_EQ(p.hashed_writes(), 2u);    // the two huge keys' writes in the map
  EXPECT_EQ(witness(ok).order, WitnessOrder::begin_time) << witness(ok).why_not;
  expect_same_verdicts(ok);
  // A stale read of a huge key, and of a small one: no witness.
  std::string stale_big = ok + T(4, 2, R"(["r",)" + big + R"(,null])", 6, 7);
  EXPECT_FALSE(witness(stale_big).found());
  expect_same_verdicts(stale_big);
  std::string stale_small = ok + T(4, 2, R"(["r",3,1])", 6, 7);
  EXPECT_FALSE(witness(stale_small).found());
  expect_same_verdicts(stale_small);
}

// order_by_time against a stable sort of the committed transactions by time,
// for times nearly in file order (the insertion sort) and far from it (its
// budget runs out: the radix sort), with ties, negative times and aborted
// transactions left out.
TEST(SerialWitness, OrderByTimeIsAStableSortOfTheCommitted) {
  std::mt19937_64 rng(3);
  for (int it = 0; it < 200; ++it) {
    History h;
    const size_t n = 1 + rng() % 2000;
    const int64_t spread = it % 4 == 0 ? 3 : it % 4 == 1 ? 40 : it % 4 == 2 ? 1000000 : 0;
    std::vector<int64_t> time(n);
    for (size_t t = 0; t < n; ++t) {
      h.txn_id.push_back(static_cast<int64_t>(t));
      h.txn_status.push_back(rng() % 5 == 0 ? TxnStatus::aborted : TxnStatus::committed);
      time[t] = static_cast<int64_t>(t / 2) + (spread ? static_cast<int64_t>(rng() % spread) : 0) - 500;
    }
    std::vector<TxnIdx> want;
    for (TxnIdx t = 0; t < n; ++t)
      if (h.txn_status[t] == TxnStatus::committed) want.push_back(t);
    std::stable_sort(want.begin(), want.end(), [&](TxnIdx a, TxnIdx b) { return time[a] < time[b]; });
    std::vector<TxnIdx> got = order_by_time(h, time);
    if (got.empty()) {  // file order is the order
      ASSERT_TRUE(std::is_sorted(want.begin(), want.end())) << "iteration " << it;
      continue;
    }
    ASSERT_EQ(got, want) << "iteration " << it << " spread " << spread;
  }
}

// The serial witness and the SI replay with their inputs shared (as check()
// runs them) and each with its own: the same outcomes, and the shared plan
// the same as plan_serial_witness's, with and without real time.
TEST(SerialWitness, SharedReplayInputsChangeNothing) {
  std::vector<History> hs;
  for (uint32_t seed = 1; seed <= 40; ++seed) hs.push_back(testkit::random_history(60 + seed * 7, seed % 3 == 0, seed));
  for (const char* isolation : {"ser", "si"})
    for (const char* plant : {"", "write-skew", "lost-update"}) {
      GenOptions o;
      o.isolation = isolation;
      o.txns = 3000;
      o.keys = 40;
      o.seed = 7;
      if (*plant) o.plant = {plant};
      hs.push_back(testkit::read_generated(o));
    }
  for (size_t i = 0; i < hs.size(); ++i) {
    const History& h = hs[i];
    SCOPED_TRACE("history " + std::to_string(i));
    for (bool rt : {false, true}) {
      ReplayInputs shared(h);
      const SerialWitness a = find_serial_witness(h, rt, &shared), b = find_serial_witness(h, rt);
      EXPECT_EQ(a.order, b.order);
      EXPECT_EQ(a.why_not, b.why_not);
      EXPECT_EQ(a.failed_reads, b.failed_reads);
      EXPECT_EQ(a.committed, b.committed);
      const SiReplay c = find_si_replay(h, false, 0, true, &shared), d = find_si_replay(h);
      EXPECT_EQ(c.order, d.order);
      EXPECT_EQ(c.why_not, d.why_not);
      const WitnessPlan want = plan_serial_witness(h, rt);
      const WitnessPlan& got = shared.plan(rt);
      EXPECT_EQ(got.why_not, want.why_not);
      EXPECT_EQ(got.candidates, want.candidates);
      EXPECT_EQ(got.writes, want.writes);
      EXPECT_EQ(got.committed, want.committed);
      EXPECT_EQ(shared.writes_unique(), writes_unique(h, want));
    }
  }
}

// check() on small hand-made histories whose verdicts are known by hand.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "io/jsonl.h"
#include "report/report.h"
#include "solver/check.h"
#include "solver/local_check.h"
#include "solver/serial_witness.h"

#include <set>
#include <tuple>

using namespace isocheck;

namespace {

CheckResult run(const std::string& jsonl, std::vector<Level> levels = {Level::ser, Level::si, Level::sser},
                int64_t skew = 0) {
  History h = parse_jsonl(jsonl, "test.jsonl");
  CheckOptions o;
  o.levels = levels;
  o.clock_skew = skew;
  return check(h, o);
}

const LevelResult& level(const CheckResult& r, Level l) {
  for (auto& x : r.levels) if (x.level == l) return x;
  throw std::logic_error("level not checked");
}

bool holds(const CheckResult& r, Level l) { return level(r, l).decided && level(r, l).holds; }

std::string T(int id, int session, const std::string& ops, const std::string& extra = "") {
  return "{\"id\":" + std::to_string(id) + ",\"session\":" + std::to_string(session) +
         ",\"status\":\"committed\"" + extra + ",\"ops\":[" + ops + "]}\n";
}

}  // namespace

TEST(Check, SerialReadModifyWriteHoldsEverywhere) {
  auto r = run(T(1, 1, R"(["r","x",null],["w","x",1])", R"(,"begin":0,"end":1)") +
               T(2, 2, R"(["r","x",1],["w","x",2])", R"(,"begin":2,"end":3)") +
               T(3, 1, R"(["r","x",2],["r","y",null])", R"(,"begin":4,"end":5)"));
  EXPECT_TRUE(r.anomalies.empty());
  EXPECT_TRUE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
  EXPECT_TRUE(holds(r, Level::sser));
}

TEST(Check, WriteSkewViolatesSerButNotSi) {
  auto r = run(T(1, 1, R"(["r","x",null],["r","y",null],["w","y",1])") +
               T(2, 2, R"(["r","x",null],["r","y",null],["w","x",2])"));
  EXPECT_FALSE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
  ASSERT_TRUE(level(r, Level::ser).witness);
  EXPECT_EQ(level(r, Level::ser).witness->anomaly, "G2-item (write skew)");
  EXPECT_EQ(level(r, Level::ser).witness->cycle.size(), 2u);
}

TEST(Check, LostUpdateIsAnAnomalyForEveryLevel) {
  auto r = run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","x",null],["w","x",2])"));
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0].kind, AnomalyKind::lost_update);
  EXPECT_FALSE(holds(r, Level::ser));
  EXPECT_FALSE(holds(r, Level::si));
}

TEST(Check, AbortedIntermediateThinAirInternalNonrepeatableDuplicate) {
  auto kinds = [](const CheckResult& r) {
    std::vector<AnomalyKind> k;
    for (auto& a : r.anomalies) k.push_back(a.kind);
    return k;
  };
  std::string aborted = "{\"id\":1,\"session\":1,\"status\":\"aborted\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",1]]}\n";
  EXPECT_EQ(kinds(run(aborted + T(2, 2, R"(["r","x",1])"))), std::vector{AnomalyKind::aborted_read});
  EXPECT_EQ(kinds(run(T(1, 1, R"(["r","x",null],["w","x",1],["w","x",2])") + T(2, 2, R"(["r","x",1])"))),
            std::vector{AnomalyKind::intermediate_read});
  EXPECT_EQ(kinds(run(T(1, 1, R"(["r","x",42])"))), std::vector{AnomalyKind::thin_air_read});
  EXPECT_EQ(kinds(run(T(1, 1, R"(["r","x",null],["w","x",1],["r","x",7])") + T(2, 2, R"(["r","x",null],["w","x",7])"))),
            (std::vector{AnomalyKind::internal_read, AnomalyKind::lost_update}));
  EXPECT_EQ(kinds(run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","x",null],["r","x",1])"))),
            std::vector{AnomalyKind::nonrepeatable_read});
  EXPECT_EQ(kinds(run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","x",1],["w","x",1])"))),
            std::vector{AnomalyKind::duplicate_write});
}

TEST(Check, StaleReadViolatesOnlyStrictSerializability) {
  std::string h = T(1, 1, R"(["r","x",null],["w","x",1])", R"(,"begin":0,"end":5)") +
                  T(2, 2, R"(["r","x",null])", R"(,"begin":6,"end":9)");
  auto r = run(h);
  EXPECT_TRUE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
  EXPECT_FALSE(holds(r, Level::sser));
  EXPECT_EQ(level(r, Level::sser).witness->anomaly, "G-single-realtime (stale read)");
  // With a clock-skew margin of 1 the two may have overlapped: allowed.
  EXPECT_TRUE(holds(run(h, {Level::sser}, 1), Level::sser));
}

TEST(Check, ListAppendWriteCycleIsG0) {
  auto r = run(T(1, 1, R"(["append","x",1],["append","y",1])") + T(2, 2, R"(["append","x",2],["append","y",2])") +
               T(3, 3, R"(["r","x",[1,2]],["r","y",[2,1]])"));
  EXPECT_FALSE(holds(r, Level::ser));
  EXPECT_EQ(level(r, Level::ser).witness->anomaly, "G0");
  EXPECT_FALSE(holds(r, Level::si));
}

TEST(Check, ListReadsThatAreNotPrefixesAreIncompatible) {
  auto r = run(T(1, 1, R"(["append","x",1])") + T(2, 2, R"(["append","x",2])") + T(3, 3, R"(["r","x",[1,2]])") +
               T(4, 4, R"(["r","x",[2]])"));
  ASSERT_FALSE(r.anomalies.empty());
  EXPECT_EQ(r.anomalies[0].kind, AnomalyKind::incompatible_order);
}

// A transaction's appends to a key are one atomic step: every state of the
// list holds them all or none, adjacent and in order. T1 appends 1 then 2.
const std::string kRun12 = T(1, 1, R"(["append","l",1],["append","l",2])");

// Every level fails, the one anomaly is `kind`, observed by T2 about `other`'s
// appends, and its explanation says `words`. Also with the linear engine only.
void expect_run_anomaly(const std::string& jsonl, AnomalyKind kind, int64_t other, const std::string& words) {
  SCOPED_TRACE(jsonl);
  History h = parse_jsonl(jsonl, "test.jsonl");
  for (bool linear : {false, true}) {
    CheckOptions o;
    o.levels = {Level::ser, Level::si, Level::sser};
    o.linear_only = linear;
    CheckResult r = check(h, o);
    for (Level l : o.levels) EXPECT_FALSE(holds(r, l)) << to_string(l);
    ASSERT_EQ(r.anomalies.size(), 1u);
    const Anomaly& a = r.anomalies[0];
    EXPECT_EQ(a.kind, kind) << to_string(a.kind);
    EXPECT_EQ(h.txn_id[a.txn], 2);
    EXPECT_EQ(h.txn_id[a.other], other);
    std::string text = explain_anomaly(h, a);
    EXPECT_NE(text.find(words), std::string::npos) << text;
  }
}

TEST(Check, ListReadOfAppendRunWithoutItsFirstAppendIsIncompatible) {
  expect_run_anomaly(kRun12 + T(2, 2, R"(["r","l",[2]])"), AnomalyKind::incompatible_order, 1,
                     "this read has 2 without 1 right before it");
  expect_run_anomaly(kRun12 + T(3, 3, R"(["append","l",3])") + T(2, 2, R"(["r","l",[3,2]])"),
                     AnomalyKind::incompatible_order, 1, "this read has 2 without 1 right before it");
}

TEST(Check, ListReadOfAppendRunCutAndContinuedIsIntermediate) {
  expect_run_anomaly(kRun12 + T(2, 2, R"(["r","l",[1,3]])") + T(3, 3, R"(["append","l",3])"),
                     AnomalyKind::intermediate_read, 1, "not T1's next append, 2, right after it");
  // Cut at the end of the list, after another writer's run.
  expect_run_anomaly(kRun12 + T(3, 3, R"(["append","l",3])") + T(2, 2, R"(["r","l",[3,1]])"),
                     AnomalyKind::intermediate_read, 1, "a state in the middle of T1");
}

TEST(Check, ListReadOfAppendRunReorderedOrSplitIsIncompatible) {
  expect_run_anomaly(kRun12 + T(2, 2, R"(["r","l",[2,1,3]])") + T(3, 3, R"(["append","l",3])"),
                     AnomalyKind::incompatible_order, 1, "this read has 2 before 1");
  expect_run_anomaly(kRun12 + T(2, 2, R"(["r","l",[1,3,2]])") + T(3, 3, R"(["append","l",3])"),
                     AnomalyKind::incompatible_order, 1, "this read has 3 between 1 and 2");
}

TEST(Check, ListReadWithARepeatedElementIsDuplicateElements) {
  expect_run_anomaly(T(1, 1, R"(["append","l",1])") + T(2, 2, R"(["r","l",[1,1]])"),
                     AnomalyKind::duplicate_elements, 1, "it holds 1 more than once");
  expect_run_anomaly(kRun12 + T(2, 2, R"(["r","l",[1,2,1]])"), AnomalyKind::duplicate_elements, 1,
                     "T1 appended 1 to l once");
  EXPECT_STREQ(to_string(AnomalyKind::duplicate_elements), "duplicate elements");
}

// A transaction sees its own appends as it makes them; others see them whole.
TEST(Check, ListReadsOfWholeRunsAndOwnPartialRunsHold) {
  auto r = run(T(1, 1, R"(["append","l",1],["r","l",[1]],["append","l",2],["r","l",[1,2]])") +
               T(2, 2, R"(["r","l",[1,2]],["append","l",3],["append","l",4],["r","l",[1,2,3,4]])") +
               T(3, 3, R"(["r","l",[1,2,3,4]])") + T(4, 4, R"(["r","l",[1,2]])"));
  EXPECT_TRUE(r.anomalies.empty());
  EXPECT_TRUE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
  EXPECT_TRUE(holds(r, Level::sser));
  // Its own reads out of order are its own inconsistency.
  auto own = run(T(1, 1, R"(["append","l",1],["append","l",2],["r","l",[2,1]])"));
  ASSERT_EQ(own.anomalies.size(), 1u);
  EXPECT_EQ(own.anomalies[0].kind, AnomalyKind::internal_read);
}

TEST(Check, ListAppendSerialHistoryHolds) {
  auto r = run(T(1, 1, R"(["append","x",1],["r","x",[1]])") + T(2, 2, R"(["r","x",[1]],["append","x",2])") +
               T(3, 1, R"(["r","x",[1,2]])"));
  EXPECT_TRUE(r.anomalies.empty());
  EXPECT_TRUE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
}

TEST(Check, LongForkViolatesSnapshotIsolation) {
  auto r = run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","y",null],["w","y",2])") +
               T(3, 3, R"(["r","x",1],["r","y",null])") + T(4, 4, R"(["r","y",2],["r","x",null])"));
  EXPECT_FALSE(holds(r, Level::si));
  EXPECT_EQ(level(r, Level::si).witness->anomaly, "G-nonadjacent (long fork)");
}

TEST(Check, UnknownTransactionsCountOnlyWhenObserved) {
  std::string unk = "{\"id\":1,\"session\":1,\"status\":\"unknown\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",1]]}\n";
  auto seen = run(unk + T(2, 2, R"(["r","x",1])"));
  EXPECT_TRUE(seen.anomalies.empty());
  EXPECT_EQ(seen.stats.committed, 2u);
  auto unseen = run(unk + T(2, 2, R"(["r","x",null])"));
  EXPECT_EQ(unseen.stats.committed, 1u);
  EXPECT_TRUE(holds(unseen, Level::ser));
}

TEST(Check, ReadBlindWritesGoToTheGeneralEngine) {
  std::string h = T(1, 1, R"(["w","x",1])") + T(2, 2, R"(["w","x",2])") + T(3, 3, R"(["r","x",1])");
  History hist = parse_jsonl(h, "t.jsonl");
  CheckOptions linear;
  linear.linear_only = true;
  auto r = check(hist, linear);
  EXPECT_FALSE(level(r, Level::ser).decided);  // never guessed
  EXPECT_EQ(r.stats.unordered_write_pairs, 1u);
  auto g = run(h);
  EXPECT_TRUE(holds(g, Level::ser));
  EXPECT_EQ(g.stats.constraints, 1u);
}

TEST(Check, BlindWriteSkewIsFoundWithItsConstraints) {
  // T3 saw x=1 and y=init; T4 saw y=2 and x=init: T3 and T4 each read what the
  // other's predecessor... a long fork over blind writes (SER and SI fail).
  std::string h = T(1, 1, R"(["w","x",1])") + T(2, 2, R"(["w","y",2])") + T(3, 3, R"(["r","x",1],["r","y",null])") +
                  T(4, 4, R"(["r","y",2],["r","x",null])") + T(5, 5, R"(["w","x",5])") + T(6, 5, R"(["r","x",5])");
  auto r = run(h);
  EXPECT_FALSE(holds(r, Level::ser));
  EXPECT_FALSE(holds(r, Level::si));
  ASSERT_TRUE(level(r, Level::si).witness);
  EXPECT_NE(level(r, Level::si).witness->anomaly.find("G-nonadjacent"), std::string::npos);
}

TEST(Check, UnreadBlindWritesAreFreeForSerButNotForSi) {
  std::string h = T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["w","x",2])") + T(3, 3, R"(["w","x",3])") +
                  T(4, 4, R"(["r","x",1])");
  auto ser = run(h, {Level::ser, Level::sser});
  EXPECT_TRUE(holds(ser, Level::ser));
  // A serializable history is snapshot isolated, whatever the tails' order.
  auto si = run(h, {Level::si});
  EXPECT_TRUE(holds(si, Level::si));
  // Not serializable (a write skew on y, z): SI needs the tails' order, which
  // the general engine chooses (one constraint), and SI holds.
  std::string skew = h + T(5, 5, R"(["r","y",null],["r","z",null],["w","z",1])") +
                     T(6, 6, R"(["r","y",null],["r","z",null],["w","y",2])");
  auto both = run(skew, {Level::ser, Level::si});
  EXPECT_FALSE(holds(both, Level::ser));
  EXPECT_TRUE(holds(both, Level::si));
  EXPECT_EQ(both.stats.constraints, 1u);
}

// --time-order orders every key's writes by time, read or not: T2's write of
// y ended before T1's began, so T2 precedes T1; T1 read x's initial state,
// so T1 precedes T2 (anti-dependency): a G-single cycle for SER and SI. (SER
// once left the unread writes of y free and concluded SI from SER.)
TEST(Check, TimeOrderOrdersUnreadBlindWrites) {
  const std::string h = T(2, 2, R"(["w","x",3],["w","y",4])", R"(,"begin":0,"end":1)") +
                        T(1, 1, R"(["r","x",null],["w","y",2])", R"(,"begin":2,"end":3)");
  for (int variant = 0; variant < 8; ++variant) {
    CheckOptions o;
    o.time_order = true;
    o.serial_witness = variant & 1;
    o.linear_only = variant & 2;
    o.levels = variant & 4 ? std::vector<Level>{Level::ser, Level::si} : std::vector<Level>{Level::si};
    CheckResult r = check(parse_jsonl(h, "t.jsonl"), o);
    for (const LevelResult& lr : r.levels) {
      // (SI with the linear engine alone leaves unread blind writes' order undecided.)
      if (o.linear_only && lr.level == Level::si) {
        EXPECT_FALSE(lr.decided && lr.holds) << "variant " << variant;
        continue;
      }
      EXPECT_TRUE(lr.decided) << "variant " << variant << " " << to_string(lr.level);
      EXPECT_FALSE(lr.holds) << "variant " << variant << " " << to_string(lr.level);
      ASSERT_TRUE(lr.witness) << "variant " << variant;
      EXPECT_EQ(lr.witness->anomaly, "G-single") << "variant " << variant;
    }
  }
  // Without the assumption the unread writes of y may go either way.
  auto free = run(h, {Level::ser, Level::si});
  EXPECT_TRUE(holds(free, Level::ser));
  EXPECT_TRUE(holds(free, Level::si));
}

// The same assumption checks the orders reads reveal: a read-modify-write
// chain and a list order against the writers' times, and an append nobody
// observed that ended before an observed one began.
TEST(Check, TimeOrderContradictingKnownOrdersIsAViolation) {
  auto timed = [](const std::string& h) {
    CheckOptions o;
    o.time_order = true;
    o.levels = {Level::ser, Level::si};
    return check(parse_jsonl(h, "t.jsonl"), o);
  };
  // T2 read T1's x and overwrote it, but ended before T1 began.
  const std::string rmw = T(1, 1, R"(["r","x",null],["w","x",1])", R"(,"begin":5,"end":6)") +
                          T(2, 2, R"(["r","x",1],["w","x",2])", R"(,"begin":0,"end":1)");
  // T1 appended 1 before T2 appended 2 began; T3 saw only 2.
  const std::string list = T(1, 1, R"(["append","l",1])", R"(,"begin":0,"end":1)") +
                           T(2, 2, R"(["append","l",2])", R"(,"begin":2,"end":3)") +
                           T(3, 3, R"(["r","l",[2]])");
  for (const std::string& h : {rmw, list}) {
    CheckResult r = timed(h);
    EXPECT_FALSE(holds(r, Level::ser)) << h;
    EXPECT_FALSE(holds(r, Level::si)) << h;
    EXPECT_TRUE(level(r, Level::ser).decided) << h;
  }
  // Overlapping intervals leave the order open: T3's read is then fine.
  const std::string overlap = T(1, 1, R"(["append","l",1])", R"(,"begin":0,"end":2)") +
                              T(2, 2, R"(["append","l",2])", R"(,"begin":2,"end":3)") +
                              T(3, 3, R"(["r","l",[2]])");
  CheckResult r = timed(overlap);
  EXPECT_TRUE(holds(r, Level::ser));
  EXPECT_TRUE(holds(r, Level::si));
}

TEST(Check, SessionOrderCycleIsNamedProcess) {
  // T2 follows T1 in session 1 but T1 read T2's write.
  auto r = run(T(1, 1, R"(["r","x",null],["w","x",1],["r","y",2])") + T(2, 1, R"(["r","y",null],["w","y",2])"));
  EXPECT_FALSE(holds(r, Level::ser));
  EXPECT_EQ(level(r, Level::ser).witness->anomaly, "G1c-process");
}

TEST(Check, MixedRegisterAndListUseIsAnInputError) {
  EXPECT_THROW(run(T(1, 1, R"(["append","x",1])") + T(2, 2, R"(["w","x",2])")), InputError);
}

// Regression for the general engine's compaction of ordered chains: x's two
// blind writes are ordered by session (T1 before T3), which forces T1's reader
// T2 before T3 — but T2 read y from T3. The forced side itself closes a
// cycle; SER and SSER must fail with a cycle witness, SI too (two adjacent
// edges are not both rw: T3 -wr-> T2 -rw-> T3 is G-single).
TEST(Check, ForcedChainOrderThatClosesACycleIsAViolation) {
  std::string hist = T(1, 1, R"(["w","x",1])") + T(3, 1, R"(["w","x",2],["w","y",1])") +
                     T(2, 2, R"(["r","x",1],["r","y",1])");
  for (Level l : {Level::ser, Level::si}) {
    History h = parse_jsonl(hist, "test.jsonl");
    CheckOptions o;
    o.levels = {l};
    o.serial_witness = false;
    CheckResult r = check(h, o);
    ASSERT_EQ(r.levels.size(), 1u);
    EXPECT_TRUE(r.levels[0].decided) << to_string(l);
    EXPECT_FALSE(r.levels[0].holds) << to_string(l);
    ASSERT_TRUE(r.levels[0].witness) << to_string(l);
    EXPECT_GE(r.levels[0].witness->cycle.size(), 2u);
  }
}

// ---- Violations found locally (solver/local_check.h) ----

namespace {

// A serial read-modify-write history: `n` transactions on keys 0..999 in 8
// sessions, each reads its key's latest value and writes the next; begin
// order is a serialization. `plant(i, h)` may add transactions before
// filler transaction i (and returns true when it did).
template <class Plant> History filler_history(int n, Plant plant) {
  History h;
  for (int s = 0; s < 8; ++s) h.session_name.push_back(s);
  std::vector<int64_t> latest(1000, 0);
  int64_t clock = 0, id = 0, next_value = 1;
  for (int i = 0; i < n; ++i) {
    plant(i, h, clock, id);
    const int64_t k = i % 1000;
    h.begin_txn(++id, static_cast<uint32_t>(i % 8), TxnStatus::committed, clock, clock + 5);
    clock += 10;
    h.add_op(OpKind::read, h.keys.intern_int(k), latest[k] ? h.values.intern_int(latest[k]) : kNullValue);
    latest[k] = next_value++;
    h.add_op(OpKind::write, h.keys.intern_int(k), h.values.intern_int(latest[k]));
    h.end_txn();
  }
  return h;
}

// A plant transaction in a session of its own.
void plant_txn(History& h, int64_t& clock, int64_t& id, std::vector<std::tuple<OpKind, int64_t, int64_t>> ops) {
  h.session_name.push_back(static_cast<int64_t>(h.session_name.size()));
  h.begin_txn(++id, static_cast<uint32_t>(h.session_name.size() - 1), TxnStatus::committed, clock, clock + 5);
  clock += 10;
  for (auto [kind, k, v] : ops) h.add_op(kind, h.keys.intern_int(k), v ? h.values.intern_int(v) : kNullValue);
  h.end_txn();
}

CheckResult check_with(const History& h, bool localise, std::vector<Level> levels = {Level::ser, Level::si, Level::sser}) {
  CheckOptions o;
  o.levels = levels;
  o.localise = localise;
  return check(h, o);
}

}  // namespace

// The replay fails at Tb's read of y (begin order puts Ta's write of y
// first), but the cycle Ta -wr(z)-> Tc -wr(w)-> Tb -rw(y)-> Ta needs key z,
// which only Ta and Tc, 15,000 transactions earlier, touch: the window must
// grow that far before the region has z. The region found stays three keys,
// and its cycle is the whole graph's. (SER and SI: with SSER the first region
// already shows the stale read Ta -rt-> Tb -rw-> Ta, and stops there.)
namespace {
void find_a_cycle_far_from_the_failing_read(int64_t y, int64_t z, int64_t w);
}  // namespace

// Also with y and w huge (a generated plant's keys: the region's key set
// holds them in its hash set, z in its array).
TEST(LocalCheck, FindsACycleFarFromTheFailingRead) {
  for (const int64_t huge : {int64_t{0}, int64_t{9000000000000000000}})
    find_a_cycle_far_from_the_failing_read(huge ? huge : 5000, 5001, huge ? huge + 2 : 5002);
}

namespace {

void find_a_cycle_far_from_the_failing_read(int64_t y, int64_t z, int64_t w) {
  SCOPED_TRACE("y = " + std::to_string(y));
  History h = filler_history(20000, [&](int i, History& hh, int64_t& clock, int64_t& id) {
    if (i == 100) plant_txn(hh, clock, id, {{OpKind::read, y, 0}, {OpKind::write, y, 1}, {OpKind::write, z, 1}});  // Ta
    if (i == 200) plant_txn(hh, clock, id, {{OpKind::read, z, 1}, {OpKind::write, w, 1}});                       // Tc
    if (i == 15200) plant_txn(hh, clock, id, {{OpKind::read, w, 1}, {OpKind::read, y, 0}});                      // Tb
  });
  const TxnIdx ta = 100, tc = 201, tb = 15202;
  SerialWitness sw = find_serial_witness(h, true);
  ASSERT_FALSE(sw.found());
  ASSERT_FALSE(sw.failed_reads.empty());
  for (OpIdx o : sw.failed_reads) EXPECT_EQ(h.op_key[o], static_cast<Sym>(y));
  CheckOptions o;
  o.levels = {Level::ser, Level::si};
  LocalSearch ls = find_violations_locally(h, o, sw.failed_reads);
  ASSERT_EQ(ls.violated.size(), 2u);
  EXPECT_GE(ls.rounds, 3);
  EXPECT_EQ(ls.keys, 3u);
  EXPECT_EQ(ls.txns, 3u);
  const Witness& wit = *ls.violated[0].witness;
  ASSERT_EQ(wit.cycle.size(), 3u);
  std::set<std::tuple<TxnIdx, TxnIdx, EdgeKind>> edges;
  for (size_t i = 0; i < 3; ++i) edges.insert({wit.cycle.src[i], wit.cycle.dst[i], wit.cycle.kind[i]});
  EXPECT_EQ(edges, (std::set<std::tuple<TxnIdx, TxnIdx, EdgeKind>>{
                       {ta, tc, EdgeKind::wr}, {tc, tb, EdgeKind::wr}, {tb, ta, EdgeKind::rw}}));
  // check() with the search on and off: the same verdicts and cycles.
  CheckResult on = check_with(h, true, o.levels), off = check_with(h, false, o.levels);
  ASSERT_EQ(on.levels.size(), 2u);
  ASSERT_EQ(off.levels.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(on.levels[i].holds);
    EXPECT_FALSE(off.levels[i].holds);
    ASSERT_TRUE(on.levels[i].witness && off.levels[i].witness);
    EXPECT_EQ(on.levels[i].witness->anomaly, off.levels[i].witness->anomaly);
    EXPECT_EQ(on.levels[i].witness->cycle.src, off.levels[i].witness->cycle.src);
    EXPECT_EQ(on.levels[i].witness->cycle.why, off.levels[i].witness->cycle.why);
  }
}

}  // namespace

// A valid history whose begin and end orders both fail: T2 reads x before
// T1's write although T1 began first (begin order fails), T4 reads v from T3
// although T4 ended first (end order fails). T2, T1, T3, T4 is a
// serialization that respects real time. The search finds no cycle, stops
// when its region stops growing, and the whole graph proves every level.
TEST(LocalCheck, FailedReplayOfAValidHistoryHolds) {
  constexpr int64_t x = 6000, v = 6001;
  History h = filler_history(5000, [&](int i, History& hh, int64_t& clock, int64_t& id) {
    if (i != 2500) return;
    const int64_t c = clock;
    auto at = [&](int64_t b, int64_t e, std::vector<std::tuple<OpKind, int64_t, int64_t>> ops) {
      hh.session_name.push_back(static_cast<int64_t>(hh.session_name.size()));
      hh.begin_txn(++id, static_cast<uint32_t>(hh.session_name.size() - 1), TxnStatus::committed, c + b, c + e);
      for (auto [kind, k, val] : ops) hh.add_op(kind, hh.keys.intern_int(k), val ? hh.values.intern_int(val) : kNullValue);
      hh.end_txn();
    };
    at(0, 10, {{OpKind::write, x, 1}});      // T1
    at(1, 5, {{OpKind::read, x, 0}});        // T2
    at(30, 40, {{OpKind::write, v, 1}});     // T3
    at(31, 35, {{OpKind::read, v, 1}});      // T4
    clock += 100;
  });
  SerialWitness sw = find_serial_witness(h, true);
  ASSERT_FALSE(sw.found());
  EXPECT_EQ(sw.failed_reads.size(), 2u);
  CheckOptions o;
  o.levels = {Level::ser, Level::si, Level::sser};
  LocalSearch ls = find_violations_locally(h, o, sw.failed_reads);
  EXPECT_TRUE(ls.violated.empty());
  EXPECT_LE(ls.keys, 2u);  // each key is touched by the plant alone: nothing more to add
  CheckResult r = check_with(h, true);
  ASSERT_EQ(r.levels.size(), 3u);
  for (const LevelResult& lr : r.levels) EXPECT_TRUE(lr.decided && lr.holds) << to_string(lr.level);
}

// A write skew: SER is violated by the region, SI is not (and is left to the
// whole graph, which proves it), in either order of the levels asked.
TEST(LocalCheck, WriteSkewSerFoundLocallySiProvenByTheWholeGraph) {
  constexpr int64_t x = 7000, y = 7001;
  History h = filler_history(3000, [&](int i, History& hh, int64_t& clock, int64_t& id) {
    if (i != 1000) return;
    plant_txn(hh, clock, id, {{OpKind::read, x, 0}, {OpKind::read, y, 0}, {OpKind::write, x, 1}});
    plant_txn(hh, clock, id, {{OpKind::read, x, 0}, {OpKind::read, y, 0}, {OpKind::write, y, 1}});
  });
  for (std::vector<Level> levels : {std::vector<Level>{Level::ser, Level::si}, std::vector<Level>{Level::si, Level::ser}}) {
    CheckResult r = check_with(h, true, levels), off = check_with(h, false, levels);
    ASSERT_EQ(r.levels.size(), 2u);
    EXPECT_EQ(r.levels[0].level, levels[0]);
    EXPECT_EQ(r.levels[1].level, levels[1]);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(r.levels[i].holds, levels[i] == Level::si);
      EXPECT_EQ(r.levels[i].holds, off.levels[i].holds);
      if (!r.levels[i].holds) {
        ASSERT_TRUE(r.levels[i].witness);
        EXPECT_EQ(r.levels[i].witness->anomaly, "G2-item (write skew)");
      }
    }
  }
}

// A region that shows an anomaly (here a read of a value nobody wrote) is
// left to the whole graph: the report lists the anomalies as without the search.
TEST(LocalCheck, AnomalyInTheRegionGivesTheWholeGraphsReport) {
  History h = filler_history(3000, [&](int i, History& hh, int64_t& clock, int64_t& id) {
    if (i == 1000) plant_txn(hh, clock, id, {{OpKind::read, 3, 999999}});
  });
  CheckResult on = check_with(h, true), off = check_with(h, false);
  ASSERT_EQ(on.anomalies.size(), 1u);
  EXPECT_EQ(on.anomalies[0].kind, AnomalyKind::thin_air_read);
  EXPECT_EQ(on.anomalies.size(), off.anomalies.size());
  EXPECT_EQ(on.stats.edges, off.stats.edges);
  for (size_t i = 0; i < on.levels.size(); ++i) EXPECT_EQ(on.levels[i].reason, off.levels[i].reason);
}

// Session order between the region's transactions skips T2 (no key of the
// region): the witness has the whole graph's session-order edges, T1 -so-> T2
// -so-> T3, not one edge T1 -so-> T3.
TEST(LocalCheck, SessionOrderInAWitnessIsTheWholeGraphs) {
  const std::string hist = T(1, 1, R"(["r","x",null],["w","x",1])", R"(,"begin":0,"end":1)") +
                           T(2, 1, R"(["r","q",null],["w","q",1])", R"(,"begin":2,"end":3)") +
                           T(3, 1, R"(["r","x",null])", R"(,"begin":4,"end":5)");
  History h = parse_jsonl(hist, "test.jsonl");
  SerialWitness sw = find_serial_witness(h, true);
  ASSERT_EQ(sw.failed_reads.size(), 2u);
  CheckOptions o;
  o.levels = {Level::ser};
  LocalSearch ls = find_violations_locally(h, o, sw.failed_reads);
  ASSERT_EQ(ls.violated.size(), 1u);
  EXPECT_EQ(ls.txns, 2u);  // T1 and T3
  const EdgeList& c = ls.violated[0].witness->cycle;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c.src, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(c.dst, (std::vector<uint32_t>{1, 2, 0}));
  EXPECT_EQ(c.kind, (std::vector<EdgeKind>{EdgeKind::so, EdgeKind::so, EdgeKind::rw}));
  CheckResult off = check_with(h, false, {Level::ser});
  EXPECT_EQ(off.levels[0].witness->cycle.src, c.src);
  EXPECT_EQ(off.levels[0].witness->anomaly, ls.violated[0].witness->anomaly);
}

// Without times on every transaction SSER refuses the replay before it runs;
// the search still starts from where the file-order replay fails: the region
// (a handful of edges) decides SER and SSER, not the whole graph.
TEST(LocalCheck, UntimedHistoryIsSearchedFromTheFileOrderReplay) {
  constexpr int64_t x = 7000, y = 7001;
  History h = filler_history(3000, [&](int i, History& hh, int64_t&, int64_t& id) {
    if (i != 1000) return;
    for (int j = 0; j < 2; ++j) {
      hh.session_name.push_back(static_cast<int64_t>(hh.session_name.size()));
      hh.begin_txn(++id, static_cast<uint32_t>(hh.session_name.size() - 1), TxnStatus::committed, kNoTime, kNoTime);
      hh.add_op(OpKind::read, hh.keys.intern_int(x), kNullValue);
      hh.add_op(OpKind::read, hh.keys.intern_int(y), kNullValue);
      hh.add_op(OpKind::write, hh.keys.intern_int(j ? y : x), hh.values.intern_int(1));
      hh.end_txn();
    }
  });
  CheckResult on = check_with(h, true, {Level::ser, Level::sser}), off = check_with(h, false, {Level::ser, Level::sser});
  ASSERT_EQ(on.levels.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(on.levels[i].holds);
    EXPECT_FALSE(off.levels[i].holds);
    ASSERT_TRUE(on.levels[i].witness);
    EXPECT_EQ(on.levels[i].witness->anomaly, "G2-item (write skew)");
  }
  EXPECT_LT(on.stats.edges, 10u);   // the region's
  EXPECT_GT(off.stats.edges, 3000u);  // the whole graph's
}

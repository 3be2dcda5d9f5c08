// The snapshot-isolation replay on hand-made histories: found for write skew
// and other SI-valid concurrency, refused for concurrent writers, stale and
// future snapshots, session order and every oddity the graph must see; and
// check()'s verdicts the same with and without it.
#include <gtest/gtest.h>

#include <sstream>

#include "io/jsonl.h"
#include "report/report.h"
#include "solver/check.h"
#include "solver/si_replay.h"

#include "common/history_fixtures.h"
#include "common/same_verdicts.h"

using namespace isocheck;

namespace {

std::string T(int id, int session, const std::string& ops, int64_t begin = -1, int64_t end = -1,
              const std::string& status = "committed") {
  return testkit::txn_line(id, session, ops, begin, end, status);
}

// The time replays alone (snapshots at the recorded begins); `orders`: the
// order replays too, as check() runs them.
SiReplay replay(const std::string& jsonl) { return find_si_replay(parse_jsonl(jsonl, "test.jsonl"), false, 0, false); }
SiReplay orders(const std::string& jsonl) { return find_si_replay(parse_jsonl(jsonl, "test.jsonl")); }

// An order replay (not a time replay) finds `jsonl`, and check()'s verdicts
// are the same with and without the replays.
void expect_found_by_order(const std::string& jsonl, SiTies order = SiTies::begin_order) {
  EXPECT_FALSE(replay(jsonl).found());
  const SiReplay r = orders(jsonl);
  EXPECT_EQ(r.order, order) << r.why_not;
}

// check() with and without the SI replay (and without the serial witness, so
// that the replay is what decides): the same verdicts, level by level.
void expect_same_verdicts(const std::string& jsonl) {
  History h = parse_jsonl(jsonl, "test.jsonl");
  for (auto levels : {std::vector<Level>{Level::si}, std::vector<Level>{Level::ser, Level::si, Level::sser},
                      std::vector<Level>{Level::sser, Level::si}}) {
    CheckOptions on, off;
    on.levels = off.levels = levels;
    on.serial_witness = off.serial_witness = false;
    off.si_replay = false;
    testkit::expect_same_verdicts(h, on, off, jsonl);
  }
}

// The replay refuses `jsonl`, its reason holding `why` (any reason when
// empty).
testing::AssertionResult refused(const std::string& jsonl, const std::string& why = "") {
  const SiReplay r = replay(jsonl);
  if (r.found()) return testing::AssertionFailure() << "the replay found one";
  if (r.why_not.find(why) == std::string::npos) return testing::AssertionFailure() << "refused because " << r.why_not;
  return testing::AssertionSuccess();
}

// ... and check() gives the same verdicts with the replay and without.
void expect_refused(const std::string& jsonl, const std::string& why = "") {
  EXPECT_TRUE(refused(jsonl, why));
  expect_same_verdicts(jsonl);
}

// Neither the time replays nor the order replays find `jsonl`; the order
// replays' reasons hold `why`.
void expect_refused_by_all(const std::string& jsonl, const std::string& why) {
  EXPECT_TRUE(refused(jsonl));
  const SiReplay r = orders(jsonl);
  EXPECT_FALSE(r.found());
  EXPECT_NE(r.why_not.find(why), std::string::npos) << r.why_not;
  expect_same_verdicts(jsonl);
}

// Write skew: both read x and y from the initial snapshot, one writes x, the
// other y. SI, not SER.
const std::string kWriteSkew = T(1, 1, R"(["r","x",null],["r","y",null],["w","x",1])", 0, 10) +
                               T(2, 2, R"(["r","x",null],["r","y",null],["w","y",2])", 1, 11) +
                               T(3, 1, R"(["r","x",1],["r","y",2])", 12, 13);

}  // namespace

TEST(SiReplay, WriteSkewReplaysAndDecidesSiWithoutAGraph) {
  SiReplay r = replay(kWriteSkew);
  EXPECT_EQ(r.order, SiTies::commits_first) << r.why_not;
  EXPECT_EQ(r.committed, 3u);
  History h = parse_jsonl(kWriteSkew, "t.jsonl");
  CheckOptions o;
  o.levels = {Level::si};
  CheckResult c = check(h, o);
  ASSERT_EQ(c.levels.size(), 1u);
  EXPECT_TRUE(c.levels[0].holds);
  EXPECT_TRUE(c.stats.si_replay);
  EXPECT_EQ(c.stats.edges, 0u);  // no graph
  // With SER too: SER is violated (the graph decides it), SI holds by the replay.
  o.levels = {Level::ser, Level::si};
  c = check(h, o);
  ASSERT_EQ(c.levels.size(), 2u);
  EXPECT_EQ(c.levels[0].level, Level::ser);
  EXPECT_FALSE(c.levels[0].holds);
  EXPECT_EQ(c.levels[1].level, Level::si);
  EXPECT_TRUE(c.levels[1].holds);
  EXPECT_TRUE(c.stats.si_replay);
  expect_same_verdicts(kWriteSkew);
}

TEST(SiReplay, ConcurrentWritersOfOneKeyAreRefused) {
  // Lost update: both read x from the initial snapshot and both write x while
  // overlapping. The second committer must not pass.
  std::string hist = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) +
                     T(2, 2, R"(["r","x",null],["w","x",2])", 1, 11);
  expect_refused(hist, "concurrent transaction wrote");
  // Blind writes too: overlapping writers of one key, no reads at all (the
  // graph alone could order them; the replay must not).
  std::string blind = T(1, 1, R"(["w","x",1])", 0, 10) + T(2, 2, R"(["w","x",2])", 1, 11);
  EXPECT_TRUE(refused(blind, "concurrent transaction wrote"));
  // Not overlapping: fine.
  std::string serial = T(1, 1, R"(["w","x",1])", 0, 10) + T(2, 2, R"(["w","x",2])", 11, 12);
  EXPECT_TRUE(replay(serial).found()) << replay(serial).why_not;
}

TEST(SiReplay, StaleAndFutureSnapshotsAreRefused) {
  // T2 begins after T1 committed but reads the value before it: stale.
  std::string stale = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 5) + T(2, 2, R"(["r","x",null])", 6, 8);
  expect_refused(stale, "snapshot (at its begin) holds 1");
  // T2 reads T1's write although T1 commits after T2 began: not in its snapshot.
  std::string future = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) + T(2, 2, R"(["r","x",1])", 5, 12);
  expect_refused(future);
  // Read skew: x from before T1's commit, y from after it, in one snapshot.
  std::string skew = T(1, 1, R"(["r","x",null],["w","x",1],["r","y",null],["w","y",1])", 0, 4) +
                     T(2, 2, R"(["r","x",null],["r","y",1])", 5, 6);
  expect_refused(skew);
}

TEST(SiReplay, SessionOrderAndOwnWrites) {
  // T2 (same session as T1) begins before T1 commits: its snapshot would not
  // include its own session's previous transaction.
  std::string session = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) + T(2, 1, R"(["r","y",null])", 5, 12);
  expect_refused(session, "previous transaction of its session");
  // A read after the transaction's own write returns that write; one that
  // does not is refused.
  std::string own = T(1, 1, R"(["r","x",null],["w","x",1],["r","x",1],["w","x",2],["r","x",2])", 0, 1) +
                    T(2, 2, R"(["r","x",2])", 2, 3);
  EXPECT_TRUE(replay(own).found()) << replay(own).why_not;
  std::string bad_own = T(1, 1, R"(["r","x",null],["w","x",1],["r","x",null])", 0, 1);
  expect_refused(bad_own);
  // Intermediate read: T2 reads T1's overwritten value.
  std::string g1b = T(1, 1, R"(["r","x",null],["w","x",1],["w","x",2])", 0, 1) + T(2, 2, R"(["r","x",1])", 2, 3);
  expect_refused(g1b);
}

TEST(SiReplay, AbortedUnknownDuplicatesAndShapesItLeavesToTheGraph) {
  // Aborted and unknown transactions are left out; reading an aborted write fails.
  std::string aborted = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 1) +
                        T(2, 2, R"(["r","x",1],["w","x",9])", 2, 3, "aborted") +
                        T(3, 1, R"(["r","x",1],["w","x",2])", 4, 5);
  EXPECT_TRUE(replay(aborted).found()) << replay(aborted).why_not;
  std::string g1a = T(2, 2, R"(["r","x",null],["w","x",9])", 0, 1, "aborted") + T(3, 1, R"(["r","x",9])", 2, 3);
  expect_refused(g1a);
  // A (key, value) written twice: a read cannot name its writer.
  std::string dup = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 1) + T(2, 2, R"(["w","x",1])", 5, 6, "aborted") +
                    T(3, 1, R"(["r","x",1])", 7, 8);
  expect_refused(dup, "written twice");
  // No times, lists: not tried.
  EXPECT_NE(replay(T(1, 1, R"(["w","x",1])")).why_not.find("begin/end"), std::string::npos);
  EXPECT_NE(replay(T(1, 1, R"(["append","x",1])", 0, 1)).why_not.find("list"), std::string::npos);
}

TEST(SiReplay, TiesBetweenACommitAndABeginTryBothOrders) {
  // T2 begins at the time T1 commits. Reading T1's write needs the commit
  // first; reading the older value needs the begin first. Both replay.
  std::string sees = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 5) + T(2, 2, R"(["r","x",1])", 5, 6);
  EXPECT_EQ(replay(sees).order, SiTies::commits_first) << replay(sees).why_not;
  std::string misses = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 5) + T(2, 2, R"(["r","x",null])", 5, 6);
  EXPECT_EQ(replay(misses).order, SiTies::begins_first) << replay(misses).why_not;
  // A transaction that begins and ends at one instant still sees its snapshot first.
  std::string instant = T(1, 1, R"(["r","x",null],["w","x",1])", 3, 3) + T(2, 2, R"(["r","x",1])", 4, 4);
  EXPECT_TRUE(replay(instant).found()) << replay(instant).why_not;
  expect_same_verdicts(sees);
  expect_same_verdicts(misses);
}

TEST(SiReplay, ReportsSayHowSiWasDecided) {
  History h = parse_jsonl(kWriteSkew, "t.jsonl");
  CheckOptions o;
  o.levels = {Level::si};
  CheckResult r = check(h, o);
  std::ostringstream text, json;
  write_text(text, h, r, ReportContext{"t.jsonl", 0.0});
  write_json(json, h, r, ReportContext{"t.jsonl", 0.0});
  EXPECT_NE(text.str().find("SI replay: begin and commit events in time order"), std::string::npos) << text.str();
  EXPECT_NE(json.str().find("\"si_replay\":true"), std::string::npos) << json.str();
  o.si_replay = false;
  CheckResult off = check(h, o);
  EXPECT_FALSE(off.stats.si_replay);
  EXPECT_TRUE(off.levels[0].holds);
  std::ostringstream json_off;
  write_json(json_off, h, off, ReportContext{"t.jsonl", 0.0});
  EXPECT_NE(json_off.str().find("\"si_replay\":false"), std::string::npos) << json_off.str();
}

TEST(SiReplay, LargeTransactionsReadTheirOwnWrites) {
  // 200 writes then 200 reads of them (and key -1, the hash map's empty
  // marker): past the short list, own writes live in a hash map.
  std::string ops, reads;
  for (int k = -1; k < 199; ++k) {
    ops += std::string(ops.empty() ? "" : ",") + "[\"w\"," + std::to_string(k) + "," + std::to_string(k + 1000) + "]";
    reads += ",[\"r\"," + std::to_string(k) + "," + std::to_string(k + 1000) + "]";
  }
  std::string good = T(1, 1, ops + reads, 0, 1) + T(2, 2, R"(["r",-1,999],["r",5,1005])", 2, 3);
  SiReplay r = replay(good);
  EXPECT_TRUE(r.found()) << r.why_not;
  std::string bad = T(1, 1, ops + reads + R"(,["r",7,7])", 0, 1);
  EXPECT_TRUE(refused(bad, "after writing 1007"));
}

// The order replays: SI has no real time, so a history whose snapshots are
// not at the recorded begins can still be an SI execution for some commit
// order. These are the time replays' refusals above that SI allows.
TEST(SiReplay, OrderReplaysFindWhatSiAllowsWithoutRealTime) {
  // Overlapping writers of one key, no reads: T1 then T2, serially.
  expect_found_by_order(T(1, 1, R"(["w","x",1])", 0, 10) + T(2, 2, R"(["w","x",2])", 1, 11));
  // A stale read (SI allows it; strict serializability does not).
  const std::string stale = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 5) + T(2, 2, R"(["r","x",null])", 6, 8);
  expect_found_by_order(stale);
  expect_same_verdicts(stale);
  // A read of a write that committed after the reader began.
  const std::string future = T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) + T(2, 2, R"(["r","x",1])", 5, 12);
  expect_found_by_order(future);
  expect_same_verdicts(future);
  // A serial execution recorded with overlapping intervals (as `generate`
  // records one), with a write skew in it: begin order, the skew's second
  // transaction snapshotting before the first one's commit.
  const std::string serial_skew = T(1, 1, R"(["r","a",null],["w","a",1])", 0, 10) +
                                  T(2, 2, R"(["r","a",1],["w","a",2])", 5, 20) +
                                  T(3, 3, R"(["r","x",null],["r","y",null],["w","x",1])", 21, 30) +
                                  T(4, 4, R"(["r","x",null],["r","y",null],["w","y",1])", 22, 31) +
                                  T(5, 1, R"(["r","a",2],["r","x",1],["r","y",1])", 25, 40);
  expect_found_by_order(serial_skew);
  expect_same_verdicts(serial_skew);
  // End order where begin order fails: T2 begins first but reads T1's write.
  const std::string by_end = T(1, 1, R"(["r","x",null],["w","x",1])", 5, 6) + T(2, 2, R"(["r","x",1])", 0, 10);
  expect_found_by_order(by_end, SiTies::end_order);
  expect_same_verdicts(by_end);
}

TEST(SiReplay, OrderReplaysRefuseWhatNoSnapshotExplains) {
  // Lost update: for either commit order, the second writer's snapshot must
  // precede the first's commit, which wrote its key.
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) + T(2, 2, R"(["r","x",null],["w","x",2])", 1, 11),
                        "committed after its snapshot");
  // Read skew: x from before T1's commit, y from after it.
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1],["r","y",null],["w","y",1])", 0, 4) +
                            T(2, 2, R"(["r","x",null],["r","y",1])", 5, 6),
                        "see no one snapshot");
  // A read older than the key's last two versions: not tried.
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1])", 0, 1) + T(2, 1, R"(["r","x",1],["w","x",2])", 2, 3) +
                            T(3, 2, R"(["r","x",null])", 4, 5),
                        "not one of the last two versions");
  // Session order: the session's previous commit is in every later snapshot.
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1])", 0, 10) + T(2, 1, R"(["r","x",null])", 11, 12),
                        "see no one snapshot");
  // An intermediate read and a read after its own write that misses it.
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1],["w","x",2])", 0, 1) + T(2, 2, R"(["r","x",1])", 2, 3),
                        "not one of the last two versions");
  expect_refused_by_all(T(1, 1, R"(["r","x",null],["w","x",1],["r","x",null])", 0, 1), "after writing 1");
}

// Property tests: isocheck::check() against the exhaustive oracle on thousands
// of random small histories. Where check() says `decided`, its verdict must
// equal the oracle's, for SER, SI and SSER; a disagreement prints the seed, the
// mode and the history (JSONL) and how to rerun just that seed.
//
// Knobs (environment): ISOCHECK_PROPERTY_ITERS (histories per test, default
// below), ISOCHECK_PROPERTY_SEED (first seed, default 1),
// ISOCHECK_PROPERTY_MIN_DECIDED (percent of known-order histories check() must
// decide, default 85), ISOCHECK_PROPERTY_SHOW_UNDECIDED (print that many
// histories check() did not decide). scripts/nightly-property.sh raises them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "core/errors.h"
#include "oracle/oracle.h"
#include "oracle/random_history.h"
#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "solver/acyclic.h"
#include "solver/check.h"
#include "solver/local_check.h"
#include "solver/serial_witness.h"
#include "solver/si_replay.h"

namespace isocheck {
namespace {

int64_t env_int(const char* name, int64_t def) {
  const char* s = std::getenv(name);
  return s && *s ? std::strtoll(s, nullptr, 10) : def;
}

constexpr int kKnownOrderIters = 20000;
constexpr int kBlindIters = 25000;
constexpr Level kLevels[] = {Level::ser, Level::si, Level::sser};
constexpr const char* kLevelName[] = {"ser", "si", "sser"};

bool oracle_holds(const OracleVerdict& v, Level l) {
  return l == Level::ser ? v.ser : l == Level::si ? v.si : v.sser;
}

struct Tally {
  int histories = 0;
  int decided[3] = {0, 0, 0};
  int holds[3] = {0, 0, 0};  // oracle
  int disagreements = 0;
  int alone_decided = 0;   // single-level calls (every 8th history) that decided
  int alone_differs = 0;   // ... whose decided flag differs from the 3-level call
  int by_witness = 0;      // decided by a serial witness (even seeds only)
  int by_si_replay = 0;    // SI decided by the SI replay
  std::map<AnomalyKind, int> first_anomaly;  // histories by the kind of check()'s first anomaly
};

std::string result_text(const CheckResult& r) {
  std::ostringstream s;
  for (const LevelResult& lr : r.levels) {
    s << "  check " << kLevelName[static_cast<int>(lr.level)] << ": holds=" << lr.holds
      << " decided=" << lr.decided;
    if (!lr.reason.empty()) s << " reason=\"" << lr.reason << "\"";
    if (lr.witness) s << " witness=" << lr.witness->anomaly << " (" << lr.witness->cycle.size() << " edges)";
    s << "\n";
  }
  for (const Anomaly& a : r.anomalies) s << "  check anomaly: " << to_string(a.kind) << " txn " << a.txn << "\n";
  return s.str();
}

// Which fast paths check() takes: by default odd seeds skip the serial
// witness; `witness_always` runs it on every history (and so the local search
// on every history whose replay fails a read), `localise` turns that search on or off.
struct PathChoice {
  bool witness_always = false;
  bool localise = true;
  bool si_replay = true;
};

// Runs `iters` seeds from ISOCHECK_PROPERTY_SEED; every 8th history is also
// checked one level at a time, whose decided answers must match the oracle too.
// `time_order`: check() and the oracle both assume --time-order.
Tally run(const char* test, const RandomHistoryOptions& o, int default_iters, bool time_order = false,
          PathChoice path = {}) {
  Tally t;
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", default_iters);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  const int64_t show_undecided = env_int("ISOCHECK_PROPERTY_SHOW_UNDECIDED", 0);
  int64_t shown_undecided = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    History h = random_history(seed, o);
    const int64_t skew = seed % 4 == 0 ? 5 : 0;
    OracleVerdict ov = oracle_check(h, skew, time_order);
    CheckOptions opt;
    opt.levels = {Level::ser, Level::si, Level::sser};
    opt.clock_skew = skew;
    opt.time_order = time_order;
    // Odd seeds skip the serial witness, so the graph engines meet the oracle
    // on every kind of history, valid ones included.
    opt.serial_witness = path.witness_always || seed % 2 == 0;
    opt.localise = path.localise;
    opt.si_replay = path.si_replay;
    CheckResult r = check(h, opt);
    t.by_witness += r.stats.witness != WitnessOrder::none;
    t.by_si_replay += r.stats.si_replay;
    if (!r.anomalies.empty()) ++t.first_anomaly[r.anomalies[0].kind];
    ++t.histories;
    auto context = [&] {
      std::ostringstream s;
      s << "seed " << seed << " (" << test << ", clock_skew " << skew << (time_order ? ", --time-order" : "")
        << "); rerun with ISOCHECK_PROPERTY_SEED="
        << seed << " ISOCHECK_PROPERTY_ITERS=1 --gtest_filter=*" << test << "\n  oracle: " << ov.describe()
        << "\n" << result_text(r) << history_jsonl(h);
      return s.str();
    };
    if (r.levels.size() != 3) {
      ADD_FAILURE() << "check() returned " << r.levels.size() << " level results for 3 levels\n" << context();
      ++t.disagreements;
      continue;
    }
    std::string wrong;
    for (int i = 0; i < 3; ++i) {
      const LevelResult& lr = r.levels[i];
      t.holds[i] += oracle_holds(ov, kLevels[i]);
      if (lr.level != kLevels[i]) {
        wrong += std::string("level result ") + std::to_string(i) + " is not " + kLevelName[i] + "\n";
        continue;
      }
      if (!lr.decided) continue;
      ++t.decided[i];
      if (lr.holds != oracle_holds(ov, kLevels[i]))
        wrong += std::string(kLevelName[i]) + ": check() says " + (lr.holds ? "holds" : "violated") +
                 ", oracle says " + (oracle_holds(ov, kLevels[i]) ? "holds" : "violated") + "\n";
    }
    if (wrong.empty() && seed % 8 == 0) {
      // One level at a time: where decided, the same verdict as the oracle.
      for (int i = 0; i < 3; ++i) {
        CheckOptions one = opt;
        one.levels = {kLevels[i]};
        CheckResult r1 = check(h, one);
        if (r1.levels.size() != 1 || r1.levels[0].level != kLevels[i]) {
          wrong += std::string(kLevelName[i]) + " alone: no single result for it\n";
          continue;
        }
        t.alone_decided += r1.levels[0].decided;
        t.alone_differs += r1.levels[0].decided != r.levels[i].decided;
        if (r1.levels[0].decided && r1.levels[0].holds != oracle_holds(ov, kLevels[i]))
          wrong += std::string(kLevelName[i]) + " alone: check() says " +
                   (r1.levels[0].holds ? "holds" : "violated") + ", oracle says " +
                   (oracle_holds(ov, kLevels[i]) ? "holds" : "violated") + "\n" + result_text(r1);
      }
    }
    if ((!r.levels[0].decided || !r.levels[1].decided || !r.levels[2].decided) &&
        shown_undecided < show_undecided) {
      ++shown_undecided;
      std::printf("undecided: %s", context().c_str());
    }
    const bool bad = !wrong.empty();
    if (bad) ADD_FAILURE() << wrong << context();
    if (bad && ++t.disagreements >= 5) {
      ADD_FAILURE() << "stopping after 5 disagreements";
      break;
    }
  }
  std::printf("[%s] %d histories; oracle holds ser/si/sser %d/%d/%d; check() decided ser/si/sser %d/%d/%d; "
              "single-level calls decided %d (decided flag differs %d); by a serial witness %d; SI by the SI replay %d; "
              "disagreements %d\n",
              test, t.histories, t.holds[0], t.holds[1], t.holds[2], t.decided[0], t.decided[1], t.decided[2],
              t.alone_decided, t.alone_differs, t.by_witness, t.by_si_replay, t.disagreements);
  return t;
}

void expect_mostly_decided(const Tally& t) {
  const int64_t min_pct = env_int("ISOCHECK_PROPERTY_MIN_DECIDED", 85);
  for (int i = 0; i < 3; ++i)
    EXPECT_GE(t.decided[i] * 100, t.histories * min_pct)
        << kLevelName[i] << ": check() decided " << t.decided[i] << " of " << t.histories
        << " known-order histories (want " << min_pct << "%)";
}

// The known-order histories, checked with the paths `path`, agree with the
// oracle and are mostly decided.
void expect_known_order_agrees(const char* test, PathChoice path = {}) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  Tally t = run(test, o, kKnownOrderIters, false, path);
  EXPECT_EQ(t.disagreements, 0);
  expect_mostly_decided(t);
}

TEST(Property, KnownOrderAgreesWithOracle) { expect_known_order_agrees("KnownOrderAgreesWithOracle"); }

// Larger histories (up to the oracle's limit), more sessions and keys.
TEST(Property, KnownOrderWiderAgreesWithOracle) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.min_txns = 5, o.max_txns = 8, o.max_keys = 4, o.max_sessions = 5;
  o.aborted_percent = 4, o.unknown_percent = 4;
  Tally t = run("KnownOrderWiderAgreesWithOracle", o, kKnownOrderIters / 3);
  EXPECT_EQ(t.disagreements, 0);
  expect_mostly_decided(t);
}

// List reads that break a writer's run of appends (cut at its start, cut
// short before other elements, neighbours swapped, an element repeated):
// no execution produces them, and check() must say so as the oracle does,
// whose states are concatenations of whole runs.
TEST(Property, ListRunMutationsAgreeWithOracle) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.max_keys = 2;
  o.run_mutation_percent = 60;
  Tally t = run("ListRunMutationsAgreeWithOracle", o, kKnownOrderIters / 2);
  EXPECT_EQ(t.disagreements, 0);
  expect_mostly_decided(t);
  // Each shape is exercised.
  for (AnomalyKind k : {AnomalyKind::incompatible_order, AnomalyKind::intermediate_read, AnomalyKind::duplicate_elements})
    EXPECT_GT(t.first_anomaly[k], t.histories / 100) << to_string(k);
  std::printf("[ListRunMutationsAgreeWithOracle] first anomaly: incompatible order %d, G1b %d, duplicate elements %d\n",
              t.first_anomaly[AnomalyKind::incompatible_order], t.first_anomaly[AnomalyKind::intermediate_read],
              t.first_anomaly[AnomalyKind::duplicate_elements]);
}

// Serial executions: everything holds, and check() must decide all of them.
TEST(Property, KnownOrderSerialAllHold) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.serial = true;
  Tally t = run("KnownOrderSerialAllHold", o, kKnownOrderIters / 6);
  EXPECT_EQ(t.disagreements, 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.holds[i], t.histories);
  expect_mostly_decided(t);
}

// Blind writes: the general engine (polygraph, pruning, SAT) decides every
// one, and must agree with the oracle on every level.
TEST(Property, BlindWritesAgreeWithOracle) {
  RandomHistoryOptions o;
  o.mode = RandomMode::blind_writes;
  Tally t = run("BlindWritesAgreeWithOracle", o, kBlindIters);
  EXPECT_EQ(t.disagreements, 0);
  const int64_t min_pct = env_int("ISOCHECK_PROPERTY_BLIND_DECIDED", 100);
  for (int i = 0; i < 3; ++i) EXPECT_GE(t.decided[i] * 100, t.histories * min_pct) << kLevelName[i];
}

// Histories with times on every transaction, swapped between transactions
// in a third of them (so that they contradict the order writes took effect in).
RandomHistoryOptions swapped_times(RandomMode mode) {
  RandomHistoryOptions o;
  o.mode = mode;
  o.times_percent = 100;
  o.time_swap_percent = 35;
  return o;
}

// --time-order: every key's versions follow their writers' times, also for
// writes nobody read (whose order SER otherwise leaves free) and for orders
// the reads reveal. A third of the histories show times swapped between
// transactions, so that they contradict the order the writes took effect in.
TEST(Property, BlindWritesTimeOrderAgreeWithOracle) {
  RandomHistoryOptions o = swapped_times(RandomMode::blind_writes);
  Tally t = run("BlindWritesTimeOrderAgreeWithOracle", o, kBlindIters / 2, true);
  EXPECT_EQ(t.disagreements, 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.decided[i], t.histories) << kLevelName[i];
  // Both verdicts occur for SER (not every history a violation).
  EXPECT_GT(t.holds[0] * 5, t.histories);
  EXPECT_LT(t.holds[0] * 5, t.histories * 4);
}

// The same on read-modify-write registers and lists, and on blind writes where
// only some transactions have times (a fifth shown without) and more are unknown.
TEST(Property, KnownOrderTimeOrderAgreeWithOracle) {
  RandomHistoryOptions o = swapped_times(RandomMode::known_order);
  Tally t = run("KnownOrderTimeOrderAgreeWithOracle", o, kKnownOrderIters / 4, true);
  EXPECT_EQ(t.disagreements, 0);
  o.mode = RandomMode::blind_writes;
  o.untimed_txn_percent = 20;
  o.unknown_percent = 25;  // unknown transactions nobody read are left out (and their times with them)
  t = run("KnownOrderTimeOrderAgreeWithOracle", o, kBlindIters / 4, true);
  EXPECT_EQ(t.disagreements, 0);
}

// Negative integers: the key -1 and the values -2, -1, 0 (in an integer-mode
// table a symbol is the integer's bit pattern, so -1 is ~0, the empty-slot
// marker of the flat hash maps: check() once missed every edge on key -1
// and reported a G0 history as strict serializable).
TEST(Property, NegativeIntegersAgreeWithOracle) {
  for (RandomMode mode : {RandomMode::known_order, RandomMode::blind_writes}) {
    RandomHistoryOptions o;
    o.mode = mode;
    o.int_key_offset = -1;
    o.value_offset = -3;
    Tally t = run("NegativeIntegersAgreeWithOracle", o, kBlindIters);
    EXPECT_EQ(t.disagreements, 0);
  }
}

// The serial witness alone: whenever it is found, the oracle must agree that
// SER and SI hold, and SSER too when the order respects real time. Runs on
// every generator mode, including the planted mutations (duplicate writes,
// aborted and intermediate reads, ...) it must never accept.
TEST(Property, SerialWitnessIsSound) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", 20000);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int found = 0, realtime = 0, wrong = 0, oracle_sser = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters) && wrong < 5; ++seed) {
    RandomHistoryOptions o;
    o.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
    // A third from serial executions, where a witness is most likely.
    o.serial = seed % 3 == 1;
    History h = random_history(seed, o);
    const int64_t skew = seed % 4 == 0 ? 5 : 0;
    const bool need_realtime = seed % 2 == 0;
    SerialWitness w = find_serial_witness(h, need_realtime);
    OracleVerdict ov = oracle_check(h, skew);
    oracle_sser += ov.sser;
    if (!w.found()) continue;
    ++found;
    realtime += w.respects_realtime;
    if (need_realtime) {
      EXPECT_TRUE(w.respects_realtime) << "seed " << seed;
    }
    // A witness in a time order also respects --time-order's write order.
    if (need_realtime) {
      OracleVerdict ot = oracle_check(h, skew, true);
      if (!ot.ser || !ot.si) {
        ++wrong;
        ADD_FAILURE() << "seed " << seed << ": serial witness in " << to_string(w.order)
                      << " but the oracle with --time-order says " << ot.describe() << "\n" << history_jsonl(h);
      }
    }
    if (!ov.ser || !ov.si || (w.respects_realtime && !ov.sser)) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << ": serial witness in " << to_string(w.order)
                    << " but the oracle says " << ov.describe() << "\n" << history_jsonl(h);
    }
  }
  std::printf("[SerialWitnessIsSound] %lld histories; oracle holds sser %d; witness found %d (%d respecting real "
              "time); wrong %d\n", static_cast<long long>(iters), oracle_sser, found, realtime, wrong);
  EXPECT_EQ(wrong, 0);
  // The witness must actually be exercised: a good share of the valid ones.
  EXPECT_GE(found * 5, oracle_sser) << "the serial witness was found for too few valid histories";
}

// Histories from simulated SI databases shown with the times their
// snapshots and commits had (and the other modes mixed in), where the SI
// replay applies: check() against the oracle with the replay on, and off.
RandomHistoryOptions snapshot_timed() {
  RandomHistoryOptions o;
  o.times_percent = 100;
  o.si_engine_percent = 70;
  o.snapshot_times_percent = 80;
  return o;
}

constexpr int kSiReplayIters = 20000;

TEST(Property, SiReplayOnAgreesWithOracle) {
  Tally t = run("SiReplayOnAgreesWithOracle", snapshot_timed(), kSiReplayIters);
  EXPECT_EQ(t.disagreements, 0);
  expect_mostly_decided(t);
  // The replay decides SI for a good share of the histories.
  EXPECT_GT(t.by_si_replay * 10, t.histories) << "the SI replay decided too few";
}

TEST(Property, SiReplayOffAgreesWithOracle) {
  Tally t = run("SiReplayOffAgreesWithOracle", snapshot_timed(), kSiReplayIters, false, PathChoice{false, true, false});
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.by_si_replay, 0);
  expect_mostly_decided(t);
}

// The SI replay alone: whenever it is found, the oracle must say SI holds
// (with --time-order too: a time-order replay respects it). On every mode,
// with the planted mutations it must never accept.
TEST(Property, SiReplayIsSound) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", kSiReplayIters);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int checked = 0, found = 0, wrong = 0, oracle_si = 0, si_not_ser = 0, found_not_ser = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters) && wrong < 5; ++seed, ++checked) {
    RandomHistoryOptions o = snapshot_timed();
    o.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
    History h = random_history(seed, o);
    const int64_t skew = seed % 4 == 0 ? 5 : 0;
    const bool time_order = seed % 2 == 0;
    SiReplay w = find_si_replay(h, time_order, skew);
    OracleVerdict ov = oracle_check(h, skew, time_order);
    oracle_si += ov.si;
    si_not_ser += ov.si && !ov.ser;
    if (!w.found()) continue;
    ++found;
    found_not_ser += !ov.ser;
    if (!ov.si) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << ": SI replay (" << to_string(w.order) << (time_order ? ", --time-order" : "")
                    << ", clock skew " << skew << ") but the oracle says " << ov.describe() << "\n"
                    << history_jsonl(h);
    }
  }
  std::printf("[SiReplayIsSound] %d histories; oracle holds si %d (si but not ser %d); replay found %d (%d not "
              "ser); wrong %d\n",
              checked, oracle_si, si_not_ser, found, found_not_ser, wrong);
  EXPECT_EQ(wrong, 0);
  // Exercised: on a good share of the SI histories, and on SI-but-not-SER ones.
  EXPECT_GE(found * 4, oracle_si) << "the SI replay was found for too few SI histories";
  EXPECT_GE(found_not_ser * 10, si_not_ser) << "the SI replay was found for too few non-serializable ones";
}

// The order replays alone (commits in begin- or end-time order, latest
// snapshots): histories whose times are not their snapshots' (simulated SI
// databases and stale readers shown with client-side times, some with times
// swapped), so that the time replays mostly fail. Whenever an order replay
// is found, the oracle must say SI holds; and they must be found for a share
// of the SI histories the time replays miss.
TEST(Property, SiOrderReplaysAreSound) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", kSiReplayIters);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int checked = 0, by_order = 0, wrong = 0, si_missed_by_time = 0, by_order_not_ser = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters) && wrong < 5; ++seed, ++checked) {
    RandomHistoryOptions o;
    o.times_percent = 100;
    o.si_engine_percent = 60;
    o.time_swap_percent = 20;
    o.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
    History h = random_history(seed, o);
    const int64_t skew = seed % 4 == 0 ? 5 : 0;
    const bool time_order = seed % 2 == 0;
    const SiReplay by_time = find_si_replay(h, time_order, skew, false);
    if (by_time.found()) continue;
    const SiReplay w = find_si_replay(h, time_order, skew);
    OracleVerdict ov = oracle_check(h, skew, time_order);
    si_missed_by_time += ov.si;
    if (!w.found()) continue;
    ++by_order;
    by_order_not_ser += !ov.ser;
    if (!ov.si) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << ": SI order replay (" << to_string(w.order) << (time_order ? ", --time-order" : "")
                    << ", clock skew " << skew << ") but the oracle says " << ov.describe() << "\n"
                    << history_jsonl(h);
    }
  }
  std::printf("[SiOrderReplaysAreSound] %d histories; SI but no time replay %d; an order replay found %d (%d not "
              "ser); wrong %d\n",
              checked, si_missed_by_time, by_order, by_order_not_ser, wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GE(by_order * 10, si_missed_by_time) << "the order replays were found for too few SI histories";
  EXPECT_GT(by_order_not_ser, 0) << "the order replays never decided a non-serializable SI history";
}

// The local search (solver/local_check.h) against the oracle: the serial
// witness on every history, so every history whose replay fails a read is
// first searched locally; the same histories with the search off.
TEST(Property, LocalisedAgreesWithOracle) {
  expect_known_order_agrees("LocalisedAgreesWithOracle", {true, true});
  RandomHistoryOptions o;
  o.mode = RandomMode::blind_writes;
  Tally t = run("LocalisedAgreesWithOracle", o, kKnownOrderIters / 2, false, {true, true});
  EXPECT_EQ(t.disagreements, 0);
  t = run("LocalisedAgreesWithOracle", swapped_times(RandomMode::blind_writes), kKnownOrderIters / 4, true, {true, true});
  EXPECT_EQ(t.disagreements, 0);
}

TEST(Property, NotLocalisedAgreesWithOracle) {
  expect_known_order_agrees("NotLocalisedAgreesWithOracle", {true, false});
}

// What the local search reports is a cycle of the whole graph: every level it
// finds violated is violated (oracle), and every edge of its witness is an
// edge build_known_graph gives the whole history — same transactions, kind
// and operation position — or a real-time edge the times show; the
// exceptions are the general engine's, as on the whole graph: an order it
// inferred (marked as such), and edges of a write order on a key whose
// version order the history does not show (a side of a constraint).
TEST(Property, LocalWitnessIsWholeGraphCycle) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", kKnownOrderIters / 2);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int searched = 0, found = 0, wrong = 0, engine_edges = 0;
  // Of those searched: violated, without anomalies (a region that shows one
  // is left to the whole graph) or transactions of unknown status.
  int clean_violations = 0, clean_found = 0;
  History h;
  DependencyGraph g;
  auto engine_order = [&](const EdgeList& c, size_t i) {
    if (c.kind[i] != EdgeKind::ww && c.kind[i] != EdgeKind::rw && c.kind[i] != EdgeKind::wr) return false;
    const TxnIdx t = c.kind[i] == EdgeKind::rw ? c.src[i] : c.dst[i];
    const Sym k = h.op_key[h.op_begin(t) + why_pos(c.why[i])];
    for (const UnorderedKey& uk : g.unordered)
      if (uk.key == k) return true;
    return false;
  };
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters) && wrong < 5; ++seed) {
    RandomHistoryOptions o;
    o.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
    o.min_txns = 4, o.max_txns = 8, o.max_keys = 5, o.max_sessions = 4;
    if (seed % 2) o.times_percent = 100;
    h = random_history(seed, o);
    const int64_t skew = seed % 4 == 0 ? 5 : 0;
    CheckOptions opt;
    opt.levels = {Level::ser, Level::si, Level::sser};
    opt.clock_skew = skew;
    SerialWitness sw = find_serial_witness(h, true);
    if (sw.found() || sw.failed_reads.empty()) continue;
    ++searched;
    LocalSearch ls = find_violations_locally(h, opt, sw.failed_reads);
    OracleVerdict ov = oracle_check(h, skew);
    g = build_known_graph(h, {true});
    const bool unknown = std::count(h.txn_status.begin(), h.txn_status.end(), TxnStatus::unknown) > 0;
    const bool clean = (!ov.ser || !ov.si || !ov.sser) && !unknown && g.anomalies.empty();
    clean_violations += clean;
    if (ls.violated.empty()) continue;
    ++found;
    clean_found += clean;
    std::map<std::tuple<uint32_t, uint32_t, EdgeKind, uint32_t>, int> edges;
    for (size_t e = 0; e < g.edges.size(); ++e) edges[{g.edges.src[e], g.edges.dst[e], g.edges.kind[e], g.edges.why[e]}] = 1;
    std::string bad;
    for (const LevelResult& lr : ls.violated) {
      const char* name = kLevelName[static_cast<int>(lr.level)];
      if (oracle_holds(ov, lr.level)) bad += std::string(name) + ": reported violated, the oracle says it holds\n";
      if (!lr.witness || lr.witness->cycle.size() == 0) {
        bad += std::string(name) + ": no witness cycle\n";
        continue;
      }
      const EdgeList& c = lr.witness->cycle;
      for (size_t i = 0; i < c.size(); ++i) {
        if (c.dst[i] != c.src[(i + 1) % c.size()]) bad += std::string(name) + ": the edges do not close a cycle\n";
        if (c.kind[i] == EdgeKind::rt) {
          if (!(h.has_times(c.src[i]) && h.has_times(c.dst[i]) && h.txn_end[c.src[i]] + skew < h.txn_begin[c.dst[i]]))
            bad += std::string(name) + ": rt edge " + std::to_string(c.src[i]) + "->" + std::to_string(c.dst[i]) +
                   " not in real-time order\n";
        } else if (!why_inferred(c.why[i]) && !edges.count({c.src[i], c.dst[i], c.kind[i], c.why[i]})) {
          if (engine_order(c, i)) {
            ++engine_edges;
            continue;
          }
          bad += std::string(name) + ": edge " + std::to_string(c.src[i]) + "->" + std::to_string(c.dst[i]) + " " +
                 to_string(c.kind[i]) + " at " + std::to_string(c.why[i]) + " is not an edge of the whole graph\n";
        }
      }
    }
    if (!bad.empty()) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << " (LocalWitnessIsWholeGraphCycle, clock_skew " << skew << ")\n"
                    << bad << "  oracle: " << ov.describe() << "\n" << history_jsonl(h);
    }
  }
  std::printf("[LocalWitnessIsWholeGraphCycle] %lld histories; replay failed on a read %d, %d of them violations "
              "without anomalies; violation found locally %d (%d of those); general-engine orders in witnesses %d; "
              "wrong %d\n", static_cast<long long>(iters), searched, clean_violations, found, clean_found, engine_edges,
              wrong);
  EXPECT_EQ(wrong, 0);
  // (a cycle on keys no transaction links to the failed reads' is not searched for)
  EXPECT_GE(clean_found * 20, clean_violations * 19) << "the local search found too few violations";
}


// The known graph's (key, value) -> writer join is partitioned by the hash of
// (key, value); how many partitions must not change the graph: one table for
// the whole history against one partition per write or so, on random
// histories with every per-transaction anomaly, lists, blind writes, aborted
// and unknown writers.
::testing::AssertionResult same_graph(const DependencyGraph& a, const DependencyGraph& b) {
  auto fail = [](const char* what) { return ::testing::AssertionFailure() << what << " differ"; };
  if (a.n != b.n || a.included != b.included) return fail("included transactions");
  if (a.edges.src != b.edges.src || a.edges.dst != b.edges.dst || a.edges.kind != b.edges.kind ||
      a.edges.why != b.edges.why)
    return fail("edges");
  if (a.edges_pass1_end != b.edges_pass1_end || a.edges_blind_end != b.edges_blind_end) return fail("edge phases");
  if (a.anomalies.size() != b.anomalies.size()) return fail("anomaly counts");
  for (size_t i = 0; i < a.anomalies.size(); ++i) {
    const Anomaly &x = a.anomalies[i], &y = b.anomalies[i];
    if (x.kind != y.kind || x.txn != y.txn || x.other != y.other || x.op != y.op || x.key != y.key || x.value != y.value)
      return fail("anomalies");
  }
  if (a.unordered.size() != b.unordered.size() || a.unordered_write_pairs != b.unordered_write_pairs ||
      a.chains.size() != b.chains.size())
    return fail("unordered keys");
  for (size_t i = 0; i < a.unordered.size(); ++i)
    if (a.unordered[i].key != b.unordered[i].key || a.unordered[i].si_only != b.unordered[i].si_only ||
        a.unordered[i].first_chain != b.unordered[i].first_chain || a.unordered[i].end_chain != b.unordered[i].end_chain)
      return fail("unordered keys");
  for (uint32_t c = 0; c < a.chains.size(); ++c) {
    const VersionChain x = a.chains.chain(c), y = b.chains.chain(c);
    auto eq = [](auto p, auto q) { return std::equal(p.begin(), p.end(), q.begin(), q.end()); };
    if (x.from_init != y.from_init || !eq(x.txns, y.txns) || !eq(x.write_pos, y.write_pos) ||
        !eq(x.readers_of_tail, y.readers_of_tail) || !eq(x.reader_pos, y.reader_pos))
      return fail("chains");
  }
  return ::testing::AssertionSuccess();
}

TEST(Property, JoinPartitionsDoNotChangeTheKnownGraph) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", 20000);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int wrong = 0, with_anomalies = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    RandomHistoryOptions o;
    o.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
    o.mutation_percent = 40;
    o.run_mutation_percent = 20;
    if (seed % 5 == 0) o.min_txns = 20, o.max_txns = 60, o.max_keys = 8, o.max_sessions = 6;
    const History h = random_history(seed, o);
    for (bool for_si : {false, true}) {
      KnownGraphOptions one, many;
      one.for_si = many.for_si = for_si;
      one.join_partition_writes = SIZE_MAX;  // a single partition
      many.join_partition_writes = 1;        // as many as there are writes (up to 4096)
      many.join_bucket_bits = static_cast<int>(seed % 3);  // each bucket split again (0: not scattered first)
      DependencyGraph a, b;
      try {
        a = build_known_graph(h, one);
      } catch (const InputError&) {
        EXPECT_THROW(build_known_graph(h, many), InputError) << "seed " << seed;
        continue;
      }
      b = build_known_graph(h, many);
      with_anomalies += !a.anomalies.empty() && !for_si;
      auto same = same_graph(a, b);
      if (!same) {
        ++wrong;
        ADD_FAILURE() << "seed " << seed << " for_si " << for_si << ": " << same.message() << "\n" << history_jsonl(h);
      }
    }
  }
  std::printf("[JoinPartitionsDoNotChangeTheKnownGraph] %lld histories, %d with anomalies, wrong %d\n",
              static_cast<long long>(iters), with_anomalies, wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(with_anomalies, iters / 20);
}

// Histories for the tests of the graph build: a quarter with blind writes,
// the rest read-modify-write and lists; every fifth larger.
RandomHistoryOptions mixed_graph_options(uint64_t seed) {
  RandomHistoryOptions o;
  o.mode = seed % 4 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
  if (seed % 5 == 0) o.min_txns = 20, o.max_txns = 60, o.max_keys = 8, o.max_sessions = 6;
  return o;
}

// Pass 2 (the RW edges) is skipped where pass 1 shows it would add nothing:
// the graph must be the one that running it gives, edge for edge.
TEST(Property, SkippingPass2ChangesNoEdge) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", 20000);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int wrong = 0, skipped = 0, with_anomalies = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    RandomHistoryOptions o = mixed_graph_options(seed);
    // Mostly histories without read-only transactions, where pass 2 has
    // nothing to add unless a mutation or an anomaly leaves a read open.
    if (seed % 3 != 0) o.final_reader_percent = 0;
    o.mutation_percent = 30;
    const History h = random_history(seed, o);
    for (bool for_si : {false, true}) {
      KnownGraphOptions skip, run;
      skip.for_si = run.for_si = for_si;
      run.always_pass2 = true;
      DependencyGraph a, b;
      try {
        a = build_known_graph(h, skip);
      } catch (const InputError&) {
        continue;
      }
      b = build_known_graph(h, run);
      EXPECT_FALSE(b.pass2_skipped);
      skipped += a.pass2_skipped;
      with_anomalies += a.pass2_skipped && !a.anomalies.empty();
      auto same = same_graph(a, b);
      if (!same) {
        ++wrong;
        ADD_FAILURE() << "seed " << seed << " for_si " << for_si << ": " << same.message() << "\n" << history_jsonl(h);
      }
    }
  }
  std::printf("[SkippingPass2ChangesNoEdge] %lld histories, pass 2 skipped %d times (%d with anomalies), wrong %d\n",
              static_cast<long long>(iters), skipped, with_anomalies, wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(skipped, iters / 4);
}

// Repeated (key, value) writes are reported in the order the writes were
// indexed before the join was partitioned: transactions in file order, each
// one's operations from last to first; the first write indexed owns the
// value, so reads of it resolve to that writer.
TEST(Property, DuplicateWritesKeepTheirOrderAcrossPartitions) {
  History h;
  const Sym x = h.keys.intern_int(1), y = h.keys.intern_int(2), z = h.keys.intern_int(3);
  const Sym one = h.values.intern_int(1), two = h.values.intern_int(2), nine = h.values.intern_int(9);
  h.session_name = {1, 2, 3};
  h.begin_txn(0, 0, TxnStatus::committed, kNoTime, kNoTime);
  h.add_op(OpKind::write, x, one);
  h.end_txn();
  h.begin_txn(1, 1, TxnStatus::committed, kNoTime, kNoTime);
  h.add_op(OpKind::write, x, one), h.add_op(OpKind::write, y, two), h.add_op(OpKind::write, x, one);
  h.end_txn();
  h.begin_txn(2, 2, TxnStatus::committed, kNoTime, kNoTime);
  h.add_op(OpKind::write, y, two), h.add_op(OpKind::read, x, one), h.add_op(OpKind::read, z, nine);
  h.end_txn();
  for (size_t per_partition : {size_t{0}, size_t{1}, SIZE_MAX})
    for (int bucket_bits : {0, 1, 8}) {
      KnownGraphOptions o;
      o.join_partition_writes = per_partition;
      o.join_bucket_bits = bucket_bits;
      const DependencyGraph g = build_known_graph(h, o);
      ASSERT_EQ(g.anomalies.size(), 4u);
      auto is = [&](size_t i, AnomalyKind k, TxnIdx t, TxnIdx other, uint32_t op) {
        const Anomaly& a = g.anomalies[i];
        return a.kind == k && a.txn == t && a.other == other && a.op == op;
      };
      EXPECT_TRUE(is(0, AnomalyKind::duplicate_write, 1, 0, 2)) << per_partition;
      EXPECT_TRUE(is(1, AnomalyKind::duplicate_write, 1, 0, 0)) << per_partition;
      EXPECT_TRUE(is(2, AnomalyKind::duplicate_write, 2, 1, 0)) << per_partition;
      EXPECT_TRUE(is(3, AnomalyKind::thin_air_read, 2, 2, 2)) << per_partition;
      // T2's read of x=1 names T0, the first writer of it.
      bool wr = false;
      for (size_t i = 0; i < g.edges.size(); ++i)
        wr |= g.edges.kind[i] == EdgeKind::wr && g.edges.src[i] == 0 && g.edges.dst[i] == 2 && g.edges.why[i] == 1;
      EXPECT_TRUE(wr) << per_partition;
    }
}


// SI's split graph is built straight into CSR; it must be the CSR of its
// (src, dst) pairs: each dependency edge mapped (non-RW a→b as a→b*, RW b→c
// as b*→c), then v*→v for every included v.
TEST(Property, SplitGraphCsrIsTheCsrOfItsPairs) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", 5000);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int wrong = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    RandomHistoryOptions o;
    if (seed % 4 == 0) o.min_txns = 20, o.max_txns = 80, o.max_keys = 8, o.max_sessions = 6;
    const History h = random_history(seed, o);
    DependencyGraph g;
    try {
      g = build_known_graph(h, {true});
    } catch (const InputError&) {
      continue;
    }
    std::vector<uint32_t> src, dst;
    for (size_t i = 0; i < g.edges.size(); ++i) {
      const bool rw = g.edges.kind[i] == EdgeKind::rw;
      src.push_back(rw ? g.n + g.edges.src[i] : g.edges.src[i]);
      dst.push_back(rw ? g.edges.dst[i] : g.n + g.edges.dst[i]);
    }
    for (uint32_t v = 0; v < g.n; ++v) if (g.included[v]) src.push_back(g.n + v), dst.push_back(v);
    const Csr want = csr_from_pairs(2 * g.n, src, dst);
    const LevelGraph got = si_graph(g);
    if (got.csr.offset != want.offset || got.csr.target != want.target || got.txn_count != g.n ||
        got.layout != GraphLayout::split) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << ": split graph CSR differs\n" << history_jsonl(h);
    }
  }
  EXPECT_EQ(wrong, 0);
}

// The proof of acyclicity from the file order (forward_in_file_order) never
// calls a graph with a cycle acyclic, for SER and for SI's split graph; and it
// does decide a good share of the histories (those whose file order is a
// serialization).
TEST(Property, FileOrderProofAgreesWithTheCycleSearch) {
  const int64_t iters = env_int("ISOCHECK_PROPERTY_ITERS", 20000);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int wrong = 0, proved = 0, acyclic = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    const History h = random_history(seed, mixed_graph_options(seed));
    DependencyGraph g;
    try {
      g = build_known_graph(h, {true});
    } catch (const InputError&) {
      continue;
    }
    const bool forward = forward_in_file_order(g);
    const bool ser_acyclic = find_cycle(ser_graph(g).csr, g.n).empty();
    const LevelGraph si = si_graph(g);
    const bool si_acyclic = find_cycle(si.csr, si.txn_count).empty();
    proved += forward;
    acyclic += ser_acyclic;
    if (forward && !(ser_acyclic && si_acyclic)) {
      ++wrong;
      ADD_FAILURE() << "seed " << seed << ": forward in file order, but a cycle\n" << history_jsonl(h);
    }
  }
  std::printf("[FileOrderProofAgreesWithTheCycleSearch] %lld histories, %d SER-acyclic, %d proved by file order, wrong %d\n",
              static_cast<long long>(iters), acyclic, proved, wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(proved, iters / 10);
  EXPECT_LT(proved, acyclic);  // some acyclic graphs need the search
}

}  // namespace
}  // namespace isocheck

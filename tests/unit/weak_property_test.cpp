// The weak levels (RU, RC, RA, CC, PC) against the exhaustive oracle's
// Biswas–Enea definitions on random small histories, each level decided on
// its own (no serial witness, no lattice shortcuts) and again with them; the
// oracle's own SER and SI by those axioms against oracle_check; and the
// lattice SER ⇒ SI ⇒ PC ⇒ CC ⇒ RA ⇒ RC ⇒ RU on every history, for check()
// and the oracle alike.
//
// Knobs (environment): ISOCHECK_WEAK_ITERS (histories per test), and
// ISOCHECK_PROPERTY_SEED (first seed, default 1).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "oracle/oracle.h"
#include "oracle/random_history.h"
#include "solver/check.h"

namespace isocheck {
namespace {

int64_t env_int(const char* name, int64_t def) {
  const char* s = std::getenv(name);
  return s && *s ? std::strtoll(s, nullptr, 10) : def;
}

// Weakest first: the lattice order.
constexpr Level kWeak[] = {Level::ru, Level::rc, Level::ra, Level::cc, Level::pc};

bool oracle_holds(const WeakOracleVerdict& v, Level l) {
  switch (l) {
    case Level::ru: return v.ru;
    case Level::rc: return v.rc;
    case Level::ra: return v.ra;
    case Level::cc: return v.cc;
    case Level::pc: return v.pc;
    case Level::si: return v.si;
    default: return v.ser;
  }
}

const LevelResult& result(const CheckResult& r, Level l) {
  for (const LevelResult& lr : r.levels)
    if (lr.level == l) return lr;
  throw std::logic_error("level missing");
}

struct Tally {
  int histories = 0, compared = 0, disagreements = 0, undecided = 0, not_monotone = 0;
  int holds[5] = {0, 0, 0, 0, 0};
};

std::string describe(const CheckResult& r) {
  std::string s;
  for (const LevelResult& lr : r.levels) {
    s += std::string("  ") + level_short(lr.level) + ": holds=" + std::to_string(lr.holds) +
         " decided=" + std::to_string(lr.decided);
    if (!lr.reason.empty()) s += " reason=\"" + lr.reason + "\"";
    if (lr.witness) s += " witness=" + lr.witness->anomaly;
    s += "\n";
  }
  return s;
}

Tally run(const char* test, const RandomHistoryOptions& o, int64_t default_iters) {
  Tally t;
  const int64_t iters = env_int("ISOCHECK_WEAK_ITERS", default_iters);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int reported = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    History h = random_history(seed, o);
    WeakOracleVerdict wv;
    OracleVerdict ov;
    try {
      wv = oracle_weak_check(h);
      ov = oracle_check(h);
    } catch (const std::invalid_argument&) {
      continue;  // too many included transactions for the oracle
    }
    ++t.histories;
    bool bad = false;
    std::string why;
    // The oracle's axioms against its own definitions of SER and SI.
    if (wv.ser != ov.ser || wv.si != ov.si) bad = true, why += "  oracle: axioms ser/si differ from oracle_check\n";
    // The oracle's lattice.
    for (size_t i = 0; i + 1 < std::size(kWeak); ++i)
      if (oracle_holds(wv, kWeak[i + 1]) && !oracle_holds(wv, kWeak[i])) bad = true, why += "  oracle: not monotone\n";
    if (wv.si && !wv.pc) bad = true, why += "  oracle: SI without PC\n";
    if (wv.ser && !wv.si) bad = true, why += "  oracle: SER without SI\n";

    CheckOptions alone;  // every level on its own engine
    alone.levels = {Level::ru, Level::rc, Level::ra, Level::cc, Level::pc, Level::si, Level::ser};
    alone.serial_witness = false;
    alone.lattice_shortcuts = false;
    CheckOptions quick;  // as the command line runs it (every 4th history)
    quick.levels = alone.levels;
    CheckResult ra = check(h, alone);
    for (size_t i = 0; i < std::size(kWeak); ++i) {
      const LevelResult& lr = result(ra, kWeak[i]);
      if (!lr.decided) { ++t.undecided; continue; }
      ++t.compared;
      t.holds[i] += lr.holds;
      if (lr.holds != oracle_holds(wv, kWeak[i]))
        bad = true, why += std::string("  alone: ") + level_short(kWeak[i]) + " differs from the oracle\n";
    }
    // check()'s lattice, every level decided on its own.
    Level order[] = {Level::ru, Level::rc, Level::ra, Level::cc, Level::pc, Level::si, Level::ser};
    for (size_t i = 0; i + 1 < std::size(order); ++i) {
      const LevelResult &weak = result(ra, order[i]), &strong = result(ra, order[i + 1]);
      if (weak.decided && strong.decided && strong.holds && !weak.holds) {
        ++t.not_monotone;
        bad = true, why += std::string("  alone: ") + level_short(order[i + 1]) + " holds but " + level_short(order[i]) + " does not\n";
      }
    }
    CheckResult rq;
    if (seed % 4 == 0) {
      rq = check(h, quick);
      for (Level l : kWeak) {
        const LevelResult& lr = result(rq, l);
        if (lr.decided && lr.holds != oracle_holds(wv, l))
          bad = true, why += std::string("  shortcuts: ") + level_short(l) + " differs from the oracle\n";
      }
    }
    if (bad) {
      ++t.disagreements;
      if (reported++ < 5)
        ADD_FAILURE() << test << " seed " << seed << " (rerun: ISOCHECK_PROPERTY_SEED=" << seed
                      << " ISOCHECK_WEAK_ITERS=1)\n"
                      << why << "  oracle: " << wv.describe() << " | " << ov.describe() << "\n"
                      << describe(ra) << (seed % 4 == 0 ? "  with shortcuts:\n" + describe(rq) : "") << history_jsonl(h);
    }
  }
  std::printf("%s: %d histories, %d level verdicts compared, %d undecided, %d disagreements; hold RU..PC: %d %d %d %d %d\n",
              test, t.histories, t.compared, t.undecided, t.disagreements, t.holds[0], t.holds[1], t.holds[2],
              t.holds[3], t.holds[4]);
  return t;
}

TEST(WeakProperty, KnownOrderAgreesWithOracle) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  Tally t = run("known-order", o, 20000);
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.not_monotone, 0);
  EXPECT_EQ(t.undecided, 0);  // no time budget runs out on histories this small
  EXPECT_GT(t.histories, 0);
  // The histories exercise every level both ways.
  for (int i = 0; i < 5; ++i) EXPECT_GT(t.holds[i], 0) << i;
  EXPECT_LT(t.holds[4], t.holds[0]);
}

TEST(WeakProperty, BlindWritesAgreeWithOracle) {
  RandomHistoryOptions o;
  o.mode = RandomMode::blind_writes;
  Tally t = run("blind-writes", o, 20000);
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.not_monotone, 0);
  EXPECT_EQ(t.undecided, 0);
  EXPECT_GT(t.histories, 0);
  EXPECT_LT(t.holds[4], t.holds[0]);
}

TEST(WeakProperty, PlantedRunsAgreeWithOracle) {
  // List reads that cut, split or reorder a writer's appends.
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.run_mutation_percent = 50;
  Tally t = run("list-runs", o, 4000);
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.not_monotone, 0);
}

}  // namespace
}  // namespace isocheck

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
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

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

// Histories of a replicated store with weak visibility: transactions commit
// in generation order; each one sees a set of earlier ones — any subset, or
// closed under its session, under causality, or a prefix of the commit order —
// and reads every key (register or list) as those visible writers left it,
// sometimes with a different set per key (a fractured view). It writes with
// read-modify-writes or blind writes of unique values. So RA, CC and PC are
// told apart far more often than in random_history()'s.
History replica_history(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 17);
  auto below = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto pct = [&](int p) { return below(100) < p; };
  const bool forks = pct(30);  // causal views, writers of one key each, readers of all keys: long forks
  const int n = forks ? 4 + below(4) : 2 + below(6), sessions = forks ? 3 + below(n - 2) : 1 + below(4), keys = forks ? 2 + below(2) : 1 + below(3);
  const bool lists = pct(35);
  History h;
  std::vector<std::vector<int>> writes(n);  // keys each one writes
  std::vector<std::vector<std::pair<int, int64_t>>> effect(n);  // (key, value) in order
  std::vector<uint32_t> vis(n, 0), so(n, 0);
  std::vector<int> sess(n);
  int64_t next = 1;
  for (int t = 0; t < n; ++t) {
    sess[t] = below(sessions);
    for (int j = 0; j < t; ++j)
      if (sess[j] == sess[t]) so[t] |= 1u << j;
    // 0 any subset, 1 + session, 2 + causality (most often: long forks), 3 prefix, 4 everything
    const int draw = forks ? 5 : below(10), shape = draw < 2 ? 0 : draw < 3 ? 1 : draw < 8 ? 2 : draw < 9 ? 3 : 4;
    uint32_t v = 0;
    for (int j = 0; j < t; ++j)
      if (pct(50)) v |= 1u << j;
    if (shape >= 1) v |= so[t];
    if (shape == 2)
      for (bool changed = true; changed;) {
        uint32_t x = v;
        for (int j = 0; j < t; ++j)
          if (v >> j & 1) x |= vis[j] | so[j];
        changed = x != v, v = x;
      }
    if (forks && 2 * t < n) v = so[t];  // the writers: nothing else seen, so nothing else caused
    if (shape == 3) v = t == 0 ? 0 : (1u << below(t + 1)) - 1;
    if (shape == 4) v = (1u << t) - 1;
    vis[t] = v;
    h.begin_txn(t + 1, static_cast<uint32_t>(sess[t]), TxnStatus::committed, kNoTime, kNoTime);
    auto state = [&](int k, uint32_t seen) {
      std::vector<Sym> st;
      for (int j = 0; j < t; ++j)
        if (seen >> j & 1)
          for (auto& [kk, val] : effect[j])
            if (kk == k) {
              if (!lists) st.clear();
              st.push_back(static_cast<Sym>(val));
            }
      return st;
    };
    const bool scan = forks ? 2 * t >= n : pct(30);  // reads every key, writes nothing
    const int actions = scan ? keys : forks ? 1 : 1 + below(3);
    for (int a = 0; a < actions; ++a) {
      const int k = scan ? a : below(keys);
      uint32_t seen = !forks && pct(20) ? v & static_cast<uint32_t>(rng()) : v;  // sometimes a fractured view
      const int what = scan ? 0 : forks ? 2 : below(3);  // 0 read, 1 read-modify-write, 2 blind write
      bool wrote = false;
      for (auto& e : effect[t]) wrote |= e.first == k;
      if (what <= 1 && !wrote) {
        std::vector<Sym> st = state(k, seen);
        if (lists) h.add_list_read(static_cast<Sym>(k), st);
        else h.add_op(OpKind::read, static_cast<Sym>(k), st.empty() ? kNullValue : st.back());
      }
      if (what >= 1) {
        int64_t val = next++;
        h.add_op(lists ? OpKind::append : OpKind::write, static_cast<Sym>(k), static_cast<Sym>(val));
        effect[t].push_back({k, val});
      }
    }
    h.end_txn();
  }
  for (int s = 0; s < sessions; ++s) h.session_name.push_back(s + 1);
  return h;
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

Tally run(const char* test, const RandomHistoryOptions& o, int64_t default_iters, bool replicas = false) {
  Tally t;
  const int64_t iters = env_int("ISOCHECK_WEAK_ITERS", default_iters);
  const uint64_t first = static_cast<uint64_t>(env_int("ISOCHECK_PROPERTY_SEED", 1));
  int reported = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(iters); ++seed) {
    History h = replicas ? replica_history(seed) : random_history(seed, o);
    WeakOracleVerdict wv;
    OracleVerdict ov;
    if (!oracle_every_level(h, ov, wv)) continue;  // too many included transactions for the oracle
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
    // PC alone, as the command line runs it without a serial witness: the
    // split graph of the known dependency graph where splitting keeps every
    // version order, the split history's serializability otherwise.
    CheckOptions pc_only;
    pc_only.levels = {Level::pc};
    pc_only.serial_witness = false;
    const CheckResult rp = check(h, pc_only);
    const LevelResult& pc = result(rp, Level::pc);
    if (pc.decided && pc.holds != wv.pc) bad = true, why += "  pc alone (linear split graph or split history) differs from the oracle\n";
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

// A run that found nothing wrong: no disagreement with the oracle, verdicts
// monotone along the lattice, and (`all_decided`) nothing undecided — no time
// budget runs out on histories this small.
void expect_agreed(const Tally& t, bool all_decided = true) {
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.not_monotone, 0);
  if (all_decided) {
    EXPECT_EQ(t.undecided, 0);
  }
}

TEST(WeakProperty, KnownOrderAgreesWithOracle) {
  Tally t = run("known-order", {.mode = RandomMode::known_order}, 20000);
  expect_agreed(t);
  EXPECT_GT(t.histories, 0);
  // The histories exercise every level both ways.
  for (int i = 0; i < 5; ++i) EXPECT_GT(t.holds[i], 0) << i;
  EXPECT_LT(t.holds[4], t.holds[0]);
}

TEST(WeakProperty, BlindWritesAgreeWithOracle) {
  Tally t = run("blind-writes", {.mode = RandomMode::blind_writes}, 20000);
  expect_agreed(t);
  EXPECT_GT(t.histories, 0);
  EXPECT_LT(t.holds[4], t.holds[0]);
}

TEST(WeakProperty, ReplicaHistoriesAgreeWithOracle) {
  Tally t = run("replicas", {}, 20000, true);
  expect_agreed(t);
  // Every step of the lattice is told apart many times.
  for (int i = 0; i + 1 < 5; ++i) EXPECT_GT(t.holds[i] - t.holds[i + 1], t.histories / 250) << i;
  EXPECT_GT(t.holds[4], t.histories / 10);
}

TEST(WeakProperty, PlantedRunsAgreeWithOracle) {
  // List reads that cut, split or reorder a writer's appends.
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.run_mutation_percent = 50;
  Tally t = run("list-runs", o, 4000);
  expect_agreed(t, false);
}

}  // namespace
}  // namespace isocheck

// The weak-level checker given the known graph (reads taken from its WR
// edges where the graph qualifies) decides RU, RC, RA and CC exactly as the
// checker that resolves every read itself: the same verdicts, reasons,
// preconditions and witness cycles, edge for edge. On random histories of
// both kinds (read-modify-write and lists; blind writes), with and without
// planted anomalies, on read-modify-write histories of generated size in
// file order, and on a graph not marked whole (as key shards assemble one).
//
// Knob (environment): ISOCHECK_WEAK_ITERS (histories per test).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "core/errors.h"
#include "graph/known_graph.h"
#include "oracle/random_history.h"
#include "solver/weak_levels.h"

namespace isocheck {
namespace {

int64_t iters(int64_t def) {
  const char* s = std::getenv("ISOCHECK_WEAK_ITERS");
  return s && *s ? std::strtoll(s, nullptr, 10) : def;
}

constexpr Level kLevels[] = {Level::ru, Level::rc, Level::ra, Level::cc};

std::string outcome_text(const WeakOutcome& o) {
  std::string s = std::string(o.holds ? "holds" : "fails") + (o.decided ? "" : " undecided") + " reason=\"" + o.reason + "\"";
  if (o.witness) {
    s += " witness=" + o.witness->anomaly + ":";
    const EdgeList& c = o.witness->cycle;
    for (size_t i = 0; i < c.size(); ++i)
      s += " " + std::to_string(c.src[i]) + "-" + std::to_string(static_cast<int>(c.kind[i])) + "/" + std::to_string(c.why[i]) +
           "->" + std::to_string(c.dst[i]);
  }
  return s;
}

// Every level by both checkers; true when they agree. `eligible`: the graph
// qualifies for taking the reads from it (no anomaly, registers only).
bool same_outcomes(const History& h, const DependencyGraph& g, std::string& diff, bool& eligible) {
  eligible = g.anomalies.empty();
  for (OpKind k : h.op_kind) eligible &= k == OpKind::read || k == OpKind::write;
  WeakChecker own(h, g.included), from_graph(h, g);
  bool same = true;
  for (Level l : kLevels) {
    const std::string a = own.precondition(l), b = from_graph.precondition(l);
    if (a != b) same = false, diff += std::string(to_string(l)) + " precondition: \"" + a + "\" vs \"" + b + "\"\n";
  }
  for (Level l : kLevels) {
    const std::string a = outcome_text(own.decide(l)), b = outcome_text(from_graph.decide(l));
    if (a != b) same = false, diff += std::string(to_string(l)) + ": " + a + "\n   vs " + b + "\n";
  }
  return same;
}

void run(const RandomHistoryOptions& o, int64_t n, int64_t& eligible_count) {
  int reported = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    History h = random_history(seed, o);
    DependencyGraph g;
    try {
      g = build_known_graph(h, {});
    } catch (const InputError&) {
      continue;
    }
    std::string diff;
    bool eligible = false;
    if (!same_outcomes(h, g, diff, eligible) && reported++ < 3)
      ADD_FAILURE() << "seed " << seed << "\n" << diff << history_jsonl(h);
    eligible_count += eligible;
  }
}

TEST(WeakGraphReads, KnownOrderHistoriesDecideAlike) {
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  int64_t eligible = 0;
  run(o, iters(6000), eligible);
  EXPECT_GT(eligible, 100);  // the graph's reads were taken many times
}

TEST(WeakGraphReads, BlindWriteHistoriesDecideAlike) {
  RandomHistoryOptions o;
  o.mode = RandomMode::blind_writes;
  int64_t eligible = 0;
  run(o, iters(6000), eligible);
  EXPECT_GT(eligible, 100);
}

TEST(WeakGraphReads, LargerHistoriesWithManySessionsDecideAlike) {
  // Enough sessions and writers for CC's row of every session's last writer
  // of a key, and reads of later transactions' writes now and then.
  RandomHistoryOptions o;
  o.mode = RandomMode::known_order;
  o.min_txns = 20, o.max_txns = 60, o.max_sessions = 12, o.max_keys = 4, o.max_actions = 3;
  int64_t eligible = 0;
  run(o, iters(1500), eligible);
  EXPECT_GT(eligible, 50);
}

// Read-modify-writes in file order over many sessions, with one planted
// stale read in some: CC's clock pass in transaction order, and violations
// found there, against the checker that resolves the reads itself.
History rmw_history(uint64_t seed, bool stale) {
  std::mt19937_64 rng(seed);
  History h;
  const int sessions = 16, keys = 6, txns = 400;
  for (int s = 0; s < sessions; ++s) h.session_name.push_back(s);
  std::vector<int64_t> latest(keys, 0);   // value of each key's last write (0: none)
  std::vector<int64_t> previous(keys, 0);  // the one before
  int64_t next = 1;
  const int stale_at = static_cast<int>(rng() % txns);
  for (int t = 0; t < txns; ++t) {
    h.begin_txn(t + 1, static_cast<uint32_t>(rng() % sessions), TxnStatus::committed, kNoTime, kNoTime);
    int k1 = static_cast<int>(rng() % keys), k2 = static_cast<int>(rng() % keys);
    if (k2 == k1) k2 = (k1 + 1) % keys;
    for (int k : {k1, k2}) {
      const Sym key = h.keys.intern_int(k);
      const int64_t seen = stale && t == stale_at && k == k1 ? previous[k] : latest[k];
      h.add_op(OpKind::read, key, seen ? h.values.intern_int(seen) : kNullValue);
      h.add_op(OpKind::write, key, h.values.intern_int(next));
      previous[k] = latest[k], latest[k] = next++;
    }
    h.end_txn();
  }
  return h;
}

TEST(WeakGraphReads, FileOrderReadModifyWritesDecideAlike) {
  int violated = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(iters(6000) / 50); ++seed) {
    for (bool stale : {false, true}) {
      History h = rmw_history(seed, stale);
      DependencyGraph g = build_known_graph(h, {});
      std::string diff;
      bool eligible = false;
      EXPECT_TRUE(same_outcomes(h, g, diff, eligible)) << "seed " << seed << " stale " << stale << "\n" << diff;
      WeakChecker c(h, g);
      violated += !c.decide(Level::cc).holds;
    }
  }
  EXPECT_GT(violated, 0);  // the planted stale reads are found
}

TEST(WeakGraphReads, AGraphNotBuiltWholeIsNotTrusted) {
  // A graph assembled elsewhere (key shards) says nothing of anomalies it did
  // not look for: two transactions writing x=1, the value a third read, is
  // still found though the graph's WR edges account for every read.
  History h;
  h.session_name = {0, 1, 2};
  const Sym x = h.keys.intern_int(1), one = h.values.intern_int(1);
  for (uint32_t s = 0; s < 2; ++s) {
    h.begin_txn(s + 1, s, TxnStatus::committed, kNoTime, kNoTime);
    h.add_op(OpKind::write, x, one);
    h.end_txn();
  }
  h.begin_txn(3, 2, TxnStatus::committed, kNoTime, kNoTime);
  h.add_op(OpKind::read, x, one);
  h.end_txn();
  DependencyGraph g = build_known_graph(h, {});
  ASSERT_FALSE(g.anomalies.empty());
  ASSERT_TRUE(g.whole_build);
  g.anomalies.clear();  // as a graph assembled without looking for them
  g.whole_build = false;
  WeakChecker c(h, g);
  EXPECT_NE(c.precondition(Level::rc).find("duplicate write"), std::string::npos) << c.precondition(Level::rc);
}

}  // namespace
}  // namespace isocheck

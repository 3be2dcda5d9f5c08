// Explanations: anomaly names as Elle classifies cycles, the levels each
// witness rules out, edge explanations in words, the SAT core, and the text,
// JSON, DOT and HTML renderings.
#include <gtest/gtest.h>

#include <sstream>

#include "io/jsonl.h"
#include "oracle/oracle.h"
#include "oracle/random_history.h"
#include "graph/known_graph.h"
#include "report/report.h"
#include "solver/check.h"
#include "solver/witness.h"
#include "core/text_escape.h"

using namespace isocheck;

namespace {

std::string T(int id, int session, const std::string& ops, const std::string& extra = "") {
  return "{\"id\":" + std::to_string(id) + ",\"session\":" + std::to_string(session) +
         ",\"status\":\"committed\"" + extra + ",\"ops\":[" + ops + "]}\n";
}

// A cycle over transactions 0..n-1 (edge i from i to i+1 mod n) with these
// kinds; `why` 0 unless given.
EdgeList cycle(std::vector<EdgeKind> kinds, std::vector<uint32_t> why = {}) {
  EdgeList e;
  for (size_t i = 0; i < kinds.size(); ++i)
    e.add(static_cast<uint32_t>(i), static_cast<uint32_t>((i + 1) % kinds.size()), kinds[i], why.empty() ? 0 : why[i]);
  return e;
}

// A history with n transactions, each writing key i and reading nothing: enough
// for name_cycle (which looks up the key of wr/ww/rw edges through `why` 0).
History txns(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += T(i + 1, i + 1, "[\"w\",\"k" + std::to_string(i) + "\"," + std::to_string(i) + "]");
  return parse_jsonl(s, "t.jsonl");
}

struct Outcome {
  History h;
  CheckResult r;
  std::string text, json, dot, html;
};

Outcome run(const std::string& jsonl, std::vector<Level> levels = {Level::ser, Level::si, Level::sser}) {
  Outcome x{parse_jsonl(jsonl, "t.jsonl"), {}, {}, {}, {}, {}};
  CheckOptions o;
  o.levels = levels;
  x.r = check(x.h, o);
  ReportContext ctx{"t.jsonl", 0, ""};
  std::ostringstream t, j, d, w;
  write_text(t, x.h, x.r, ctx);
  write_json(j, x.h, x.r, ctx);
  write_dot(d, x.h, x.r);
  write_html(w, x.h, x.r, ctx);
  x.text = t.str(), x.json = j.str(), x.dot = d.str(), x.html = w.str();
  return x;
}

const LevelResult& level(const CheckResult& r, Level l) {
  for (auto& x : r.levels) if (x.level == l) return x;
  throw std::logic_error("level not checked");
}

// x's SER result has a witness, named `anomaly`, whose weakest model ruled
// out is `weakest`.
testing::AssertionResult ser_witness_is(const Outcome& x, const std::string& anomaly, Model weakest) {
  const LevelResult& ser = level(x.r, Level::ser);
  if (!ser.witness) return testing::AssertionFailure() << "SER has no witness";
  if (ser.witness->anomaly != anomaly) return testing::AssertionFailure() << "the witness is " << ser.witness->anomaly;
  const Model m = weakest_ruled_out(x.h, ser, x.r);
  if (m != weakest)
    return testing::AssertionFailure() << "the weakest model ruled out is " << static_cast<int>(m) << ", not "
                                       << static_cast<int>(weakest);
  return testing::AssertionSuccess();
}

// Random small history `seed` of `mode` (tests/oracle), checked at SER, SI
// and SSER.
struct Checked {
  History h;
  CheckResult r;
};
Checked random_checked(RandomMode mode, uint64_t seed) {
  RandomHistoryOptions ro;
  ro.mode = mode;
  Checked c{random_history(seed, ro), {}};
  CheckOptions o;
  o.levels = {Level::ser, Level::si, Level::sser};
  c.r = check(c.h, o);
  return c;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

using K = EdgeKind;

}  // namespace

// Elle's cycle classification (elle.txn cycle-explainer): 1 rw -> G-single;
// more than one rw -> G2-item when two are adjacent, else G-nonadjacent; no rw
// -> G1c with a wr edge, else G0; "-realtime" when any real-time edge, else
// "-process" when any process (session) edge.
TEST(Names, FollowElle) {
  History h = txns(4);
  EXPECT_EQ(name_cycle(cycle({K::ww, K::ww}), h), "G0");
  EXPECT_EQ(name_cycle(cycle({K::ww, K::wr, K::ww}), h), "G1c");
  EXPECT_EQ(name_cycle(cycle({K::ww, K::so}), h), "G0-process");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::so, K::rt}), h), "G1c-realtime");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::wr, K::rw}), h), "G-single (causality violation)");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::so, K::rw}), h), "G-single-process (causality violation)");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::ww, K::rw}), h), "G-single (read skew)");
  EXPECT_EQ(name_cycle(cycle({K::rw, K::rw}), h), "G2-item (write skew)");
  EXPECT_EQ(name_cycle(cycle({K::rw, K::rw, K::wr}), h), "G2-item");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::rw, K::wr, K::rw}), h), "G-nonadjacent (long fork)");
  EXPECT_EQ(name_cycle(cycle({K::ww, K::rw, K::ww, K::rw}), h), "G-nonadjacent");
  EXPECT_EQ(name_cycle(cycle({K::rt, K::rw}), h), "G-single-realtime (stale read)");
  EXPECT_EQ(name_cycle(cycle({K::so, K::rw}), h), "G-single-process (read-your-writes violation)");
  EXPECT_EQ(name_cycle(cycle({K::wr, K::rw}), h), "G-single (fractured read)");
  EXPECT_EQ(name_cycle(cycle({K::rw, K::rw, K::so, K::rt}), h), "G2-item-realtime");
  EXPECT_EQ(name_cycle(cycle({K::rw, K::so, K::rw, K::so}), h), "G-nonadjacent-process");
  EXPECT_EQ(name_cycle(cycle({K::so, K::rt}), h), "session order contradicts real time");
}

TEST(RulesOut, FromTheCycleStructure) {
  auto w = [](std::vector<EdgeKind> k, std::vector<uint32_t> why = {}) { return weakest_ruled_out(cycle(k, why)); };
  EXPECT_EQ(w({K::ww, K::ww}), Model::read_uncommitted);               // G0
  EXPECT_EQ(w({K::ww, K::wr, K::so}), Model::read_committed);          // G1c-process
  // T1 -wr-> T2 -rw-> T1: T2 read from T1 (op 0), then an older version of a
  // key T1 wrote (op 1): the RC axiom forbids it; in the other order only RA.
  EXPECT_EQ(w({K::wr, K::rw}, {0, 1}), Model::read_committed);
  EXPECT_EQ(w({K::wr, K::rw}, {1, 0}), Model::read_atomic);
  EXPECT_EQ(w({K::so, K::rw}), Model::read_atomic);                    // read-your-writes
  EXPECT_EQ(w({K::wr, K::wr, K::rw}), Model::causal);                  // causality violation
  EXPECT_EQ(w({K::wr, K::rw, K::wr, K::rw}), Model::prefix);           // long fork
  EXPECT_EQ(w({K::ww, K::rw}), Model::snapshot_isolation);             // lost update
  EXPECT_EQ(w({K::ww, K::rw, K::ww, K::rw}), Model::snapshot_isolation);
  EXPECT_EQ(w({K::rw, K::rw}), Model::serializable);                   // write skew
  EXPECT_EQ(w({K::rt, K::rw}), Model::strict_serializable);            // stale read
  EXPECT_EQ(w({K::ww, K::rt}), Model::strict_serializable);
  EXPECT_EQ(weakest_ruled_out(AnomalyKind::aborted_read), Model::read_committed);
  EXPECT_EQ(weakest_ruled_out(AnomalyKind::nonrepeatable_read), Model::read_atomic);
  EXPECT_EQ(weakest_ruled_out(AnomalyKind::lost_update), Model::snapshot_isolation);
  EXPECT_EQ(rules_out_text(Model::prefix), "PC, SI, SER, SSER");
}

// The name table agrees with the structure on every named example.
TEST(RulesOut, ByName) {
  EXPECT_EQ(weakest_ruled_out(std::string("G0-process")), Model::read_uncommitted);
  EXPECT_EQ(weakest_ruled_out(std::string("G1c")), Model::read_committed);
  EXPECT_EQ(weakest_ruled_out(std::string("G-single (fractured read)")), Model::read_atomic);
  EXPECT_EQ(weakest_ruled_out(std::string("G-single")), Model::snapshot_isolation);
  EXPECT_EQ(weakest_ruled_out(std::string("G-nonadjacent (long fork)")), Model::prefix);
  EXPECT_EQ(weakest_ruled_out(std::string("G2-item (write skew)")), Model::serializable);
  EXPECT_EQ(weakest_ruled_out(std::string("G-single-realtime (stale read)")), Model::strict_serializable);
  EXPECT_EQ(weakest_ruled_out(std::string("session order contradicts real time")), Model::strict_serializable);
}

TEST(Explain, WriteSkewText) {
  Outcome x = run(T(1, 1, R"(["r","x",null],["r","y",null],["w","x",1])") +
              T(2, 2, R"(["r","x",null],["r","y",null],["w","y",2])"));
  EXPECT_TRUE(contains(x.text, "serializable: VIOLATED: G2-item (write skew)")) << x.text;
  EXPECT_TRUE(contains(x.text, "rules out: SER, SSER (not RU, RC, RA, CC, PC, SI")) << x.text;
  EXPECT_TRUE(contains(x.text, "T1 read y=null (the initial state), but T2's write y=2 is a later version of y: "
                               "T1 did not see it")) << x.text;
  EXPECT_TRUE(contains(x.json, R"("rules_out":["serializable","strict-serializable"])")) << x.json;
  EXPECT_TRUE(contains(x.text, "snapshot-isolation: holds")) << x.text;
}

TEST(Explain, ReadFromAndReadModifyWrite) {
  // T2 read x=5 from T1 and overwrote it (RMW); T3 read x=5 and y=7 from T2
  // after T2 had overwritten x: T3 sees half of T2 (fractured read).
  Outcome x = run(T(1, 1, R"(["w","x",5])") + T(2, 2, R"(["r","x",5],["w","x",6],["w","y",7])") +
              T(3, 3, R"(["r","y",7],["r","x",5])"));
  // T3 read y from T2 (op 0) before the stale read of x (op 1): even RC fails.
  ASSERT_TRUE(ser_witness_is(x, "G-single (fractured read)", Model::read_committed));
  EXPECT_TRUE(contains(x.text, "T3 read y=7 from T2 (T2 wrote it)")) << x.text;
  EXPECT_TRUE(contains(x.text, "T3 read x=5, but T2's write x=6 is a later version of x")) << x.text;
  const EdgeList& c = level(x.r, Level::ser).witness->cycle;
  EdgeList ww;
  ww.add(0, 1, EdgeKind::ww, 1);
  EXPECT_EQ(explain_edge(x.h, ww, 0), "T1 wrote x=5, T2 later overwrote it with x=6 (T2 read x=5 first: read-modify-write)");
  EXPECT_EQ(c.size(), 2u);
}

TEST(Explain, ListAppendAndRealTime) {
  Outcome x = run("{\"isocheck\":1,\"time_unit\":\"ms\"}\n" + T(1, 1, R"(["append","l",1])", R"(,"begin":0,"end":10)") +
              T(2, 2, R"(["r","l",[]])", R"(,"begin":20,"end":30)"));
  const LevelResult& sser = level(x.r, Level::sser);
  ASSERT_TRUE(sser.witness);
  EXPECT_EQ(sser.witness->anomaly, "G-single-realtime (stale read)");
  EXPECT_TRUE(contains(x.text, "T1 ended (at 10 ms) before T2 began (at 20 ms): real-time order")) << x.text;
  EXPECT_TRUE(contains(x.text, "T2 read l=[], but T1's append of 1 to l is a later version of l")) << x.text;
  EXPECT_TRUE(contains(x.text, "rules out: SSER (not RU, RC, RA, CC, PC, SI, SER")) << x.text;
  EdgeList wr;
  History h = parse_jsonl(T(1, 1, R"(["append","l",1])") + T(2, 1, R"(["append","l",2])") +
                          T(3, 2, R"(["r","l",[1,2]])"), "t.jsonl");
  wr.add(1, 2, EdgeKind::wr, 0);
  wr.add(0, 1, EdgeKind::ww, 0);
  EXPECT_EQ(explain_edge(h, wr, 0), "T3 read l=[1 2]: its last element, 2, was appended by T2");
  EXPECT_EQ(explain_edge(h, wr, 1), "T1 appended 1 to l, and T2 later appended 2 after it (the order of l's list)");
}

// dbcop's non_cc.yaml (shared corpus): T3 sees T2, which read T1, but not T1
// itself. The source says: a causal consistency violation that RC and RA allow.
TEST(Explain, CausalityViolationRulesOutCausalNotReadAtomic) {
  Outcome x = run(T(1, 1, R"(["w","x0",1])") + T(2, 2, R"(["r","x0",1],["w","x1",1])") +
                  T(3, 3, R"(["r","x0",null],["r","x1",1])"));
  ASSERT_TRUE(ser_witness_is(x, "G-single (causality violation)", Model::causal));
  EXPECT_TRUE(contains(x.text, "rules out: CC, PC, SI, SER, SSER (not RU, RC, RA;")) << x.text;
}

// The same shape, but T1's write of x is a blind write nobody read: SER and
// SI may place it after T0's version (any other place is a lost update for
// them), causal consistency may place it before. So CC is not ruled out.
TEST(Explain, UnreadBlindWriteLimitsTheClaimToSi) {
  Outcome x = run(T(10, 10, R"(["r","x",null],["w","x",7])") + T(1, 1, R"(["w","x",1],["w","y",1])") +
                  T(2, 2, R"(["r","y",1],["w","z",1])") + T(3, 3, R"(["r","z",1],["r","x",7])"));
  const LevelResult& ser = level(x.r, Level::ser);
  ASSERT_TRUE(ser.witness);
  EXPECT_EQ(weakest_ruled_out(ser.witness->cycle), Model::causal);  // by shape
  EXPECT_EQ(weakest_ruled_out(x.h, ser, x.r), Model::snapshot_isolation);
  EXPECT_FALSE(level(x.r, Level::si).holds);
}

TEST(Explain, RealTimeWithoutUnit) {
  History h = parse_jsonl(T(1, 1, R"(["w","x",1])", R"(,"begin":1,"end":14)") +
                          T(2, 2, R"(["r","x",null])", R"(,"begin":20,"end":30)"), "t.jsonl");
  EdgeList e;
  e.add(0, 1, EdgeKind::rt, 0);
  EXPECT_EQ(explain_edge(h, e, 0), "T1 ended before T2 began (end 14 < begin 20 in the history's time order): real-time order");
}

TEST(Explain, AnomaliesRuleOutLevels) {
  Outcome x = run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","x",null],["w","x",2])"));
  ASSERT_EQ(x.r.anomalies.size(), 1u);
  EXPECT_TRUE(contains(x.text, "[rules out SI, SER, SSER]")) << x.text;
  EXPECT_TRUE(contains(x.json, R"("rules_out":["snapshot-isolation","serializable","strict-serializable"])")) << x.json;
}

// Blind writes: T3 read x from T1 and y from T2, so either order of the two
// writers closes a cycle. Each pair's other order is forced while the
// polygraph is built, so the cycle rests on inferred orders: the report says so.
TEST(Explain, InferredOrdersAreMarked) {
  Outcome x = run(T(1, 1, R"(["w","x",1],["w","y",1])") + T(2, 2, R"(["w","x",2],["w","y",2])") +
                  T(3, 3, R"(["r","x",1],["r","y",2])"),
              {Level::ser});
  const LevelResult& ser = level(x.r, Level::ser);
  ASSERT_FALSE(ser.holds);
  ASSERT_TRUE(ser.witness);
  bool inferred = false;
  for (uint32_t w : ser.witness->cycle.why) inferred |= why_inferred(w);
  EXPECT_TRUE(inferred);
  EXPECT_TRUE(contains(x.text, "an order the checker inferred")) << x.text;
}

// Both orders of x's writers are impossible (T3 read x=1 but also y from T2;
// T4 read x=2 but also z from T1): the general engine refutes the history
// with a core naming that unknown order, which the report lists.
TEST(Explain, CoreOfAGeneralEngineRefutation) {
  Outcome x = run(T(1, 1, R"(["w","x",1],["w","z",1])") + T(2, 2, R"(["w","x",2],["w","y",2])") +
                  T(3, 3, R"(["r","x",1],["r","y",2])") + T(4, 4, R"(["r","x",2],["r","z",1])"),
              {Level::ser});
  const LevelResult& ser = level(x.r, Level::ser);
  ASSERT_FALSE(ser.holds);
  ASSERT_TRUE(ser.witness);
  ASSERT_FALSE(ser.witness->core.empty());
  // A core rests on a choice of version order: only the checked level and up.
  EXPECT_EQ(weakest_ruled_out(x.h, ser, x.r), Model::serializable);
  EXPECT_TRUE(contains(x.text, "unsatisfiable core: ")) << x.text;
  EXPECT_TRUE(contains(x.text, "the order of writes to x between the chain starting at T")) << x.text;
  EXPECT_TRUE(contains(x.text, ser.witness->core_minimal ? "(minimal" : "(not shown to be minimal)")) << x.text;
  EXPECT_TRUE(contains(x.json, "\"core\":[{\"key\":")) << x.json;
  EXPECT_TRUE(contains(x.json, "\"core_minimal\":")) << x.json;
  EXPECT_TRUE(contains(x.html, "Unsatisfiable core")) << x.html;
}

TEST(Render, DotAndHtml) {
  Outcome x = run(T(1, 1, R"(["r","x",null],["w","x",1])", R"(,"begin":0,"end":1)") +
              T(2, 2, R"(["r","y",null],["w","y",1])", R"(,"begin":0,"end":1)") +
              T(3, 3, R"(["r","x",1],["r","y",null])", R"(,"begin":2,"end":3)") +
              T(4, 4, R"(["r","x",null],["r","y",1])", R"(,"begin":2,"end":3)"));
  ASSERT_TRUE(level(x.r, Level::si).witness);
  EXPECT_EQ(level(x.r, Level::si).witness->anomaly, "G-nonadjacent (long fork)");
  EXPECT_TRUE(contains(x.dot, "digraph witness")) << x.dot;
  EXPECT_TRUE(contains(x.dot, "style=dashed")) << x.dot;
  EXPECT_TRUE(contains(x.dot, "color=\"#")) << x.dot;
  // HTML: self-contained (no script, no external resource), one SVG drawing
  // with a node per transaction of the cycle, every edge explained, and a row
  // per involved transaction.
  const std::string& w = x.html;
  EXPECT_EQ(w.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(contains(w, "<script"));
  EXPECT_FALSE(contains(w, "src=\""));
  EXPECT_FALSE(contains(w, "href=\"http"));
  EXPECT_TRUE(contains(w, "<svg"));
  EXPECT_TRUE(contains(w, "</html>"));
  size_t circles = 0, rows = 0;
  for (size_t p = 0; (p = w.find("<circle", p)) != std::string::npos; ++p) ++circles;
  for (size_t p = 0; (p = w.find("<tr><td id=\"t", p)) != std::string::npos; ++p) ++rows;
  EXPECT_EQ(circles, 4u + 2u);  // the long fork (SER = SI) and the SSER stale read
  EXPECT_EQ(rows, 4u);
  EXPECT_TRUE(contains(w, "r x 1; r y null")) << "ops of T3 tabulated";
  EXPECT_TRUE(contains(w, "T3 read x=1 from T1")) << w;
  EXPECT_TRUE(contains(w, "PC, SI, SER, SSER")) << w;
  // Markup in user strings is escaped.
  Outcome y = run(T(1, 1, R"(["r","<k>",null],["w","<k>",1])") + T(2, 2, R"(["r","<k>",null],["w","<k>",2])"));
  EXPECT_FALSE(contains(y.html, "<k>"));
  EXPECT_TRUE(contains(y.html, "&lt;k&gt;"));
}

TEST(Render, HoldsHasNoWitness) {
  Outcome x = run(T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 1, R"(["r","x",1],["w","x",2])"));
  EXPECT_EQ(exit_code(x.r), 0);
  EXPECT_TRUE(contains(x.html, "every requested level holds"));
  EXPECT_FALSE(contains(x.html, "<svg"));
  EXPECT_FALSE(contains(x.text, "rules out"));
}

// Random small histories (tests/oracle): every rendering works, every witness
// edge has an explanation, and what a witness is said to rule out among SER,
// SI, SSER agrees with the exhaustive oracle — a SER witness without two
// adjacent rw edges must mean SI fails too, an SSER witness without real-time
// edges must mean SER fails.
TEST(RulesOut, AgreesWithTheOracleOnRandomHistories) {
  size_t claims = 0, si_claims = 0, ser_claims = 0;
  for (RandomMode mode : {RandomMode::known_order, RandomMode::blind_writes}) {
    const uint64_t n = mode == RandomMode::known_order ? 3000 : 1500;
    for (uint64_t seed = 1; seed <= n; ++seed) {
      const auto [h, r] = random_checked(mode, seed);
      std::ostringstream t, j, d, w;
      ReportContext ctx{"r.jsonl", 0, ""};
      write_text(t, h, r, ctx), write_json(j, h, r, ctx), write_dot(d, h, r), write_html(w, h, r, ctx);
      ASSERT_FALSE(w.str().empty());
      if (!r.anomalies.empty()) continue;
      OracleVerdict v = oracle_check(h);
      for (const LevelResult& lr : r.levels) {
        if (!lr.witness) continue;
        const EdgeList& c = lr.witness->cycle;
        for (size_t i = 0; i < c.size(); ++i) ASSERT_FALSE(explain_edge(h, c, i).empty());
        Model m = weakest_ruled_out(h, lr, r);
        SCOPED_TRACE(std::string(to_string(lr.level)) + " " + lr.witness->anomaly + " seed " + std::to_string(seed) +
                     "\n" + history_jsonl(h));
        ++claims;
        EXPECT_FALSE(v.sser);
        if (m <= Model::serializable) {
          EXPECT_FALSE(v.ser);
          ++ser_claims;
        }
        if (m <= Model::snapshot_isolation) {
          EXPECT_FALSE(v.si);
          ++si_claims;
        }
      }
    }
  }
  std::printf("rules-out claims checked against the oracle: %zu (SER %zu, SI %zu)\n", claims, ser_claims, si_claims);
  EXPECT_GT(si_claims, 100u);
}

// One cycle, one claim: where several levels report the same cycle ("the same
// cycle as above"), every line and JSON's rules_out say the same. A blind-write
// write skew once showed "SER, SSER" on the serializable line and "SSER (not
// ... SER)" on the strict-serializable line below it.
TEST(RulesOut, TheSameCycleRulesOutTheSameOnEveryLine) {
  size_t shared = 0;
  for (RandomMode mode : {RandomMode::known_order, RandomMode::blind_writes}) {
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
      const auto [h, r] = random_checked(mode, seed);
      for (const LevelResult& a : r.levels)
        for (const LevelResult& b : r.levels) {
          if (&a == &b || !a.witness || !b.witness) continue;
          if (a.witness->cycle.src != b.witness->cycle.src || a.witness->cycle.kind != b.witness->cycle.kind) continue;
          ++shared;
          EXPECT_EQ(weakest_ruled_out(h, a, r), weakest_ruled_out(h, b, r))
              << to_string(a.level) << " vs " << to_string(b.level) << ", seed " << seed << "\n" << history_jsonl(h);
        }
    }
  }
  EXPECT_GT(shared, 100u);
}

// ======================================================================== inferred orders

// A fractured read with blind writes: T3 saw T1's x and T2's y. Each version
// order is inferred (the other order closes a cycle with T3's reads), and the
// cycle of the two inferred orders alone is G0. The report names what the
// clients saw and shows, for each inferred order, the observed cycle its other
// order would close.
TEST(InferredOrders, NamedByTheObservedCyclesThatForcedThem) {
  Outcome x = run(T(1, 1, R"(["w","x",1],["w","y",1])") + T(2, 2, R"(["w","x",2],["w","y",2])") +
                  T(3, 3, R"(["r","x",1],["r","y",2])"));
  for (const LevelResult& lr : x.r.levels) {
    ASSERT_TRUE(lr.witness) << to_string(lr.level);
    EXPECT_EQ(lr.witness->anomaly, "G-single (fractured read)") << to_string(lr.level);
    EXPECT_EQ(lr.witness->cycle_anomaly, "G0");
    ASSERT_EQ(lr.witness->forced.size(), 2u);
    for (const ForcedOrder& f : lr.witness->forced) {
      ASSERT_EQ(f.other_cycle.size(), 2u);
      EXPECT_EQ(f.other_cycle.kind[0], EdgeKind::rw);  // T3 would miss the later write
      EXPECT_EQ(f.other_cycle.kind[1], EdgeKind::wr);  // T3 read the other key from it
      EXPECT_EQ(f.anomaly, "G-single (fractured read)");
    }
  }
  EXPECT_TRUE(contains(x.text, "serializable: VIOLATED: G-single (fractured read) (what was observed forces")) << x.text;
  EXPECT_TRUE(contains(x.text, "by its own edges it is G0")) << x.text;
  EXPECT_TRUE(contains(x.text, "forced: the other order would be a cycle of what was observed, G-single (fractured read):"))
      << x.text;
  EXPECT_TRUE(contains(x.text, "T3 -rw-> T2: (the other order) T3 read x=1, but T2's write x=2 is a later version of x"))
      << x.text;
  EXPECT_TRUE(contains(x.json, R"("cycle_anomaly":"G0","forced":[{"edge":)")) << x.json;
}

// On random blind-write histories every explanation of an inferred order is
// sound: its cycle closes, its first edge is the other order of the inferred
// edge's writes (the same key, the two transactions' roles swapped), and every
// other edge is a certain edge of the dependency graph (what the history
// shows) — so the other order is impossible in every serialization.
TEST(InferredOrders, EveryExplanationIsACycleOfCertainEdges) {
  size_t explained = 0, renamed = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    const auto [h, r] = random_checked(RandomMode::blind_writes, seed);
    KnownGraphOptions ko;
    DependencyGraph g = build_known_graph(h, ko);
    auto certain = [&](const EdgeList& c, size_t e) {
      for (size_t i = 0; i < g.edges.size(); ++i)
        if (g.edges.src[i] == c.src[e] && g.edges.dst[i] == c.dst[e] && g.edges.kind[i] == c.kind[e] &&
            g.edges.why[i] == c.why[e])
          return true;
      // A read of the initial state precedes every write of its key.
      if (c.kind[e] != EdgeKind::rw) return false;
      const OpIdx rd = h.op_begin(c.src[e]) + why_pos(c.why[e]);
      if (h.op_kind[rd] != OpKind::read || h.op_value[rd] != kNullValue) return false;
      for (OpIdx o = h.op_begin(c.dst[e]); o < h.op_end(c.dst[e]); ++o)
        if (h.op_kind[o] == OpKind::write && h.op_key[o] == h.op_key[rd]) return true;
      return false;
    };
    auto key_of = [&](const EdgeList& c, size_t e) {
      TxnIdx t = c.kind[e] == EdgeKind::rw ? c.src[e] : c.dst[e];
      return h.op_key[h.op_begin(t) + why_pos(c.why[e])];
    };
    for (const LevelResult& lr : r.levels) {
      if (!lr.witness) continue;
      const Witness& w = *lr.witness;
      SCOPED_TRACE(std::string(to_string(lr.level)) + " seed " + std::to_string(seed) + "\n" + history_jsonl(h));
      size_t inferred = 0;
      for (size_t i = 0; i < w.cycle.size(); ++i) inferred += why_inferred(w.cycle.why[i]);
      EXPECT_LE(w.forced.size(), inferred);
      if (!w.cycle_anomaly.empty()) {  // renamed: only when every inferred order is explained
        EXPECT_EQ(w.forced.size(), inferred);
        EXPECT_NE(w.cycle_anomaly, w.anomaly);
        EXPECT_TRUE(std::any_of(w.forced.begin(), w.forced.end(), [&](const ForcedOrder& f) { return f.anomaly == w.anomaly; }));
      }
      if (w.forced.size() < inferred) { EXPECT_TRUE(w.cycle_anomaly.empty()); }
      for (const ForcedOrder& f : w.forced) {
        ++explained;
        const EdgeList& c = f.other_cycle;
        ASSERT_GE(c.size(), 2u);
        for (size_t e = 0; e < c.size(); ++e) EXPECT_EQ(c.dst[e], c.src[(e + 1) % c.size()]);
        ASSERT_LT(f.edge, w.cycle.size());
        EXPECT_TRUE(why_inferred(w.cycle.why[f.edge]));
        EXPECT_FALSE(why_inferred(c.why[0]));
        EXPECT_EQ(key_of(c, 0), key_of(w.cycle, f.edge));
        for (size_t e = 1; e < c.size(); ++e) EXPECT_TRUE(certain(c, e)) << "edge " << e;
        EXPECT_EQ(f.anomaly, name_cycle(c, h));
      }
      renamed += !w.cycle_anomaly.empty();
      if (lr.level == Level::si) {
        for (const ForcedOrder& f : w.forced)
          for (size_t e = 0; e < f.other_cycle.size(); ++e) {
            EXPECT_FALSE(f.other_cycle.kind[e] == EdgeKind::rw &&
                         f.other_cycle.kind[(e + 1) % f.other_cycle.size()] == EdgeKind::rw);
          }
      }
    }
  }
  std::printf("inferred orders explained: %zu, witnesses renamed: %zu\n", explained, renamed);
  EXPECT_GT(explained, 20u);
}

// ======================================================================== hostile names

// Keys and values are the user's: a newline, a carriage return or a quote in
// one must not end a report line, a DOT comment or a string and forge what
// follows, in any output format.
TEST(ReportEscaping, NamesCannotForgeLinesInAnyFormat) {
  const std::string kx = "x\\nserializable: holds\\n// }";   // JSON escapes: a key with newlines
  const std::string ky = "y\\r\\n}\\ndigraph evil {<script>";
  Outcome x = run("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"" + kx + "\",null],[\"r\",\"" + ky +
                  "\",null],[\"w\",\"" + kx + "\",\"v\\\"\\n\"]]}\n"
                  "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"" + kx + "\",null],[\"r\",\"" + ky +
                  "\",null],[\"w\",\"" + ky + "\",\"2\"]]}\n",
                  {Level::ser});
  ASSERT_FALSE(x.r.levels[0].holds);
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  };
  for (const std::string* out : {&x.text, &x.dot, &x.json}) EXPECT_EQ(out->find('\r'), std::string::npos) << *out;
  // Text: the verdict is the only verdict line; the key is shown escaped.
  for (const auto& l : lines(x.text)) {
    EXPECT_NE(l.rfind("serializable: holds", 0), 0u) << x.text;
    EXPECT_NE(l.rfind("digraph", 0), 0u) << x.text;
  }
  EXPECT_NE(x.text.find("serializable: VIOLATED"), std::string::npos) << x.text;
  EXPECT_NE(x.text.find("x\\nserializable: holds\\n// }"), std::string::npos) << x.text;
  EXPECT_NE(x.text.find("\"v\\\"\\n\""), std::string::npos) << x.text;  // a string value: quoted, escaped
  // DOT: one graph, every other line indented, one closing brace at the end.
  auto dl = lines(x.dot);
  ASSERT_GE(dl.size(), 3u);
  EXPECT_EQ(dl.front().rfind("digraph witness {", 0), 0u);
  EXPECT_EQ(dl.back(), "}");
  for (size_t i = 1; i + 1 < dl.size(); ++i) EXPECT_EQ(dl[i].rfind("  ", 0), 0u) << "line " << i << ":\n" << x.dot;
  EXPECT_NE(x.dot.find("  // "), std::string::npos) << x.dot;
  // JSON: no raw control character inside; the names escaped.
  for (char c : x.json) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << x.json;
  EXPECT_NE(x.json.find("\\ndigraph evil {<script>"), std::string::npos) << x.json;
  // HTML escapes markup.
  EXPECT_EQ(x.html.find("<script"), std::string::npos);
}

TEST(ReportEscaping, OneJsonEscaperAndAPrintableForm) {
  EXPECT_EQ(json_quoted(std::string("a\rb\n\t\"\\\x01\x1f\x7f", 10)), "\"a\\rb\\n\\t\\\"\\\\\\u0001\\u001f\x7f\"");
  EXPECT_EQ(printable(std::string("k\r\n\\\x02\x7f", 6)), "k\\r\\n\\\\\\x02\\x7f");
  EXPECT_EQ(one_line("a\\n\nb"), "a\\n\\x0ab");
  // The JSONL writer uses it: a key with \r and a quote reads back the same.
  History h = parse_jsonl("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"a\\r\\\"b\",\"c\\u0001\"]]}\n", "e.jsonl");
  std::ostringstream out;
  write_jsonl(h, out);
  EXPECT_NE(out.str().find("\"a\\r\\\"b\""), std::string::npos) << out.str();
  History back = parse_jsonl(out.str(), "back.jsonl");
  EXPECT_EQ(back.keys.text(back.op_key[0]), "a\r\"b");
  EXPECT_EQ(back.values.text(back.op_value[0]), "c\x01");
}

// DOT and HTML lead with the lattice like text and JSON: every level checked,
// weakest first, with its verdict and each failure's witness name; the
// strongest level that holds and the weakest violated.
namespace {
// A session writes x, then y; another session reads that y and the old x:
// RU, RC and RA hold, CC and everything above fail.
std::string causality_violation() {
  return T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 1, R"(["r","y",null],["w","y",1])") +
         T(3, 2, R"(["r","y",1],["r","x",null])");
}
std::vector<Level> all_levels() { return {std::begin(kAllLevels), std::end(kAllLevels)}; }
// The positions of `needles` in `hay`, which must appear in that order.
testing::AssertionResult in_order(const std::string& hay, const std::vector<std::string>& needles) {
  size_t at = 0;
  for (const std::string& n : needles) {
    size_t p = hay.find(n, at);
    if (p == std::string::npos) return testing::AssertionFailure() << "'" << n << "' missing after offset " << at;
    at = p + n.size();
  }
  return testing::AssertionSuccess();
}
}  // namespace

TEST(RenderLattice, HtmlTableOfLevelsBeforeTheVerdicts) {
  Outcome x = run(causality_violation(), all_levels());
  const std::string& w = x.html;
  EXPECT_TRUE(in_order(w, {"<h2>Lattice</h2>", "Strongest that holds: <strong>RA (read-atomic)</strong>",
                           "Weakest violated: <strong>CC (causal)</strong>: causality violation", "<h2>Verdicts</h2>"}))
      << w;
  EXPECT_TRUE(in_order(w, {"<table class=\"lattice\">",
                           "<tr><td>RU (read-uncommitted)</td><td><span class=\"holds\">holds</span></td><td></td></tr>",
                           "<tr><td>RC (read-committed)</td><td><span class=\"holds\">holds</span></td><td></td></tr>",
                           "<tr><td>RA (read-atomic)</td><td><span class=\"holds\">holds</span></td><td></td></tr>",
                           "<tr><td>CC (causal)</td><td><span class=\"violated\">violated</span></td><td>causality violation</td></tr>",
                           "<tr><td>PC (prefix)</td><td><span class=\"violated\">violated</span></td><td>",
                           "<tr><td>SI (snapshot-isolation)</td><td><span class=\"violated\">violated</span></td><td>" +
                               level(x.r, Level::si).witness->anomaly + "</td></tr>",
                           "<tr><td>SER (serializable)</td>", "<tr><td>SSER (strict-serializable)</td>", "</table>"}))
      << w;
}

TEST(RenderLattice, DotLegendNodeBeforeTheWitness) {
  Outcome x = run(causality_violation(), all_levels());
  const std::string& d = x.dot;
  EXPECT_TRUE(in_order(d, {"lattice [shape=note", "label=\"lattice (weakest first)\\nRU: holds\\nRC: holds\\nRA: holds"
                                                  "\\nCC: violated (causality violation)\\nPC: violated (",
                           "\\nstrongest that holds: RA\\nweakest violated: CC\"];", " -> "}))
      << d;
}

TEST(RenderLattice, NoneViolatedAndNoWeakLevel) {
  const std::string serial = T(1, 1, R"(["r","x",null],["w","x",1])") + T(2, 2, R"(["r","x",1],["w","x",2])");
  Outcome x = run(serial, all_levels());
  EXPECT_TRUE(contains(x.html, "Strongest that holds: <strong>SSER (strict-serializable)</strong>. Weakest violated: "
                               "<strong>none of those checked</strong>.</p>"))
      << x.html;
  EXPECT_TRUE(contains(x.dot, "\\nstrongest that holds: SSER\\nweakest violated: none of those checked\"")) << x.dot;
  // Without a weak level requested, no lattice (as in text and JSON).
  Outcome y = run(causality_violation());
  EXPECT_FALSE(contains(y.html, "<h2>Lattice</h2>"));
  EXPECT_FALSE(contains(y.dot, "lattice"));
  EXPECT_FALSE(contains(y.text, "lattice:"));
}

// ======================================================================== rules out, the whole lattice

namespace {

bool weak_oracle_holds(const WeakOracleVerdict& v, const OracleVerdict& o, Model m) {
  switch (m) {
    case Model::read_uncommitted: return v.ru;
    case Model::read_committed: return v.rc;
    case Model::read_atomic: return v.ra;
    case Model::causal: return v.cc;
    case Model::prefix: return v.pc;
    case Model::snapshot_isolation: return o.si;
    case Model::serializable: return o.ser;
    case Model::strict_serializable: return o.sser;
  }
  return true;
}

}  // namespace

// Every rules-out claim of a report — a witness's line, the line of a level
// failed by a per-transaction anomaly, each anomaly's own list — against the
// exhaustive oracles on random small histories, at every level of the
// lattice RU ⊂ RC ⊂ RA ⊂ CC ⊂ PC ⊂ SI ⊂ SER ⊂ SSER: each level a claim names
// must be one the oracle rejects, and never one the same report shows to
// hold. Checked with every level asked (`--level all`) and with SER, SI and
// SSER alone (no weak level's verdict to lean on).
TEST(RulesOut, EveryClaimOnTheLatticeAgreesWithTheOracles) {
  size_t claims[kModelCount] = {}, cycle_ru_claims = 0;  // the latter: G0 witnesses
  const std::vector<Level> all(std::begin(kAllLevels), std::end(kAllLevels));
  for (RandomMode mode : {RandomMode::known_order, RandomMode::blind_writes}) {
    for (uint64_t seed = 1; seed <= 2000; ++seed) {
      RandomHistoryOptions ro;
      ro.mode = mode;
      const History h = random_history(seed, ro);
      WeakOracleVerdict wv;
      OracleVerdict ov;
      if (!oracle_every_level(h, ov, wv)) continue;
      for (const std::vector<Level>& levels : {all, std::vector<Level>{Level::ser, Level::si, Level::sser}}) {
        CheckOptions o;
        o.levels = levels;
        const CheckResult r = check(h, o);
        std::vector<std::pair<std::string, Model>> said;  // (what, weakest ruled out)
        for (const LevelResult& lr : r.levels) {
          if (lr.witness) {
            const Model m = weakest_ruled_out(h, lr, r);
            said.push_back({std::string(to_string(lr.level)) + " " + lr.witness->anomaly, m});
            cycle_ru_claims += m == Model::read_uncommitted;
          } else if (const Anomaly* a = anomalies_failing(r, lr).first) {
            said.push_back({std::string(to_string(lr.level)) + " " + to_string(a->kind), weakest_ruled_out(a->kind)});
          }
        }
        for (const Anomaly& a : r.anomalies) said.push_back({std::string("anomaly ") + to_string(a.kind), weakest_ruled_out(a.kind)});
        for (const auto& [what, weakest] : said) {
          SCOPED_TRACE(what + ", " + std::to_string(levels.size()) + " levels asked, seed " + std::to_string(seed) + " " +
                       wv.describe() + " sser=" + std::to_string(ov.sser) + "\n" + history_jsonl(h));
          ++claims[static_cast<int>(weakest)];
          for (int m = static_cast<int>(weakest); m < kModelCount; ++m)
            EXPECT_FALSE(weak_oracle_holds(wv, ov, static_cast<Model>(m))) << "rules out " << model_short(static_cast<Model>(m));
          for (const LevelResult& lr : r.levels) {
            if (lr.decided && lr.holds && lr.level != Level::lin) {
              EXPECT_LT(static_cast<int>(model_of(lr.level)), static_cast<int>(weakest))
                  << to_string(lr.level) << " holds in the same report";
            }
          }
        }
      }
    }
  }
  std::printf("rules-out claims by weakest level ruled out:");
  for (int m = 0; m < kModelCount; ++m) std::printf(" %s %zu", model_short(static_cast<Model>(m)), claims[m]);
  std::printf(" (witnesses ruling out RU: %zu)\n", cycle_ru_claims);
  EXPECT_GT(cycle_ru_claims, 0u);
  for (Model m : {Model::read_uncommitted, Model::read_committed, Model::read_atomic, Model::causal, Model::prefix,
                  Model::snapshot_isolation, Model::serializable, Model::strict_serializable})
    EXPECT_GT(claims[static_cast<int>(m)], 0u) << model_short(m);
}

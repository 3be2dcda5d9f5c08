// Linearizability of lightweight-transaction histories (--level lin): hand-made
// cases, the validation of the history's shape, the report's witness, and a
// property test against the exhaustive oracle.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "core/errors.h"
#include "io/jsonl.h"
#include "oracle/lin_oracle.h"
#include "oracle/random_history.h"
#include "report/report.h"
#include "solver/check.h"
#include "solver/linearizability.h"

using namespace isocheck;

namespace {

History H(const std::string& jsonl) { return parse_jsonl(jsonl, "test.jsonl"); }

std::string txn(int id, const char* status, int64_t b, int64_t e, const std::string& ops) {
  return "{\"id\":" + std::to_string(id) + ",\"session\":" + std::to_string(id) + ",\"status\":\"" + status +
         "\",\"begin\":" + std::to_string(b) + ",\"end\":" + std::to_string(e) + ",\"ops\":" + ops + "}\n";
}

// A witness is a cycle of the history's transactions closed by one real-time
// edge that the times show (end + skew < begin); every other edge is what
// the values show: wr, dst read the value src wrote; rw, dst overwrote the
// version src read (both read one value, dst then wrote).
void expect_valid_witness(const History& h, const LevelResult& r, int64_t skew = 0) {
  ASSERT_TRUE(r.witness);
  const EdgeList& c = r.witness->cycle;
  ASSERT_GE(c.size(), 2u);
  int rt = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const TxnIdx s = c.src[i], d = c.dst[i];
    EXPECT_EQ(d, c.src[(i + 1) % c.size()]);
    const OpIdx sr = h.op_begin(s), dr = h.op_begin(d);
    switch (c.kind[i]) {
      case EdgeKind::rt:
        ++rt;
        EXPECT_LT(h.txn_end[s] + skew, h.txn_begin[d]);
        break;
      case EdgeKind::wr:
        ASSERT_EQ(h.op_end(s) - sr, 2u);
        EXPECT_EQ(h.op_key[dr], h.op_key[sr]);
        EXPECT_EQ(h.op_value[dr], h.op_value[sr + 1]);
        break;
      case EdgeKind::rw:
        ASSERT_EQ(h.op_end(d) - dr, 2u);
        EXPECT_EQ(h.op_key[dr], h.op_key[sr]);
        EXPECT_EQ(h.op_value[dr], h.op_value[sr]);
        break;
      default:
        ADD_FAILURE() << "edge kind " << to_string(c.kind[i]);
    }
  }
  EXPECT_EQ(rt, 1);
}

}  // namespace

TEST(Lin, StaleReadAfterACompletedCas) {
  History h = H(txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 20, 30, R"([["r","x",1],["w","x",2]])") +
                txn(3, "committed", 40, 50, R"([["r","x",1]])"));
  LevelResult r = check_linearizable(h);
  EXPECT_FALSE(r.holds);
  expect_valid_witness(h, r);
  EXPECT_EQ(r.witness->anomaly, "stale read");
  EXPECT_NE(r.reason.find("T2 (wrote x=2) ended at 30, before T3 (read x=1) began at 40"), std::string::npos) << r.reason;
  EXPECT_TRUE(lin_oracle(h) == r.holds);
}

TEST(Lin, CasChainAgainstRealTime) {
  // T2 read T1's value, so T1 comes first in x's chain, but T2 ended before T1 began.
  History h = H(txn(1, "committed", 20, 30, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 0, 10, R"([["r","x",1],["w","x",2]])"));
  LevelResult r = check_linearizable(h);
  EXPECT_FALSE(r.holds);
  expect_valid_witness(h, r);
  EXPECT_EQ(r.witness->anomaly, "compare-and-set chain against real time");
  EXPECT_FALSE(lin_oracle(h));
}

TEST(Lin, LongChainAgainstRealTimeGivesTheChainPath) {
  // w1 [10,11] -> w2 [0,100] -> w3 [0,5]: w3 ended before w1 began; no adjacent pair conflicts.
  History h = H(txn(1, "committed", 10, 11, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 0, 100, R"([["r","x",1],["w","x",2]])") +
                txn(3, "committed", 0, 5, R"([["r","x",2],["w","x",3]])"));
  LevelResult r = check_linearizable(h);
  ASSERT_FALSE(r.holds);
  expect_valid_witness(h, r);
  EXPECT_EQ(r.witness->cycle.size(), 3u);
  EXPECT_FALSE(lin_oracle(h));
}

TEST(Lin, ValidConcurrentHistoryHolds) {
  // Overlapping CAS, a failed CAS reading the old value while the CAS runs,
  // reads on two keys, an insert-if-absent that failed (read the inserted value).
  History h = H(txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 5, 30, R"([["r","x",1],["w","x",2]])") +
                txn(3, "committed", 6, 25, R"([["r","x",1]])") + txn(4, "committed", 12, 28, R"([["r","x",2]])") +
                txn(5, "committed", 0, 3, R"([["r","y",null],["w","y",7]])") +
                txn(6, "committed", 2, 9, R"([["r","y",7]])"));
  LevelResult r = check_linearizable(h);
  EXPECT_TRUE(r.holds) << r.reason;
  EXPECT_TRUE(lin_oracle(h));
  CheckOptions opt;
  opt.levels = {Level::ser, Level::lin};
  CheckResult cr = check(h, opt);
  ASSERT_EQ(cr.levels.size(), 2u);
  EXPECT_EQ(cr.levels[0].level, Level::ser);
  EXPECT_EQ(cr.levels[1].level, Level::lin);
  EXPECT_TRUE(cr.all_hold());
}

TEST(Lin, ReadOfAValueBeforeItsWriteBegan) {
  History h = H(txn(1, "committed", 0, 5, R"([["r","x",7]])") +
                txn(2, "committed", 10, 20, R"([["r","x",null],["w","x",7]])"));
  LevelResult r = check_linearizable(h);
  EXPECT_FALSE(r.holds);
  expect_valid_witness(h, r);
  EXPECT_EQ(r.witness->anomaly, "read of a future value");
}

TEST(Lin, StructuralViolationsAreExplained) {
  auto reason = [](const std::string& j) {
    LevelResult r = check_linearizable(H(j));
    EXPECT_FALSE(r.holds);
    EXPECT_FALSE(r.witness);
    return r.reason;
  };
  // Two inserts-if-absent both succeeded.
  EXPECT_NE(reason(txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                   txn(2, "committed", 0, 10, R"([["r","x",null],["w","x",2]])"))
                .find("two compare-and-sets succeeded on one version"),
            std::string::npos);
  EXPECT_NE(reason(txn(1, "committed", 0, 10, R"([["r","x",9]])")).find("thin-air"), std::string::npos);
  EXPECT_NE(reason(txn(1, "aborted", 0, 10, R"([["r","x",null],["w","x",1]])") +
                   txn(2, "committed", 20, 30, R"([["r","x",1]])"))
                .find("aborted read"),
            std::string::npos);
  // Writes reading one another in a cycle, never starting at the initial state.
  EXPECT_NE(reason(txn(1, "committed", 0, 10, R"([["r","x",2],["w","x",1]])") +
                   txn(2, "committed", 0, 10, R"([["r","x",1],["w","x",2]])"))
                .find("never reaches"),
            std::string::npos);
}

TEST(Lin, UnknownOutcomes) {
  // An unknown CAS whose value is read took effect; its client gave up at
  // its end, but it may take effect later, so a read of the old value after
  // that end is fine.
  std::string j = txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                  txn(2, "unknown", 20, 25, R"([["r","x",1],["w","x",2]])") +
                  txn(3, "committed", 30, 40, R"([["r","x",1]])") + txn(4, "committed", 50, 60, R"([["r","x",2]])");
  EXPECT_TRUE(check_linearizable(H(j)).holds);
  // An unknown CAS nobody observed is left out.
  std::string j2 = txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                   txn(2, "unknown", 20, 25, R"([["r","x",1],["w","x",2]])") + txn(3, "committed", 30, 40, R"([["r","x",1]])");
  size_t included = 0;
  EXPECT_TRUE(check_linearizable(H(j2), 0, &included).holds);
  EXPECT_EQ(included, 2u);
}

TEST(Lin, ClockSkewWidensTheMargin) {
  History h = H(txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 20, 30, R"([["r","x",1],["w","x",2]])") +
                txn(3, "committed", 40, 50, R"([["r","x",1]])"));
  EXPECT_FALSE(check_linearizable(h, 9).holds);
  EXPECT_TRUE(check_linearizable(h, 10).holds);
  EXPECT_EQ(lin_oracle(h, 10), true);
  // end + skew past 2^63 is no overflow: nothing precedes anything then.
  EXPECT_TRUE(check_linearizable(h, std::numeric_limits<int64_t>::max()).holds);
}

TEST(Lin, HistoriesThatAreNotLightweightTransactionsAreInputErrors) {
  auto error = [](const std::string& j) -> std::string {
    try {
      check_linearizable(H(j));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error(txn(4, "committed", 0, 1, R"([["r","x",null],["w","y",1]])")).find("transaction T4: touches two keys"),
            std::string::npos);
  EXPECT_NE(error(txn(4, "committed", 0, 1, R"([["r","x",null],["w","x",1],["w","x",2]])")).find("T4: has 3 operations"),
            std::string::npos);
  EXPECT_NE(error(txn(4, "committed", 0, 1, R"([["w","x",1]])")).find("T4: does not begin with a read"),
            std::string::npos);
  EXPECT_NE(error(txn(4, "committed", 0, 1, R"([["r","x",null],["r","x",null]])")).find("T4: reads twice"),
            std::string::npos);
  EXPECT_NE(error(txn(4, "committed", 0, 1, R"([["append","x",1]])")).find("T4: has an operation of kind"),
            std::string::npos);
  EXPECT_NE(error(txn(1, "committed", 0, 1, R"([["r","x",null],["w","x",1]])") +
                  txn(2, "aborted", 0, 1, R"([["r","x",1],["w","x",1]])"))
                .find("transaction T2: writes x=1, which T1 writes too"),
            std::string::npos);
  EXPECT_NE(error("{\"id\":5,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null]]}\n")
                .find("transaction T5: has no begin time"),
            std::string::npos);
}

TEST(Lin, ReportsNameTheLevelAndTheWitness) {
  History h = H(txn(1, "committed", 0, 10, R"([["r","x",null],["w","x",1]])") +
                txn(2, "committed", 20, 30, R"([["r","x",1],["w","x",2]])") +
                txn(3, "committed", 40, 50, R"([["r","x",1]])"));
  CheckOptions opt;
  opt.levels = {Level::lin};
  CheckResult r = check(h, opt);
  EXPECT_EQ(exit_code(r), 1);
  std::ostringstream text, json;
  write_text(text, h, r, {"h.jsonl"});
  write_json(json, h, r, {"h.jsonl"});
  EXPECT_NE(text.str().find("linearizable: VIOLATED: stale read"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("ended at 30, before T3 (read x=1) began at 40"), std::string::npos) << text.str();
  EXPECT_NE(json.str().find("\"level\":\"linearizable\""), std::string::npos);
  EXPECT_NE(json.str().find("\"anomaly\":\"stale read\""), std::string::npos);
}

// The linear check against the exhaustive oracle on random histories, a
// quarter of them with a clock skew.
TEST(Lin, AgreesWithTheOracleOnRandomHistories) {
  int disagreements = 0, violated = 0, with_witness = 0, in_words = 0;
  constexpr int kHistories = 20000;
  for (uint64_t seed = 1; seed <= kHistories; ++seed) {
    History h = random_lwt_history(seed);
    const int64_t skew = seed % 4 == 0 ? 3 : 0;
    LevelResult r = check_linearizable(h, skew);
    const bool want = lin_oracle(h, skew);
    violated += !want;
    if (r.holds != want) {
      if (++disagreements <= 3)
        ADD_FAILURE() << "seed " << seed << " skew " << skew << ": linear " << r.holds << " oracle " << want << " ("
                      << r.reason << ")\n" << history_jsonl(h);
    } else if (!r.holds && r.witness) {
      ++with_witness;
      expect_valid_witness(h, r, skew);
    } else if (!r.holds) {
      ++in_words;
      EXPECT_FALSE(r.reason.empty());
    }
  }
  EXPECT_EQ(disagreements, 0);
  // Both kinds of violation are common: real time against the chain (a
  // witness cycle) and a broken chain (said in words).
  EXPECT_GT(with_witness, kHistories / 20);
  EXPECT_GT(in_words, kHistories / 50);
  // Both verdicts are common.
  EXPECT_GT(violated, kHistories / 10);
  EXPECT_LT(violated, kHistories * 9 / 10);
}

// An attempt the database refused before it did anything (PostgreSQL's
// serialization failure: `collect --workload lwt` records it aborted, without
// operations and even without times) is left out like every aborted one; a
// committed or unknown transaction without operations is still an input error.
TEST(Lin, AbortedAttemptsWithoutOperationsAreLeftOut) {
  const std::string two = txn(1, "committed", 0, 1, R"([["r","x",null],["w","x",1]])") +
                          txn(3, "committed", 4, 5, R"([["r","x",1],["w","x",3]])");
  const LevelResult r = check_linearizable(
      H(two + txn(2, "aborted", 2, 3, "[]") + "{\"id\":4,\"session\":4,\"status\":\"aborted\",\"ops\":[]}\n"));
  EXPECT_TRUE(r.holds) << r.reason;
  try {
    check_linearizable(H(two + txn(2, "committed", 2, 3, "[]")));
    ADD_FAILURE() << "a committed transaction without operations was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("T2: has no operations"), std::string::npos) << e.what();
  }
}

// examples/: one minimal history per anomaly, with the expected verdicts in
// examples/EXPECTED.tsv (file, ser, si, sser, anomaly). The oracle and check()
// must both agree with the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/jsonl.h"
#include "oracle/oracle.h"
#include "solver/check.h"

namespace isocheck {
namespace {

const std::string kDir = std::string(ISOCHECK_SOURCE_DIR) + "/examples/";

struct Row {
  std::string file;
  bool ser, si, sser;
  std::string anomaly;
};

bool parse_verdict(const std::string& s) {
  if (s == "holds") return true;
  if (s != "violated") ADD_FAILURE() << "EXPECTED.tsv: verdict must be holds or violated, got \"" << s << "\"";
  return false;
}

std::vector<Row> expected() {
  std::ifstream in(kDir + "EXPECTED.tsv");
  EXPECT_TRUE(in) << "cannot read " << kDir << "EXPECTED.tsv";
  std::vector<Row> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      EXPECT_EQ(line, "file\tser\tsi\tsser\tanomaly");
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() != 5) {
      ADD_FAILURE() << "EXPECTED.tsv: 5 tab-separated columns expected: " << line;
      continue;
    }
    rows.push_back({f[0], parse_verdict(f[1]), parse_verdict(f[2]), parse_verdict(f[3]), f[4]});
  }
  return rows;
}

// Anomaly names of EXPECTED.tsv that are per-transaction anomalies.
const std::map<std::string, std::pair<std::string, AnomalyKind>>& per_txn() {
  static const std::map<std::string, std::pair<std::string, AnomalyKind>> m = {
      {"G1a", {"aborted_read", AnomalyKind::aborted_read}},
      {"G1b", {"intermediate_read", AnomalyKind::intermediate_read}},
      {"thin-air read", {"thin_air_read", AnomalyKind::thin_air_read}},
      {"internal inconsistency", {"internal_read", AnomalyKind::internal_read}},
      {"non-repeatable read", {"nonrepeatable_read", AnomalyKind::nonrepeatable_read}},
      {"duplicate write", {"duplicate_write", AnomalyKind::duplicate_write}},
  };
  return m;
}

// Whether a witness's anomaly ("G-single (fractured read)") carries `name`
// as its class or as its common name.
bool witness_names(const std::string& witness, const std::string& name) {
  const size_t open = witness.find(" (");
  const std::string cls = witness.substr(0, open);
  if (cls == name) return true;
  if (open == std::string::npos || witness.back() != ')') return false;
  return witness.substr(open + 2, witness.size() - open - 3) == name;
}

TEST(Examples, TableListsEveryFile) {
  std::set<std::string> listed, present;
  for (const Row& r : expected()) EXPECT_TRUE(listed.insert(r.file).second) << "listed twice: " << r.file;
  for (const auto& e : std::filesystem::directory_iterator(kDir))
    if (e.path().extension() == ".jsonl") present.insert(e.path().filename().string());
  EXPECT_EQ(listed, present);
  EXPECT_GE(listed.size(), 16u);
}

TEST(Examples, OracleAgrees) {
  for (const Row& r : expected()) {
    SCOPED_TRACE(r.file);
    OracleVerdict v = oracle_check(read_jsonl(kDir + r.file), 0);
    EXPECT_EQ(v.ser, r.ser) << v.describe();
    EXPECT_EQ(v.si, r.si) << v.describe();
    EXPECT_EQ(v.sser, r.sser) << v.describe();
    auto it = per_txn().find(r.anomaly);
    if (it != per_txn().end()) EXPECT_EQ(v.anomaly_kind, it->second.first) << v.describe();
    else EXPECT_FALSE(v.anomaly) << v.describe();
  }
}

TEST(Examples, CheckAgrees) {
  for (const Row& r : expected()) {
    SCOPED_TRACE(r.file);
    History h = read_jsonl(kDir + r.file);
    CheckOptions opt;
    opt.levels = {Level::ser, Level::si, Level::sser};
    CheckResult res = check(h, opt);
    ASSERT_EQ(res.levels.size(), 3u);
    {  // the dependency-graph path alone: the same verdicts
      CheckOptions graph = opt;
      graph.serial_witness = false;
      CheckResult g = check(h, graph);
      ASSERT_EQ(g.levels.size(), 3u);
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(g.levels[i].decided && g.levels[i].holds, res.levels[i].decided && res.levels[i].holds)
            << "graph path, " << to_string(g.levels[i].level);
    }
    const bool want[3] = {r.ser, r.si, r.sser};
    for (int i = 0; i < 3; ++i) {
      const LevelResult& lr = res.levels[i];
      EXPECT_TRUE(lr.decided) << to_string(lr.level) << ": " << lr.reason;
      EXPECT_EQ(lr.holds, want[i]) << to_string(lr.level);
    }
    if (r.anomaly == "-") {  // a serializable history: nothing to report
      EXPECT_TRUE(res.anomalies.empty()) << res.anomalies.size() << " anomalies reported";
      continue;
    }
    auto it = per_txn().find(r.anomaly);
    if (it != per_txn().end()) {
      bool found = false;
      for (const Anomaly& a : res.anomalies) found |= a.kind == it->second.second;
      EXPECT_TRUE(found) << "check() does not report " << it->second.first;
      continue;
    }
    if (r.anomaly == "lost update") {
      bool found = false;
      for (const Anomaly& a : res.anomalies) found |= a.kind == AnomalyKind::lost_update;
      EXPECT_TRUE(found) << "check() does not report the lost update";
      continue;
    }
    // A cycle anomaly: each violated level's witness names it, either as its
    // class ("G-single") or as the common name in brackets ("fractured read").
    int violated = 0;
    for (int i = 0; i < 3; ++i) {
      const LevelResult& lr = res.levels[i];
      if (lr.holds) continue;
      ++violated;
      ASSERT_TRUE(lr.witness) << to_string(lr.level) << ": no witness";
      EXPECT_TRUE(witness_names(lr.witness->anomaly, r.anomaly))
          << to_string(lr.level) << ": witness " << lr.witness->anomaly << ", table: " << r.anomaly;
    }
    EXPECT_GT(violated, 0) << "the table names " << r.anomaly << " but every level holds";
  }
}

}  // namespace
}  // namespace isocheck

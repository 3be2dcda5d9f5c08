// The third-party corpus (../shared/corpus, described file by file in its
// SOURCES.md): every file is imported, its structure checked against the
// counts SOURCES.md states, and every file with a stated verdict is checked at
// the level its source names. A summary line per tool says how many files
// match, how many differ by design, and which are still undecided (histories
// with blind writes need the general engine; they become asserts once it
// lands: check() then returns decided=true for them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "io/import.h"
#include "solver/check.h"

using namespace isocheck;
namespace fs = std::filesystem;

namespace {

enum class Expect { holds, fails };

struct Verdict {
  Level level;
  Expect expect;
};

struct Entry {
  const char* tool;   // summary group
  const char* path;   // relative to the corpus; a folder for Cobra
  Format format;      // what sniff_format must say
  size_t txns;        // transactions after import
  size_t committed;   // of which committed
  std::vector<Verdict> verdicts;  // empty: no stated verdict (import only)
  const char* source;             // where the verdict comes from (SOURCES.md)
  // Set when isocheck deliberately disagrees with the source: the anomaly
  // isocheck reports instead, and why.
  std::optional<AnomalyKind> by_design = std::nullopt;
  const char* by_design_why = "";
};

const std::vector<Entry>& corpus() {
  static const std::vector<Entry> e = {
      // ---------------------------------------------------------------- elle
      {"elle", "elle/histories/si-without-g-single.edn", Format::elle_edn, 4, 4,
       {{Level::si, Expect::holds}, {Level::ser, Expect::fails}},
       "list_append_test.clj intermediate-sequential-extension-test: valid SI, G2-item (not repeatable-read)"},
      // 10254 = 3036 :ok + 7070 :fail + 148 client :info (the other 94 :info are nemesis ops, skipped).
      {"elle", "elle/histories/huge-scc.edn", Format::elle_edn, 10254, 3036,
       {{Level::sser, Expect::fails}},
       "list_append_test.clj huge-scc-test: G2-item-realtime, not strong-snapshot-isolation"},
      // ---------------------------------------------------------------- elle-cli
      {"elle-cli", "elle-cli/histories/elle/paper-example.edn", Format::elle_edn, 4, 4,
       {{Level::sser, Expect::fails}}, "elle-cli test.sh: run_test 1 (default strict-serializable)"},
      {"elle-cli", "elle-cli/histories/elle/paper-example.json", Format::elle_json, 4, 4,
       {{Level::sser, Expect::fails}}, "elle-cli test.sh: run_test 1"},
      {"elle-cli", "elle-cli/histories/elle/list-append-gh-30.edn", Format::elle_edn, 5, 5,
       {{Level::ser, Expect::fails}}, "elle-cli test.sh: run_test 1 --consistency-models serializable"},
      // Elle accepts these; isocheck reports the read of x=3, a value no
      // transaction wrote (docs/architecture.md: a thin-air read is evidence that makes
      // every level fail).
      {"elle-cli", "elle-cli/histories/elle/rw-register.edn", Format::elle_edn, 3, 3,
       {{Level::sser, Expect::holds}}, "elle-cli test.sh: run_test 0", AnomalyKind::thin_air_read,
       "reads x=3, which no transaction wrote"},
      {"elle-cli", "elle-cli/histories/elle/rw-register.json", Format::elle_json, 3, 3,
       {{Level::sser, Expect::holds}}, "elle-cli test.sh: run_test 0", AnomalyKind::thin_air_read,
       "reads x=3, which no transaction wrote"},
      // ---------------------------------------------------------------- polysi
      {"polysi", "polysi/violations/galera/galera.txt", Format::polysi, 7, 7, {{Level::si, Expect::fails}},
       "PolySI README (REJECT) and tech report 5.3: lost update"},
      {"polysi", "polysi/violations/yugabyte/yugabyte.txt", Format::polysi, 20, 20, {{Level::si, Expect::fails}},
       "PolySI tech report 5.2.2, Table 2, D.2"},
      {"polysi", "polysi/violations/dgraph/history.bincode", Format::dbcop, 800, 480, {{Level::si, Expect::fails}},
       "PolySI tech report 5.2.2, D.1"},
      {"polysi", "polysi/fig7/20_10_15_10000_0.5_uniform/hist-00000/history.bincode", Format::dbcop, 200, 200,
       {{Level::si, Expect::holds}}, "PolySI tech report 5.1.2/5.4.1: PostgreSQL REPEATABLE READ histories are SI"},
      {"polysi", "polysi/fig7/20_100_15_1000_0.5_uniform/hist-00000/history.bincode", Format::dbcop, 2000, 2000,
       {{Level::si, Expect::holds}}, "PolySI tech report 5.1.2/5.4.1"},
      // ---------------------------------------------------------------- cobra
      // Eight reads name writes (txns 0x100016..) whose logs were not
      // published: isocheck sees thin-air reads, which also reject SER.
      {"cobra", "cobra/ser-violation/cock-blog", Format::cobra, 21, 21, {{Level::ser, Expect::fails}},
       "CobraVerifier reproduce_results.md 2 (ser-violation)"},
      {"cobra", "cobra/ser-violation/cock-G2", Format::cobra, 446, 446, {{Level::ser, Expect::fails}},
       "CobraVerifier reproduce_results.md 2, folder name G2"},
      {"cobra", "cobra/ser-violation/yuga-G2-b", Format::cobra, 26994, 26994, {{Level::ser, Expect::fails}},
       "CobraVerifier reproduce_results.md 2, folder name G2"},
      {"cobra", "cobra/bsl/raw/chengRW-200", Format::cobra, 194, 194, {{Level::ser, Expect::holds}},
       "implicit: baseline-comparison input"},
      {"cobra", "cobra/one-shot-10k/rubis-10000", Format::cobra, 9358, 9358,
       {{Level::ser, Expect::holds}, {Level::si, Expect::holds}}, "PolySI tech report 5.1.1: serializable benchmarks"},
      // ---------------------------------------------------------------- isovista
      {"isovista", "isovista/history/bugs/dgraph_si.txt", Format::polysi, 481, 481, {{Level::si, Expect::fails}},
       "IsoVista docs/use-cases.md: SI bugs collected on Dgraph"},
      // 21 in the file; the initial transaction (only writes of 0) is the initial state.
      {"isovista", "isovista/history/bugs/yugabyte_tcc.txt", Format::polysi, 20, 20, {{Level::si, Expect::fails}},
       "name only (_tcc): a causal violation, so not SI either"},
      {"isovista", "isovista/history/bugs/pg_ser_bug.txt", Format::polysi, 20, 20, {{Level::ser, Expect::fails}},
       "name only"},
      {"isovista", "isovista/src/test/java/resources/sample_history.txt", Format::polysi, 1000, 1000, {},
       "no verdict: parse and round-trip tests only"},
      // ---------------------------------------------------------------- dbcop
      {"dbcop", "dbcop/histories/yaml/non_cc.yaml", Format::dbcop, 3, 3,
       {{Level::si, Expect::fails}, {Level::ser, Expect::fails}}, "name only (non_cc): causal violation"},
  };
  return e;
}

fs::path corpus_dir() {
  if (const char* env = std::getenv("ISOCHECK_CORPUS")) return env;
  return fs::path(ISOCHECK_SOURCE_DIR) / ".." / "shared" / "corpus";
}

struct Tally {
  size_t files = 0, with_verdict = 0, matching = 0, by_design = 0;
  std::vector<std::string> undecided;
};

}  // namespace

TEST(Corpus, EveryFileIsListed) {
  fs::path dir = corpus_dir();
  if (!fs::exists(dir / "SOURCES.md")) GTEST_SKIP() << "corpus not found at " << dir << " (set ISOCHECK_CORPUS)";
  std::set<std::string> listed;
  for (const auto& e : corpus()) listed.insert(e.path);
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    std::string rel = fs::relative(f.path(), dir).generic_string();
    if (rel == "SOURCES.md") continue;
    std::string folder = fs::relative(f.path().parent_path(), dir).generic_string();
    EXPECT_TRUE(listed.count(rel) || listed.count(folder)) << rel << " is in the corpus but not in corpus_test.cpp";
  }
}

TEST(Corpus, ImportAndVerdicts) {
  fs::path dir = corpus_dir();
  if (!fs::exists(dir / "SOURCES.md")) GTEST_SKIP() << "corpus not found at " << dir << " (set ISOCHECK_CORPUS)";
  std::map<std::string, Tally> tally;
  for (const Entry& e : corpus()) {
    SCOPED_TRACE(e.path);
    std::string path = (dir / e.path).string();
    Tally& t = tally[e.tool];
    ++t.files;
    ASSERT_EQ(sniff_format(path), e.format);
    ImportStats st;
    History h = import_history(path, e.format, &st);
    EXPECT_EQ(h.txn_count(), e.txns);
    size_t committed = 0;
    for (auto s : h.txn_status) committed += s == TxnStatus::committed;
    EXPECT_EQ(committed, e.committed);
    EXPECT_EQ(st.txns, h.txn_count());
    if (e.verdicts.empty()) continue;
    ++t.with_verdict;

    CheckOptions opt;
    opt.levels.clear();
    for (const auto& v : e.verdicts) opt.levels.push_back(v.level);
    CheckResult r = check(h, opt);
    ASSERT_EQ(r.levels.size(), e.verdicts.size());
    {  // the dependency-graph path alone reaches the same verdicts
      CheckOptions graph = opt;
      graph.serial_witness = false;
      CheckResult g = check(h, graph);
      ASSERT_EQ(g.levels.size(), r.levels.size());
      for (size_t i = 0; i < g.levels.size(); ++i)
        EXPECT_EQ(g.levels[i].decided && g.levels[i].holds, r.levels[i].decided && r.levels[i].holds)
            << "graph path, " << to_string(g.levels[i].level);
    }
    bool all_decided = true, all_match = true;
    for (size_t i = 0; i < e.verdicts.size(); ++i) {
      const LevelResult& lr = r.levels[i];
      EXPECT_EQ(lr.level, e.verdicts[i].level);
      if (!lr.decided) {
        all_decided = false;
        continue;
      }
      bool want_holds = e.verdicts[i].expect == Expect::holds;
      if (e.by_design) {
        // isocheck is stricter than the source here: it must reject, naming the anomaly.
        EXPECT_FALSE(lr.holds) << "by design: " << e.by_design_why;
        all_match = false;
      } else {
        EXPECT_EQ(lr.holds, want_holds) << to_string(lr.level) << " (source: " << e.source << ")";
        all_match &= lr.holds == want_holds;
      }
    }
    if (e.by_design) {
      bool found = false;
      for (const auto& a : r.anomalies) found |= a.kind == *e.by_design;
      EXPECT_TRUE(found) << "expected anomaly " << to_string(*e.by_design) << ": " << e.by_design_why;
      ++t.by_design;
    } else if (!all_decided) {
      std::string why;
      for (const auto& lr : r.levels)
        if (!lr.decided) why = lr.reason;
      t.undecided.push_back(std::string(e.path) + " [" + why + "]");
    } else if (all_match) {
      ++t.matching;
    }
  }
  for (const auto& [tool, t] : tally) {
    std::printf("corpus %-9s files %zu, with verdict %zu: matching %zu, different by design %zu, undecided %zu\n",
                tool.c_str(), t.files, t.with_verdict, t.matching, t.by_design, t.undecided.size());
    for (const auto& u : t.undecided) std::printf("  undecided: %s\n", u.c_str());
    // The general engine decides every corpus history: an undecided one is a regression.
    EXPECT_TRUE(t.undecided.empty()) << tool << ": " << t.undecided.size() << " undecided";
  }
}

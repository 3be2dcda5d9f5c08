// The audit reads every input format in rounds: its verdicts on random logs
// written as Elle EDN and elle-cli JSON equal verify's (check() on the whole
// file as the importer reads it), and an anomaly whose overwritten version
// was written 99 % of the log earlier is reported from JSONL, HDF5, EDN and
// elle-cli JSON alike.
//
// ISOCHECK_AUDIT_ITERS scales the random part (default below).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "common/audit_verdicts.h"
#include "common/elle_writer.h"
#include "common/temp_files.h"
#include "io/hdf5.h"
#include "io/jsonl.h"
#include "io/load.h"
#include "oracle/random_history.h"
#include "solver/check.h"

namespace isocheck {
namespace {

struct TempDir : testkit::ScopedTempDir {
  TempDir() : ScopedTempDir("isocheck-audit-formats-test-") {}
};

int64_t env_int(const char* name, int64_t def) {
  const char* s = std::getenv(name);
  return s && *s ? std::strtoll(s, nullptr, 10) : def;
}

// verify: the whole file as load_history reads it, checked at once.
std::vector<std::string> verified(const std::string& file, const std::vector<Level>& levels) {
  CheckOptions o;
  o.levels = levels;
  CheckResult r = check(load_history(file), o);
  return testkit::level_verdicts(r, levels);
}

using testkit::audited;

// What the random-log comparisons below counted.
struct Tally {
  int logs = 0, compared = 0, forgot = 0, violated = 0;
};

// `file` (the log h, in whatever format) audited in rounds of 1, 2, 3, 5 and
// 8 against verify's verdicts (ser, si, sser under the fence rule when
// fenced, else sser alone); a log verify leaves undecided is skipped.
// `what` names the log in a failure.
::testing::AssertionResult audit_rounds_equal_verify(const std::string& file, bool fenced, Tally& t,
                                                     const std::string& what) {
  const std::vector<Level> levels = fenced ? std::vector<Level>{Level::ser, Level::si, Level::sser}
                                           : std::vector<Level>{Level::sser};
  const auto want = verified(file, levels);
  for (auto& v : want)
    if (v == "undecided") return ::testing::AssertionSuccess();
  ++t.logs;
  for (auto& v : want) t.violated += v == "violated";
  for (uint64_t round : {1, 2, 3, 5, 8}) {
    AuditResult r;
    const auto got = audited(file, levels, round, fenced ? "fence" : "auto", &r);
    ++t.compared;
    t.forgot += r.forgotten > 0;
    if (got != want) return ::testing::AssertionFailure() << what << " round " << round;
  }
  return ::testing::AssertionSuccess();
}

// Random logs (the audit tests' fenced and timed families) as EDN and as
// elle-cli JSON, in rounds of 1, 2, 3, 5 and 8 transactions.
TEST(AuditFormats, RandomElleLogsEqualVerify) {
  TempDir d;
  const int iters = static_cast<int>(env_int("ISOCHECK_AUDIT_ITERS", 600)) / 3;
  Tally t;
  for (int i = 0; i < iters; ++i) {
    RandomHistoryOptions o = testkit::small_fenced_options(i);
    o.times_percent = 100;
    const bool fenced = i % 2 == 0;
    History h = random_history(7000 + i, o);
    if (fenced) h = add_fences(h, 1 + i % 3);
    if (!testkit::elle_can_hold(h)) continue;
    const bool json = i % 4 < 2;
    const std::string file = d.write(json ? "r.json" : "r.edn", testkit::elle_text(h, json));
    ASSERT_TRUE(audit_rounds_equal_verify(file, fenced, t,
                                          "seed " + std::to_string(7000 + i) + (json ? " (elle-cli JSON)" : " (EDN)")))
        << "\n" << testkit::elle_text(h, json);
  }
  std::printf("elle: %d logs, %d violated level verdicts, %d of %d audits forgot something\n", t.logs, t.violated,
              t.forgot, t.compared);
  EXPECT_GT(t.logs, iters / 3);
  EXPECT_GT(t.forgot, t.compared / 4);
  EXPECT_GT(t.violated, 0);
}

// 2,000 read-modify-write transactions on 50 string keys (times on every
// one, four sessions), and key x: transaction 5 writes x=1001, transaction
// 15 overwrites it with 1002 (and writes z=2001); near the end, transaction
// 1995 reads the overwritten x=1001 — with z=2001 (a stale read: read skew)
// or to overwrite it with 1003 (a lost update).
History far_back(bool lost_update) {
  History h;
  for (int s = 0; s < 4; ++s) h.session_name.push_back(s);
  const int n = 2000;
  std::vector<int64_t> current(50, 0);
  auto key = [&](const std::string& k) {
    Sym s = h.keys.intern_string(k);
    if (h.keys.take_switch()) h.remap_keys();
    return s;
  };
  auto val = [&](int64_t v) { return v == 0 ? kNullValue : h.values.intern_int(v); };
  for (int i = 0; i < n; ++i) {
    h.begin_txn(i + 1, static_cast<uint32_t>(i % 4), TxnStatus::committed, 10 * i, 10 * i + 5);
    if (i == 5) {
      h.add_op(OpKind::read, key("x"), kNullValue);
      h.add_op(OpKind::write, key("x"), val(1001));
    } else if (i == 15) {
      h.add_op(OpKind::read, key("x"), val(1001));
      h.add_op(OpKind::write, key("x"), val(1002));
      h.add_op(OpKind::write, key("z"), val(2001));
    } else if (i == n - 5) {
      h.add_op(OpKind::read, key("x"), val(1001));
      if (lost_update) h.add_op(OpKind::write, key("x"), val(1003));
      else h.add_op(OpKind::read, key("z"), val(2001));
    } else {
      const int k = (i * 7) % 50;
      h.add_op(OpKind::read, key("k" + std::to_string(k)), val(current[k]));
      current[k] = 10000 + i;
      h.add_op(OpKind::write, key("k" + std::to_string(k)), val(current[k]));
    }
    h.end_txn();
  }
  h.time_unit = "ns";
  return h;
}

TEST(AuditFormats, AnomalyOfAVersionOverwrittenFarBackFromEveryFormat) {
  TempDir d;
  int audits = 0;
  for (bool lost_update : {false, true}) {
    const char* what = lost_update ? "lost update" : "stale read";
    for (bool fenced : {false, true}) {
      const History h = fenced ? add_fences(far_back(lost_update), 5) : far_back(lost_update);
      const std::vector<Level> levels =
          fenced ? std::vector<Level>{Level::ser, Level::si} : std::vector<Level>{Level::sser};
      const std::string rule = fenced ? "fence" : "time";
      std::vector<std::string> files;
      files.push_back((d.path / "f.jsonl").string());
      write_jsonl(h, files.back());
      files.push_back((d.path / "f.h5").string());
      write_hdf5(h, files.back());
      files.push_back(d.write("f.edn", testkit::elle_text(h, false)));
      files.push_back(d.write("f.json", testkit::elle_text(h, true)));
      for (const std::string& file : files) {
        const std::vector<std::string> violated(levels.size(), "violated");
        ASSERT_EQ(verified(file, levels), violated) << what << ": " << file;
        AuditResult r;
        EXPECT_EQ(audited(file, levels, 100, rule, &r), violated) << what << ": " << file;
        EXPECT_EQ(r.rounds, (h.txn_count() + 99) / 100) << what << ": " << file;
        // The overwritten version's writers were forgotten long before.
        EXPECT_GT(r.forgotten, h.txn_count() / 2) << what << ": " << file;
        EXPECT_LT(r.max_kept, h.txn_count() / 4) << what << ": " << file;
        for (auto& l : r.levels) EXPECT_EQ(l.round, r.rounds - 1) << what << ": " << file;
        ++audits;
      }
    }
  }
  EXPECT_EQ(audits, 2 * 2 * 4);
}

// Stopped after every 3 rounds and resumed from the checkpoint until it
// completes: an Elle reader resumes by reading the file again up to the
// saved position. Same verdict and rounds as one run.
TEST(AuditFormats, ElleLogPreemptedAndResumedEqualsUninterrupted) {
  TempDir d;
  for (bool json : {false, true}) {
    const History h = add_fences(far_back(false), 5);
    const std::string file = d.write(json ? "p.json" : "p.edn", testkit::elle_text(h, json));
    AuditOptions o;
    o.check.levels = {Level::ser, Level::si};
    o.round_txns = 100;
    o.rule = "fence";
    const AuditResult whole = run_audit(file, o);
    o.checkpoint_dir = (d.path / "ck").string();
    o.resume = true;
    o.stop_after_rounds = 3;
    AuditResult r;
    int runs = 0;
    do {
      r = run_audit(file, o);
    } while (!r.complete && ++runs < 100);
    EXPECT_TRUE(r.complete);
    EXPECT_GT(runs, 3);
    EXPECT_GT(r.resumptions, 3u);
    EXPECT_EQ(r.rounds, whole.rounds);
    EXPECT_EQ(r.txns, whole.txns);
    ASSERT_EQ(r.levels.size(), whole.levels.size());
    for (size_t i = 0; i < r.levels.size(); ++i) {
      EXPECT_EQ(r.levels[i].verdict, "violated");
      EXPECT_EQ(r.levels[i].verdict, whole.levels[i].verdict);
      EXPECT_EQ(r.levels[i].round, whole.levels[i].round);
    }
  }
}

// Random logs as JSONL, their keys strings (the reader numbers them across
// rounds and the audit maps them by number), integers, or both: a quarter of
// the logs get an integer key beside their string keys in some transactions,
// so some rounds name only string keys and others an integer one too.
TEST(AuditFormats, RandomJsonlLogsWithStringKeysEqualVerify) {
  TempDir d;
  const int iters = static_cast<int>(env_int("ISOCHECK_AUDIT_ITERS", 600)) / 3;
  Tally t;
  int named = 0;
  for (int i = 0; i < iters; ++i) {
    RandomHistoryOptions o = testkit::small_fenced_options(i);
    o.times_percent = 100;
    const bool fenced = i % 2 == 0;
    History h = random_history(9100 + i, o);
    if (fenced) h = add_fences(h, 1 + i % 3);
    if (i % 4 == 3 && h.keys.named()) {
      // An integer key written blind by every fifth transaction.
      History m;
      m.keys = h.keys;
      m.values = h.values;
      m.session_name = h.session_name;
      m.time_unit = h.time_unit;
      const Sym k = m.keys.intern_int(77);
      for (TxnIdx t = 0; t < h.txn_count(); ++t) {
        m.begin_txn(h.txn_id[t], h.txn_session[t], h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
        for (OpIdx x = h.op_begin(t); x < h.op_end(t); ++x) {
          if (h.op_kind[x] == OpKind::read_list) m.add_list_read(h.op_key[x], h.list(x));
          else m.add_op(h.op_kind[x], h.op_key[x], h.op_value[x]);
        }
        if (t % 5 == 0) m.add_op(OpKind::write, k, m.values.intern_int(1000000 + t));
        m.end_txn();
      }
      if (!m.values.take_switch()) h = std::move(m);
    }
    named += h.keys.named();
    const std::string file = (d.path / "r.jsonl").string();
    write_jsonl(h, file);
    ASSERT_TRUE(audit_rounds_equal_verify(file, fenced, t, "seed " + std::to_string(9100 + i))) << "\n" << history_jsonl(h);
  }
  std::printf("jsonl: %d logs (%d with string keys), %d violated level verdicts, %d of %d audits forgot something\n",
              t.logs, named, t.violated, t.forgot, t.compared);
  EXPECT_GT(t.logs, iters / 3);
  EXPECT_GT(named, iters / 2);
  EXPECT_GT(t.forgot, t.compared / 4);
  EXPECT_GT(t.violated, 0);
}

// h (reads and writes) as Cobra client logs in `dir` (one T<s>.log per
// session, timestamps from begin/end) or as dbcop JSON: committed
// transactions only (Cobra logs no others; dbcop would add them as aborted),
// keys numbered, every write of a key and value its own write id. false when
// h holds other operations.
void be64(std::string& s, int64_t v) {
  for (int k = 7; k >= 0; --k) s.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * k)) & 0xFF));
}
bool imported_form(const History& h, const std::filesystem::path& dir, std::string& json) {
  std::map<std::pair<Sym, Sym>, std::pair<int64_t, int64_t>> writes;  // (key, value) -> (write id, writer txn)
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx x = h.op_begin(t); x < h.op_end(t); ++x) {
      if (h.op_kind[x] != OpKind::read && h.op_kind[x] != OpKind::write) return false;
      if (h.op_kind[x] == OpKind::write && h.txn_status[t] == TxnStatus::committed)
        writes.try_emplace({h.op_key[x], h.op_value[x]}, std::make_pair(1000 + static_cast<int64_t>(writes.size()),
                                                                        h.txn_id[t]));
    }
  std::vector<std::string> logs(h.session_count());
  std::vector<std::string> sessions(h.session_count());
  int64_t next_wid = 1000000;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] != TxnStatus::committed || h.txn_begin[t] == kNoTime) continue;
    std::string& l = logs[h.txn_session[t]];
    std::string& j = sessions[h.txn_session[t]];
    l += 'S';
    be64(l, h.txn_id[t]);
    be64(l, h.txn_begin[t]);
    j += std::string(j.empty() ? "" : ",") + "{\"events\":[";
    for (OpIdx x = h.op_begin(t); x < h.op_end(t); ++x) {
      const int64_t key = static_cast<int64_t>(h.op_key[x]);
      const bool write = h.op_kind[x] == OpKind::write;
      int64_t wid, writer;
      if (h.op_value[x] == kNullValue) {
        wid = writer = 0xbebeebee;
      } else if (auto it = writes.find({h.op_key[x], h.op_value[x]}); it != writes.end()) {
        std::tie(wid, writer) = it->second;
      } else {
        wid = next_wid++;  // a value no committed transaction wrote
        writer = -1;
      }
      l += write ? 'W' : 'R';
      if (!write) be64(l, writer);
      be64(l, wid);
      be64(l, key);
      be64(l, wid);
      j += std::string(x == h.op_begin(t) ? "" : ",") + "{\"" + (write ? "Write" : "Read") +
           "\":{\"variable\":" + std::to_string(key) + ",\"version\":" +
           (wid == 0xbebeebee ? std::string("null") : std::to_string(wid)) + "}}";
    }
    l += 'C';
    be64(l, h.txn_id[t]);
    be64(l, h.txn_end[t]);
    j += "],\"committed\":true}";
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  json = "[";
  for (size_t s = 0; s < logs.size(); ++s) {
    std::ofstream(dir / ("T" + std::to_string(s) + ".log"), std::ios::binary) << logs[s];
    json += std::string(s ? ",\n" : "") + "[" + sessions[s] + "]";
  }
  json += "]\n";
  return true;
}

// Random logs as Cobra client logs (with timestamps) and as dbcop JSON:
// the audit's rounds over the streamed readers equal verify's verdict on
// the whole import.
TEST(AuditFormats, RandomCobraAndDbcopJsonLogsEqualVerify) {
  TempDir d;
  const int iters = static_cast<int>(env_int("ISOCHECK_AUDIT_ITERS", 600)) / 3;
  Tally cobra, json;
  for (int i = 0; i < iters; i += 2) {
    RandomHistoryOptions o = testkit::small_fenced_options(i);
    o.times_percent = 100;
    History h = random_history(9700 + i, o);
    std::string text;
    if (!imported_form(h, d.path / "cobra", text)) continue;
    const std::string seed = "seed " + std::to_string(9700 + i);
    ASSERT_TRUE(audit_rounds_equal_verify((d.path / "cobra").string(), false, cobra, seed + " (Cobra)"));
    ASSERT_TRUE(audit_rounds_equal_verify(d.write("r.json", text), false, json, seed + " (dbcop JSON)")) << text;
  }
  std::printf("cobra: %d logs, %d violated; dbcop JSON: %d logs, %d violated\n", cobra.logs, cobra.violated,
              json.logs, json.violated);
  EXPECT_GT(cobra.logs, iters / 6);
  EXPECT_GT(json.logs, iters / 6);
  EXPECT_GT(cobra.violated, 0);
  EXPECT_GT(json.violated, 0);
  EXPECT_GT(cobra.forgot, cobra.compared / 4);  // (the time rule: Cobra's timestamps)
}

}  // namespace
}  // namespace isocheck

// Importers: each format's mapping to the History model, its statistics, and
// its errors (line or byte offset, never a crash). Fuzzer finds are at the end.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "common/temp_files.h"
#include "core/errors.h"
#include "io/import.h"
#include "solver/check.h"

using namespace isocheck;
namespace fs = std::filesystem;

namespace {

// Ops of transaction t as text, e.g. "w 1 5 | r 2 null | r 3 [1 2]".
std::string ops(const History& h, TxnIdx t) {
  std::string s;
  for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
    if (!s.empty()) s += " | ";
    s += to_string(h.op_kind[o]);
    s += " " + h.keys.text(h.op_key[o]) + " ";
    if (h.op_kind[o] == OpKind::read_list) {
      s += "[";
      auto l = h.list(o);
      for (size_t i = 0; i < l.size(); ++i) s += (i ? " " : "") + h.values.text(l[i]);
      s += "]";
    } else {
      s += value_text(h, h.op_value[o]);
    }
  }
  return s;
}

int64_t session_of(const History& h, TxnIdx t) { return h.session_name[h.txn_session[t]]; }

// Transaction t's id, status and operations (as ops() writes them).
void expect_txn(const History& h, TxnIdx t, int64_t id, TxnStatus status, const std::string& operations) {
  SCOPED_TRACE("transaction " + std::to_string(t));
  EXPECT_EQ(h.txn_id[t], id);
  EXPECT_EQ(h.txn_status[t], status);
  EXPECT_EQ(ops(h, t), operations);
}

// Expects an InputError whose message contains `where` (e.g. "x.edn:3").
template <class F>
void expect_input_error(F&& f, const std::string& where, const std::string& what = "") {
  try {
    f();
    ADD_FAILURE() << "no InputError, expected one at " << where;
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(where), std::string::npos) << m;
    if (!what.empty()) {
      EXPECT_NE(m.find(what), std::string::npos) << m;
    }
  }
}

struct TempDir : testkit::ScopedTempDir {
  TempDir() : ScopedTempDir("isocheck-import-") {}
};

// ---- Cobra log bytes
void be64(std::string& s, int64_t v) {
  for (int k = 7; k >= 0; --k) s.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * k)) & 0xFF));
}
std::string S(int64_t id) { std::string s = "S"; be64(s, id); return s; }
std::string C(int64_t id) { std::string s = "C"; be64(s, id); return s; }
std::string W(int64_t wid, int64_t k, int64_t v) { std::string s = "W"; be64(s, wid); be64(s, k); be64(s, v); return s; }
std::string R(int64_t wt, int64_t wid, int64_t k, int64_t v) {
  std::string s = "R"; be64(s, wt); be64(s, wid); be64(s, k); be64(s, v); return s;
}

// ---- dbcop bincode bytes
struct Bincode {
  std::string b;
  void u64(uint64_t v) { for (int k = 0; k < 8; ++k) b.push_back(static_cast<char>((v >> (8 * k)) & 0xFF)); }
  void u8(uint8_t v) { b.push_back(static_cast<char>(v)); }
  void str(const std::string& s) { u64(s.size()); b += s; }
  void header(uint64_t sessions) {
    for (int i = 0; i < 5; ++i) u64(i);
    str("test"); str("start"); str("end");
    u64(sessions);
  }
  void event(bool w, uint64_t var, uint64_t val, bool ok) { u8(w); u64(var); u64(val); u8(ok); }
};

// One session of one committed transaction writing 5 to variable 1.
Bincode one_write_bincode() {
  Bincode b;
  b.header(1);
  b.u64(1);
  b.u64(1);
  b.event(true, 1, 5, true);
  b.u8(1);
  return b;
}

}  // namespace

// ======================================================================== Elle EDN

TEST(ImportEdn, ListAppendPairsTimesSessionsAndCounts) {
  const std::string edn =
      "; a comment line\n"
      "{:type :invoke, :f :txn, :value [[:append 1 10] [:r 2 nil]], :process 0, :time 5, :index 0}\n"
      "{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 1, :index 1}\n"
      "{:type :ok, :f :txn, :value [[:append 1 10] [:r 2 [7 8]]], :process 0, :index 2}\n"
      "{:type :info, :f :start-partition, :process :nemesis, :index 3}\n"
      "{:type :fail, :f :txn, :value [[:r 1 nil]], :process 1, :index 4}\n"
      "{:type :invoke, :f :read, :value nil, :process 0, :index 5}\n"
      "{:type :ok, :f :read, :value 3, :process 0, :index 6}\n"
      "#jepsen.history.Op{:type :invoke, :f :txn, :value [[:append 2 9] [:r 1 nil]], :process 1, :index 7}\n"
      "{:type :info, :f :txn, :value [[:append 2 9] [:r 1 nil]], :process 1, :index 8} ; crashed\n"
      "{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 6, :index 9}\n"
      "{:type :ok, :f :txn, :value [[:r 1 [10]]], :process 6, :index 10}\n"
      "{:type :invoke, :f :txn, :value [[:append 3 1]], :process 0, :index 11}\n";
  ImportStats st;
  History h = parse_elle_edn(edn, "t.edn", &st);
  ASSERT_EQ(h.txn_count(), 5u);
  // Order of completion; ids are the invocations' :index.
  expect_txn(h, 0, 0, TxnStatus::committed, "append 1 10 | r 2 [7 8]");
  EXPECT_EQ(h.txn_begin[0], 0);  // position of the invocation
  EXPECT_EQ(h.txn_end[0], 2);    // position of the completion
  expect_txn(h, 1, 1, TxnStatus::aborted, "");  // the read of an aborted txn has no value
  expect_txn(h, 2, 7, TxnStatus::unknown, "append 2 9");
  EXPECT_EQ(h.txn_begin[2], 7);
  EXPECT_EQ(h.txn_end[2], 12);  // :info may take effect any time later: end of history
  expect_txn(h, 3, 9, TxnStatus::committed, "r 1 [10]");
  EXPECT_EQ(session_of(h, 3), 6);  // the crashed client continues as process 6: its own session
  // Never completed: unknown, up to the end of the history.
  expect_txn(h, 4, 11, TxnStatus::unknown, "append 3 1");
  EXPECT_EQ(h.txn_end[4], 12);
  EXPECT_EQ(session_of(h, 0), 0);
  EXPECT_EQ(session_of(h, 1), 1);
  EXPECT_EQ(st.records, 12u);
  EXPECT_EQ(st.txns, 5u);
  EXPECT_EQ(st.format, "elle-edn (list-append)");
  EXPECT_EQ(st.skipped.at("operations of a process that is not a client (:nemesis)"), 1u);
  EXPECT_EQ(st.skipped.at("operations with :f :read (only :txn is a transaction)"), 2u);
  EXPECT_EQ(st.skipped.at("reads of :fail/:info transactions (their values are unknown)"), 2u);
  EXPECT_EQ(st.skipped_total(), 5u);
  EXPECT_EQ(st.notes.at("invocations that never completed (outcome unknown, like :info)"), 1u);
  EXPECT_FALSE(st.describe().empty());
}

TEST(ImportEdn, NilReadsOfListAppendAreEmptyLists) {
  History h = parse_elle_edn(
      "{:type :invoke :process 0 :value [[:r 5 nil]]}\n{:type :ok :process 0 :value [[:r 5 nil]]}\n"
      "{:type :invoke :process 0 :value [[:append 5 1]]}\n{:type :ok :process 0 :value [[:append 5 1]]}\n",
      "t.edn");
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_EQ(h.op_kind[0], OpKind::read_list);
  EXPECT_EQ(ops(h, 0), "r 5 []");
}

TEST(ImportEdn, RwRegisterKeywordsBecomeStrings) {
  ImportStats st;
  History h = parse_elle_edn(
      "[{:type :invoke, :f :txn :value [[:w :x 2] [:r :y nil]], :process 0, :index 1}\n"
      " {:type :ok,     :f :txn :value [[:w :x 2] [:r :y nil]], :process 0, :index 2}\n"
      " {:type :invoke, :f :txn :value [[:r :x nil] [:r \"s\" nil]], :process 0, :index 3}\n"
      " {:type :ok,     :f :txn :value [[:r :x 2] [:r \"s\" :kw]], :process 0, :index 4}]\n",
      "t.edn", &st);
  EXPECT_EQ(st.format, "elle-edn (rw-register)");
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_TRUE(h.keys.named());
  EXPECT_EQ(ops(h, 0), "w x 2 | r y null");
  EXPECT_EQ(ops(h, 1), "r x 2 | r s \"kw\"");
  EXPECT_EQ(h.txn_id[0], 1);
}

TEST(ImportEdn, EdnSyntaxTolerated) {
  // Commas, discards, sets, strings with escapes, characters, big and float
  // numbers in fields we ignore, nested tagged literals.
  History h = parse_elle_edn(
      "{:type :invoke, :process 0, :f :txn, :value [[:append 1 2]], #_ :ignored #_ 5 :extra #{1 2}, :s \"a\\\"b\\n\"}\n"
      "{:type :ok, :process 0, :f :txn, :value [[:append 1 2]], :time 123N :t2 1.5e3 :c \\a :inst #inst \"2020\"}\n",
      "t.edn");
  ASSERT_EQ(h.txn_count(), 1u);
  EXPECT_EQ(ops(h, 0), "append 1 2");
}

TEST(ImportEdn, CompletionWithoutInvocationHasNoTimes) {
  ImportStats st;
  History h = parse_elle_edn("{:type :ok :process 3 :value [[:append 1 1]]}", "t.edn", &st);
  ASSERT_EQ(h.txn_count(), 1u);
  EXPECT_EQ(h.txn_begin[0], kNoTime);
  EXPECT_EQ(st.notes.at("completions without an invocation (transaction without times)"), 1u);
}

TEST(ImportEdn, MissingProcessIsOneFreshSession) {
  ImportStats st;
  History h = parse_elle_edn(
      "{:type :invoke :value [[:append 1 1]]}{:type :ok :value [[:append 1 1]]}"
      "{:type :invoke :process 4 :value [[:append 1 2]]}{:type :ok :process 4 :value [[:append 1 2]]}",
      "t.edn", &st);
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_EQ(session_of(h, 0), 5);
  EXPECT_EQ(session_of(h, 1), 4);
}

// Elle list-append histories go through the same list checks as JSONL: a
// read of [2] after one transaction appended 1 then 2 shows half of that
// transaction, and [1 1] shows one append twice; each violates every level.
TEST(ImportEdn, ListReadsBreakingAppendRunsAreViolations) {
  const std::string writer =
      "{:type :invoke :process 0 :value [[:append :l 1] [:append :l 2]] :index 0}\n"
      "{:type :ok :process 0 :value [[:append :l 1] [:append :l 2]] :index 1}\n";
  auto reader = [](const std::string& list) {
    return "{:type :invoke :process 1 :value [[:r :l nil]] :index 2}\n"
           "{:type :ok :process 1 :value [[:r :l " + list + "]] :index 3}\n";
  };
  CheckOptions o;
  o.levels = {Level::ser, Level::si, Level::sser};
  // The whole run: every level holds.
  CheckResult whole = check(parse_elle_edn(writer + reader("[1 2]"), "t.edn"), o);
  EXPECT_TRUE(whole.anomalies.empty());
  EXPECT_TRUE(whole.all_hold());
  struct Case {
    std::string list;
    AnomalyKind kind;
  };
  for (const Case& c : {Case{"[2]", AnomalyKind::incompatible_order}, Case{"[2 1]", AnomalyKind::incompatible_order},
                        Case{"[1]", AnomalyKind::intermediate_read}, Case{"[1 2 1]", AnomalyKind::duplicate_elements}}) {
    History h = parse_elle_edn(writer + reader(c.list), "t.edn");
    ASSERT_EQ(h.txn_count(), 2u);
    CheckResult r = check(h, o);
    ASSERT_EQ(r.anomalies.size(), 1u) << c.list;
    EXPECT_EQ(r.anomalies[0].kind, c.kind) << c.list << ": " << to_string(r.anomalies[0].kind);
    for (const LevelResult& lr : r.levels) EXPECT_FALSE(lr.holds) << c.list;
  }
}

TEST(ImportEdn, Errors) {
  auto edn = [](const std::string& s) { return [s] { parse_elle_edn(s, "x.edn"); }; };
  expect_input_error(edn("{:type :invoke :process 0 :value [[:append 1 1]]}\n{:type :ok :process 0 :value [[:append 1"),
                     "x.edn:2", "unterminated");
  expect_input_error(edn("{:type :invoke :process 0}\n{:type :maybe :process 0}"), "x.edn:2", ":maybe");
  expect_input_error(edn("{:process 0}"), "x.edn:1", "no :type");
  expect_input_error(edn("{:type :invoke :process 0 :value []}\n\n{:type :invoke :process 0 :value []}"), "x.edn:3",
                     "line 1");
  expect_input_error(edn("{:type :invoke :process 0 :value [[:append 1]]}\n{:type :ok :process 0 :value [[:append 1]]}"),
                     "x.edn:2", "[f key value]");
  expect_input_error(edn("{:type :invoke :process 0 :value [[:cas 1 2 3]]}\n{:type :ok :process 0 :value [[:cas 1 2]]}"),
                     "x.edn:2", ":cas");
  expect_input_error(edn("{:type :invoke :process 0 :value [[:w 1 2]]}{:type :ok :process 0 :value [[:w 1 2]]}"
                         "{:type :invoke :process 0 :value [[:append 1 2]]}{:type :ok :process 0 :value [[:append 1 2]]}"),
                     "x.edn", "mixes");
  expect_input_error(edn("{:type :ok :process 0 :value 5}"), "x.edn:1", "vector of micro-operations");
  expect_input_error(edn("{:type :ok :process 0 :value [[:append 1 2]] :x}"), "x.edn:1", "even number");
  expect_input_error(edn("[1 2 ]]"), "x.edn:1");
  expect_input_error(edn(std::string(1000, '[')), "x.edn:1", "nesting");
  expect_input_error(edn("{:type :invoke :process 0 :index 1 :value []}{:type :ok :process 0 :value []}"
                         "{:type :invoke :process 0 :index 1 :value []}{:type :ok :process 0 :value []}"),
                     "x.edn:1", "used twice");
  expect_input_error(edn("\"abc"), "x.edn:1", "unterminated string");
  expect_input_error(edn("{:type :ok :process 0 :value [[:r 1 [nil]]]}"), "x.edn:1", "nil");
  expect_input_error(edn("{:type :ok :process 0 :value [[:r 1 [3]]]\n :value []}"), "x.edn:2",
                     "key :value is given more than once");
}

// ======================================================================== elle-cli JSON

TEST(ImportElleJson, SameHistoryAsEdn) {
  const std::string edn =
      "{:type :invoke, :f :txn :value [[:w :x 2]], :process 0, :index 1}\n"
      "{:type :ok,     :f :txn :value [[:w :x 2]], :process 0, :index 2}\n"
      "{:type :invoke, :f :txn :value [[:r :x nil]], :process 1, :index 3}\n"
      "{:type :ok,     :f :txn :value [[:r :x 2]], :process 1, :index 4}\n";
  const std::string json =
      "[{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"w\",\"x\",2]],\"process\":0,\"index\":1},\n"
      "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"w\",\"x\",2]],\"process\":0,\"index\":2},\n"
      "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null]],\"process\":1,\"index\":3},\n"
      "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",2]],\"process\":1,\"index\":4}]\n";
  History a = parse_elle_edn(edn, "a.edn");
  History b = parse_elle_json(json, "b.json");
  ASSERT_EQ(a.txn_count(), b.txn_count());
  for (TxnIdx t = 0; t < a.txn_count(); ++t) {
    EXPECT_EQ(ops(a, t), ops(b, t));
    EXPECT_EQ(a.txn_id[t], b.txn_id[t]);
    EXPECT_EQ(a.txn_begin[t], b.txn_begin[t]);
    EXPECT_EQ(a.txn_end[t], b.txn_end[t]);
    EXPECT_EQ(session_of(a, t), session_of(b, t));
  }
  // One object per line (JSONL-style) reads the same.
  std::string lines = json.substr(1);
  for (auto& c : lines)
    if (c == ',' && (&c)[1] == '\n') c = ' ';
  lines.erase(lines.rfind(']'));
  History c = parse_elle_json(lines, "c.json");
  EXPECT_EQ(c.txn_count(), a.txn_count());
}

TEST(ImportElleJson, Errors) {
  auto js = [](const std::string& s) { return [s] { parse_elle_json(s, "x.json"); }; };
  expect_input_error(js("[{\"type\":\"invoke\",\"process\":0,\"value\":[]},\n{\"type\":\"ok\""), "x.json:2");
  expect_input_error(js("[{\"type\":\"invoke\"}\n{\"type\":\"ok\"}]"), "x.json:2", "','");
  expect_input_error(js("{\"type\":\"ok\",\"process\":0,\"value\":[[\"r\",1,tru]]}"), "x.json:1", "invalid JSON");
  expect_input_error(js("[1]"), "x.json:1", "operation map");
  // A repeated field is refused, not resolved by one copy silently winning.
  expect_input_error(js("{\"type\":\"ok\",\"process\":0,\n\"value\":[[\"r\",1,3]],\"value\":[]}"), "x.json:2",
                     "field \"value\" is given more than once");
}

// ======================================================================== Cobra

TEST(ImportCobra, RecordsMarkersAndWriters) {
  std::string t1 = S(100) + W(7, 1, 55) + C(100) + S(101) + R(100, 7, 1, 55) + W(8, 1, 56) + C(101);
  std::string t2 = S(200) + R(0xbebeebeeLL, 0xbebeebeeLL, 1, 0) + R(0xdeadbeefLL, 0xdeadbeefLL, 2, 0) +
                   R(static_cast<int64_t>(0xffffffffbebeebeeULL), static_cast<int64_t>(0xffffffffbebeebeeULL), 3, 0) +
                   R(0xbebeebeeLL, 0x23332333LL, 4, 0) + R(999, 77, 1, 1) + R(101, 8, 1, 999) + C(200) + S(201) +
                   W(9, 2, 1);
  std::vector<CobraLog> logs = {{2, "T2.log", t2}, {1, "T1.log", t1}};
  ImportStats st;
  History h = parse_cobra_logs(logs, &st);
  ASSERT_EQ(h.txn_count(), 4u);
  EXPECT_EQ(h.txn_id[0], 100);
  EXPECT_EQ(session_of(h, 0), 1);  // logs in session order
  EXPECT_EQ(ops(h, 0), "w 1 7");   // the write id is the value
  EXPECT_EQ(ops(h, 1), "r 1 7 | w 1 8");
  EXPECT_EQ(ops(h, 2), "r 1 null | r 2 null | r 3 null | r 1 77 | r 1 8");
  EXPECT_EQ(session_of(h, 2), 2);
  EXPECT_EQ(h.txn_status[2], TxnStatus::committed);
  EXPECT_EQ(h.txn_status[3], TxnStatus::unknown);  // no C record
  EXPECT_EQ(h.txn_begin[0], kNoTime);
  EXPECT_EQ(st.skipped.at("reads of Cobra's garbage-collection markers"), 1u);
  EXPECT_EQ(st.notes.at("reads of the initial value (0xbebeebee / 0xdeadbeef markers)"), 3u);
  EXPECT_EQ(st.notes.at("reads of a write id that no log contains (thin-air reads unless logs are missing)"), 1u);
  EXPECT_EQ(st.notes.at("reads whose value differs from the value the write logged"), 1u);
  EXPECT_EQ(st.notes.at("transactions without a commit record at the end of a log (outcome unknown)"), 1u);
  EXPECT_EQ(st.records, 17u);
}

TEST(ImportCobra, Timestamps) {
  std::string log = S(1);
  be64(log, 1000);
  log += W(5, 1, 1) + C(1);
  be64(log, 1500);
  std::vector<CobraLog> logs = {{0, "T0.log", log}};
  ImportStats st;
  History h = parse_cobra_logs(logs, &st);
  ASSERT_EQ(h.txn_count(), 1u);
  EXPECT_EQ(h.txn_begin[0], 1000);
  EXPECT_EQ(h.txn_end[0], 1500);
  EXPECT_EQ(st.format, "cobra (with timestamps)");
}

// The smallest 64-bit integer means "no time" inside a history: as a
// timestamp it would silently drop the transaction's times. Refused.
TEST(ImportCobra, SmallestTimestampIsRefused) {
  auto parse = [](std::string bytes) {
    return [bytes] {
      std::vector<CobraLog> logs = {{0, "T0.log", bytes}};
      parse_cobra_logs(logs);
    };
  };
  const int64_t smallest = std::numeric_limits<int64_t>::min();
  std::string at_start = S(1);
  be64(at_start, smallest);
  at_start += W(5, 1, 1) + C(1);
  be64(at_start, 1500);
  expect_input_error(parse(at_start), "T0.log: byte 0", "reserved for \"no time\"");
  std::string at_commit = S(1);
  be64(at_commit, 1000);
  at_commit += W(5, 1, 1) + C(1);
  be64(at_commit, smallest);
  expect_input_error(parse(at_commit), "T0.log: byte 42", "reserved for \"no time\"");
  // One above it is a time like any other.
  std::string lowest = S(1);
  be64(lowest, smallest + 1);
  lowest += W(5, 1, 1) + C(1);
  be64(lowest, smallest + 1);
  std::vector<CobraLog> logs = {{0, "T0.log", lowest}};
  History h = parse_cobra_logs(logs);
  ASSERT_EQ(h.txn_count(), 1u);
  EXPECT_TRUE(h.has_times(0));
  EXPECT_EQ(h.txn_begin[0], smallest + 1);
}

TEST(ImportCobra, Errors) {
  auto one = [](std::string bytes) {
    return [bytes] {
      std::vector<CobraLog> logs = {{0, "T0.log", bytes}};
      parse_cobra_logs(logs);
    };
  };
  std::string ok = S(1) + W(5, 1, 1) + C(1);
  expect_input_error(one(ok.substr(0, ok.size() - 3)), "T0.log: byte 34", "truncated");
  expect_input_error(one(ok + "X"), "T0.log: byte 43", "unknown record type 0x58");
  expect_input_error(one(S(1) + S(2)), "T0.log: byte 9", "starts before");
  expect_input_error(one(S(1) + C(2)), "T0.log: byte 9", "while transaction 1");
  expect_input_error(one(W(1, 1, 1)), "T0.log: byte 0", "outside a transaction");
  expect_input_error(one(S(1) + R(0xbebeebeeLL, 5, 1, 1) + C(1)), "T0.log: byte 9", "marker");
  expect_input_error(one(ok + ok), "T0.log: byte 43", "used twice");
}

TEST(ImportCobra, FolderOfLogs) {
  TempDir d;
  d.write("T3.log", S(1) + W(5, 1, 1) + C(1));
  d.write("T10.log", S(2) + R(1, 5, 1, 1) + C(2));
  d.write("T3.debug", "human-readable");
  EXPECT_EQ(sniff_format(d.path.string()), Format::cobra);
  ImportStats st;
  History h = import_history(d.path.string(), Format::cobra, &st);
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_EQ(session_of(h, 0), 3);
  EXPECT_EQ(session_of(h, 1), 10);
  EXPECT_EQ(st.skipped.at("files in the folder that are not T<n>.log (not part of the history)"), 1u);
}

// ======================================================================== dbcop

TEST(ImportDbcop, Bincode) {
  Bincode b;
  b.header(2);
  b.u64(2);                                       // session 1: 2 txns
  b.u64(2); b.event(true, 1, 0, true); b.event(true, 2, 0, true); b.u8(1);  // initial-state txn
  b.u64(2); b.event(true, 1, 5, true); b.event(false, 2, 0, true); b.u8(1);
  b.u64(2);                                       // session 2
  b.u64(2); b.event(false, 1, 5, true); b.event(true, 2, 9, false); b.u8(1);
  b.u64(1); b.event(true, 2, 7, true); b.u8(0);  // did not commit
  ImportStats st;
  History h = parse_dbcop_bincode(b.b, "h.bincode", &st);
  ASSERT_EQ(h.txn_count(), 3u);
  EXPECT_EQ(ops(h, 0), "w 1 5 | r 2 null");
  EXPECT_EQ(h.txn_id[0], 2);
  EXPECT_EQ(session_of(h, 0), 1);
  EXPECT_EQ(ops(h, 1), "r 1 5");
  EXPECT_EQ(session_of(h, 1), 2);
  EXPECT_EQ(h.txn_status[2], TxnStatus::aborted);
  EXPECT_EQ(st.format, "dbcop-bincode (test)");
  EXPECT_EQ(st.records, 7u);
  EXPECT_EQ(st.skipped.at("events with success = false"), 1u);
  EXPECT_EQ(st.skipped.at("transactions that only write value 0 (the initial state)"), 1u);
  EXPECT_EQ(st.notes.at("reads of value 0 taken as reads of the initial state"), 1u);
}

TEST(ImportDbcop, BincodeErrors) {
  const Bincode b = one_write_bincode();
  EXPECT_NO_THROW(parse_dbcop_bincode(b.b, "h.bincode"));
  expect_input_error([&] { parse_dbcop_bincode(b.b.substr(0, b.b.size() - 2), "h.bincode"); }, "h.bincode: byte 92",
                     "event count 1 is more than the 17 bytes left");
  expect_input_error([&] { parse_dbcop_bincode(b.b.substr(0, b.b.size() - 1), "h.bincode"); }, "h.bincode: byte 118",
                     "truncated: a transaction's success flag");
  expect_input_error([&] { parse_dbcop_bincode(b.b + "x", "h.bincode"); }, "h.bincode: byte", "after the end");
  std::string bad = b.b;
  bad[bad.size() - 1] = 2;
  expect_input_error([&] { parse_dbcop_bincode(bad, "h.bincode"); }, "h.bincode: byte", "bool");
  Bincode huge;
  huge.header(UINT64_MAX);
  expect_input_error([&] { parse_dbcop_bincode(huge.b, "h.bincode"); }, "h.bincode: byte", "session count");
  expect_input_error([&] { parse_dbcop_bincode("", "h.bincode"); }, "h.bincode: byte 0", "truncated");
}

TEST(ImportDbcop, YamlAsOriginalDbcopWritesIt) {
  const std::string yaml =
      "---\n"
      "- - events:\n"
      "    - write:    true\n"
      "      variable: 0\n"
      "      value:    1\n"
      "      success:  true\n"
      "    success:    true\n"
      "- - events:\n"
      "    - write:    false   # a comment\n"
      "      variable: 0\n"
      "      value:    1\n"
      "      success:  true\n"
      "    success:    true\n"
      "  - events: []\n"
      "    success: false\n"
      "- []\n";
  ImportStats st;
  History h = parse_dbcop_yaml(yaml, "h.yaml", &st);
  ASSERT_EQ(h.txn_count(), 3u);
  EXPECT_EQ(ops(h, 0), "w 0 1");
  EXPECT_EQ(ops(h, 1), "r 0 1");
  EXPECT_EQ(h.txn_status[2], TxnStatus::aborted);
  EXPECT_EQ(h.session_count(), 3u);
  EXPECT_EQ(st.format, "dbcop-yaml");
}

TEST(ImportDbcop, YamlErrors) {
  expect_input_error([] { parse_dbcop_yaml("- - events:\n    - write: maybe\n", "h.yaml"); }, "h.yaml", "true or false");
  expect_input_error([] { parse_dbcop_yaml("- - events: []\n", "h.yaml"); }, "h.yaml:1", "success");
  expect_input_error([] { parse_dbcop_yaml("- a\n    - b\n", "h.yaml"); }, "h.yaml:2", "indentation");
  expect_input_error([] { parse_dbcop_yaml("- - events:\n\t- x\n", "h.yaml"); }, "h.yaml:2", "tab");
}

TEST(ImportDbcop, JsonRawAndWrapped) {
  const std::string sessions =
      "[[{\"events\":[{\"Write\":{\"variable\":0,\"version\":1}},{\"Write\":{\"variable\":1,\"version\":2}}],"
      "\"committed\":true}],"
      " [{\"events\":[{\"Read\":{\"variable\":0,\"version\":1}},{\"Read\":{\"variable\":1,\"version\":null}}],"
      "\"committed\":true},{\"events\":[{\"Write\":{\"variable\":1,\"version\":3}}],\"committed\":false}]]";
  History a = parse_dbcop_json(sessions, "a.json");
  History b = parse_dbcop_json("{\"params\":{\"id\":0},\"info\":\"x\",\"data\":" + sessions + "}", "b.json");
  ASSERT_EQ(a.txn_count(), 3u);
  EXPECT_EQ(ops(a, 0), "w 0 1 | w 1 2");
  EXPECT_EQ(ops(a, 1), "r 0 1 | r 1 null");
  EXPECT_EQ(a.txn_status[2], TxnStatus::aborted);
  ASSERT_EQ(b.txn_count(), 3u);
  EXPECT_EQ(ops(b, 1), ops(a, 1));
  expect_input_error([] { parse_dbcop_json("[[{\"events\":[{\"Write\":{\"variable\":0}}],\n\"committed\":true}]]", "x.json"); },
                     "x.json:1", "version");
  expect_input_error([] { parse_dbcop_json("{\"params\":{}}", "x.json"); }, "x.json:1", "data");
}

TEST(ImportDbcop, HistText) {
  const std::string hist =
      "// Session 1\n"
      "[x:=1 y:=2] [y==2 x:=3]\n"
      "---\n"
      "// Session 2\n"
      "[x==1 y:=4] [z==?]!\n"
      "[x==0 w:=0]\n";
  ImportStats st;
  History h = parse_dbcop_text(hist, "h.hist", &st);
  ASSERT_EQ(h.txn_count(), 5u);
  EXPECT_EQ(ops(h, 0), "w x 1 | w y 2");
  EXPECT_EQ(ops(h, 1), "r y 2 | w x 3");
  EXPECT_EQ(session_of(h, 2), 2);
  EXPECT_EQ(ops(h, 2), "r x 1 | w y 4");
  EXPECT_EQ(ops(h, 3), "r z null");
  EXPECT_EQ(h.txn_status[3], TxnStatus::aborted);
  EXPECT_EQ(ops(h, 4), "r x null | w w 0");  // x==0 with no x:=0 anywhere: the initial state
  expect_input_error([] { parse_dbcop_text("[x:=1]\n[x=1]\n", "h.hist"); }, "h.hist:2", "':=' or '=='");
  expect_input_error([] { parse_dbcop_text("[x:=1\n", "h.hist"); }, "h.hist:2", "unterminated");
  expect_input_error([] { parse_dbcop_text("[x:=1] --\n", "h.hist"); }, "h.hist:1", "dashes");
  expect_input_error([] { parse_dbcop_text("[x:=99999999999999999999]", "h.hist"); }, "h.hist:1", "version");
}

TEST(ImportDbcop, ExplicitWriteOfZeroIsReadFrom) {
  // As in dbcop: x==0 reads an explicit committed x:=0 when there is one.
  ImportStats st;
  History h = parse_dbcop_text("[x:=0 y:=1]\n---\n[x==0 y==0]\n", "h.hist", &st);
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_EQ(ops(h, 1), "r x 0 | r y null");
}

// ======================================================================== PolySI / IsoVista

TEST(ImportPolysi, InterleavedSessionsInitialTxnAndAbortedWrites) {
  const std::string txt =
      "w(1,0,0,0)\nw(2,0,0,0)\n"  // IsoVista's explicit initial transaction
      "w(1,5,1,1)\n"
      "r(2,0,2,2)\n"               // session 2 interleaves with session 1's txn 1
      "r(2,0,1,1)\n"
      "w(2,7,2,2)\n"
      "w(1,9,1,-1)\n"              // aborted writes of session 1
      "w(2,8,1,-1)\n"
      "r(1,9,1,-1)\n"
      "  r( 1 , 5 , 1 , 3 )  \r\n"
      "\n"
      "w(2,6,3,4)";
  ImportStats st;
  History h = parse_polysi_text(txt, "p.txt", &st);
  ASSERT_EQ(h.txn_count(), 5u);
  expect_txn(h, 0, 1, TxnStatus::committed, "w 1 5 | r 2 null");
  expect_txn(h, 1, -1, TxnStatus::aborted, "w 1 9 | w 2 8");
  EXPECT_EQ(session_of(h, 1), 1);
  expect_txn(h, 2, 3, TxnStatus::committed, "r 1 5");
  // Flushed at the end, in order of the sessions' first lines.
  expect_txn(h, 3, 2, TxnStatus::committed, "r 2 null | w 2 7");
  EXPECT_EQ(st.records, 11u);
  EXPECT_EQ(st.skipped.at("transactions that only write value 0 (the initial state)"), 1u);
  EXPECT_EQ(st.skipped.at("reads with transaction id -1 (aborted)"), 1u);
  EXPECT_EQ(st.notes.at("reads of value 0 taken as reads of the initial state"), 2u);
  expect_txn(h, 4, 4, TxnStatus::committed, "w 2 6");
  EXPECT_EQ(session_of(h, 4), 3);
  EXPECT_EQ(h.session_count(), 4u);
}

TEST(ImportPolysi, Errors) {
  auto p = [](const std::string& s) { return [s] { parse_polysi_text(s, "p.txt"); }; };
  expect_input_error(p("w(1,1,1,1)\nx(1,1,1,1)"), "p.txt:2", "expected r(");
  expect_input_error(p("w(1,1,1)"), "p.txt:1", "','");
  expect_input_error(p("w(1,1,1,1) trailing"), "p.txt:1", "after ')'");
  expect_input_error(p("w(1,1,1,1)\nw(1,2,2,1)"), "p.txt:2", "sessions 1 and 2");
  expect_input_error(p("w(1,1,1,1)\nw(1,2,1,2)\nw(1,3,1,1)"), "p.txt:3", "continues");
  expect_input_error(p("w(1,1,1,-2)"), "p.txt:1", ">= 0");
  expect_input_error(p("w(1,99999999999999999999,1,1)"), "p.txt:1", "integer value");
  expect_input_error(p("w(1,-9223372036854775808,1,1)"), "p.txt:1", "reserved");
}

// ======================================================================== sniffing

TEST(ImportSniff, ByExtensionThenContent) {
  TempDir d;
  EXPECT_EQ(sniff_format(d.write("a.edn", "")), Format::elle_edn);
  EXPECT_EQ(sniff_format(d.write("a.bincode", "")), Format::dbcop);
  EXPECT_EQ(sniff_format(d.write("a.yml", "")), Format::dbcop);
  EXPECT_EQ(sniff_format(d.write("a.hist", "")), Format::dbcop_text);
  EXPECT_EQ(sniff_format(d.write("a.jsonl", "")), Format::jsonl);
  EXPECT_EQ(sniff_format(d.write("a.h5", "")), Format::hdf5);
  EXPECT_EQ(sniff_format(d.write("a.json", "[{\"type\":\"invoke\"}]")), Format::elle_json);
  EXPECT_EQ(sniff_format(d.write("b.json", "{\"type\":\"invoke\"}\n")), Format::elle_json);
  EXPECT_EQ(sniff_format(d.write("c.json", "{\"id\":1,\"session\":0}\n")), Format::jsonl);
  EXPECT_EQ(sniff_format(d.write("d.json", "{\"isocheck\":1}\n")), Format::jsonl);
  EXPECT_EQ(sniff_format(d.write("e.json", "[[{\"events\":[]}]]")), Format::dbcop_json);
  EXPECT_EQ(sniff_format(d.write("f.json", "{\"params\":{}}")), Format::dbcop_json);
  EXPECT_EQ(sniff_format(d.write("a.txt", "r(1,0,1,1)\n")), Format::polysi);
  EXPECT_EQ(sniff_format(d.write("b.txt", "// s1\n[x:=1]\n")), Format::dbcop_text);
  EXPECT_EQ(sniff_format(d.write("c.txt", "hello")), Format::unknown);
  EXPECT_EQ(sniff_format(d.write("noext1", "; comment\n{:type :ok}")), Format::elle_edn);
  EXPECT_EQ(sniff_format(d.write("noext2", "[{:type :ok}]")), Format::elle_edn);
  EXPECT_EQ(sniff_format(d.write("noext3", "- - events:\n")), Format::dbcop);
  EXPECT_EQ(sniff_format(d.write("noext4", "---\n- - events:\n")), Format::dbcop);
  EXPECT_EQ(sniff_format(d.write("noext5", "---\n[x:=1]\n")), Format::dbcop_text);
  EXPECT_EQ(sniff_format(d.write("noext6", S(1) + C(1))), Format::cobra);
  Bincode b;
  b.header(0);
  EXPECT_EQ(sniff_format(d.write("noext7", b.b)), Format::dbcop);
  EXPECT_EQ(sniff_format(d.write("noext8", std::string("\x89HDF\r\n\x1a\n", 8))), Format::hdf5);
  EXPECT_THROW(sniff_format((d.path / "missing").string()), InputError);
  EXPECT_TRUE(is_import_format(Format::polysi));
  EXPECT_FALSE(is_import_format(Format::jsonl));
  EXPECT_EQ(import_format_from_name("isovista"), Format::polysi);
  EXPECT_EQ(import_format_from_name(import_format_name(Format::dbcop_json)), Format::dbcop_json);
  EXPECT_EQ(import_format_from_name("nope"), Format::unknown);
  EXPECT_THROW(import_history(d.write("z.h5", ""), Format::hdf5), UsageError);
}

TEST(ImportSniff, DbcopFileIsBincodeOrYamlByContent) {
  TempDir d;
  const Bincode b = one_write_bincode();
  History h1 = import_history(d.write("h.bincode", b.b), Format::dbcop);
  History h2 = import_history(d.write("h.yaml", "- - events:\n    - {write: true, variable: 1, value: 5, success: true}\n    success: true\n"),
                              Format::dbcop);
  ASSERT_EQ(h1.txn_count(), 1u);
  ASSERT_EQ(h2.txn_count(), 1u);
  EXPECT_EQ(ops(h1, 0), ops(h2, 0));
}

// ======================================================================== fuzzer finds
// Each input a libFuzzer target (tests/fuzz/) once crashed or hung on; now an
// InputError or a clean import.

TEST(ImportFuzzFinds, CobraTimedTransactionWithoutCommit) {
  // fuzz_cobra crash-8232b89b: a log with timestamps whose last transaction has
  // no C record left begin set and end absent. It now ends with the last
  // timestamp of all logs (it may take effect any time after it started).
  const std::string crash("S\x00\x00\xff\xff\x00\x00\x00\x10\x00\xdd\xff\xff\xff\x00\x00\x09", 17);
  std::string other = S(5);
  be64(other, 7);
  other += C(5);
  be64(other, 0x10000000000000LL);
  std::vector<CobraLog> logs = {{0, "T0.log", crash}, {1, "T1.log", other}};
  History h = parse_cobra_logs(logs);
  ASSERT_EQ(h.txn_count(), 2u);
  EXPECT_EQ(h.txn_status[0], TxnStatus::unknown);
  EXPECT_EQ(h.txn_begin[0], 0x00ddffffff000009LL);
  EXPECT_NE(h.txn_end[0], kNoTime);
  EXPECT_GE(h.txn_end[0], h.txn_begin[0]);
  EXPECT_GE(h.txn_end[0], h.txn_end[1]);
}

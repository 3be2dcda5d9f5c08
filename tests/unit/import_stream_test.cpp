// The imported formats read a transaction at a time (PolySI text, dbcop .hist,
// bincode, JSON and YAML, Cobra client logs): every piece size and window size gives the history, the
// skip and note counts and the errors of the whole file's importer, and what
// a reader holds between pieces does not grow with the log.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "common/temp_files.h"
#include "core/errors.h"
#include "io/import.h"
#include "io/jsonl_stream.h"
#include "io/txn_reader.h"

namespace isocheck {
namespace {

struct TempDir : testkit::ScopedTempDir {
  TempDir() : ScopedTempDir("isocheck-import-stream-test-") {}
};

// The transactions of h as JSONL lines: equal text, equal transactions
// (ids, sessions, statuses, times, operations).
std::string lines_of(const History& h) {
  std::ostringstream s;
  write_jsonl_txns(h, s, false);
  return s.str();
}

// ---- generators (seeded): each writes reads of value 0, keys written 0
// late in the file, transactions that only write 0, aborted ones.

// PolySI / IsoVista text: sessions' transactions interleaved line by line,
// IsoVista's aborted writes (-1) and aborted reads, blank lines.
std::string polysi_text(uint64_t seed, int txns) {
  std::mt19937_64 g(seed);
  const int sessions = 1 + static_cast<int>(g() % 6);
  std::vector<int> left(sessions, 0);  // operations left in each session's open transaction
  std::vector<int64_t> open(sessions, 0);
  std::string t;
  int64_t next_id = 1, value = 1;
  int started = 0;
  auto op = [&](int s, int64_t id) {
    const bool write = g() % 2;
    const int64_t key = static_cast<int64_t>(g() % 8);
    int64_t v = write ? (g() % 20 == 0 ? 0 : value++) : static_cast<int64_t>(g() % 3 == 0 ? 0 : g() % value);
    t += std::string(write ? "w" : "r") + "(" + std::to_string(key) + "," + std::to_string(v) + "," +
         std::to_string(s) + "," + std::to_string(id) + ")\n";
  };
  while (started < txns || std::any_of(left.begin(), left.end(), [](int l) { return l > 0; })) {
    const int s = static_cast<int>(g() % sessions);
    if (g() % 25 == 0) t += g() % 2 ? "\n" : "  \t\n";
    if (g() % 30 == 0) {  // IsoVista: an aborted write, or an aborted read (skipped)
      t += std::string(g() % 3 ? "w" : "r") + "(" + std::to_string(g() % 8) + "," + std::to_string(value++) + "," +
           std::to_string(s) + ",-1)\n";
      continue;
    }
    if (left[s] == 0) {
      if (started >= txns) continue;
      ++started;
      open[s] = next_id++;
      left[s] = 1 + static_cast<int>(g() % 4);
      if (g() % 15 == 0) {  // only writes 0: skipped
        t += "w(" + std::to_string(g() % 8) + ",0," + std::to_string(s) + "," + std::to_string(open[s]) + ")\n";
        left[s] = 0;
        continue;
      }
    }
    op(s, open[s]);
    --left[s];
  }
  return t;
}

// dbcop .hist text: sessions split by dash lines (some empty), transactions
// over one or several lines, aborted ones ('!'), reads of the initial state
// ('?'), comments.
std::string hist_text(uint64_t seed, int txns) {
  std::mt19937_64 g(seed);
  std::string t = "// a generated history\n";
  int64_t value = 1;
  for (int i = 0; i < txns; ++i) {
    if (g() % 40 == 0) t += g() % 4 ? "---\n" : "---\n---\n";
    if (g() % 50 == 0) t += "  // a comment\n";
    t += g() % 5 == 0 ? "  [" : "[";
    const int n = 1 + static_cast<int>(g() % 4);
    const bool only_zero = g() % 20 == 0;
    for (int k = 0; k < n; ++k) {
      if (k) t += g() % 6 == 0 ? "\n  " : " ";
      const std::string var = "k" + std::to_string(g() % 9);
      if (only_zero) t += var + ":=0";
      else if (g() % 2) t += var + ":=" + std::to_string(g() % 25 == 0 ? 0 : value++);
      else if (g() % 8 == 0) t += var + "==?";
      else t += var + "==" + std::to_string(g() % 3 == 0 ? 0 : g() % value);
    }
    t += g() % 10 == 0 ? "]!\n" : "]\n";
  }
  return t;
}

void le64(std::string& s, uint64_t v) {
  for (int k = 0; k < 8; ++k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

// dbcop bincode: the header, then sessions of transactions of events (some
// failed), some transactions not committed, some sessions empty.
std::string bincode_bytes(uint64_t seed, int txns) {
  std::mt19937_64 g(seed);
  std::string b;
  for (int k = 0; k < 5; ++k) le64(b, static_cast<uint64_t>(k));
  for (const char* s : {"generated", "start", "end"}) {
    le64(b, std::string(s).size());
    b += s;
  }
  std::vector<int> per_session;
  for (int left = txns; left > 0;) {
    int n = g() % 9 == 0 ? 0 : 1 + static_cast<int>(g() % 200);
    n = std::min(n, left);
    per_session.push_back(n);
    left -= n;
  }
  le64(b, per_session.size());
  uint64_t value = 1;
  for (int n : per_session) {
    le64(b, static_cast<uint64_t>(n));
    for (int t = 0; t < n; ++t) {
      const int events = static_cast<int>(g() % 5);
      const bool only_zero = g() % 20 == 0;
      le64(b, static_cast<uint64_t>(events));
      for (int e = 0; e < events; ++e) {
        const bool write = only_zero || g() % 2;
        b.push_back(write ? 1 : 0);
        le64(b, g() % 9);
        uint64_t v = only_zero ? 0 : write ? (g() % 25 == 0 ? 0 : value++) : (g() % 3 == 0 ? 0 : g() % value);
        le64(b, v);
        b.push_back(g() % 15 == 0 ? 0 : 1);
      }
      b.push_back(g() % 10 == 0 ? 0 : 1);
    }
  }
  return b;
}

// dbcop JSON: the sessions as the top-level array, or as the "data" field
// of an object with other fields before and after it; events of the new form
// ({"Write"|"Read": {variable, version}}, null versions) or the old one
// ({write, variable, value, success}); integer and string variables; some
// sessions empty, some transactions not committed or writing only 0; spaces
// and newlines anywhere.
std::string dbcop_json_text(uint64_t seed, int txns) {
  std::mt19937_64 g(seed);
  const bool object = g() % 2;
  const bool old_form = g() % 3 == 0;
  auto sp = [&]() -> std::string {
    const uint64_t r = g() % 6;
    return r == 0 ? "\n" : r == 1 ? " " : r == 2 ? "\n  " : "";
  };
  std::string t;
  if (object) t += "{" + sp() + "\"params\": {\"id\": 3, \"n\": [1, 2]}," + sp() + "\"data\":" + sp();
  t += "[";
  int64_t value = 1;
  bool first_session = true;
  for (int left = txns; left > 0;) {
    int n = g() % 9 == 0 ? 0 : 1 + static_cast<int>(g() % 40);
    n = std::min(n, left);
    left -= n;
    if (!first_session) t += "," + sp();
    first_session = false;
    t += "[" + sp();
    for (int i = 0; i < n; ++i) {
      if (i) t += "," + sp();
      t += "{\"events\": [" + sp();
      const int events = static_cast<int>(g() % 4);
      const bool only_zero = g() % 20 == 0;
      for (int e = 0; e < events; ++e) {
        if (e) t += "," + sp();
        const bool write = only_zero || g() % 2;
        const uint64_t k = g() % 7;
        const std::string var = g() % 4 == 0 ? "\"k" + std::to_string(k) + "\"" : std::to_string(k);
        const int64_t v = only_zero ? 0 : write ? (g() % 25 == 0 ? 0 : value++)
                                             : static_cast<int64_t>(g() % 3 == 0 ? 0 : g() % value);
        if (old_form) {
          t += std::string("{\"write\": ") + (write ? "true" : "false") + ", \"variable\": " + var +
               ", \"value\": " + std::to_string(v) + ", \"success\": " + (g() % 15 ? "true" : "false") + "}";
        } else {
          const std::string version = !write && g() % 8 == 0 ? "null" : std::to_string(v);
          t += std::string("{\"") + (write ? "Write" : "Read") + "\": {\"variable\": " + var +
               ", \"version\": " + version + "}}";
        }
      }
      t += "]," + sp() + (old_form ? "\"success\": " : "\"committed\": ") + (g() % 10 ? "true" : "false") + "}";
    }
    t += sp() + "]";
  }
  t += sp() + "]";
  if (object) t += "," + sp() + "\"info\": \"generated\"" + sp() + "}";
  return t + (g() % 2 ? "\n" : "");
}

// dbcop YAML as serde_yaml writes it ("- - events:" and "-" on a line of its
// own, events indented deeper or at their key's indentation), with comments,
// blank lines, flow mappings for events, empty sessions ("- []"), quoted
// string variables, transactions not committed or writing only 0.
std::string dbcop_yaml_text(uint64_t seed, int txns) {
  std::mt19937_64 g(seed);
  std::string t = g() % 2 ? "---\n" : "";
  int64_t value = 1;
  for (int left = txns; left > 0;) {
    int n = g() % 9 == 0 ? 0 : 1 + static_cast<int>(g() % 40);
    n = std::min(n, left);
    left -= n;
    if (g() % 15 == 0) t += g() % 2 ? "\n" : "# a comment\n";
    if (n == 0) {
      t += "- []\n";
      continue;
    }
    const bool compact = g() % 3 != 0;
    if (!compact) t += "-\n";
    for (int i = 0; i < n; ++i) {
      const std::string dash = compact && i == 0 ? "- - " : "  - ";
      const std::string in = "    ";  // the transaction mapping's indentation
      const int events = static_cast<int>(g() % 4);
      const bool only_zero = g() % 20 == 0;
      if (events == 0) {
        t += dash + "events: []\n";
      } else {
        t += dash + "events:\n";
        const std::string ev = g() % 2 ? in : in + "  ";
        for (int e = 0; e < events; ++e) {
          const bool write = only_zero || g() % 2;
          const uint64_t k = g() % 7;
          const std::string var = g() % 4 == 0 ? "\"k" + std::to_string(k) + "\"" : std::to_string(k);
          const int64_t v = only_zero ? 0 : write ? (g() % 25 == 0 ? 0 : value++)
                                               : static_cast<int64_t>(g() % 3 == 0 ? 0 : g() % value);
          const std::string ok = g() % 15 ? "true" : "false";
          if (g() % 5 == 0) {
            t += ev + "- {write: " + (write ? "true" : "false") + ", variable: " + var + ", value: " +
                 std::to_string(v) + ", success: " + ok + "}\n";
          } else {
            t += ev + "- write: " + (write ? "true" : "false") + (g() % 6 == 0 ? "   # note\n" : "\n");
            t += ev + "  variable: " + var + "\n" + ev + "  value: " + std::to_string(v) + "\n";
            t += ev + "  success: " + ok + "\n";
          }
        }
      }
      t += in + "success: " + (g() % 10 ? "true" : "false") + "\n";
    }
  }
  return t;
}

struct Case {
  const char* name;
  Format format;
  std::string (*make)(uint64_t, int);
};
const Case kCases[] = {{"p.txt", Format::polysi, polysi_text},
                       {"h.hist", Format::dbcop_text, hist_text},
                       {"h.bincode", Format::dbcop, bincode_bytes},
                       {"h.json", Format::dbcop_json, dbcop_json_text},
                       {"h.yaml", Format::dbcop, dbcop_yaml_text}};

// Every piece of a reader, concatenated, with the reader's counts at the end.
std::string pieces_of(TxnReader& r, uint64_t piece, ImportStats& st) {
  std::string got;
  uint64_t n = 0;
  for (History p = r.next(piece); p.txn_count() > 0; p = r.next(piece)) {
    EXPECT_LE(p.txn_count(), piece);
    n += p.txn_count();
    got += lines_of(p);
  }
  EXPECT_EQ(r.position().txn, n);
  st = r.stats();
  return got;
}

void expect_same_stats(const ImportStats& a, const ImportStats& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.records, b.records);
  EXPECT_EQ(a.txns, b.txns);
  EXPECT_EQ(a.skipped, b.skipped);
  EXPECT_EQ(a.notes, b.notes);
}


// Reads r to its end in pieces of `piece` transactions: the most it held at
// once (each field's maximum) and how many transactions it gave; every piece
// but the last is whole.
std::pair<ReaderHeld, uint64_t> drain_in_pieces(TxnReader& r, uint64_t piece) {
  ReaderHeld most;
  uint64_t n = 0, piece_max = 0;
  for (History p = r.next(piece); p.txn_count() > 0; p = r.next(piece)) {
    n += p.txn_count();
    piece_max = std::max<uint64_t>(piece_max, p.txn_count());
    const ReaderHeld h = r.held();
    most.bytes = std::max(most.bytes, h.bytes);
    most.records = std::max(most.records, h.records);
    most.ids = std::max(most.ids, h.ids);
    most.pass_bytes = std::max(most.pass_bytes, h.pass_bytes);
  }
  EXPECT_EQ(piece_max, piece);
  return {most, n};
}

TEST(ImportStream, PiecesEqualTheWholeFileAtEveryPieceAndWindowSize) {
  TempDir d;
  int compared = 0;
  for (const Case& c : kCases) {
    for (uint64_t seed = 0; seed < 12; ++seed) {
      SCOPED_TRACE(std::string(c.name) + " seed " + std::to_string(seed));
      const std::string path = d.write(c.name, c.make(seed, 5 + static_cast<int>(seed) * 7));
      ImportStats whole_st;
      const std::string whole = lines_of(import_history(path, c.format, &whole_st));
      ASSERT_GT(whole_st.txns, 0u);
      EXPECT_TRUE(open_txn_reader(path, c.format)->streamed());
      for (size_t block : {16, 100, 1 << 16}) {
        for (uint64_t piece : {1, 7, 1000}) {
          auto r = open_pass_reader(path, c.format, block);
          ImportStats st;
          ASSERT_EQ(pieces_of(*r, piece, st), whole) << "block " << block << " piece " << piece;
          expect_same_stats(st, whole_st);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 5 * 12 * 9);
}

// A log of thousands of pieces; the counts show what the whole file's
// importer tells (reads of value 0 before the key's explicit write of 0
// included).
TEST(ImportStream, LargeFileSpansManyPieces) {
  TempDir d;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string path = d.write(c.name, c.make(99, 30000));
    ImportStats whole_st;
    const std::string whole = lines_of(import_history(path, c.format, &whole_st));
    EXPECT_GT(whole_st.txns, 25000u);
    EXPECT_GT(whole_st.notes.size(), 1u);
    EXPECT_GT(whole_st.skipped.size(), 0u);
    for (uint64_t piece : {7, 1000}) {
      auto r = open_txn_reader(path, c.format);
      ImportStats st;
      ASSERT_EQ(pieces_of(*r, piece, st), whole) << "piece " << piece;
      expect_same_stats(st, whole_st);
    }
  }
}

// A reader's position, restored in another reader, goes on with the same
// transactions (the audit's checkpoints).
TEST(ImportStream, SeekResumesAtTheSavedPosition) {
  TempDir d;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string path = d.write(c.name, c.make(5, 400));
    auto a = open_pass_reader(path, c.format, 64);
    (void)a->next(123);
    const TxnPosition p = a->position();
    EXPECT_EQ(p.txn, 123u);
    const std::string rest = lines_of(a->next(100000));
    auto b = open_pass_reader(path, c.format, 100);
    b->seek(p);
    EXPECT_EQ(lines_of(b->next(100000)), rest);
  }
}

// The window, the transactions held beyond the piece and the operations of
// open transactions are the same for a log of 2,000 and one of 40,000
// transactions; only PolySI keeps its transaction ids (an id may not come
// back in another session), one per transaction.
TEST(ImportStream, HeldStateDoesNotGrowWithTheLog) {
  TempDir d;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto run = [&](int txns) {
      const std::string path = d.write(std::to_string(txns) + c.name, c.make(7, txns));
      auto r = open_pass_reader(path, c.format, 4096);
      return drain_in_pieces(*r, 200);
    };
    const auto [small, small_n] = run(2000);
    const auto [large, large_n] = run(40000);
    EXPECT_GT(large_n, 19 * small_n);
    EXPECT_LE(large.bytes, 2 * 4096u);
    EXPECT_LE(small.bytes, 2 * 4096u);
    EXPECT_LE(large.records, 64u);  // a few sessions' open transactions
    if (c.format == Format::polysi) {
      EXPECT_GE(large.ids, large_n);
      EXPECT_LE(large.ids, 40000u);
    } else {
      EXPECT_EQ(large.ids, 0u);
    }
  }
}

// Malformed files far into the file: the reader fails at open (its first
// pass validates the file) with the whole file's importer's message.
TEST(ImportStream, ErrorsAreTheWholeFileImportersErrors) {
  TempDir d;
  auto same_error = [&](const std::string& path, Format f, const std::string& where) {
    std::string whole, streamed;
    try {
      (void)import_history(path, f);
    } catch (const InputError& e) {
      whole = e.what();
    }
    for (size_t block : {16, 4096}) {
      try {
        auto r = open_pass_reader(path, f, block);
        while (r->next(100).txn_count() > 0) {
        }
      } catch (const InputError& e) {
        streamed = e.what();
      }
      EXPECT_NE(whole.find(where), std::string::npos) << whole;
      EXPECT_EQ(streamed, whole);
    }
  };
  std::string p = polysi_text(3, 3000);
  const size_t at = [&] {
    size_t x = 0;
    for (int l = 0; l < 2999; ++l) x = p.find('\n', x) + 1;
    return x;
  }();
  same_error(d.write("a.txt", p.substr(0, at) + "w(1,2,3\n" + p.substr(at)), Format::polysi, "a.txt:3000");
  same_error(d.write("b.txt", p + "r(1,2,999,1)\n"), Format::polysi, "appears in sessions");
  std::string h = hist_text(3, 3000);
  const size_t hat = h.rfind("\n[", h.size() / 2) + 1;
  same_error(d.write("a.hist", h.substr(0, hat) + "[x=1]\n" + h.substr(hat)), Format::dbcop_text, "a.hist:");
  same_error(d.write("b.hist", h + "[x:=1 ] --\n"), Format::dbcop_text, "dashes");
  same_error(d.write("c.hist", h + "[x:=1 y==2\n\n"), Format::dbcop_text, "unterminated");
  std::string b = bincode_bytes(3, 3000);
  same_error(d.write("a.bincode", b.substr(0, b.size() - 5)), Format::dbcop, "a.bincode: byte");
  same_error(d.write("b.bincode", b + "xyz"), Format::dbcop, "3 bytes after the end");
  std::string bad = b;
  bad[bad.size() - 1] = 7;  // the last transaction's success flag
  same_error(d.write("c.bincode", bad), Format::dbcop, "must be a bool");
  // dbcop JSON: an error of the text anywhere comes before a transaction's
  // error (the whole parse reads the text first); a transaction's error far
  // into the file; a repeated field or no "data" in the top-level object.
  std::string j = dbcop_json_text(4, 3000);
  const size_t jat = j.find("\"events\"", j.size() / 2);
  const std::string bad_txn = j.substr(0, jat) + "\"evants\"" + j.substr(jat + 8);
  same_error(d.write("a.json", bad_txn), Format::dbcop_json, "missing field \"events\"");
  same_error(d.write("b.json", bad_txn + " x"), Format::dbcop_json, "unexpected content after the JSON value");
  same_error(d.write("c.json", bad_txn.substr(0, bad_txn.size() - 40)), Format::dbcop_json, "unterminated");
  const size_t vat = j.find("\"variable\": ", j.size() / 2) + 12;
  same_error(d.write("d.json", j.substr(0, vat) + "true" + j.substr(j.find_first_of(",}", vat))), Format::dbcop_json,
             "a variable must be an integer or a string, not");
  same_error(d.write("e.json", "{\"data\": " + j + ", \"data\": []}"), Format::dbcop_json,
             "field \"data\" is given more than once");
  same_error(d.write("f.json", "{\"params\": {\"data\": 1},\n \"info\": [" + j + "]}"), Format::dbcop_json,
             "f.json:1: a dbcop JSON object needs a \"data\" field");
  same_error(d.write("g.json", "[[]," + j.substr(1, 2000) + "\n[1]]"), Format::dbcop_json, "g.json:");
  same_error(d.write("h.json", "{\"data\": 7}"), Format::dbcop_json, "the history must be a list, not");
  same_error(d.write("i.json", "[[], 5, " + j + "]"), Format::dbcop_json, "a session must be a list, not");
  // dbcop YAML: a tab in a line's indentation comes before any other error
  // (the lines are split first), an error of the YAML before a
  // transaction's error.
  std::string y = dbcop_yaml_text(4, 3000);
  const size_t yat = y.find("    success:", y.size() / 2);
  const std::string bad_y = y.substr(0, yat) + "    succes:" + y.substr(yat + 12);
  same_error(d.write("a.yaml", bad_y), Format::dbcop, "missing field \"success\"");
  same_error(d.write("b.yaml", bad_y + "  - x\n   - y\n"), Format::dbcop, "unexpected indentation");
  same_error(d.write("c.yaml", "- a\n    - b\n" + bad_y + "\t- x\n"), Format::dbcop, "tab in YAML indentation");
  same_error(d.write("d.yaml", bad_y + "x: 1\n"), Format::dbcop, "unexpected content (bad indentation?)");
  same_error(d.write("e.yaml", "events: []\n"), Format::dbcop, "e.yaml:1: the history must be a list");
  same_error(d.write("f.yaml", y + "- 5\n"), Format::dbcop, "a session must be a list, not");
  same_error(d.write("g.yaml", y + "- \"open\n"), Format::dbcop, "unterminated quoted string");
}

// Shapes at the window's edges: a .hist that ends inside a comment (no
// newline), a transaction over many lines, a separator at the end; a PolySI
// file without a final newline; a dbcop file that is YAML (read whole).
TEST(ImportStream, EdgesOfTheInput) {
  TempDir d;
  auto same = [&](const std::string& path, Format f) {
    ImportStats whole_st;
    const std::string whole = lines_of(import_history(path, f, &whole_st));
    for (size_t block : {16, 4096}) {
      auto r = open_txn_reader(path, f);
      auto small = open_pass_reader(path, f, block);
      ImportStats st, small_st;
      EXPECT_EQ(pieces_of(*r, 1, st), whole) << path;
      EXPECT_EQ(pieces_of(*small, 2, small_st), whole) << path;
      expect_same_stats(st, whole_st);
      expect_same_stats(small_st, whole_st);
    }
    return whole_st.txns;
  };
  EXPECT_EQ(same(d.write("a.hist", "[x:=1]\n[x==1 y==0]\n// the end, no newline"), Format::dbcop_text), 2u);
  EXPECT_EQ(same(d.write("b.hist", "[x:=1\n\n\n   y:=2\n\n]!\n---\n[y==?]\n---"), Format::dbcop_text), 2u);
  EXPECT_EQ(same(d.write("c.txt", "w(1,1,1,1)\nr(1,1,2,2)"), Format::polysi), 2u);
  // dbcop JSON: empty histories, a byte order mark, sessions with no
  // transactions, the sessions in an object's "data" field.
  EXPECT_EQ(same(d.write("a.json", "[]"), Format::dbcop_json), 0u);
  EXPECT_EQ(same(d.write("b.json", "\xEF\xBB\xBF[ [ ] ,[]]\n"), Format::dbcop_json), 0u);
  EXPECT_EQ(same(d.write("c.json", "{\"data\":[[{\"events\":[{\"Write\":{\"variable\":1,\"version\":2}}],"
                                   "\"committed\":true}],[]],\"x\":{}}"),
                 Format::dbcop_json),
            1u);
  // dbcop YAML: a session as a flow sequence, an empty document.
  EXPECT_EQ(same(d.write("d.yaml", "- - events:\n    - write: true\n      variable: 1\n      value: 1\n"
                                   "      success: true\n    success: true\n- []\n-\n  - events: []\n    success: true\n"),
                 Format::dbcop),
            2u);
  EXPECT_EQ(same(d.write("e.yaml", "---\n# nothing\n"), Format::dbcop), 0u);
}


// ---- Cobra client logs: a folder of T<n>.log, big-endian records.

void be64(std::string& s, int64_t v) {
  for (int k = 7; k >= 0; --k) s.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * k)) & 0xFF));
}

// Sessions' logs written in turns, so a read names writes of every log,
// earlier and later ones: mostly what the write logged, some with another
// writer, key or value, a write id no log holds, the initial-value markers
// (with and without sign extension), Cobra's garbage-collection reads. Some
// logs have timestamps, some end inside a transaction. Also a file that is
// not a log. plain: no timestamps, every transaction committed.
std::map<std::string, std::string> cobra_logs(uint64_t seed, int txns, bool plain = false) {
  std::mt19937_64 g(seed);
  const int sessions = 1 + static_cast<int>(g() % 5);
  std::vector<std::string> log(sessions);
  std::vector<bool> ts(sessions);
  for (int s = 0; s < sessions; ++s) ts[s] = !plain && g() % 3 == 0;
  struct Write {
    int64_t wid, txn, key, value;
  };
  std::vector<Write> writes;
  int64_t wid = 1000, clock = 1;
  for (int t = 0; t < txns; ++t) {
    const int s = static_cast<int>(g() % sessions);
    const int64_t id = 1 + t * 3 + static_cast<int64_t>(g() % 3);
    std::string& l = log[s];
    l += 'S';
    be64(l, id);
    if (ts[s]) be64(l, clock += static_cast<int64_t>(g() % 3));
    const int ops = static_cast<int>(g() % 5);
    for (int o = 0; o < ops; ++o) {
      if (g() % 2 && !writes.empty()) {
        const Write& w = writes[g() % writes.size()];
        const int r = static_cast<int>(g() % 40);
        l += 'R';
        if (r == 0) {
          be64(l, static_cast<int64_t>(0xbebeebeeULL));
          be64(l, static_cast<int64_t>(0xbebeebeeULL));
        } else if (r == 1) {
          be64(l, static_cast<int64_t>(0xffffffffdeadbeefULL));
          be64(l, static_cast<int64_t>(0xffffffffdeadbeefULL));
        } else if (r == 2) {
          be64(l, static_cast<int64_t>(0xbebeebeeULL));
          be64(l, static_cast<int64_t>(g() % 2 ? 0x23332333ULL : 0x66666666ULL));
        } else {
          be64(l, r == 3 ? w.txn + 1 : w.txn);
          be64(l, r == 4 ? 999999 + t : w.wid);  // (a write id no log holds)
        }
        be64(l, r == 5 ? w.key + 100 : w.key);
        be64(l, r == 6 ? w.value + 1 : w.value);
      } else {
        const Write w{wid++, id, static_cast<int64_t>(g() % 9), static_cast<int64_t>(g() % 1000)};
        writes.push_back(w);
        l += 'W';
        be64(l, w.wid);
        be64(l, w.key);
        be64(l, w.value);
      }
    }
    l += 'C';
    be64(l, id);
    if (ts[s]) be64(l, clock += static_cast<int64_t>(g() % 3));
  }
  std::map<std::string, std::string> files;
  for (int s = 0; s < sessions; ++s)  // a log's last transaction without a commit
    if (!plain && !log[s].empty() && g() % 2) log[s].resize(log[s].size() - (ts[s] ? 17 : 9));
  for (int s = 0; s < sessions; ++s) files["T" + std::to_string(s * 3 + 1) + ".log"] = log[s];
  files["README"] = "not a log";
  return files;
}

std::string write_folder(const TempDir& d, const std::string& name, const std::map<std::string, std::string>& files) {
  std::filesystem::create_directories(d.path / name);
  for (const auto& [f, bytes] : files) d.write(name + "/" + f, bytes);
  return (d.path / name).string();
}

TEST(ImportStream, CobraPiecesEqualTheWholeImportAtEveryPieceWindowAndJoinSize) {
  TempDir d;
  int compared = 0;
  std::map<std::string, uint64_t> notes_seen;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string path = write_folder(d, "c" + std::to_string(seed), cobra_logs(seed, 5 + static_cast<int>(seed) * 9));
    ImportStats whole_st;
    const std::string whole = lines_of(import_history(path, Format::cobra, &whole_st));
    ASSERT_GT(whole_st.txns, 0u);
    for (auto& [what, n] : whole_st.notes) notes_seen[what] += n;
    EXPECT_TRUE(open_txn_reader(path, Format::cobra)->streamed());
    for (size_t block : {16, 100, 1 << 16}) {
      for (uint64_t piece : {1, 7, 1000}) {
        for (uint64_t budget : {64, 1 << 30}) {  // joins of many partitions, or one
          auto r = open_cobra_reader(path, block, budget);
          ImportStats st;
          ASSERT_EQ(pieces_of(*r, piece, st), whole) << "block " << block << " piece " << piece << " budget " << budget;
          expect_same_stats(st, whole_st);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 12 * 18);
  // Every kind of note came up (the joins of reads to writes counted them).
  EXPECT_EQ(notes_seen.size(), 6u);
}

// The whole import reads the same files as the in-memory parser, and a log
// of thousands of pieces keeps its notes.
TEST(ImportStream, CobraLargeLogSpansManyPieces) {
  TempDir d;
  const auto files = cobra_logs(99, 30000);
  const std::string path = write_folder(d, "big", files);
  ImportStats whole_st;
  const std::string whole = lines_of(import_history(path, Format::cobra, &whole_st));
  EXPECT_EQ(whole_st.txns, 30000u);
  EXPECT_EQ(whole_st.skipped.size(), 2u);  // garbage-collection reads, the file not a log
  std::vector<CobraLog> logs;
  for (const auto& [f, bytes] : files)
    if (f != "README") logs.push_back({std::stoll(f.substr(1)), (d.path / "big" / f).string(), bytes});
  ImportStats mem_st;
  EXPECT_EQ(lines_of(parse_cobra_logs(logs, &mem_st)), whole);
  EXPECT_EQ(mem_st.notes, whole_st.notes);
  for (uint64_t piece : {7, 1000}) {
    auto r = open_txn_reader(path, Format::cobra);
    ImportStats st;
    ASSERT_EQ(pieces_of(*r, piece, st), whole) << "piece " << piece;
    expect_same_stats(st, whole_st);
  }
}

TEST(ImportStream, CobraSeekResumesAtTheSavedPosition) {
  TempDir d;
  const std::string path = write_folder(d, "s", cobra_logs(5, 400));
  auto a = open_cobra_reader(path, 64, 256);
  (void)a->next(123);
  const TxnPosition p = a->position();
  EXPECT_EQ(p.txn, 123u);
  const std::string rest = lines_of(a->next(100000));
  auto b = open_cobra_reader(path, 100, 1 << 20);
  b->seek(p);
  EXPECT_EQ(lines_of(b->next(100000)), rest);
}

// What a Cobra reader holds between pieces is its buffer and the open
// transaction's operations; its first pass holds one partition of the joins,
// about the budget, for a log 20 times larger too (the whole log's ids and
// writes are 20 times the budget there).
TEST(ImportStream, CobraHeldStateDoesNotGrowWithTheLog) {
  TempDir d;
  const uint64_t budget = 128 << 10;
  auto run = [&](int txns) {
    const std::string path = write_folder(d, "h" + std::to_string(txns), cobra_logs(7, txns));
    auto r = open_cobra_reader(path, 4096, budget);
    return drain_in_pieces(*r, 200);
  };
  const auto [small, small_n] = run(2000);
  const auto [large, large_n] = run(40000);
  EXPECT_EQ(large_n, 20 * small_n);
  for (const ReaderHeld& h : {small, large}) {
    EXPECT_LE(h.bytes, 4096u);
    EXPECT_LE(h.records, 4u);  // one open transaction's operations
    EXPECT_EQ(h.ids, 0u);
    EXPECT_GT(h.pass_bytes, 0u);
    EXPECT_LE(h.pass_bytes, 4 * budget);  // (a partition's vectors grow by doubling)
  }
  // The large log's ids and writes (56 bytes a transaction or so) are many
  // times the budget.
  EXPECT_GT(large_n * 56, 16 * budget);
}

// Malformed logs, far into a log or in a later one: the reader fails at open
// with the whole import's message, naming the file and byte; a record cut
// short in any log comes before another error in an earlier one (the whole
// import checks every log's records first), and a transaction id used twice
// is told where its second start is, unless an error comes before.
TEST(ImportStream, CobraErrorsAreTheWholeImportsErrors) {
  TempDir d;
  int folder = 0;
  auto same_error = [&](std::map<std::string, std::string> files, const std::string& where) {
    const std::string path = write_folder(d, "e" + std::to_string(folder++), files);
    std::string whole, mem;
    try {
      (void)import_history(path, Format::cobra);
    } catch (const InputError& e) {
      whole = e.what();
    }
    std::vector<CobraLog> logs;
    for (const auto& [f, bytes] : files)
      if (f != "README") logs.push_back({std::stoll(f.substr(1)), (std::filesystem::path(path) / f).string(), bytes});
    try {
      (void)parse_cobra_logs(logs);
    } catch (const InputError& e) {
      mem = e.what();
    }
    EXPECT_NE(whole.find(where), std::string::npos) << whole;
    EXPECT_EQ(mem, whole);
    for (size_t block : {16, 4096}) {
      for (uint64_t budget : {4096, 1 << 30}) {  // joins of some 70 partitions, or one
        std::string streamed;
        try {
          auto r = open_cobra_reader(path, block, budget);
          while (r->next(100).txn_count() > 0) {
          }
        } catch (const InputError& e) {
          streamed = e.what();
        }
        EXPECT_EQ(streamed, whole) << "block " << block << " budget " << budget;
      }
    }
  };
  const auto good = cobra_logs(3, 3000, true);
  std::string first, last;  // the first log's name, the last log's name
  for (const auto& [f, b] : good)
    if (f != "README") {
      if (first.empty()) first = f;
      last = f;
    }
  ASSERT_NE(first, last);
  auto with = [&](const std::string& f, const std::string& bytes) {
    auto files = good;
    files[f] = bytes;
    return files;
  };
  std::string s;
  // A record cut short at the end of the last log; an unknown record in the first.
  auto cut = with(last, good.at(last) + "W" + std::string(11, '\1'));
  cut[first][0] = 'X';
  same_error(cut, last + ": byte " + std::to_string(good.at(last).size()) + ": truncated record: the key needs 8 bytes, 3 left");
  same_error(with(first, good.at(first) + "Q"), first + ": byte " + std::to_string(good.at(first).size()) +
                                                    ": unknown record type 0x51");
  s = "C";
  be64(s, 424242);
  same_error(with(last, good.at(last) + s), "which did not start");
  // A transaction id used twice: the second start, in a later log.
  s = "S";
  be64(s, 7777777);
  std::string t = "C";
  be64(t, 7777777);
  auto twice = with(first, good.at(first) + s + t);
  twice[last] = good.at(last) + s + t;
  same_error(twice, last + ": byte " + std::to_string(good.at(last).size()) + ": transaction id 7777777 is used twice");
  // ... and an error before the second start comes first.
  twice[first] = good.at(first) + s + t + "W";
  be64(twice[first], 1);
  be64(twice[first], 2);
  be64(twice[first], 3);
  same_error(twice, first + ": byte " + std::to_string(good.at(first).size() + 18) + ": a write outside a transaction");
}

}  // namespace
}  // namespace isocheck

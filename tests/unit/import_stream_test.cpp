// The imported formats read a transaction at a time (PolySI text, dbcop .hist
// and bincode): every piece size and window size gives the history, the
// skip and note counts and the errors of the whole file's importer, and what
// a reader holds between pieces does not grow with the log.
#include <gtest/gtest.h>

#include <cstdint>
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

struct Case {
  const char* name;
  Format format;
  std::string (*make)(uint64_t, int);
};
const Case kCases[] = {{"p.txt", Format::polysi, polysi_text},
                       {"h.hist", Format::dbcop_text, hist_text},
                       {"h.bincode", Format::dbcop, bincode_bytes}};

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
  EXPECT_EQ(compared, 3 * 12 * 9);
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
      ReaderHeld most;
      uint64_t n = 0, piece_max = 0;
      for (History p = r->next(200); p.txn_count() > 0; p = r->next(200)) {
        n += p.txn_count();
        piece_max = std::max<uint64_t>(piece_max, p.txn_count());
        const ReaderHeld h = r->held();
        most.bytes = std::max(most.bytes, h.bytes);
        most.records = std::max(most.records, h.records);
        most.ids = std::max(most.ids, h.ids);
      }
      EXPECT_EQ(piece_max, 200u);
      return std::make_pair(most, n);
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
  auto y = open_txn_reader(d.write("d.yaml", "- - events:\n    - write: true\n      variable: 1\n      value: 1\n"
                                             "      success: true\n    success: true\n"),
                           Format::dbcop);
  EXPECT_FALSE(y->streamed());
  EXPECT_EQ(y->next(10).txn_count(), 1u);
}

}  // namespace
}  // namespace isocheck

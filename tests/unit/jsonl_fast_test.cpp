// The JSONL reader of isocheck's own line shape (io/jsonl_fast.h) against the
// general JSON parser: every text, read whole or in pieces, gives the same
// history, symbols, key numbers and positions, or the same error, with the
// fast reader on and off; the lines isocheck writes are all read fast.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/history_fixtures.h"
#include "common/temp_files.h"
#include "core/errors.h"
#include "io/jsonl.h"
#include "io/jsonl_fast.h"
#include "io/jsonl_stream.h"

namespace isocheck {
namespace {

struct FastOff {
  FastOff() { set_jsonl_fast_lines(false); }
  ~FastOff() { set_jsonl_fast_lines(true); }
};

// A history, or the error's message.
struct Outcome {
  History h;
  std::string error;
};

Outcome parse(const std::string& text, bool fast) {
  set_jsonl_fast_lines(fast);
  Outcome o;
  try {
    o.h = parse_jsonl(text, "h.jsonl");
  } catch (const InputError& e) {
    o.error = e.what();
  }
  set_jsonl_fast_lines(true);
  return o;
}

// Scans' marks and value predicates, which expect_same leaves out.
void expect_same_marks(const History& a, const History& b) {
  EXPECT_EQ(a.scan_ops, b.scan_ops);
  EXPECT_EQ(a.scan_absent_ops, b.scan_absent_ops);
  EXPECT_EQ(a.absent_choice_ops, b.absent_choice_ops);
  EXPECT_EQ(a.delete_ops, b.delete_ops);
  EXPECT_EQ(a.op_value_predicate, b.op_value_predicate);
}

// Whether the text reads the same both ways; returns whether it was accepted.
bool expect_same_both_ways(const std::string& text) {
  Outcome a = parse(text, true), b = parse(text, false);
  EXPECT_EQ(a.error, b.error) << text;
  if (a.error.empty() && b.error.empty()) {
    testkit::expect_same(a.h, b.h);
    expect_same_marks(a.h, b.h);
  }
  return a.error.empty();
}

// 1 or 2 edits (a character of `alphabet` inserted, one deleted or changed)
// to lines [first, first + count) of `lines`.
void damage(std::vector<std::string>& lines, size_t first, size_t count, const std::string& alphabet,
            std::mt19937_64& rng) {
  for (int edits = 1 + static_cast<int>(rng() % 2); edits > 0; --edits) {
    std::string& l = lines[first + rng() % count];
    const size_t at = rng() % (l.size() + 1);
    const char c = alphabet[rng() % alphabet.size()];
    switch (rng() % 3) {
      case 0: l.insert(l.begin() + static_cast<std::ptrdiff_t>(at), c); break;
      case 1: if (at < l.size()) l.erase(at, 1); break;
      default: if (at < l.size()) l[at] = c;
    }
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

TEST(JsonlFast, EveryLineIsocheckWritesIsReadFast) {
  size_t lines = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    const History h = testkit::random_history(60, seed % 2 == 0, seed);
    std::ostringstream s;
    write_jsonl_txns(h, s, false);
    jsonl_fast::Line l;
    for (const std::string& line : lines_of(s.str())) {
      EXPECT_TRUE(jsonl_fast::scan_fast_line(line.data(), line.data() + line.size(), l)) << line;
      ++lines;
    }
    EXPECT_TRUE(expect_same_both_ways(testkit::jsonl_text(h)));
  }
  EXPECT_EQ(lines, 40u * 60);
}

// Lines one step off the shape, or off the format: each gives the general
// parser's history or its error.
const char* const kVariants[] = {
    R"({"id":1,"session":2,"status":"committed","ops":[["r","x",null],["w","x",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[]})",
    R"({"id":-5,"session":0,"status":"aborted","begin":0,"end":0,"ops":[["append","x",1],["r","x",[1]]]})",
    R"({"id":1,"session":2,"status":"unknown","begin":-3,"end":7,"ops":[["r",5,[]],["r",5,["a",2]]]})",
    R"({"id":1, "session":2,"status":"committed","ops":[]})",
    R"( {"id":1,"session":2,"status":"committed","ops":[]}	 )",
    R"({"session":2,"id":1,"status":"committed","ops":[]})",
    R"({"id":1,"session":2,"status":"committed","ops":[],"begin":1,"end":2})",
    R"({"id":1,"session":2,"status":"committed","end":2,"begin":1,"ops":[]})",
    R"({"id":1,"session":2,"status":"committed","begin":null,"end":null,"ops":[]})",
    R"({"id":1,"session":2,"status":"committed","begin":1,"ops":[]})",
    R"({"id":1,"session":2,"status":"committed","end":1,"ops":[]})",
    R"({"id":1,"session":2,"status":"committed","begin":3,"end":2,"ops":[]})",
    R"({"id":1,"session":-1,"status":"committed","ops":[]})",
    R"({"id":1,"session":4294967296,"status":"committed","ops":[]})",
    R"({"id":1,"session":4294967295,"status":"committed","ops":[]})",
    R"({"id":-0,"session":2,"status":"committed","ops":[]})",
    R"({"id":01,"session":2,"status":"committed","ops":[]})",
    R"({"id":1.0,"session":2,"status":"committed","ops":[]})",
    R"({"id":1e3,"session":2,"status":"committed","ops":[]})",
    R"({"id":123456789012345678,"session":2,"status":"committed","ops":[]})",
    R"({"id":1234567890123456789,"session":2,"status":"committed","ops":[]})",
    R"({"id":-9223372036854775808,"session":2,"status":"committed","ops":[]})",
    R"({"id":18446744073709551615,"session":2,"status":"committed","ops":[]})",
    R"({"id":99999999999999999999999,"session":2,"status":"committed","ops":[]})",
    R"({"id":1,"session":2,"status":"commited","ops":[]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",-9223372036854775808]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",9223372036854775808]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",null]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",[1]]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r","x",[1,null]]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r","x",[1,[2]]]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r",null,1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r",1.5,1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r","x"]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["r","x",1,2]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["x","x",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["R","x",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[[1,"x",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["scan","a","c",[["b",1]]]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["insert","a",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["delete","a",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","\u0078",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x\"y",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","é",1]]})",
    "{\"id\":1,\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"\xff\",1]]}",
    "{\"id\":1,\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"a\x01\",1]]}",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","",""]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1],]})",
    R"({"id":1,"session":2,"status":"committed","ops":[,["w","x",1]]})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1]]}x)",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1]]}})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1]])",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1]],"extra":1})",
    R"({"id":1,"session":2,"status":"committed","ops":[["w","x",1]],"ops":[]})",
    R"({"id":1,"id":2,"session":2,"status":"committed","ops":[]})",
    R"({"id":1,"session":2,"status":"committed"})",
    R"({"session":2,"status":"committed","ops":[]})",
    R"({"isocheck":1})",
    R"({"id":1,"session":2,"status":"committed","ops":{}})",
    R"([1,2])",
    R"({"id":"1","session":2,"status":"committed","ops":[]})",
};

TEST(JsonlFast, LinesOffTheShapeReadAsTheGeneralParserReadsThem) {
  const std::string good1 = R"({"id":7,"session":3,"status":"committed","begin":1,"end":4,"ops":[["r",9,null],["w",9,3]]})";
  const std::string good2 = R"({"id":8,"session":3,"status":"committed","ops":[["r","y",3],["w","y","s"]]})";
  size_t accepted = 0, refused = 0;
  for (const char* v : kVariants)
    for (const std::string& text :
         {std::string(v) + "\n", good1 + "\n" + v + "\n" + good2 + "\n",
          "{\"isocheck\":1,\"time_unit\":\"ns\"}\n" + good1 + "\n\n" + v + "\r\n" + good2 + "\n",
          good1 + "\n" + v + "\n" + v + "\n"})
      (expect_same_both_ways(text) ? accepted : refused)++;
  // (both kinds are compared: the variants are not all errors)
  EXPECT_GT(accepted, 40u);
  EXPECT_GT(refused, 100u);
}

TEST(JsonlFast, RandomlyDamagedLinesReadAsTheGeneralParserReadsThem) {
  std::mt19937_64 rng(11);
  const std::string alphabet = "0123456789-\",[]{}: ax\\.enrlu\t";
  size_t accepted = 0, refused = 0;
  for (uint32_t seed = 0; seed < 30; ++seed) {
    const History h = testkit::random_history(12, seed % 2 == 1, 100 + seed);
    std::vector<std::string> lines = lines_of(testkit::jsonl_text(h));
    for (int round = 0; round < 40; ++round) {
      std::vector<std::string> damaged = lines;
      damage(damaged, 1, damaged.size() - 1, alphabet, rng);
      std::string text;
      for (const std::string& l : damaged) text += l + "\n";
      (expect_same_both_ways(text) ? accepted : refused)++;
    }
  }
  EXPECT_GT(accepted, 20u);
  EXPECT_GT(refused, 100u);
}

// Range scans (["scan", lo, hi, [[k, v], ...]]) are read fast too: every
// variant, in order or not, inside a line of other operations or alone,
// after integer keys and after string keys (a scan that turns the key table
// to names), gives the general parser's history, marks and errors. Those off
// the fast shape (value predicates, key sets) go to the general parser.
TEST(JsonlFast, ScanLinesReadAsTheGeneralParserReadsThem) {
  const char* const scans[] = {
      R"(["scan",1,5,[]])",
      R"(["scan",1,5,[[2,7],[4,8]]])",
      R"(["scan",2,4,[[2,7],[4,8]]])",
      R"(["scan",4,4,[[4,8]]])",
      R"(["scan",5,1,[]])",
      R"(["scan",1,5,[[4,8],[2,7]]])",
      R"(["scan",1,5,[[2,7],[2,7]]])",
      R"(["scan",1,5,[[9,1]]])",
      R"(["scan",1,5,[[0,1]]])",
      R"(["scan",1,"z",[[2,7],["b","s"]]])",
      R"(["scan","a","z",[["b","s"]]])",
      R"(["scan","b","a",[]])",
      R"(["scan","b",2,[]])",
      R"(["scan",1,"c",[["b","s"],[2,7]]])",
      R"(["scan",1,5,[[2,-9223372036854775808]]])",
      R"(["scan",1,5,[[2,9223372036854775808]]])",
      R"(["scan",1,5,[[2,null]]])",
      R"(["scan",1,5,[[2,[7]]]])",
      R"(["scan",1,5,[[2,7,8]]])",
      R"(["scan",1,5,[[2]]])",
      R"(["scan",1,5,[2,7]])",
      R"(["scan",1,5])",
      R"(["scan",1,5,[[2,7]],["<",9]])",
      R"(["scan",1,5,[[2,7]],["<",5]])",
      R"(["scan",[1,2],[[2,7]]])",
      R"(["scan",1,5,[[2,7]]],)",
      R"(["scan",1.5,5,[]])",
      R"(["scan",null,5,[]])",
      R"(["scan", 1,5,[]])",
      R"(["scan",1,5,[[2,"x"],[3,8]]])",
  };
  const std::string w = R"({"id":1,"session":1,"status":"committed","ops":[["w",2,7],["w",4,8],["w",3,"x"],["delete",5,9]]})";
  const std::string ws = R"({"id":1,"session":1,"status":"committed","ops":[["w","b","s"],["w",2,7]]})";
  // Integers only before the scan: a string row switches a table to names mid-scan.
  const std::string wi = R"({"id":1,"session":1,"status":"committed","ops":[["w",2,7],["w",4,8],["w",3,9]]})";
  size_t accepted = 0, refused = 0;
  for (const char* scan : scans)
    for (const std::string& first : {w, ws, wi})
      for (const std::string& ops : {std::string(scan), std::string(R"(["r",2,7],)") + scan + R"(,["w",2,10])",
                                     std::string(scan) + "," + scan}) {
        const std::string text = first + "\n" + R"({"id":2,"session":2,"status":"committed","ops":[)" + ops + "]}\n";
        (expect_same_both_ways(text) ? accepted : refused)++;
      }
  EXPECT_GT(accepted, 25u);
  EXPECT_GT(refused, 60u);
  // A line of the fast shape with scans is read fast.
  jsonl_fast::Line l;
  const std::string line = R"({"id":2,"session":2,"status":"committed","ops":[["r",2,7],["scan",1,5,[[2,7],[4,8]]],["w",2,10]]})";
  ASSERT_TRUE(jsonl_fast::scan_fast_line(line.data(), line.data() + line.size(), l));
  ASSERT_EQ(l.n_ops, 3u);
  EXPECT_TRUE(l.has_scans && l.ops[1].scan && !l.ops[0].scan && !l.ops[2].scan);
  EXPECT_EQ(l.ops[1].rows_end - l.ops[1].rows_begin, 2u);
}

// Scan lines damaged at random (a character inserted, deleted or changed):
// the general parser's history and marks, or its error.
TEST(JsonlFast, RandomlyDamagedScanLinesReadAsTheGeneralParserReadsThem) {
  std::mt19937_64 rng(23);
  const std::string alphabet = "0123456789-\",[]{}: abxz";
  const std::string base = R"({"id":1,"session":1,"status":"committed","ops":[["w",2,7],["w",4,8],["w","b","s"],["delete",6,9]]})"
                           "\n"
                           R"({"id":2,"session":2,"status":"committed","ops":[["r",2,7],["scan",1,6,[[2,7],[4,8]]],["w",2,10]]})"
                           "\n"
                           R"({"id":3,"session":1,"status":"committed","ops":[["scan",1,"z",[[2,10],[4,8],["b","s"]]]]})";
  size_t accepted = 0, refused = 0;
  for (int round = 0; round < 1500; ++round) {
    std::vector<std::string> lines = lines_of(base);
    damage(lines, 1, 2, alphabet, rng);
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    (expect_same_both_ways(text) ? accepted : refused)++;
  }
  EXPECT_GT(accepted, 30u);  // (53 with this seed)
  EXPECT_GT(refused, 300u);
}

// The pieces of a streamed file: each the same history and key numbers, at
// the same position, or the same error, with the fast reader on and off.
struct Piece {
  History h;
  KeyIds ids;
  uint64_t byte = 0, line = 0;
};
std::vector<Piece> pieces(const std::string& path, uint64_t n, size_t block, bool scan, std::string& error) {
  std::vector<Piece> out;
  try {
    JsonlReader r(path, block);
    for (;;) {
      Piece p;
      p.h = scan ? r.next_scan(n, "fence") : r.next(n);
      p.ids = r.take_key_ids();
      p.byte = r.byte(), p.line = r.line();
      const bool end = p.h.txn_count() == 0;
      out.push_back(std::move(p));
      if (end) break;
    }
  } catch (const InputError& e) {
    error = e.what();
  }
  return out;
}

TEST(JsonlFast, StreamedPiecesTheSameBothWays) {
  testkit::ScopedTempDir d("isocheck-jsonl-fast-test-");
  const std::string path = (d.path / "p.jsonl").string();
  size_t compared = 0;
  for (uint32_t seed = 0; seed < 12; ++seed) {
    const History h = testkit::random_history(80, seed % 3 != 0, 300 + seed);
    std::vector<std::string> lines = lines_of(testkit::jsonl_text(h));
    // Lines the fast reader declines among those it reads: blanks around one,
    // an integer key after string keys (the piece leaves its key numbering),
    // the fence key, and (some seeds) an error deep in the file.
    lines[5] = " " + lines[5] + " ";
    lines.insert(lines.begin() + 9, "");
    lines.push_back(R"({"id":-1000001,"session":1,"status":"committed","ops":[["r","fence",4],["w","fence",5]]})");
    lines.insert(lines.begin() + 30, R"({"id":-1000002,"session":1,"status":"committed","ops":[["r",12,null],["w",12,1]]})");
    if (seed % 4 == 3) lines.insert(lines.begin() + 60, R"({"id":-1000003,"session":1,"status":"committed","ops":[["w","x",null]]})");
    if (seed % 4 == 2) lines.insert(lines.begin() + 50, lines[40]);  // a repeated id
    {
      std::ofstream f(path);
      for (const std::string& l : lines) f << l << "\n";
    }
    for (bool scan : {false, true})
      for (uint64_t n : {1, 7, 33, 1000})
        for (size_t block : {64, 300, 1 << 20}) {
          std::string e_fast, e_general;
          std::vector<Piece> a = pieces(path, n, block, scan, e_fast);
          std::vector<Piece> b;
          {
            FastOff off;
            b = pieces(path, n, block, scan, e_general);
          }
          EXPECT_EQ(e_fast, e_general);
          ASSERT_EQ(a.size(), b.size());
          for (size_t i = 0; i < a.size(); ++i) {
            testkit::expect_same(a[i].h, b[i].h);
            EXPECT_EQ(a[i].ids.ids, b[i].ids.ids);
            EXPECT_EQ(a[i].byte, b[i].byte);
            EXPECT_EQ(a[i].line, b[i].line);
          }
          ++compared;
          // (a repeated id is an error only when both are in one piece)
          if (seed % 4 == 3) {
            EXPECT_NE(e_fast.find("p.jsonl:"), std::string::npos) << e_fast;
          } else if (seed % 4 < 2) {
            EXPECT_EQ(e_fast, "");
          }
        }
  }
  EXPECT_EQ(compared, 12u * 2 * 4 * 3);
}

}  // namespace
}  // namespace isocheck

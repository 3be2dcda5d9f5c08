// Logs read a piece at a time: the JSONL reader's pieces equal the whole
// file read at once, whatever the buffer's block size; errors name the
// file's own lines; what a reader holds between pieces does not grow with
// the log.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "audit/reader.h"
#include "common/elle_writer.h"
#include "common/temp_files.h"
#include "core/errors.h"
#include "io/jsonl.h"
#include "io/jsonl_stream.h"
#include "io/load.h"
#include "io/txn_reader.h"
#include "oracle/random_history.h"

namespace isocheck {
namespace {

struct TempDir : testkit::ScopedTempDir {
  TempDir() : ScopedTempDir("isocheck-stream-reader-test-") {}
};

// A random history of `min` to `max` transactions (the other options their
// defaults).
History random_history_of(uint64_t seed, int min, int max) {
  RandomHistoryOptions o;
  o.min_txns = min;
  o.max_txns = max;
  return random_history(seed, o);
}

// The transaction lines of h (no header): equal text, equal transactions.
std::string lines_of(const History& h) {
  std::ostringstream s;
  write_jsonl_txns(h, s, false);
  return s.str();
}

TEST(JsonlReader, PiecesEqualTheWholeFileAtEveryBlockSize) {
  TempDir d;
  int compared = 0;
  for (int seed = 0; seed < 60; ++seed) {
    History h = random_history_of(700 + seed, 5, 40);
    h.time_unit = seed % 2 ? "ns" : "";
    std::string path = (d.path / "p.jsonl").string();
    write_jsonl(h, path);
    const std::string want = lines_of(read_jsonl(path));
    ASSERT_EQ(want, lines_of(h));
    for (size_t block : {64, 100, 1000, 1 << 20}) {
      for (uint64_t piece : {1, 3, 7, 1000}) {
        JsonlReader r(path, block);
        EXPECT_EQ(r.time_unit(), h.time_unit);
        std::string got;
        for (History p = r.next(piece); p.txn_count() > 0; p = r.next(piece)) {
          ASSERT_LE(p.txn_count(), piece);
          EXPECT_EQ(p.time_unit, h.time_unit);
          got += lines_of(p);
        }
        ASSERT_EQ(got, want) << "seed " << seed << " block " << block << " piece " << piece;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 60 * 16);
}

// A position saved after a piece and restored in another reader goes on
// with the same transactions (the audit's checkpoints).
TEST(JsonlReader, SeekResumesAtTheSavedPosition) {
  TempDir d;
  History h = random_history_of(42, 30, 30);
  h.time_unit = "us";
  std::string path = (d.path / "s.jsonl").string();
  write_jsonl(h, path);
  JsonlReader a(path, 64);
  (void)a.next(11);
  const uint64_t byte = a.byte(), line = a.line();
  EXPECT_EQ(line, 12u);  // the header and 11 transactions
  const std::string rest = lines_of(a.next(1000));
  JsonlReader b(path, 100);
  b.seek(byte, line);
  EXPECT_EQ(lines_of(b.next(1000)), rest);
  EXPECT_EQ(b.line(), 31u);
}

// Errors name the file's own line, also far into the file, in a later
// piece, with lines that straddle the buffer's blocks or outgrow them.
TEST(JsonlReader, ErrorsNameTheFileLine) {
  TempDir d;
  for (size_t block : {64, 4096, 8 << 20}) {
    std::string text = "{\"isocheck\":1}\n\n";  // lines 1 and 2
    for (int i = 0; i < 1000; ++i) {
      const int line = 3 + i;
      if (line == 777) {
        text += "{\"id\":" + std::to_string(i) + ",\"session\":1,\"status\":\"bogus\",\"ops\":[]}\n";
      } else {
        text += "{\"id\":" + std::to_string(i) + ",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"" +
                std::string(line % 50 == 0 ? 300 : 3, 'k') + "\"," + std::to_string(i + 1) + "]]}\n";
      }
    }
    std::string path = d.write("e.jsonl", text);
    JsonlReader r(path, block);
    uint64_t read = 0;
    try {
      for (History p = r.next(100); p.txn_count() > 0; p = r.next(100)) read += p.txn_count();
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.jsonl:777"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("unknown status"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read, 700u);  // the pieces before the one with the bad line
    try {
      (void)read_jsonl(path);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.jsonl:777"), std::string::npos) << e.what();
    }
  }
}

// A log of 500 string keys (and named values on one key in ten writes) in
// rounds of 200: what the round reader holds — the piece's transactions,
// its symbols, the buffer, the ids it checks — is the same for a log of
// 2,000 and one of 40,000 transactions.
TEST(JsonlReader, HeldStateDoesNotGrowWithTheLog) {
  TempDir d;
  struct Held {
    size_t txns = 0, ops = 0, symbols = 0, buffer = 0, ids = 0;
  };
  auto run = [&](uint64_t txns) {
    std::string path = (d.path / ("h" + std::to_string(txns) + ".jsonl")).string();
    {
      std::ofstream f(path);
      f << "{\"isocheck\":1,\"time_unit\":\"ns\"}\n";
      for (uint64_t i = 0; i < txns; ++i) {
        const uint64_t k = (i * 7919) % 500;
        f << "{\"id\":" << i << ",\"session\":" << i % 16 << ",\"status\":\"committed\",\"begin\":" << 2 * i
          << ",\"end\":" << 2 * i + 1 << ",\"ops\":[[\"r\",\"key" << k << "\"," << (i ? i : 1) << "],[\"w\",\"key" << k
          << "\",";
        if (i % 10 == 0) f << "\"v" << i << "\"";
        else f << i + 1;
        f << "]]}\n";
      }
    }
    Held held;
    LogReader r(path, "auto");
    uint64_t seen = 0;
    for (History h = r.next(200); h.txn_count() > 0; h = r.next(200)) {
      seen += h.txn_count();
      held.txns = std::max(held.txns, h.txn_count());
      held.ops = std::max(held.ops, h.op_count());
      held.symbols = std::max(held.symbols, r.key_table(h).size() + r.value_table(h).size());
    }
    EXPECT_EQ(seen, txns);
    JsonlReader j(path, 1 << 16);
    for (History h = j.next(200); h.txn_count() > 0; h = j.next(200)) {
      held.buffer = std::max(held.buffer, j.held_bytes());
      held.ids = std::max(held.ids, j.held_ids());
    }
    return held;
  };
  const Held small = run(2000), large = run(40000);
  EXPECT_EQ(large.txns, 200u);
  EXPECT_EQ(large.txns, small.txns);
  EXPECT_EQ(large.ops, small.ops);
  EXPECT_LE(large.symbols, small.symbols);
  EXPECT_LE(large.symbols, 200u + 200u + 200u);  // keys, integer and named values of one round
  EXPECT_EQ(large.buffer, small.buffer);
  EXPECT_LE(large.buffer, (1u << 16) + 4096u);
  EXPECT_EQ(large.ids, 200u);
}

// Every piece of an Elle reader, concatenated: the whole file's history.
std::string elle_pieces(const std::string& path, Format f, size_t block, uint64_t piece) {
  auto r = open_elle_reader(path, f, block);
  std::string got;
  uint64_t n = 0;
  for (History p = r->next(piece); p.txn_count() > 0; p = r->next(piece)) {
    EXPECT_LE(p.txn_count(), piece);
    n += p.txn_count();
    got += lines_of(p);
  }
  EXPECT_EQ(r->position().txn, n);
  return got;
}

// What only the whole file tells (a list-append history whose first reads
// are nil, operations without :process, :info and never-completed
// invocations ending with the history, a nemesis) is known to the first
// piece already; windows that cut values anywhere change nothing.
TEST(ElleReader, PiecesEqualTheWholeFile) {
  TempDir d;
  const std::string edn =
      "{:type :invoke, :f :txn, :value [[:r 2 nil] [:append 1 1]], :process 0, :index 0}\n"
      "{:type :invoke, :f :txn, :value [[:r 1 nil]], :index 1}\n"
      "{:type :ok, :f :txn, :value [[:r 2 nil] [:append 1 1]], :process 0, :index 2}\n"
      "{:type :ok, :f :txn, :value [[:r 1 [1]]], :index 3}\n"
      "{:type :invoke, :f :txn, :value [[:append 2 5]], :process 3, :index 4}\n"
      "{:type :info, :f :txn, :value [[:append 2 5]], :process 3, :index 5}\n"
      "{:type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]], :process 5, :index 6}\n"
      "{:type :invoke, :f :read, :value nil, :process :nemesis, :index 7} ; a comment\n"
      "#_{:type :ok} {:type :invoke, :f :txn, :value [[:r 2 nil] [:append \"k\" \"v\"]], :process 0, :index 8}\n"
      "{:type :ok, :f :txn, :value [[:r 2 [5]] [:append \"k\" \"v\"]], :process 0, :index 9}\n";
  const std::string path = d.write("h.edn", edn), vpath = d.write("v.edn", "[" + edn + "]");
  ImportStats st;
  const std::string want = lines_of(load_history(path, Format::elle_edn, &st));
  EXPECT_NE(want.find("\"session\":6"), std::string::npos) << want;  // no :process: one session after 5
  EXPECT_NE(want.find("\"end\":10"), std::string::npos) << want;     // :info ends with the history
  for (size_t block : {16, 17, 64, 1 << 20})
    for (uint64_t piece : {1, 2, 100}) {
      EXPECT_EQ(elle_pieces(path, Format::elle_edn, block, piece), want) << block << " " << piece;
      EXPECT_EQ(elle_pieces(vpath, Format::elle_edn, block, piece), want) << block << " " << piece;
    }
}

TEST(ElleReader, RandomHistoriesPiecesEqualTheWholeFile) {
  TempDir d;
  int compared = 0;
  for (int seed = 0; seed < 80; ++seed) {
    History h = random_history_of(900 + seed, 5, 30);
    if (!testkit::elle_can_hold(h)) continue;
    for (bool json : {false, true}) {
      const Format f = json ? Format::elle_json : Format::elle_edn;
      const std::string path = d.write(json ? "r.json" : "r.edn", testkit::elle_text(h, json));
      const History whole = load_history(path, f);
      ASSERT_EQ(whole.txn_count(), h.txn_count()) << "seed " << seed;
      const std::string want = lines_of(whole);
      for (size_t block : {16, 100, 1 << 20})
        for (uint64_t piece : {1, 3, 1000}) {
          ASSERT_EQ(elle_pieces(path, f, block, piece), want) << "seed " << seed << " block " << block;
          ++compared;
        }
      // A position restored in a fresh reader goes on with the same pieces.
      auto a = open_elle_reader(path, f, 64);
      (void)a->next(h.txn_count() / 2);
      const TxnPosition at = a->position();
      const std::string rest = lines_of(a->next(1000));
      auto b = open_elle_reader(path, f, 100);
      b->seek(at);
      EXPECT_EQ(lines_of(b->next(1000)), rest) << "seed " << seed;
    }
  }
  EXPECT_GT(compared, 40 * 18);
}

// Errors name the file's line wherever the window cut the file.
TEST(ElleReader, ErrorsNameTheFileLine) {
  TempDir d;
  std::string edn;
  for (int i = 0; i < 300; ++i) {
    if (i == 250) {
      edn += "{:type :ok, :f :txn, :value [[:w 1]], :process 1}\n";  // line 251: a micro-op of 2 forms
      continue;
    }
    edn += "{:type :" + std::string(i % 2 ? "ok" : "invoke") + ", :f :txn, :value [[:w " + std::to_string(i) + " " +
           std::to_string(i + 1) + "]], :process 1}\n";
  }
  const std::string path = d.write("e.edn", edn);
  for (size_t block : {16, 1000, 1 << 20}) {
    try {
      auto r = open_elle_reader(path, Format::elle_edn, block);
      while (r->next(10).txn_count() > 0) {
      }
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.edn:251"), std::string::npos) << e.what();
    }
  }
}

// convert's streamed copy: the same file as converting the whole history,
// for JSONL and Elle inputs and HDF5 and JSONL outputs; an id repeated in
// another piece is refused and leaves no output.
TEST(CopyPieces, EqualsTheWholeConversionAndRefusesRepeatedIds) {
  TempDir d;
  int copied = 0;
  for (int seed = 0; seed < 8; ++seed) {
    History h = random_history_of(300 + seed, 20, 20);
    h.time_unit = "ms";
    std::vector<std::pair<std::string, Format>> inputs;
    inputs.push_back({(d.path / "in.jsonl").string(), Format::jsonl});
    write_jsonl(h, inputs.back().first);
    if (testkit::elle_can_hold(h)) inputs.push_back({d.write("in.edn", testkit::elle_text(h, false)), Format::elle_edn});
    for (auto& [in, f] : inputs)
      for (const char* ext : {".jsonl", ".h5"}) {
        const std::string out = (d.path / (std::string("out") + ext)).string();
        auto r = open_txn_reader(in, f);
        const Format to = std::string(ext) == ".h5" ? Format::hdf5 : Format::jsonl;
        EXPECT_EQ(copy_pieces(*r, in, 3, [&](const std::string& unit) { return open_sink(out, to, unit); }),
                  h.txn_count());
        const History whole = load_history(in, f), back = load_history(out, to);
        EXPECT_EQ(lines_of(back), lines_of(whole)) << "seed " << seed << " " << in << " -> " << out;
        EXPECT_EQ(back.time_unit, whole.time_unit);
        ++copied;
      }
  }
  EXPECT_GE(copied, 16);
  // Ids 1..6, then 2 again: a piece of 3 sees no repeat, the copy does.
  std::string text;
  for (int id : {1, 2, 3, 4, 5, 6, 2})
    text += "{\"id\":" + std::to_string(id) + ",\"session\":1,\"status\":\"committed\",\"ops\":[]}\n";
  const std::string in = d.write("dup.jsonl", text), out = (d.path / "dup-out.jsonl").string();
  auto r = open_txn_reader(in, Format::jsonl);
  try {
    copy_pieces(*r, in, 3, [&](const std::string& unit) { return open_sink(out, Format::jsonl, unit); });
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate transaction id 2"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  // An input without transactions keeps its header's time unit.
  const std::string empty = d.write("empty.jsonl", "{\"isocheck\":1,\"time_unit\":\"us\"}\n");
  auto e = open_txn_reader(empty, Format::jsonl);
  EXPECT_EQ(copy_pieces(*e, empty, 3, [&](const std::string& unit) { return open_sink(out, Format::jsonl, unit); }), 0u);
  EXPECT_EQ(load_history(out).time_unit, "us");
}


// A piece's key table and key symbols are exactly those of the same lines
// parsed on their own (first-mention order, integer keys as before), whether
// its keys are strings, integers or both; the reader's key numbers name the
// same string alike in every piece, different strings apart, and are given
// only for pieces that name no integer key.
void expect_same_tables(const History& got, const History& want, const std::string& where) {
  ASSERT_EQ(got.keys.named(), want.keys.named()) << where;
  EXPECT_EQ(got.keys.names(), want.keys.names()) << where;
  EXPECT_EQ(got.keys.int_flags(), want.keys.int_flags()) << where;
  EXPECT_EQ(got.op_key, want.op_key) << where;
  EXPECT_EQ(got.op_value, want.op_value) << where;
  EXPECT_EQ(lines_of(got), lines_of(want)) << where;
}

TEST(JsonlReader, PieceKeyTablesEqualTheLinesParsedAlone) {
  TempDir d;
  const std::string path = (d.path / "k.jsonl").string();
  std::vector<std::string> texts;
  for (int seed = 0; seed < 40; ++seed) texts.push_back(lines_of(random_history_of(900 + seed, 5, 40)));
  // String keys, then an integer key inside a piece; integer first; a key
  // that is a number in quotes.
  std::string mixed;
  const char* keys[] = {"\"a\"", "\"b\"", "3", "\"a\"", "\"3\"", "7", "\"c\"", "\"b\""};
  for (int i = 0; i < 24; ++i)
    mixed += "{\"id\":" + std::to_string(i) + ",\"session\":" + std::to_string(i % 3) +
             ",\"status\":\"committed\",\"ops\":[[\"w\"," + keys[i % 8] + "," + std::to_string(i + 1) + "],[\"r\"," +
             keys[(i * 5 + 1) % 8] + ",null]]}\n";
  texts.push_back(mixed);
  int with_ids = 0, without = 0;
  for (size_t ti = 0; ti < texts.size(); ++ti) {
    std::ofstream(path, std::ios::binary) << "{\"isocheck\":1}\n" << texts[ti];
    std::vector<std::string> lines;
    {
      std::istringstream in(texts[ti]);
      for (std::string l; std::getline(in, l);) lines.push_back(l + "\n");
    }
    for (uint64_t piece : {1, 2, 5, 1000}) {
      JsonlReader r(path, 100);
      std::map<std::string, uint32_t> id_of;  // key string -> reader number
      std::map<uint32_t, std::string> name_of;
      size_t at = 0;
      for (History p = r.next(piece); p.txn_count() > 0; p = r.next(piece)) {
        std::string text;
        for (size_t i = at; i < at + p.txn_count(); ++i) text += lines[i];
        const std::string where = "text " + std::to_string(ti) + " piece " + std::to_string(piece) + " at " + std::to_string(at);
        const History want = parse_jsonl(text, "k.jsonl", false, at + 2);
        expect_same_tables(p, want, where);
        const KeyIds ids = r.take_key_ids();
        EXPECT_TRUE(r.take_key_ids().ids.empty()) << where;  // moved out
        bool int_key = false;
        for (Sym k : p.op_key) int_key |= p.keys.is_int(k);
        if (int_key || !p.keys.named()) {
          EXPECT_TRUE(ids.ids.empty()) << where;
          ++without;
        } else {
          ASSERT_EQ(ids.ids.size(), p.keys.size()) << where;
          for (Sym k = 0; k < p.keys.size(); ++k) {
            const std::string& name = p.keys.name(k);
            auto [it, fresh] = id_of.try_emplace(name, ids.ids[k]);
            EXPECT_EQ(it->second, ids.ids[k]) << where << " key " << name;
            auto [jt, fresh2] = name_of.try_emplace(ids.ids[k], name);
            EXPECT_EQ(jt->second, name) << where << " number " << ids.ids[k];
          }
          ++with_ids;
        }
        at += p.txn_count();
      }
      EXPECT_EQ(at, lines.size());
    }
  }
  EXPECT_GT(with_ids, 100);
  EXPECT_GT(without, 20);
}

}  // namespace
}  // namespace isocheck

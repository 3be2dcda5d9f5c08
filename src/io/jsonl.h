// JSONL, the human format: one transaction per line, optional header line
// {"isocheck":1,"time_unit":"ns"}. See docs/formats.md.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>
#include <iosfwd>
#include <string>

#include "core/errors.h"
#include "core/history.h"
#include "io/txn_reader.h"

namespace isocheck {

struct PredicateList;  // core/predicates.h

// JsonlReader::next_scan met a range scan, insert or delete. An InputError
// with next()'s words, so a caller that does not expect it reports it as the
// line's error.
struct JsonlStatesPredicates : InputError {
  using InputError::InputError;
};

// Throws InputError naming the file and line on any malformed input.
// release_unused_lists: a history without list reads comes without list
// offsets (History::release_unused_list_offsets()).
History read_jsonl(const std::string& path, bool release_unused_lists = false);

// Whether the file may hold range scans, inserts or deletes (it names one of
// the words "scan", "insert", "delete" in quotes anywhere): those are expanded
// only when the file is read whole (read_jsonl), so a streamed copy reads such
// a file whole instead. A false alarm (a key named "scan") only costs memory.
bool jsonl_may_hold_predicates(const std::string& path);
History parse_jsonl(const std::string& text, const std::string& name);  // tests
// Tests: false sends every line through the general JSON parser instead of
// first trying the reader of the line shape isocheck writes
// (io/jsonl_fast.h); the results and errors are the same either way.
void set_jsonl_fast_lines(bool on);
// A piece of a file: `text` holds the file's header line when `has_header`,
// then the file's lines from line `first_line` on; errors give file lines.
History parse_jsonl(const std::string& text, const std::string& name, bool has_header, uint64_t first_line);
void write_jsonl(const History& h, const std::string& path);

// A JSONL file read a piece at a time through a sliding buffer of the file
// (one block, or one line when a line is longer): nothing of the lines
// already read stays, so the memory it holds does not grow with the file.
// Errors name the file's own line numbers.
class JsonlReader {
 public:
  // Throws InputError when the file cannot be read or its header is bad.
  explicit JsonlReader(const std::string& path, size_t block = 8 << 20);
  ~JsonlReader();
  JsonlReader(const JsonlReader&) = delete;
  JsonlReader& operator=(const JsonlReader&) = delete;
  // Up to n transactions from the position on, a history with its own
  // symbol tables (ids unique within it); empty at the end.
  History next(uint64_t n);
  // next() that also takes range scans, inserts and deletes: they are left
  // unexpanded in `preds` (in the piece's symbols, ordered by transaction,
  // then position), the piece holding the reads and writes around them (the
  // audit expands a round with what the whole file does to its keys,
  // core/predicates.h). next() refuses them.
  History next(uint64_t n, PredicateList& preds);
  // next() for a scan that asks of each key only whether it is `fence_key`:
  // keys are not interned; the key table names two keys, symbol 1 is
  // fence_key and symbol 0 every other key. Values as next(). A range scan,
  // insert or delete throws JsonlStatesPredicates (the caller reads the file
  // again with next(n, preds)).
  History next_scan(uint64_t n, const std::string& fence_key);
  // next() whose key and value symbols are their canonical hashes | 1
  // (core/canon_hash.h): nothing is interned, both tables stay in integer
  // mode. For passes that only fingerprint (key, value) pairs (the audit's
  // later-reads index and spilled duplicate check). Refuses range scans,
  // inserts and deletes as next() does.
  History next_hashed(uint64_t n);
  // The reader-wide numbers of the key symbols of the piece next() returned
  // last (io/txn_reader.h, KeyIds): empty when that piece named an integer
  // key. Moved out.
  KeyIds take_key_ids();
  // Every transaction from the position on (ids unique across them).
  History read_all(bool release_unused_lists = false);
  // The byte offset of the next line and the lines before it; the first
  // position is after the header line, when there is one.
  uint64_t byte() const { return byte_; }
  uint64_t line() const { return line_; }
  void seek(uint64_t byte, uint64_t line);
  const std::string& time_unit() const { return time_unit_; }
  // What the reader holds between pieces: its buffer's bytes, and the ids
  // the last piece checked for uniqueness.
  size_t held_bytes() const { return buf_.capacity(); }
  size_t held_ids() const { return held_ids_; }

 private:
  struct Impl;
  // refill false: only a line already in the buffer (false when there is none).
  bool next_line(const char*& s, size_t& n, bool refill = true);
  History piece(uint64_t n, const std::string* fence_key, PredicateList* preds = nullptr, bool hashed = false);
  struct Pos {
    uint64_t byte = 0, line = 0;
  };
  std::string path_;
  size_t block_;
  std::FILE* fd_ = nullptr;
  std::unique_ptr<Impl> impl_;
  std::vector<char> buf_;
  size_t beg_ = 0, end_ = 0;  // unread bytes of buf_
  bool eof_ = false;
  uint64_t byte_ = 0, line_ = 0, line_start_byte_ = 0;
  Pos start_;
  std::string time_unit_;
  size_t held_ids_ = 0;
  uint64_t last_txns_ = 0, last_ops_ = 0;  // the last piece's (its columns' room for the next)
  std::vector<uint32_t> key_ids_;  // of the last piece (empty: none)
  bool key_ids_valid_ = false;
  uint64_t key_space_ = 0;
};
void write_jsonl(const History& h, std::ostream& out);

}  // namespace isocheck

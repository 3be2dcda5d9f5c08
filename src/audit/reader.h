// Reading a log a round at a time: HDF5 through one Hdf5RangeReader (the file,
// its datasets and name tables opened once), JSONL through a JsonlReader (a
// sliding buffer of the file, parsed a line at a time), the other formats
// through their TxnReader (io/txn_reader.h). A position can be saved and restored (checkpoints).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "io/hdf5_range.h"
#include "io/jsonl.h"
#include "io/txn_reader.h"
#include "core/history.h"

namespace isocheck {

class LogPredicateKeys;  // audit/pass1.h

struct LogPosition {
  uint64_t txn = 0;     // transactions before this position
  uint64_t byte = 0;    // JSONL: byte offset of the next line (other formats: 0)
  uint64_t line = 0;    // JSONL: lines before it (1-based numbering in messages)
};

class LogReader {
 public:
  // format: "auto" or a --format name (jsonl, hdf5, elle-edn, ...). Throws
  // UsageError / InputError.
  LogReader(const std::string& path, const std::string& format);
  bool hdf5() const { return hdf5_; }
  bool jsonl() const { return jsonl_ != nullptr; }
  // JSONL with range scans, inserts and deletes: every round is expanded
  // with what the whole file does to its keys (gathered by pass 1,
  // next_predicates()); without them, a round that holds one is refused.
  void set_predicate_keys(std::shared_ptr<const LogPredicateKeys> k) { pred_keys_ = std::move(k); }
  const std::shared_ptr<const LogPredicateKeys>& predicate_keys() const { return pred_keys_; }
  // JSONL: next() with the round's scans, inserts and deletes left
  // unexpanded in `preds` (pass 1 gathers the keys they expand over).
  History next_predicates(uint64_t n, PredicateList& preds);
  // Up to n transactions from the current position; empty at the end.
  // HDF5: the result's key and value tables are empty, its symbols are those
  // of the file's tables (key_table() / value_table()), the same in every
  // round; other formats: each result has its own tables.
  History next(uint64_t n);
  // The reader-wide numbers of the last next() piece's key symbols
  // (io/txn_reader.h, KeyIds; empty for HDF5, whose symbols are the file's).
  KeyIds take_key_ids() { return hdf5_ ? KeyIds{} : jsonl_ ? jsonl_->take_key_ids() : src_->take_key_ids(); }
  // next() for pass 1, which asks of a key only whether it is `fence_key`:
  // JSONL keys are then not interned (io/txn_reader.h).
  History next_scan(uint64_t n, const std::string& fence_key);
  // next() with every key and value symbol replaced by its canonical hash
  // | 1 (SymHashCache's, audit/written.h): what the passes that fingerprint
  // (key, value) pairs need. A JSONL log without range scans, inserts and
  // deletes is read without interning anything (JsonlReader::next_hashed);
  // other logs are read by next() and their symbols hashed.
  History next_hashed(uint64_t n);
  // (Not after hdf5_file().take_tables(): the caller holds the tables then.)
  const SymbolTable& key_table(const History& h) { return hdf5_ ? file_->keys() : h.keys; }
  const SymbolTable& value_table(const History& h) { return hdf5_ ? file_->values() : h.values; }
  // HDF5 only: the reader itself (pass 1 reads only some columns).
  Hdf5RangeReader& hdf5_file() { return *file_; }
  uint64_t total() const { return total_; }
  LogPosition position() const { return pos_; }
  void seek(const LogPosition& p);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool hdf5_ = false;
  uint64_t total_ = 0;  // HDF5
  std::unique_ptr<Hdf5RangeReader> file_;
  std::unique_ptr<TxnReader> src_;  // every format but HDF5 and JSONL
  std::unique_ptr<JsonlReader> jsonl_;  // JSONL
  std::shared_ptr<const LogPredicateKeys> pred_keys_;
  LogPosition pos_;
};

// The keys a JSONL log's scans, inserts and deletes expand over
// (LogPredicateKeys), gathered in one read of the log, `piece` transactions
// at a time; null for other formats and logs without such operations.
std::shared_ptr<const LogPredicateKeys> log_predicate_keys(const std::string& path, const std::string& format,
                                                           uint64_t piece);

// Size, modification time and a hash of the first and last MiB: ties a
// checkpoint to its input.
std::string file_fingerprint(const std::string& path);

}  // namespace isocheck

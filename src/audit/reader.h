// Reading a log a round at a time: HDF5 through one Hdf5RangeReader (the file,
// its datasets and name tables opened once), JSONL through a JsonlReader (a
// sliding buffer of the file, parsed a line at a time), the other formats
// through their TxnReader (io/txn_reader.h). A position can be saved and restored (checkpoints).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "io/hdf5_range.h"
#include "io/txn_reader.h"
#include "core/history.h"

namespace isocheck {

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
  // Up to n transactions from the current position; empty at the end.
  // HDF5: the result's key and value tables are empty, its symbols are those
  // of the file's tables (key_table() / value_table()), the same in every
  // round; other formats: each result has its own tables.
  History next(uint64_t n);
  // The reader-wide numbers of the last next() piece's key symbols
  // (io/txn_reader.h, KeyIds; empty for HDF5, whose symbols are the file's).
  KeyIds take_key_ids() { return hdf5_ ? KeyIds{} : src_->take_key_ids(); }
  // next() for pass 1, which asks of a key only whether it is `fence_key`:
  // JSONL keys are then not interned (io/txn_reader.h).
  History next_scan(uint64_t n, const std::string& fence_key);
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
  std::unique_ptr<TxnReader> src_;  // every format but HDF5
  LogPosition pos_;
};

// Size, modification time and a hash of the first and last MiB: ties a
// checkpoint to its input.
std::string file_fingerprint(const std::string& path);

}  // namespace isocheck

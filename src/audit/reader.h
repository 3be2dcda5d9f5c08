// Reading a log a round at a time: HDF5 through read_hdf5_range, JSONL
// streamed line by line. A position can be saved and restored (checkpoints).
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

#include "io/history.h"

namespace isocheck {

struct LogPosition {
  uint64_t txn = 0;     // transactions before this position
  uint64_t byte = 0;    // JSONL: byte offset of the next line
  uint64_t line = 0;    // JSONL: lines before it (1-based numbering in messages)
};

class LogReader {
 public:
  // format: "auto", "jsonl", "hdf5". Throws UsageError / InputError.
  LogReader(const std::string& path, const std::string& format);
  bool hdf5() const { return hdf5_; }
  // Up to n transactions from the current position; empty at the end.
  History next(uint64_t n);
  LogPosition position() const { return pos_; }
  void seek(const LogPosition& p);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool hdf5_ = false;
  uint64_t total_ = 0;  // HDF5
  std::ifstream in_;
  std::string header_;  // JSONL header line (with newline), "" when none
  LogPosition pos_;
};

// Size, modification time and a hash of the first and last MiB: ties a
// checkpoint to its input.
std::string file_fingerprint(const std::string& path);

}  // namespace isocheck

// Streaming output of histories: generators and importers hand over chunks of
// transactions, so a 10^8-transaction history never sits in memory whole.
#pragma once
#include <memory>
#include <string>

#include "core/history.h"

namespace isocheck {

enum class Format { jsonl, hdf5, elle_edn, elle_json, cobra, dbcop, dbcop_json, dbcop_text, polysi, unknown };

class HistorySink {
 public:
  virtual ~HistorySink() = default;
  // Appends every transaction of `chunk` (its symbol tables must be integer
  // mode or agree with earlier chunks; sessions are by session_name).
  virtual void append(const History& chunk) = 0;
  // Flushes and closes; must be called once, after the last append.
  virtual void finish() = 0;
};

// Format::jsonl or Format::hdf5; time_unit goes to the header/attribute.
// The file is written beside `path` under a temporary name and renamed onto
// it by finish(); a sink destroyed before finish() leaves `path` untouched.
// Write errors: ResourceError when the disk is full, UsageError otherwise.
std::unique_ptr<HistorySink> open_sink(const std::string& path, Format f, const std::string& time_unit);

// By extension: .jsonl/.json → jsonl, .h5/.hdf5 → hdf5, else unknown.
Format format_from_extension(const std::string& path);
const char* to_string(Format f);

}  // namespace isocheck

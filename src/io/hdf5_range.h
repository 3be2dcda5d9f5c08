// Reading one HDF5 history range after range (the audit's rounds, its
// pass-1 scan). read_hdf5_range opens the file, its datasets and its name
// tables on every call: with 10^6 named keys that is ~1 s per call whatever
// the range. This reader opens them once, so a range costs the range.
// Implemented in hdf5_read.cpp (it shares the reader and its validation there).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/history.h"

namespace isocheck {

// Some columns of a transaction range, validated as read_hdf5_range
// validates them.
struct Hdf5Columns {
  std::vector<int64_t> id;          // transaction ids (with kIds)
  std::vector<int64_t> session;     // the user's session numbers (not dense)
  std::vector<TxnStatus> status;
  std::vector<int64_t> begin, end;  // kNoTime when absent
  // With kOps: ops of transaction t are [op_offset[t], op_offset[t+1]), rebased to 0.
  // With kOpKinds alone: op_offset and op_kind only (kinds not validated).
  std::vector<uint64_t> op_offset;
  std::vector<OpKind> op_kind;
  std::vector<Sym> op_key, op_value;  // symbols of keys() / values()
};

class Hdf5RangeReader {
 public:
  enum Column : unsigned { kSession = 1, kStatus = 2, kTimes = 4, kOps = 8, kOpKinds = 16, kIds = 32 };

  // Opens the file and checks its format version; throws InputError.
  explicit Hdf5RangeReader(const std::string& path);
  ~Hdf5RangeReader();
  Hdf5RangeReader(Hdf5RangeReader&&) noexcept;
  Hdf5RangeReader& operator=(Hdf5RangeReader&&) noexcept;

  uint64_t txn_count();
  // The file's key and value tables (empty and in integer mode when the file
  // has none), read at the first call and kept. range() and columns() check
  // every name at their first call (one block of names in memory at a time)
  // but keep none: a rank reading a range of a file with millions of names
  // holds them only when it asks here (holds_names()).
  const SymbolTable& keys();
  const SymbolTable& values();
  bool holds_names() const;
  const std::string& time_unit();
  // Moves the file's tables out (a caller that keeps its own copy of them
  // saves copying a table of millions of names). Ranges still read and
  // validate; keys() and values() are empty from then on.
  void take_tables(SymbolTable& keys, SymbolTable& values);

  // As read_hdf5_range(path, first, last), same validation and errors, except
  // that the result's key and value tables are left empty: its symbols are
  // those of keys() and values().
  History range(uint64_t first, uint64_t last);
  // Only the columns asked for (a mask of Column). Several threads may call
  // columns() at once (pass 1 of the audit on threads), and one thread
  // range() meanwhile: the file is read under a lock, chunks are inflated
  // in parallel. Not at once with the other members.
  Hdf5Columns columns(uint64_t first, uint64_t last, unsigned which);
  // The same into `out`, reusing its vectors' memory (pass 1 reads piece
  // after piece on each thread: fresh vectors faulted in their pages anew).
  void columns(uint64_t first, uint64_t last, unsigned which, Hdf5Columns& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The InputError every reader of an HDF5 file gives for row b repeating row
// a's transaction id (one process, the ranks' ranges, the audit's rounds).
[[noreturn]] void throw_hdf5_duplicate_id(const std::string& file, int64_t id, uint64_t a, uint64_t b);

}  // namespace isocheck

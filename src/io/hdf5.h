// HDF5, the native format for big histories. Layout: docs/hdf5-format.md.
// The HDF5 headers stay private to io/: nothing here needs them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/history.h"

namespace isocheck {

inline constexpr int kHdf5FormatVersion = 1;

// How datasets are written (any choice reads back the same).
struct Hdf5Options {
  // Shuffle + deflate at this level; 0 writes unfiltered datasets, which read
  // about 2x faster (zlib inflate dominates reading) in 8x the space.
  int deflate_level = 1;
  // Rows per chunk: 2 MiB of a 64-bit column, the unit of compression and of
  // the writer's buffering.
  size_t chunk_elems = size_t{1} << 18;
};

// Reads and validates the whole file. Throws InputError naming the file, the
// dataset and the row on malformed input. release_unused_lists: a file with
// no list values and no list reads comes back as
// History::release_unused_list_offsets() leaves it (its list offsets are
// checked a block at a time, never held).
History read_hdf5(const std::string& path, bool release_unused_lists = false);

// Transactions [txn_first, txn_last) and exactly their operations and list
// values; offsets are rebased to 0 and sessions get dense indices local to the
// range (in order of first appearance). Duplicate ids are only detected inside
// the range. Error rows are rows of the file.
History read_hdf5_range(const std::string& path, uint64_t txn_first, uint64_t txn_last);

// Number of transactions in the file (cheap: reads no data), so that ranks can
// split [0, n) before calling read_hdf5_range.
uint64_t hdf5_txn_count(const std::string& path);
// Whether the file stores scans' value predicates (/op/predicate): readers
// that take columns, not histories (the ranks), refuse such files.
bool hdf5_has_value_predicates(const std::string& path);

// Writes `h` (one shot; for streaming use open_sink(path, Format::hdf5, ...)).
void write_hdf5(const History& h, const std::string& path, const Hdf5Options& opt = {});

class HistorySink;
// The HDF5 streaming sink; open_sink(path, Format::hdf5, time_unit) gives one
// with the default options.
std::unique_ptr<HistorySink> open_hdf5_sink(const std::string& path, const std::string& time_unit,
                                            const Hdf5Options& opt = {});

}  // namespace isocheck

// HDF5, the native format for big histories. Layout: docs/hdf5-format.md.
// The HDF5 headers stay private to io/: nothing here needs them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/history.h"

namespace isocheck {

inline constexpr int kHdf5FormatVersion = 1;

// Reads and validates the whole file. Throws InputError naming the file, the
// dataset and the row on malformed input.
History read_hdf5(const std::string& path);

// Transactions [txn_first, txn_last) and exactly their operations and list
// values; offsets are rebased to 0 and sessions get dense indices local to the
// range (in order of first appearance). Duplicate ids are only detected inside
// the range. Error rows are rows of the file.
History read_hdf5_range(const std::string& path, uint64_t txn_first, uint64_t txn_last);

// Number of transactions in the file (cheap: reads no data), so that ranks can
// split [0, n) before calling read_hdf5_range.
uint64_t hdf5_txn_count(const std::string& path);

// Writes `h` (one shot; for streaming use open_sink(path, Format::hdf5, ...)).
void write_hdf5(const History& h, const std::string& path);

class HistorySink;
// The HDF5 streaming sink behind open_sink(path, Format::hdf5, time_unit).
std::unique_ptr<HistorySink> open_hdf5_sink(const std::string& path, const std::string& time_unit);

namespace detail {
// Elements per HDF5 chunk for the datasets written from now on. Tests lower
// it to exercise chunk boundaries; nothing else should touch it.
extern size_t hdf5_chunk_elems;
}  // namespace detail

}  // namespace isocheck

// Reading any supported history file into the model.
#pragma once
#include <string>

#include "core/history.h"
#include "io/import.h"
#include "io/sink.h"

namespace isocheck {

// `f` = Format::unknown detects the format (extension, then content).
// Importers report what they skipped, and why, in `stats`.
// Throws InputError (file, line/row/byte, problem) or UsageError.
// release_unused_lists: return the history as release_unused_list_offsets()
// leaves it (for a caller that would call it next): the HDF5 reader then
// checks a file's list offsets without holding them when it has no lists
// (8 bytes per operation read, kept and freed for nothing otherwise).
History load_history(const std::string& path, Format f = Format::unknown, ImportStats* stats = nullptr,
                     bool release_unused_lists = false);
// "jsonl", "hdf5", "elle-edn", ...; Format::unknown if none.
Format parse_format_name(const std::string& name);
// The names --format accepts, for help text.
std::string format_names();

}  // namespace isocheck

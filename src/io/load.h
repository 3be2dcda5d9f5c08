// Reading any supported history file into the model.
#pragma once
#include <string>

#include "io/history.h"
#include "io/sink.h"

namespace isocheck {

// `f` = Format::unknown detects the format (extension, then content).
// Throws InputError (file, line/row, problem) or UsageError (unsupported format).
History load_history(const std::string& path, Format f = Format::unknown);
Format parse_format_name(const std::string& name);  // "jsonl", "hdf5", ...; unknown if none

}  // namespace isocheck

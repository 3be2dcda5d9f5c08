// Streaming JSONL output: the same line format as write_jsonl, a chunk of
// transactions at a time (used by the JSONL HistorySink).
#pragma once
#include <iosfwd>
#include <string>

#include "core/history.h"

namespace isocheck {

// The header line {"isocheck":1[,"time_unit":"..."]}.
void write_jsonl_header(const std::string& time_unit, std::ostream& out);
// One line per transaction of `h`; with `header`, the header line (h.time_unit) first.
void write_jsonl_txns(const History& h, std::ostream& out, bool header);

}  // namespace isocheck

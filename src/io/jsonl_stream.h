// Streaming JSONL output: the same line format as write_jsonl, a chunk of
// transactions at a time (used by the JSONL HistorySink).
#pragma once
#include <iosfwd>
#include <string>

#include "core/history.h"

namespace isocheck {

// The header line {"isocheck":1[,"time_unit":"..."]}.
void write_jsonl_header(const std::string& time_unit, std::ostream& out);
// The start of transaction t's line, up to and including `"ops":[` (id,
// session, status, and begin/end when it has times).
void put_jsonl_txn_head(std::string& out, const History& h, TxnIdx t);
// Operation o as its JSON array, e.g. ["w",1,2] or ["r",1,[1,2]].
void put_jsonl_op(std::string& out, const History& h, OpIdx o);
// An integer in JSON.
void put_jsonl_int(std::string& out, int64_t v);
// One line per transaction of `h`; with `header`, the header line (h.time_unit) first.
void write_jsonl_txns(const History& h, std::ostream& out, bool header);

}  // namespace isocheck

// JSONL, the human format: one transaction per line, optional header line
// {"isocheck":1,"time_unit":"ns"}. See docs/formats.md.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/history.h"

namespace isocheck {

// Throws InputError naming the file and line on any malformed input.
History read_jsonl(const std::string& path);
History parse_jsonl(const std::string& text, const std::string& name);  // tests
// A piece of a file: `text` holds the file's header line when `has_header`,
// then the file's lines from line `first_line` on; errors give file lines.
History parse_jsonl(const std::string& text, const std::string& name, bool has_header, uint64_t first_line);
void write_jsonl(const History& h, const std::string& path);
void write_jsonl(const History& h, std::ostream& out);

}  // namespace isocheck

// A symbol's hash by what it names, the same in every symbol table and in
// the text of a log: an integer by its value, a string by its bytes (an
// integer-looking string "5" is a string). The audit's fingerprints of
// (key, value) pairs (audit/written.h) are made of these, so a pass over a
// JSONL log can compute them from the text without interning a symbol
// (io/jsonl.h, JsonlReader::next_hashed).
#pragma once
#include <cstdint>
#include <string_view>

#include "core/flat_hash.h"

namespace isocheck {

inline uint64_t canon_int_hash(int64_t i) { return mix64(static_cast<uint64_t>(i) ^ 0x5bd1e9955bd1e995ULL); }

inline uint64_t canon_text_hash(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a, then mixed
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  return mix64(h ^ 0x27d4eb2f165667c5ULL);
}

}  // namespace isocheck

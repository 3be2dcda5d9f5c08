// Escaping of strings a user gave us (keys, values, file names, time units,
// importers' notes) before they go into an output: one JSON string escaper for
// every JSON writer, and a printable form for text lines (reports, DOT
// comments, messages), so that a name holding a newline or a quote cannot end
// a line, a comment or a string and forge what follows.
#pragma once
#include <string>
#include <string_view>

namespace isocheck {

// Appends `s` as a JSON string literal, quotes included: '"' and '\' escaped,
// \n \r \t by name, every other control character as \u00XX. Bytes >= 0x20
// pass unchanged (UTF-8 stays UTF-8).
inline void append_json_string(std::string& out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(hex[c >> 4]);
          out.push_back(hex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

inline std::string json_quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_json_string(out, s);
  return out;
}

// c itself, or \xNN when it is a control character (or DEL).
inline void append_char_or_hex(std::string& out, unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  if (c < 0x20 || c == 0x7f) {
    out += "\\x";
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  } else {
    out.push_back(static_cast<char>(c));
  }
}

// A name as one line of text: '\' doubled, \n \r \t by name, other control
// characters (and DEL) as \xNN; everything else unchanged.
inline std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else append_char_or_hex(out, c);
  }
  return out;
}

// Text already made of printable pieces, kept on one line whatever slipped
// through: control characters become \xNN (backslashes stay as they are).
inline std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) append_char_or_hex(out, c);
  return out;
}

}  // namespace isocheck

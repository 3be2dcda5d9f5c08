// Shared pieces of the importers (internal to io/): a generic parsed value
// (EDN, JSON and YAML all read into it), the three small parsers, symbol
// interning with the integer-to-named switch, and the "value 0 = initial
// state" rule of the PolySI and dbcop formats.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "core/history.h"
#include "io/import.h"

namespace isocheck::imp {

// A parsed EDN / JSON / YAML value. Maps keep their entries in `items` as
// key, value, key, value, ...; JSON objects and YAML mappings have string keys,
// EDN maps usually keywords; get() matches either.
struct Node {
  enum class T : uint8_t { nil, boolean, integer, number, string, keyword, symbol, character, vector, list, set, map };
  T t = T::nil;
  bool b = false;
  int64_t i = 0;
  std::string s;            // text of string/keyword/symbol/number/character
  std::vector<Node> items;  // vector/list/set elements; map: k0 v0 k1 v1 ...
  uint32_t line = 0;        // line where the value starts (1-based)

  bool is_seq() const { return t == T::vector || t == T::list; }
  bool is_named() const { return t == T::string || t == T::keyword || t == T::symbol; }
  // A string, keyword or symbol spelled `n` (":ok" and "ok" both match "ok").
  bool is(std::string_view n) const { return is_named() && s == n; }
  // Map lookup by key name (keyword or string); nullptr when absent.
  const Node* get(std::string_view key) const;
  // Short text for error messages.
  std::string brief() const;
};

const char* kind_name(Node::T t);

// Top-level reader of a file that holds a sequence of values, or one vector /
// array of values: next() yields the values one at a time (the elements when
// the file is one big vector), so a large history is never one tree.
class EdnStream {
 public:
  EdnStream(std::string_view text, const std::string& name);
  bool next(Node& out);
  uint32_t line() const { return line_; }
 private:
  friend struct EdnParser;
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  int top_ = -1;  // -1: not decided; 0: values at top level; ']' / ')': inside one collection
};

class JsonStream {
 public:
  JsonStream(std::string_view text, const std::string& name);
  bool next(Node& out);
  // Parses the whole text as one value (dbcop JSON).
  Node parse_one();
 private:
  friend struct JsonParser;
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  int top_ = -1;
};

// Block YAML as serde_yaml writes it: block sequences and mappings, scalars,
// empty or flat flow collections, comments, document markers.
Node parse_yaml(std::string_view text, const std::string& name);

[[noreturn]] void fail_line(const std::string& name, uint32_t line, const std::string& what);
[[noreturn]] void fail_byte(const std::string& name, uint64_t offset, const std::string& what);

// Reads a whole file; InputError when it cannot.
std::string read_whole_file(const std::string& path);

// Interning into a History's symbol tables, remapping stored symbols when a
// table switches to named mode.
struct Interner {
  History& h;
  Sym key_int(int64_t v) { return h.keys.intern_int(v); }
  Sym key_str(std::string_view s) {
    Sym k = h.keys.intern_string(s);
    if (h.keys.take_switch()) h.remap_keys();
    return k;
  }
  // false when v is the reserved integer that stands for the initial state.
  bool value_int_ok(int64_t v) const { return static_cast<Sym>(v) != kNullValue; }
  Sym value_int(int64_t v) { return h.values.intern_int(v); }
  Sym value_str(std::string_view s) {
    Sym v = h.values.intern_string(s);
    if (h.values.take_switch()) h.remap_values();
    return v;
  }
};

// Dense session index for a user's session number (appends to session_name).
struct Sessions {
  History& h;
  std::unordered_map<int64_t, uint32_t> map{};
  uint32_t index(int64_t name);
};

// "Value 0 is the initial state" (PolySI text, dbcop bincode/YAML/JSON/.hist):
// a read of 0 reads the initial state (kNullValue) unless a transaction that
// did not abort explicitly writes 0 to that key (then it reads that write,
// as in dbcop). Call once after the history is built; values must be integers.
void apply_zero_is_initial(History& h, ImportStats& st);

// True when every op in [from, to) of h is a write of integer value 0 and
// there is at least one: a transaction that only restates the initial state.
bool only_zero_writes(const History& h, uint64_t from, uint64_t to);
// Removes the last transaction (its ops must be the last ops).
void drop_last_txn(History& h);

// Elle/Jepsen operation maps, EDN or JSON alike, to a History (import_edn.cpp).
History elle_from_ops(const std::function<bool(Node&)>& next, const std::string& name, ImportStats& st,
                      const char* format);


}  // namespace isocheck::imp

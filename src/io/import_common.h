// Shared pieces of the importers (internal to io/): a generic parsed value
// (EDN, JSON and YAML all read into it), the three small parsers, symbol
// interning with the integer-to-named switch, and the "value 0 = initial
// state" rule of the PolySI and dbcop formats.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
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

// The text the streams below read: a whole text in memory, or a file read a
// block at a time into a window that slides on as values are consumed (a
// value longer than a block grows it). A parser that reaches the window's end
// before the file's throws NeedMore; the stream restarts the value after
// more().
class TextWindow {
 public:
  explicit TextWindow(std::string_view whole) : text_(whole), final_(true) {}
  TextWindow(const std::string& path, size_t block);
  ~TextWindow();
  TextWindow(const TextWindow&) = delete;
  TextWindow& operator=(const TextWindow&) = delete;
  std::string_view text() const { return text_; }
  // True when text() ends where the input ends.
  bool final() const { return final_; }
  // Drops the window's first `consumed` bytes and reads the next block behind
  // the rest.
  void more(size_t consumed);
  // Bytes the window holds (its buffer).
  size_t held_bytes() const { return buf_.capacity(); }
  struct NeedMore {};

 private:
  std::string_view text_;
  bool final_;
  std::string path_;
  size_t block_ = 0;
  std::FILE* f_ = nullptr;
  std::vector<char> buf_;
};

// One value of a stream over a TextWindow (EdnStream, JsonStream): parsed
// again over the slid window whenever it runs past the window's end, from
// the position, line and nesting it started at.
template <class Stream>
bool next_over_window(Stream& s, Node& out) {
  for (;;) {
    const size_t pos = s.pos_;
    const uint32_t line = s.line_;
    const int top = s.top_;
    try {
      return s.next_value(out);
    } catch (const TextWindow::NeedMore&) {
      s.win_.more(pos);
      s.text_ = s.win_.text();
      s.pos_ = 0;
      s.line_ = line;
      s.top_ = top;
    }
  }
}

[[noreturn]] void fail_line(const std::string& name, uint32_t line, const std::string& what);
[[noreturn]] void fail_byte(const std::string& name, uint64_t offset, const std::string& what);

// What EdnStream and JsonStream share: the window they read and where in it
// the next value starts (position, line, nesting).
class ValueStream {
 public:
  uint32_t line() const { return line_; }
 protected:
  ValueStream(std::string_view text, const std::string& name)
      : own_(text), win_(own_), text_(win_.text()), name_(name) {}
  ValueStream(TextWindow& window, const std::string& name) : win_(window), text_(win_.text()), name_(name) {}
  template <class S> friend struct StreamParser;
  TextWindow own_{std::string_view()};
  TextWindow& win_;
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  int top_ = -1;  // -1: not decided; else the stream's own mark of a top-level sequence or collection
};

// What the EDN and JSON parsers share: the end of the text and the byte at
// the position, over a stream's window.
template <class Stream>
struct StreamParser {
  Stream& st;
  [[noreturn]] void fail(const std::string& what) const { fail_line(st.name_, st.line_, what); }
  // At the window's end: true at the input's end, else NeedMore (the
  // stream reads on and parses the value again).
  bool eof() const {
    if (st.pos_ < st.text_.size()) return false;
    if (st.win_.final()) return true;
    throw TextWindow::NeedMore{};
  }
  // Whether n more bytes are there (NeedMore when the window ends first).
  bool avail(size_t n) const {
    if (st.pos_ + n <= st.text_.size()) return true;
    if (st.win_.final()) return false;
    throw TextWindow::NeedMore{};
  }
  char peek() const { return st.text_[st.pos_]; }
};

// Top-level reader of a file that holds a sequence of values, or one vector /
// array of values: next() yields the values one at a time (the elements when
// the file is one big vector), so a large history is never one tree, and
// with a file's TextWindow never one text.
class EdnStream : public ValueStream {
 public:
  EdnStream(std::string_view text, const std::string& name) : ValueStream(text, name) {}
  EdnStream(TextWindow& window, const std::string& name) : ValueStream(window, name) {}
  bool next(Node& out);
 private:
  friend struct EdnParser;
  template <class S> friend bool next_over_window(S&, Node&);
  bool next_value(Node& out);  // top_: 0 values at top level; ']' / ')' inside one collection
};

class JsonStream : public ValueStream {
 public:
  JsonStream(std::string_view text, const std::string& name);
  JsonStream(TextWindow& window, const std::string& name);
  bool next(Node& out);
  // Parses the whole text as one value (dbcop JSON; an in-memory text).
  Node parse_one();
 private:
  friend struct JsonParser;
  template <class S> friend bool next_over_window(S&, Node&);
  bool next_value(Node& out);
};

// dbcop JSON a transaction at a time: the sessions (the top-level array, or
// the "data" field of a top-level object), each an array of transaction
// objects, walked with parse_one's syntax checks and messages (an array's
// end, a repeated field of the top-level object, content after the value),
// only a transaction parsed into a tree at a time.
class DbcopJsonStream : public JsonStream {
 public:
  using JsonStream::JsonStream;
  enum class Kind {
    session,   // a session (an array) starts
    txn,       // `out` is a transaction (an element of a session)
    not_list,  // `out` is the history (what = "the history") or a session ("a session") that is not an array,
               // parsed whole: an error but for a session that is a flow sequence (YAML), read as a tree
    no_data,   // the top-level object has no "data" field (`out`: the object, without its fields)
    end        // the document ended, checked whole
  };
  Kind next(Node& out, const char*& what);

 private:
  enum class At : uint8_t { start, object_first, object_key, object_next, sessions_first, sessions_elem, sessions_next,
                            session_first, session_elem, session_next, after, done };
  struct State {
    At at = At::start;
    uint32_t object_line = 0, sessions_line = 0, session_line = 0;
    int depth = 0;  // of the sessions array
    bool data = false;
    std::vector<Node> keys;  // the top-level object's keys so far
  };
  Kind step(Node& out, const char*& what);
  State s_;
};

// Nesting deeper than this is refused (the parsers recurse).
constexpr int kMaxDepth = 200;
// Shared by the parsers: code point cp as UTF-8 (invalid ones as U+FFFD), a
// hex digit's value (-1: none), integer text to int64 (false on overflow or
// bad syntax), the second occurrence of a scalar key in map items (k0 v0 k1
// v1 ...) or nullptr.
void put_utf8(std::string& out, uint32_t cp);
int hex_digit(char c);
bool parse_int(std::string_view s, int64_t& out);
const Node* repeated_key(const std::vector<Node>& items);

// Block YAML as serde_yaml writes it: block sequences and mappings, scalars,
// empty or flat flow collections, comments, document markers (the in-memory
// whole parse; DbcopYamlStream walks a file's sessions).
Node parse_yaml(std::string_view text, const std::string& name);

// dbcop YAML a transaction at a time: the top-level block sequence of
// sessions, each a block sequence of transactions, walked line by line with
// parse_yaml's checks and messages, one transaction parsed into a tree at a
// time. An error of the YAML is told after the rest of the text is read (a
// tab in a later line's indentation is told instead, as when the lines are
// split first).
class DbcopYamlStream {
 public:
  DbcopYamlStream(TextWindow& window, const std::string& name);
  ~DbcopYamlStream();
  enum class Kind {
    session,   // a session (a block sequence) starts
    txn,       // `out` is a transaction (an item of a session)
    not_list,  // `out` is the history (what = "the history") or a session ("a session") that is not a block
               // sequence, parsed whole (a flow sequence `[...]` is read as a tree; anything else is an error)
    no_data,   // (not returned: as DbcopJsonStream's)
    end        // the text ended, checked whole
  };
  Kind next(Node& out, const char*& what);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

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

// Keys that a transaction that did not abort writes value 0 to, by their
// integer or their name: what the "value 0" rule needs of the whole file,
// gathered by a first pass so that pieces can apply it.
struct ZeroKeys {
  std::unordered_set<int64_t> ints;
  std::unordered_set<std::string> names;
  void collect(const History& h);
  bool has(const SymbolTable& keys, Sym k) const;
};
// A file's identity by content, for remembering what a first pass over it
// learned (the audit opens a log's reader several times; a file rewritten in
// place with the same size must not be given another's facts): its path,
// format, size and a 64-bit hash of its bytes (read in blocks, far cheaper
// than parsing them); "" when it cannot be read.
std::string content_id(const std::string& path, Format f);

// The rule on one piece, with the keys of the whole file.
void apply_zero_is_initial(History& h, ImportStats& st, const ZeroKeys& written);

// Dense session indices in the history a streamed importer is filling: the
// piece in hand (reset() when a new piece starts, with what it already holds).
struct PieceSessions {
  std::unordered_map<int64_t, uint32_t> map{};
  uint32_t index(History& h, int64_t name);
  void reset(const History& h);
};

// An importer that reads its input a transaction at a time (PolySI text,
// dbcop bincode, .hist, JSON and YAML): import_history runs it to the end into one
// history; the piece readers (txn_reader.cpp) run it a piece at a time.
class ImportPass {
 public:
  virtual ~ImportPass() = default;
  // Appends the next transactions to `out` (one or more); false at the end
  // of the input, when nothing more comes. Throws InputError as the whole
  // file's importer does.
  virtual bool step(History& out) = 0;
  // `out` is a new piece (empty, or the transactions left over from the
  // last): a pass that numbers sessions per history numbers them again.
  virtual void new_piece(const History& out) = 0;
  // What only a whole history settles, on `h` (the whole history, written
  // == nullptr; or a piece, with the keys of the whole file): the value-0
  // rule and the notes counted per transaction.
  virtual void settle(History& h, const ZeroKeys* written) = 0;
  // The format as ImportStats names it (known at the end of the input).
  virtual std::string format_name() const = 0;
  // What the pass holds between steps, for tests: the window's bytes, the
  // operations of transactions still open, the transaction ids it keeps to
  // refuse a reused one.
  virtual size_t held_bytes() const = 0;
  virtual uint64_t held_records() const = 0;
  virtual uint64_t held_ids() const { return 0; }
};

// The pass of a streamed format over the file `path`, read through a window
// of `block` bytes; nullptr when format f is not streamed. `whole`: the pass fills one history (sessions
// numbered as the whole file's importer numbers them).
std::unique_ptr<ImportPass> open_import_pass(const std::string& path, Format f, ImportStats& st, size_t block,
                                             bool whole);
std::unique_ptr<ImportPass> open_polysi_pass(const std::string& path, ImportStats& st, size_t block, bool whole);
// dbcop_text, dbcop_json, or dbcop (bincode or YAML, told by a NUL byte in
// the first 64 bytes).
std::unique_ptr<ImportPass> open_dbcop_pass(const std::string& path, Format f, ImportStats& st, size_t block,
                                            bool whole);
// The whole history of a pass (ImportStats as the whole file's importer sets them).
History run_whole(ImportPass& p, ImportStats& st);

// Cobra client logs (import_cobra.cpp): the logs at `path` (one file, or a
// folder of T<n>.log) in session order, counting the folder's other files as
// skipped; the whole history of them, read through a buffer of `block` bytes.
struct CobraFile {
  int64_t session;
  std::string path;
};
std::vector<CobraFile> cobra_files(const std::string& path, ImportStats& st);
History read_cobra(const std::string& path, ImportStats& st, size_t block = 8 << 20);

// Elle/Jepsen operation maps, EDN or JSON alike, to a History (import_edn.cpp).
History elle_from_ops(const std::function<bool(Node&)>& next, const std::string& name, ImportStats& st,
                      const char* format);


}  // namespace isocheck::imp

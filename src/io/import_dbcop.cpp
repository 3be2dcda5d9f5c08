// dbcop histories: the bincode `history.bincode` (the fork PolySI uses), the
// original YAML serialisation of the same structure, the newer dbcop JSON and
// its `.hist` text form. Sessions are numbered 1.. in file order, transactions
// 1.. in file order (session by session). Value 0 is the initial state.
#include <charconv>
#include <optional>

#include "io/import_common.h"

namespace isocheck {
namespace {

using imp::fail_byte;
using imp::fail_line;
using imp::Node;

struct Builder {
  ImportStats& st;
  History h;
  imp::Interner in{h};
  int64_t next_txn = 1;
  int64_t next_session = 1;
  uint32_t session = 0;
  bool open = false;

  void begin_session() {
    session = static_cast<uint32_t>(h.session_name.size());
    h.session_name.push_back(next_session++);
  }
  void begin_txn() {
    h.begin_txn(next_txn++, session, TxnStatus::committed, kNoTime, kNoTime);
    open = true;
  }
  // value nullopt: a read of the initial state (dbcop JSON `version: null`).
  void event(bool write, Sym key, std::optional<int64_t> value, bool success) {
    ++st.records;
    if (!success) {
      ++st.skipped["events with success = false"];
      return;
    }
    if (!value) {
      h.add_op(OpKind::read, key, kNullValue);
      return;
    }
    h.add_op(write ? OpKind::write : OpKind::read, key, in.value_int(*value));
  }
  void end_txn(bool committed) {
    h.txn_status.back() = committed ? TxnStatus::committed : TxnStatus::aborted;
    h.end_txn();
    open = false;
    if (committed && imp::only_zero_writes(h, h.op_begin(h.txn_count() - 1), h.op_end(h.txn_count() - 1))) {
      ++st.skipped["transactions that only write value 0 (the initial state)"];
      imp::drop_last_txn(h);
    }
  }
  History finish(const std::string& format) {
    imp::apply_zero_is_initial(h, st);
    uint64_t aborted = 0;
    for (auto s : h.txn_status) aborted += s == TxnStatus::aborted;
    if (aborted) st.notes["transactions that did not commit (imported as aborted)"] += aborted;
    st.format = format;
    st.txns = h.txn_count();
    return std::move(h);
  }
};

// ---------------------------------------------------------------- bincode

struct Bin {
  const std::string& name;
  std::string_view b;
  size_t pos = 0;
  void need(size_t n, const char* what) {
    if (b.size() - pos < n)
      fail_byte(name, pos, std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                               std::to_string(b.size() - pos) + " left");
  }
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = 0;
    for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(b[pos + k]);
    pos += 8;
    return v;
  }
  bool boolean(const char* what) {
    need(1, what);
    unsigned char c = static_cast<unsigned char>(b[pos]);
    if (c > 1) fail_byte(name, pos, std::string(what) + " must be a bool (0 or 1), found " + std::to_string(c));
    ++pos;
    return c == 1;
  }
  // A vector length, checked against the bytes left (each item >= min_item bytes).
  uint64_t length(const char* what, size_t min_item) {
    size_t at = pos;
    uint64_t n = u64(what);
    if (min_item && n > (b.size() - pos) / min_item)
      fail_byte(name, at, std::string(what) + " " + std::to_string(n) + " is more than the " +
                              std::to_string(b.size() - pos) + " bytes left can hold");
    return n;
  }
  std::string str(const char* what) {
    uint64_t n = length(what, 1);
    std::string s(b.substr(pos, n));
    pos += n;
    return s;
  }
};

}  // namespace

History parse_dbcop_bincode(std::string_view bytes, const std::string& name, ImportStats* stats) {
  ImportStats local;
  Builder bld{stats ? *stats : local};
  Bin in{name, bytes};
  for (const char* f : {"the header id", "the header node count", "the header variable count",
                        "the header transactions per session", "the header events per transaction"})
    in.u64(f);
  std::string info = in.str("the info string length");
  in.str("the start string length");
  in.str("the end string length");
  uint64_t sessions = in.length("the session count", 8);
  for (uint64_t s = 0; s < sessions; ++s) {
    bld.begin_session();
    uint64_t txns = in.length("a session's transaction count", 9);
    for (uint64_t t = 0; t < txns; ++t) {
      bld.begin_txn();
      uint64_t events = in.length("a transaction's event count", 18);
      for (uint64_t e = 0; e < events; ++e) {
        bool write = in.boolean("an event's write flag");
        uint64_t var = in.u64("an event's variable");
        size_t vat = in.pos;
        uint64_t val = in.u64("an event's value");
        bool ok = in.boolean("an event's success flag");
        if (static_cast<Sym>(val) == kNullValue) fail_byte(name, vat, "the value 9223372036854775808 is reserved");
        bld.event(write, bld.in.key_int(static_cast<int64_t>(var)), static_cast<int64_t>(val), ok);
      }
      bld.end_txn(in.boolean("a transaction's success flag"));
    }
  }
  if (in.pos != bytes.size())
    fail_byte(name, in.pos, std::to_string(bytes.size() - in.pos) + " bytes after the end of the history");
  std::string fmt = "dbcop-bincode";
  if (!info.empty()) {
    std::string clean;
    for (char c : info.substr(0, 60)) clean.push_back(c >= 32 && c < 127 ? c : '?');
    fmt += " (" + clean + ")";
  }
  return bld.finish(fmt);
}

// ---------------------------------------------------------------- YAML / JSON trees

namespace {

struct Tree {
  const std::string& name;
  Builder& bld;

  [[noreturn]] void fail(const Node& n, const std::string& what) { fail_line(name, n.line ? n.line : 1, what); }

  const Node& field(const Node& m, const char* key) {
    const Node* v = m.get(key);
    if (!v) fail(m, std::string("missing field \"") + key + "\"");
    return *v;
  }
  bool boolean(const Node& n, const char* what) {
    if (n.t != Node::T::boolean) fail(n, std::string(what) + " must be true or false, not " + n.brief());
    return n.b;
  }
  int64_t integer(const Node& n, const char* what) {
    if (n.t != Node::T::integer) fail(n, std::string(what) + " must be an integer, not " + n.brief());
    if (static_cast<Sym>(n.i) == kNullValue) fail(n, std::string(what) + " " + std::to_string(n.i) + " is reserved");
    return n.i;
  }
  Sym key(const Node& n) {
    if (n.t == Node::T::integer) return bld.in.key_int(n.i);
    if (n.t == Node::T::string) return bld.in.key_str(n.s);
    fail(n, "a variable must be an integer or a string, not " + n.brief());
  }
  const Node& seq(const Node& n, const char* what) {
    if (n.t != Node::T::vector) fail(n, std::string(what) + " must be a list, not " + n.brief());
    return n;
  }

  // Old form: [[{events: [{write, variable, value, success}], success}]];
  // new form: [[{events: [{"Write"|"Read": {variable, version}}], committed}]].
  void sessions(const Node& top) {
    for (const Node& s : seq(top, "the history").items) {
      bld.begin_session();
      for (const Node& t : seq(s, "a session").items) {
        if (t.t != Node::T::map) fail(t, "a transaction must be a mapping, not " + t.brief());
        bld.begin_txn();
        for (const Node& e : seq(field(t, "events"), "\"events\"").items) event(e);
        const Node* c = t.get("committed");
        bld.end_txn(boolean(c ? *c : field(t, "success"), c ? "\"committed\"" : "\"success\""));
      }
    }
  }

  void event(const Node& e) {
    if (e.t != Node::T::map) fail(e, "an event must be a mapping, not " + e.brief());
    const Node* w = e.get("Write");
    const Node* r = e.get("Read");
    if (w || r) {
      const Node& body = w ? *w : *r;
      if (body.t != Node::T::map) fail(body, "an event body must be a mapping");
      Sym k = key(field(body, "variable"));
      const Node& v = field(body, "version");
      if (v.t == Node::T::nil) {
        if (w) fail(v, "a write needs a version");
        bld.event(false, k, std::nullopt, true);
      } else {
        bld.event(w != nullptr, k, integer(v, "\"version\""), true);
      }
      return;
    }
    bool write = boolean(field(e, "write"), "\"write\"");
    Sym k = key(field(e, "variable"));
    int64_t v = integer(field(e, "value"), "\"value\"");
    bld.event(write, k, v, boolean(field(e, "success"), "\"success\""));
  }
};

}  // namespace

History parse_dbcop_yaml(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  Builder bld{stats ? *stats : local};
  Node top = imp::parse_yaml(text, name);
  if (top.t == Node::T::nil) top.t = Node::T::vector;  // empty document: no sessions
  Tree{name, bld}.sessions(top);
  return bld.finish("dbcop-yaml");
}

History parse_dbcop_json(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  Builder bld{stats ? *stats : local};
  imp::JsonStream js(text, name);
  Node top = js.parse_one();
  if (top.t == Node::T::map) {
    const Node* data = top.get("data");
    if (!data) fail_line(name, top.line, "a dbcop JSON object needs a \"data\" field (the sessions)");
    Tree{name, bld}.sessions(*data);
  } else {
    Tree{name, bld}.sessions(top);
  }
  return bld.finish("dbcop-json");
}

// ---------------------------------------------------------------- .hist text

History parse_dbcop_text(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  Builder bld{stats ? *stats : local};
  size_t pos = 0;
  uint32_t line = 1;
  bool session_open = false;
  auto fail = [&](const std::string& what) { fail_line(name, line, what); };
  auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '\n') {
      ++line;
      ++pos;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
      while (pos < text.size() && text[pos] != '\n') ++pos;
    } else if (c == '-') {
      // A separator: a line of dashes only.
      size_t b = pos;
      while (pos < text.size() && text[pos] == '-') ++pos;
      size_t e = pos;
      while (e < text.size() && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r')) ++e;
      bool line_start = true;
      for (size_t k = b; k > 0 && text[k - 1] != '\n'; --k)
        if (text[k - 1] != ' ' && text[k - 1] != '\t') line_start = false;
      if (!line_start || (e < text.size() && text[e] != '\n')) fail("expected a line of dashes (session separator)");
      if (!session_open) bld.begin_session();  // an empty session
      session_open = false;
    } else if (c == '[') {
      if (!session_open) {
        bld.begin_session();
        session_open = true;
      }
      ++pos;
      bld.begin_txn();
      for (;;) {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r' || text[pos] == '\n')) {
          if (text[pos] == '\n') ++line;
          ++pos;
        }
        if (pos >= text.size()) fail("unterminated transaction (missing ']')");
        if (text[pos] == ']') {
          ++pos;
          break;
        }
        size_t b = pos;
        while (pos < text.size() && ident(text[pos])) ++pos;
        if (pos == b) fail(std::string("expected a variable name, found '") + text[pos] + "'");
        std::string_view var = text.substr(b, pos - b);
        bool write;
        if (text.substr(pos, 2) == ":=") write = true;
        else if (text.substr(pos, 2) == "==") write = false;
        else fail("expected ':=' or '==' after variable " + std::string(var));
        pos += 2;
        Sym key = bld.in.key_str(var);
        if (!write && pos < text.size() && text[pos] == '?') {
          ++pos;
          bld.event(false, key, std::nullopt, true);
          continue;
        }
        size_t d = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        int64_t v = 0;
        auto [p, ec] = std::from_chars(text.data() + d, text.data() + pos, v);
        if (pos == d || ec != std::errc() || p != text.data() + pos)
          fail("expected a version (a non-negative 64-bit integer) after " + std::string(var) + (write ? ":=" : "=="));
        bld.event(write, key, v, true);
      }
      bool committed = true;
      if (pos < text.size() && text[pos] == '!') {
        committed = false;
        ++pos;
      }
      bld.end_txn(committed);
    } else {
      fail(std::string("unexpected character '") + c + "' (expected '[', '---' or '//')");
    }
  }
  return bld.finish("dbcop-text");
}

}  // namespace isocheck

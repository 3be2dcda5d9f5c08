// dbcop histories: the bincode `history.bincode` (the fork PolySI uses), the
// original YAML serialisation of the same structure, the newer dbcop JSON and
// its `.hist` text form. Sessions are numbered 1.. in file order, transactions
// 1.. in file order (session by session). Value 0 is the initial state.
//
// The bincode and .hist forms are read a transaction at a time (ids follow
// file order, so nothing is remembered across transactions but the session
// in hand), and so are JSON and YAML (their sessions' arrays or block
// sequences walked a transaction at a time, one transaction a tree).
#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>

#include "io/import_common.h"

namespace isocheck {
namespace {

using imp::fail_byte;
using imp::fail_line;
using imp::Node;

struct Builder {
  ImportStats& st;
  bool whole = true;  // false: pieces (sessions numbered per piece)
  History own{};
  History* h = &own;
  imp::PieceSessions ses{};
  int64_t next_txn = 1;
  int64_t next_session = 1;
  int64_t session_name = 0;
  bool open = false;

  imp::Interner in() { return imp::Interner{*h}; }
  void begin_session() {
    session_name = next_session++;
    if (whole) ses.index(*h, session_name);  // one history keeps sessions without transactions
  }
  void begin_txn() {
    h->begin_txn(next_txn++, ses.index(*h, session_name), TxnStatus::committed, kNoTime, kNoTime);
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
      h->add_op(OpKind::read, key, kNullValue);
      return;
    }
    h->add_op(write ? OpKind::write : OpKind::read, key, in().value_int(*value));
  }
  // False when the transaction was dropped (it only restates the initial state).
  bool end_txn(bool committed) {
    h->txn_status.back() = committed ? TxnStatus::committed : TxnStatus::aborted;
    h->end_txn();
    open = false;
    if (committed && imp::only_zero_writes(*h, h->op_begin(h->txn_count() - 1), h->op_end(h->txn_count() - 1))) {
      ++st.skipped["transactions that only write value 0 (the initial state)"];
      imp::drop_last_txn(*h);
      return false;
    }
    return true;
  }
  void settle(History& x, const imp::ZeroKeys* written) {
    if (written) imp::apply_zero_is_initial(x, st, *written);
    else imp::apply_zero_is_initial(x, st);
    uint64_t aborted = 0;
    for (auto s : x.txn_status) aborted += s == TxnStatus::aborted;
    if (aborted) st.notes["transactions that did not commit (imported as aborted)"] += aborted;
  }
  History finish(const std::string& format) {
    settle(own, nullptr);
    st.format = format;
    st.txns = own.txn_count();
    return std::move(own);
  }
};

// ---------------------------------------------------------------- bincode

// Little-endian fields over a window of the input; offsets in messages are
// the input's, and "left" counts to the input's end (`total` bytes).
struct Bin {
  const std::string& name;
  imp::TextWindow& win;
  uint64_t total;
  uint64_t base = 0;  // the input offset of the window's first byte
  size_t pos = 0;     // in the window
  uint64_t at() const { return base + pos; }
  void need(size_t n, const char* what) {
    auto truncated = [&](uint64_t left) {
      fail_byte(name, at(), std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                                std::to_string(left) + " left");
    };
    if (total - at() < n) truncated(total - at());
    while (win.text().size() - pos < n) {
      if (win.final()) truncated(win.text().size() - pos);  // (the file shrank)
      win.more(pos);
      base += pos;
      pos = 0;
    }
  }
  uint64_t u64(const char* what) {
    need(8, what);
    const char* b = win.text().data() + pos;
    uint64_t v = 0;
    for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(b[k]);
    pos += 8;
    return v;
  }
  bool boolean(const char* what) {
    need(1, what);
    unsigned char c = static_cast<unsigned char>(win.text()[pos]);
    if (c > 1) fail_byte(name, at(), std::string(what) + " must be a bool (0 or 1), found " + std::to_string(c));
    ++pos;
    return c == 1;
  }
  // A vector length, checked against the bytes left (each item >= min_item bytes).
  uint64_t length(const char* what, size_t min_item) {
    uint64_t from = at();
    uint64_t n = u64(what);
    if (min_item && n > (total - at()) / min_item)
      fail_byte(name, from, std::string(what) + " " + std::to_string(n) + " is more than the " +
                                std::to_string(total - at()) + " bytes left can hold");
    return n;
  }
  std::string str(const char* what) {
    uint64_t n = length(what, 1);
    need(n, what);
    std::string s(win.text().substr(pos, n));
    pos += n;
    return s;
  }
};

// The bincode history a transaction at a time: header, then per session its
// transaction count and transactions.
class BincodePass : public imp::ImportPass {
 public:
  BincodePass(std::string_view bytes, const std::string& name, ImportStats& st, bool whole)
      : own_(bytes), name_(name), bld_{st}, in_{name_, own_, bytes.size()} {
    bld_.whole = whole;
  }
  BincodePass(const std::string& path, uint64_t size, ImportStats& st, size_t block, bool whole)
      : file_(std::make_unique<imp::TextWindow>(path, block)), name_(path), bld_{st}, in_{name_, *file_, size} {
    bld_.whole = whole;
  }

  bool step(History& out) override {
    bld_.h = &out;
    if (!header_) header();
    for (;;) {
      if (txns_left_ == 0) {
        if (sessions_left_ == 0) {
          if (!done_ && in_.at() != in_.total)
            fail_byte(name_, in_.at(), std::to_string(in_.total - in_.at()) + " bytes after the end of the history");
          done_ = true;
          return false;
        }
        --sessions_left_;
        bld_.begin_session();
        txns_left_ = in_.length("a session's transaction count", 9);
        continue;
      }
      --txns_left_;
      bld_.begin_txn();
      uint64_t events = in_.length("a transaction's event count", 18);
      for (uint64_t e = 0; e < events; ++e) {
        bool write = in_.boolean("an event's write flag");
        uint64_t var = in_.u64("an event's variable");
        uint64_t vat = in_.at();
        uint64_t val = in_.u64("an event's value");
        bool ok = in_.boolean("an event's success flag");
        if (static_cast<Sym>(val) == kNullValue) fail_byte(name_, vat, "the value 9223372036854775808 is reserved");
        bld_.event(write, bld_.in().key_int(static_cast<int64_t>(var)), static_cast<int64_t>(val), ok);
      }
      if (bld_.end_txn(in_.boolean("a transaction's success flag"))) return true;
    }
  }
  void new_piece(const History& out) override { bld_.ses.reset(out); }
  void settle(History& h, const imp::ZeroKeys* written) override { bld_.settle(h, written); }
  std::string format_name() const override {
    std::string fmt = "dbcop-bincode";
    if (!info_.empty()) {
      std::string clean;
      for (char c : info_.substr(0, 60)) clean.push_back(c >= 32 && c < 127 ? c : '?');
      fmt += " (" + clean + ")";
    }
    return fmt;
  }
  size_t held_bytes() const override { return (file_ ? *file_ : own_).held_bytes(); }
  uint64_t held_records() const override { return 0; }

 private:
  void header() {
    header_ = true;
    for (const char* f : {"the header id", "the header node count", "the header variable count",
                          "the header transactions per session", "the header events per transaction"})
      in_.u64(f);
    info_ = in_.str("the info string length");
    in_.str("the start string length");
    in_.str("the end string length");
    sessions_left_ = in_.length("the session count", 8);
  }
  imp::TextWindow own_{std::string_view()};
  std::unique_ptr<imp::TextWindow> file_;
  std::string name_;
  Builder bld_;
  Bin in_;
  bool header_ = false, done_ = false;
  std::string info_;
  uint64_t sessions_left_ = 0, txns_left_ = 0;
};

}  // namespace

History parse_dbcop_bincode(std::string_view bytes, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  BincodePass p(bytes, name, st, true);
  return imp::run_whole(p, st);
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
    if (n.t == Node::T::integer) return bld.in().key_int(n.i);
    if (n.t == Node::T::string) return bld.in().key_str(n.s);
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
      for (const Node& t : seq(s, "a session").items) txn(t);
    }
  }
  // False when the transaction was dropped (Builder::end_txn).
  bool txn(const Node& t) {
    if (t.t != Node::T::map) fail(t, "a transaction must be a mapping, not " + t.brief());
    bld.begin_txn();
    for (const Node& e : seq(field(t, "events"), "\"events\"").items) event(e);
    const Node* c = t.get("committed");
    return bld.end_txn(boolean(c ? *c : field(t, "success"), c ? "\"committed\"" : "\"success\""));
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


namespace {

// dbcop JSON or YAML a transaction at a time (DbcopJsonStream,
// DbcopYamlStream): the tree's checks on each transaction, but an error of
// the text, anywhere, comes first (as when the document is parsed whole
// before it is read): a transaction's error is kept until the rest of the
// text is checked.
template <class Stream>
class TreePass : public imp::ImportPass {
 public:
  TreePass(std::string_view text, const std::string& name, ImportStats& st, bool whole, const char* format)
      : own_(text), win_(own_), name_(name), js_(win_, name_), bld_{st}, format_(format) {
    bld_.whole = whole;
  }
  TreePass(const std::string& path, ImportStats& st, size_t block, bool whole, const char* format)
      : file_(std::make_unique<imp::TextWindow>(path, block)), win_(*file_), name_(path), js_(win_, name_), bld_{st},
        format_(format) {
    bld_.whole = whole;
  }
  bool step(History& out) override {
    using Kind = typename Stream::Kind;
    bld_.h = &out;
    for (;;) {
      Node n;
      const char* what = "";
      const Kind k = js_.next(n, what);
      if (k == Kind::end) {
        if (error_) std::rethrow_exception(error_);
        return false;
      }
      if (error_) continue;
      try {
        Tree tree{name_, bld_};
        switch (k) {
          case Kind::session: bld_.begin_session(); break;
          case Kind::txn:
            if (tree.txn(n)) return true;
            break;
          case Kind::not_list: {  // (a flow sequence is a list too: read as the tree)
            if (std::string_view(what) == "the history") {
              tree.sessions(n);
              if (out.txn_count() > 0) return true;
              break;
            }
            bld_.begin_session();
            bool kept = false;
            for (const Node& t : tree.seq(n, what).items) kept |= tree.txn(t);
            if (kept) return true;
            break;
          }
          case Kind::no_data: fail_line(name_, n.line, "a dbcop JSON object needs a \"data\" field (the sessions)");
          case Kind::end: break;
        }
      } catch (const InputError&) {
        error_ = std::current_exception();
      }
    }
  }
  void new_piece(const History& out) override { bld_.ses.reset(out); }
  void settle(History& h, const imp::ZeroKeys* written) override { bld_.settle(h, written); }
  std::string format_name() const override { return format_; }
  size_t held_bytes() const override { return win_.held_bytes(); }
  uint64_t held_records() const override { return 0; }

 private:
  imp::TextWindow own_{std::string_view()};
  std::unique_ptr<imp::TextWindow> file_;
  imp::TextWindow& win_;
  std::string name_;
  Stream js_;
  Builder bld_;
  const char* format_;
  std::exception_ptr error_;
};
using DbcopJsonPass = TreePass<imp::DbcopJsonStream>;
using DbcopYamlPass = TreePass<imp::DbcopYamlStream>;

}  // namespace

History parse_dbcop_yaml(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  DbcopYamlPass p(text, name, st, true, "dbcop-yaml");
  return imp::run_whole(p, st);
}

History parse_dbcop_json(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  DbcopJsonPass p(text, name, st, true, "dbcop-json");
  return imp::run_whole(p, st);
}

// ---------------------------------------------------------------- .hist text

namespace {

// The .hist text a transaction at a time. The window holds, before a token
// is read, the rest of its line (a separator, a comment) or the whole
// transaction up to its ']' and the byte after it.
class HistPass : public imp::ImportPass {
 public:
  HistPass(std::string_view text, const std::string& name, ImportStats& st, bool whole)
      : own_(text), win_(own_), name_(name), bld_{st} {
    bld_.whole = whole;
  }
  HistPass(const std::string& path, ImportStats& st, size_t block, bool whole)
      : file_(std::make_unique<imp::TextWindow>(path, block)), win_(*file_), name_(path), bld_{st} {
    bld_.whole = whole;
  }

  bool step(History& out) override {
    bld_.h = &out;
    auto fail = [&](const std::string& what) { fail_line(name_, line_, what); };
    auto ident = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    for (;;) {
      if (!have(1)) return false;
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
        line_start_ = true;
      } else if (c == ' ' || c == '\t') {
        ++pos_;
      } else if (c == '\r') {
        ++pos_;
        line_start_ = false;
      } else if (c == '/' && (have_through('\n', 0), pos_ + 1 < text_.size()) && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        line_start_ = false;
      } else if (c == '-') {
        // A separator: a line of dashes only.
        have_through('\n', 0);
        bool at_line_start = line_start_;
        while (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
        size_t e = pos_;
        while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t' || text_[e] == '\r')) ++e;
        line_start_ = false;
        if (!at_line_start || (e < text_.size() && text_[e] != '\n')) fail("expected a line of dashes (session separator)");
        if (!session_open_) bld_.begin_session();  // an empty session
        session_open_ = false;
      } else if (c == '[') {
        have_through(']', 1);
        line_start_ = false;
        if (!session_open_) {
          bld_.begin_session();
          session_open_ = true;
        }
        ++pos_;
        bld_.begin_txn();
        for (;;) {
          while (pos_ < text_.size() &&
                 (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n')) {
            if (text_[pos_] == '\n') ++line_;
            ++pos_;
          }
          if (pos_ >= text_.size()) fail("unterminated transaction (missing ']')");
          if (text_[pos_] == ']') {
            ++pos_;
            break;
          }
          size_t b = pos_;
          while (pos_ < text_.size() && ident(text_[pos_])) ++pos_;
          if (pos_ == b) fail(std::string("expected a variable name, found '") + text_[pos_] + "'");
          std::string_view var = text_.substr(b, pos_ - b);
          bool write;
          if (text_.substr(pos_, 2) == ":=") write = true;
          else if (text_.substr(pos_, 2) == "==") write = false;
          else fail("expected ':=' or '==' after variable " + std::string(var));
          pos_ += 2;
          Sym key = bld_.in().key_str(var);
          if (!write && pos_ < text_.size() && text_[pos_] == '?') {
            ++pos_;
            bld_.event(false, key, std::nullopt, true);
            continue;
          }
          size_t d = pos_;
          while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
          int64_t v = 0;
          auto [p, ec] = std::from_chars(text_.data() + d, text_.data() + pos_, v);
          if (pos_ == d || ec != std::errc() || p != text_.data() + pos_)
            fail("expected a version (a non-negative 64-bit integer) after " + std::string(var) + (write ? ":=" : "=="));
          bld_.event(write, key, v, true);
        }
        bool committed = true;
        if (pos_ < text_.size() && text_[pos_] == '!') {
          committed = false;
          ++pos_;
        }
        if (bld_.end_txn(committed)) return true;
      } else {
        fail(std::string("unexpected character '") + c + "' (expected '[', '---' or '//')");
      }
    }
  }
  void new_piece(const History& out) override { bld_.ses.reset(out); }
  void settle(History& h, const imp::ZeroKeys* written) override { bld_.settle(h, written); }
  std::string format_name() const override { return "dbcop-text"; }
  size_t held_bytes() const override { return win_.held_bytes(); }
  uint64_t held_records() const override { return 0; }

 private:
  // Slides the window on to the position.
  void slide() {
    win_.more(pos_);
    text_ = win_.text();
    pos_ = 0;
  }
  // Whether n bytes from the position are there (false: the input ends first).
  bool have(size_t n) {
    while (text_.size() - pos_ < n) {
      if (win_.final()) return false;
      slide();
    }
    return true;
  }
  // Reads on until the window holds the next `c` from the position and
  // `extra` bytes after it, or the input's end; true when `c` is there.
  bool have_through(char c, size_t extra) {
    size_t from = pos_;
    for (;;) {
      size_t at = text_.find(c, from);
      if (at != std::string_view::npos && (at + extra < text_.size() || win_.final())) return true;
      if (win_.final()) return false;
      from = text_.size() - pos_;  // (searched already)
      slide();
    }
  }

  imp::TextWindow own_{std::string_view()};
  std::unique_ptr<imp::TextWindow> file_;
  imp::TextWindow& win_;
  std::string_view text_ = win_.text();
  std::string name_;
  Builder bld_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  bool line_start_ = true;  // only spaces and tabs since the last newline
  bool session_open_ = false;
};

}  // namespace

History parse_dbcop_text(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  HistPass p(text, name, st, true);
  return imp::run_whole(p, st);
}

namespace imp {
std::unique_ptr<ImportPass> open_dbcop_pass(const std::string& path, Format f, ImportStats& st, size_t block,
                                            bool whole) {
  if (f == Format::dbcop_text) return std::make_unique<HistPass>(path, st, block, whole);
  if (f == Format::dbcop_json) return std::make_unique<DbcopJsonPass>(path, st, block, whole, "dbcop-json");
  // dbcop: bincode (binary) or YAML, told by the first bytes.
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw InputError(path, "cannot open the file");
  char head[64];
  size_t got = std::fread(head, 1, sizeof head, fp);
  std::fseek(fp, 0, SEEK_END);
  const long size = std::ftell(fp);
  std::fclose(fp);
  if (std::string_view(head, got).find('\0') == std::string_view::npos)
    return std::make_unique<DbcopYamlPass>(path, st, block, whole, "dbcop-yaml");
  if (size < 0) throw InputError(path, "cannot read the file");
  return std::make_unique<BincodePass>(path, static_cast<uint64_t>(size), st, block, whole);
}
}  // namespace imp

}  // namespace isocheck

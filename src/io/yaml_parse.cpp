// Block YAML as serde_yaml writes it (dbcop histories): lines read through a
// window of the text as the parser asks for them, so dbcop's sessions can be
// walked a transaction at a time (DbcopYamlStream).
#include <deque>
#include <vector>

#include "io/import_common.h"

namespace isocheck::imp {


namespace {

struct YLine {
  uint32_t indent;
  std::string text;
  uint32_t line;
};

// The lines of the text that carry content (comments, blank lines and
// document markers dropped), one at a time through the window. A tab in the
// indentation is an error of its line, before any other (the text's lines
// are split before they are parsed).
class LineSource {
 public:
  LineSource(TextWindow& win, const std::string& name) : win_(win), name_(name), text_(win.text()) {}
  bool next(YLine& out) {
    while (!done_) {
      size_t nl = text_.find('\n', pos_);
      while (nl == std::string_view::npos && !win_.final()) {
        const size_t searched = text_.size() - pos_;
        win_.more(pos_);
        text_ = win_.text();
        pos_ = 0;
        nl = text_.find('\n', searched);
      }
      std::string_view l;
      if (nl == std::string_view::npos) {
        l = text_.substr(pos_);
        done_ = true;
      } else {
        l = text_.substr(pos_, nl - pos_);
        pos_ = nl + 1;
      }
      ++lineno_;
      if (line(l, out)) return true;
    }
    return false;
  }
  bool tab_failed() const { return tab_failed_; }
  size_t held_bytes() const { return win_.held_bytes(); }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  bool line(std::string_view l, YLine& out) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    uint32_t ind = 0;
    while (ind < l.size() && l[ind] == ' ') ++ind;
    if (ind < l.size() && l[ind] == '\t') {
      tab_failed_ = true;
      fail_line(name_, lineno_, "a tab in YAML indentation");
    }
    std::string_view body = l.substr(ind);
    // Comments: '#' at the start or after a space, outside quotes.
    char quote = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        if (i == 0 || body[i - 1] == ' ' || body[i - 1] == '[' || body[i - 1] == ',') quote = c;
      } else if (c == '#' && (i == 0 || body[i - 1] == ' ')) {
        body = body.substr(0, i);
        break;
      }
    }
    body = trim(body);
    if (body.empty()) return false;
    if (ind == 0 && (body == "---" || body == "..." || body.substr(0, 4) == "--- " || body.substr(0, 2) == "%Y")) {
      if (body.substr(0, 4) == "--- ") {
        std::string_view rest = trim(body.substr(4));
        if (!rest.empty()) {
          out = {4, std::string(rest), lineno_};
          return true;
        }
      }
      return false;
    }
    out = {ind, std::string(body), lineno_};
    return true;
  }
  TextWindow& win_;
  const std::string& name_;
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t lineno_ = 0;
  bool done_ = false;
  bool tab_failed_ = false;
};

// The lines by index, read as they are asked for; those before the parser's
// position can be dropped.
class Lines {
 public:
  explicit Lines(LineSource& src) : src_(src) {}
  bool has(size_t i) {
    while (i >= base_ + q_.size()) {
      YLine l;
      if (!src_.next(l)) return false;
      q_.push_back(std::move(l));
    }
    return true;
  }
  YLine& operator[](size_t i) { return q_[i - base_]; }
  void drop_before(size_t i) {
    while (base_ < i && !q_.empty()) {
      q_.pop_front();
      ++base_;
    }
  }
  // Reads the rest of the text (a tab in it is the error to tell).
  void drain() {
    YLine l;
    while (src_.next(l)) {
    }
  }
  LineSource& source() { return src_; }

 private:
  LineSource& src_;
  std::deque<YLine> q_;
  size_t base_ = 0;
};

struct YamlParser {
  const std::string& name;
  Lines& lines;
  size_t idx = 0;

  [[noreturn]] void fail(uint32_t line, const std::string& what) const { fail_line(name, line, what); }

  static bool is_dash(std::string_view t) { return !t.empty() && t[0] == '-' && (t.size() == 1 || t[1] == ' '); }

  // Position of the ':' that ends a mapping key, or npos.
  static size_t key_colon(std::string_view t) {
    if (t.empty()) return std::string_view::npos;
    size_t i = 0;
    if (t[0] == '"' || t[0] == '\'') {
      char q = t[0];
      i = t.find(q, 1);
      if (i == std::string_view::npos) return i;
      ++i;
      if (i < t.size() && t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) return i;
      return std::string_view::npos;
    }
    if (t[0] == '[' || t[0] == '{') return std::string_view::npos;
    for (; i < t.size(); ++i)
      if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) return i;
    return std::string_view::npos;
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }

  Node scalar(std::string_view s, uint32_t line, bool allow_flow = true) {
    s = trim(s);
    Node n;
    n.line = line;
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return n;
    if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
      n.t = Node::T::boolean;
      n.b = s[0] == 't' || s[0] == 'T';
      return n;
    }
    if (s[0] == '"' || s[0] == '\'') {
      if (s.size() < 2 || s.back() != s[0]) fail(line, "unterminated quoted string");
      n.t = Node::T::string;
      n.s = std::string(s.substr(1, s.size() - 2));
      return n;
    }
    if (s[0] == '[' || s[0] == '{') {
      if (!allow_flow) fail(line, "nested flow collections are not supported");
      char close = s[0] == '[' ? ']' : '}';
      if (s.back() != close) fail(line, "unterminated flow collection");
      n.t = s[0] == '[' ? Node::T::vector : Node::T::map;
      std::string_view body = trim(s.substr(1, s.size() - 2));
      while (!body.empty()) {
        size_t comma = body.find(',');
        std::string_view item = trim(body.substr(0, comma));
        if (n.t == Node::T::map) {
          size_t c = key_colon(item);
          if (c == std::string_view::npos) fail(line, "expected 'key: value' in a flow mapping");
          n.items.push_back(scalar(item.substr(0, c), line, false));
          if (n.items.back().t != Node::T::string) {
            n.items.back().s = std::string(trim(item.substr(0, c)));
            n.items.back().t = Node::T::string;
          }
          n.items.push_back(scalar(item.substr(c + 1), line, false));
        } else {
          n.items.push_back(scalar(item, line, false));
        }
        if (comma == std::string_view::npos) break;
        body = trim(body.substr(comma + 1));
      }
      return n;
    }
    int64_t v;
    if (parse_int(s, v)) {
      n.t = Node::T::integer;
      n.i = v;
      return n;
    }
    n.t = Node::T::string;
    n.s = std::string(s);
    return n;
  }

  Node key_node(std::string_view k, uint32_t line) {
    k = trim(k);
    Node n;
    n.t = Node::T::string;
    n.line = line;
    if (!k.empty() && (k[0] == '"' || k[0] == '\'')) k = k.substr(1, k.size() - 2);
    n.s = std::string(k);
    return n;
  }

  Node block(uint32_t indent, int depth) {
    if (depth > kMaxDepth) fail(lines[idx].line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    YLine& first = lines[idx];
    Node n;
    n.line = first.line;
    if (is_dash(first.text)) {
      n.t = Node::T::vector;
      while (lines.has(idx) && lines[idx].indent == indent && is_dash(lines[idx].text)) {
        YLine& l = lines[idx];
        size_t off = 1;
        while (off < l.text.size() && l.text[off] == ' ') ++off;
        if (off == l.text.size()) {
          ++idx;
          if (lines.has(idx) && lines[idx].indent > indent) n.items.push_back(block(lines[idx].indent, depth + 1));
          else n.items.emplace_back();
        } else {
          l.indent = indent + static_cast<uint32_t>(off);
          l.text = l.text.substr(off);
          n.items.push_back(block(l.indent, depth + 1));
        }
      }
    } else if (key_colon(first.text) != std::string_view::npos) {
      n.t = Node::T::map;
      while (lines.has(idx) && lines[idx].indent == indent && !is_dash(lines[idx].text)) {
        YLine l = lines[idx];
        size_t c = key_colon(l.text);
        if (c == std::string_view::npos) fail(l.line, "expected 'key: value' in a mapping");
        n.items.push_back(key_node(l.text.substr(0, c), l.line));
        std::string_view rest = trim(std::string_view(l.text).substr(c + 1));
        ++idx;
        if (rest.empty()) {
          if (lines.has(idx) && (lines[idx].indent > indent ||
                                     (lines[idx].indent == indent && is_dash(lines[idx].text))))
            n.items.push_back(block(lines[idx].indent, depth + 1));
          else
            n.items.emplace_back();
        } else {
          n.items.push_back(scalar(rest, l.line));
        }
      }
    } else {
      n = scalar(first.text, first.line);
      ++idx;
    }
    if (lines.has(idx) && lines[idx].indent > indent)
      fail(lines[idx].line, "unexpected indentation");
    return n;
  }
};

}  // namespace

// Runs `f` over the lines; an error of the parse is told after the rest of
// the text is read (a tab in a later line's indentation is told instead).
template <class F>
auto after_tabs_checked(Lines& lines, F&& f) {
  try {
    return f();
  } catch (const InputError&) {
    if (!lines.source().tab_failed()) lines.drain();
    throw;
  }
}

Node parse_yaml(std::string_view text, const std::string& name) {
  TextWindow win(text);
  LineSource src(win, name);
  Lines lines(src);
  YamlParser p{name, lines};
  return after_tabs_checked(lines, [&] {
    if (!lines.has(0)) return Node();
    Node n = p.block(lines[0].indent, 0);
    if (lines.has(p.idx)) fail_line(name, lines[p.idx].line, "unexpected content (bad indentation?)");
    return n;
  });
}

struct DbcopYamlStream::Impl {
  Impl(TextWindow& win, const std::string& name) : src(win, name), lines(src), p{name, lines} {}
  LineSource src;
  Lines lines;
  YamlParser p;
  enum class At : uint8_t { start, sessions, session, done } at = At::start;
  uint32_t top_indent = 0, session_indent = 0;

  // An item of a block sequence at `indent` (the line at the position, a
  // dash): its line's rest, or the lines below it (nil when none).
  // start(ind): where the item starts (its indentation), or false for nil.
  bool item(uint32_t indent, uint32_t& ind) {
    YLine& l = lines[p.idx];
    size_t off = 1;
    while (off < l.text.size() && l.text[off] == ' ') ++off;
    if (off == l.text.size()) {
      ++p.idx;
      if (lines.has(p.idx) && lines[p.idx].indent > indent) {
        ind = lines[p.idx].indent;
        return true;
      }
      return false;
    }
    l.indent = indent + static_cast<uint32_t>(off);
    l.text = l.text.substr(off);
    ind = l.indent;
    return true;
  }
  // The end of a block sequence at `indent`: nothing deeper may follow.
  void sequence_ends(uint32_t indent) {
    if (lines.has(p.idx) && lines[p.idx].indent > indent)
      fail_line(p.name, lines[p.idx].line, "unexpected indentation");
  }
  Kind next(Node& out, const char*& what) {
    lines.drop_before(p.idx);
    out = Node();
    for (;;) {
      switch (at) {
        case At::start: {
          if (!lines.has(0)) {
            at = At::done;
            return Kind::end;
          }
          if (YamlParser::is_dash(lines[0].text)) {
            top_indent = lines[0].indent;
            at = At::sessions;
            break;
          }
          out = p.block(lines[0].indent, 0);
          if (lines.has(p.idx)) fail_line(p.name, lines[p.idx].line, "unexpected content (bad indentation?)");
          at = At::done;
          if (out.t == Node::T::nil) return Kind::end;  // an empty document: no sessions
          what = "the history";
          return Kind::not_list;
        }
        case At::sessions: {
          if (!(lines.has(p.idx) && lines[p.idx].indent == top_indent && YamlParser::is_dash(lines[p.idx].text))) {
            sequence_ends(top_indent);
            if (lines.has(p.idx)) fail_line(p.name, lines[p.idx].line, "unexpected content (bad indentation?)");
            at = At::done;
            return Kind::end;
          }
          uint32_t ind = 0;
          what = "a session";
          if (!item(top_indent, ind)) return Kind::not_list;  // (nil)
          if (YamlParser::is_dash(lines[p.idx].text)) {
            session_indent = ind;
            at = At::session;
            return Kind::session;
          }
          out = p.block(ind, 1);
          return Kind::not_list;
        }
        case At::session: {
          if (!(lines.has(p.idx) && lines[p.idx].indent == session_indent &&
                YamlParser::is_dash(lines[p.idx].text))) {
            sequence_ends(session_indent);
            at = At::sessions;
            break;
          }
          uint32_t ind = 0;
          if (item(session_indent, ind)) out = p.block(ind, 2);
          return Kind::txn;
        }
        case At::done: return Kind::end;
      }
    }
  }
};

DbcopYamlStream::DbcopYamlStream(TextWindow& win, const std::string& name) : impl_(std::make_unique<Impl>(win, name)) {}
DbcopYamlStream::~DbcopYamlStream() = default;

DbcopYamlStream::Kind DbcopYamlStream::next(Node& out, const char*& what) {
  return after_tabs_checked(impl_->lines, [&] { return impl_->next(out, what); });
}

}  // namespace isocheck::imp

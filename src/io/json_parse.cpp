// JSON for the importers (elle-cli JSON, dbcop JSON): the values of a file
// read one top-level value at a time (see JsonStream in import_common.h).
#include "io/import_common.h"

namespace isocheck::imp {


struct JsonParser : StreamParser<JsonStream> {

  void skip() {
    while (!eof()) {
      char c = peek();
      if (c == '\n') ++st.line_;
      else if (c != ' ' && c != '\t' && c != '\r') return;
      ++st.pos_;
    }
  }

  void expect_word(std::string_view w) {
    if (!avail(w.size()) || st.text_.substr(st.pos_, w.size()) != w) fail("invalid JSON value");
    st.pos_ += w.size();
  }

  void string_lit(std::string& s) {
    uint32_t start = st.line_;
    ++st.pos_;
    for (;;) {
      if (eof()) fail_line(st.name_, start, "unterminated string");
      char c = st.text_[st.pos_++];
      if (c == '"') return;
      if (c == '\n') fail("a newline inside a JSON string");
      if (c != '\\') {
        s.push_back(c);
        continue;
      }
      if (eof()) fail("unterminated string");
      char e = st.text_[st.pos_++];
      switch (e) {
        case 'n': s.push_back('\n'); break;
        case 't': s.push_back('\t'); break;
        case 'r': s.push_back('\r'); break;
        case 'b': s.push_back('\b'); break;
        case 'f': s.push_back('\f'); break;
        case '"': s.push_back('"'); break;
        case '\\': s.push_back('\\'); break;
        case '/': s.push_back('/'); break;
        case 'u': {
          auto hex4 = [&]() {
            uint32_t cp = 0;
            for (int k = 0; k < 4; ++k) {
              if (eof()) fail("unterminated string");
              int d = hex_digit(st.text_[st.pos_++]);
              if (d < 0) fail("bad \\u escape in a string");
              cp = cp * 16 + static_cast<uint32_t>(d);
            }
            return cp;
          };
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && avail(2) && st.text_.substr(st.pos_, 2) == "\\u") {
            st.pos_ += 2;
            uint32_t lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else { put_utf8(s, cp); cp = lo; }
          }
          put_utf8(s, cp);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "' in a string");
      }
    }
  }

  void value(Node& out, int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    skip();
    if (eof()) fail("unexpected end of input (a JSON value was expected)");
    out.line = st.line_;
    char c = peek();
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      bool obj = c == '{';
      uint32_t start = st.line_;
      out.t = obj ? Node::T::map : Node::T::vector;
      ++st.pos_;
      skip();
      if (!eof() && peek() == close) {
        ++st.pos_;
        return;
      }
      for (;;) {
        if (obj) {
          skip();
          if (eof() || peek() != '"') fail("an object key must be a string");
          out.items.emplace_back();
          out.items.back().t = Node::T::string;
          out.items.back().line = st.line_;
          string_lit(out.items.back().s);
          skip();
          if (eof() || peek() != ':') fail("expected ':' after an object key");
          ++st.pos_;
        }
        out.items.emplace_back();
        value(out.items.back(), depth + 1);
        skip();
        if (eof()) fail_line(st.name_, start, std::string("unterminated ") + (obj ? "object" : "array"));
        if (peek() == ',') {
          ++st.pos_;
          continue;
        }
        if (peek() == close) {
          ++st.pos_;
          if (obj)
            if (const Node* k = repeated_key(out.items))
              fail_line(st.name_, k->line, "field \"" + k->s + "\" is given more than once in an object");
          return;
        }
        fail(std::string("expected ',' or '") + close + "'");
      }
    }
    if (c == '"') {
      out.t = Node::T::string;
      return string_lit(out.s);
    }
    if (c == 'n') return expect_word("null");
    if (c == 't' || c == 'f') {
      expect_word(c == 't' ? "true" : "false");
      out.t = Node::T::boolean;
      out.b = c == 't';
      return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t b = st.pos_;
      bool integral = true;
      if (peek() == '-') ++st.pos_;
      size_t digits = st.pos_;
      while (!eof() && peek() >= '0' && peek() <= '9') ++st.pos_;
      if (st.pos_ == digits) fail("invalid number");
      if (!eof() && peek() == '.') {
        integral = false;
        ++st.pos_;
        size_t f = st.pos_;
        while (!eof() && peek() >= '0' && peek() <= '9') ++st.pos_;
        if (st.pos_ == f) fail("invalid number");
      }
      if (!eof() && (peek() == 'e' || peek() == 'E')) {
        integral = false;
        ++st.pos_;
        if (!eof() && (peek() == '+' || peek() == '-')) ++st.pos_;
        size_t f = st.pos_;
        while (!eof() && peek() >= '0' && peek() <= '9') ++st.pos_;
        if (st.pos_ == f) fail("invalid number");
      }
      std::string_view tok = st.text_.substr(b, st.pos_ - b);
      if (integral && parse_int(tok, out.i)) {
        out.t = Node::T::integer;
      } else {
        out.t = Node::T::number;
        out.s = std::string(tok);
      }
      return;
    }
    fail(std::string("unexpected character '") + c + "' (a JSON value was expected)");
  }
};

JsonStream::JsonStream(std::string_view text, const std::string& name) : ValueStream(text, name) {
  // A UTF-8 byte order mark is tolerated.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

JsonStream::JsonStream(TextWindow& window, const std::string& name) : ValueStream(window, name) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool JsonStream::next(Node& out) { return next_over_window(*this, out); }

bool JsonStream::next_value(Node& out) {
  JsonParser p{{*this}};
  out = Node();
  p.skip();
  if (top_ == -1) {
    if (p.eof()) return false;
    if (p.peek() == '[') {
      top_ = 1;  // first element or ']'
      ++pos_;
    } else {
      top_ = 0;
    }
    p.skip();
  }
  if (top_ > 0) {
    if (p.eof()) p.fail("unexpected end of input: the top-level array is not closed with ']'");
    if (p.peek() == ']') {
      ++pos_;
      top_ = 0;
      p.skip();
      if (!p.eof()) p.fail("unexpected content after the top-level array");
      return false;
    }
    if (top_ == 2) {
      if (p.peek() != ',') p.fail("expected ',' or ']' between the elements of the top-level array");
      ++pos_;
    }
    top_ = 2;
  } else if (p.eof()) {
    return false;
  }
  p.value(out, 0);
  return true;
}

DbcopJsonStream::Kind DbcopJsonStream::next(Node& out, const char*& what) {
  for (;;) {
    const State saved = s_;
    const size_t pos = pos_;
    const uint32_t line = line_;
    try {
      return step(out, what);
    } catch (const TextWindow::NeedMore&) {
      win_.more(pos);
      text_ = win_.text();
      pos_ = 0;
      line_ = line;
      s_ = saved;
    }
  }
}

DbcopJsonStream::Kind DbcopJsonStream::step(Node& out, const char*& what) {
  JsonParser p{{*this}};
  out = Node();
  // An array's next element (after ',' or at its start, not at ']'): the
  // end of the input there is parse_one's error.
  auto element = [&] {
    p.skip();
    if (p.eof()) p.fail("unexpected end of input (a JSON value was expected)");
  };
  // After an element: ',' (then `elem`), or the array's end (then `closed`).
  auto next_of = [&](uint32_t start, At elem, At closed) {
    p.skip();
    if (p.eof()) fail_line(name_, start, "unterminated array");
    if (p.peek() == ',') {
      ++pos_;
      s_.at = elem;
    } else if (p.peek() == ']') {
      ++pos_;
      s_.at = closed;
    } else {
      p.fail("expected ',' or ']'");
    }
  };
  // The top-level object ends: its fields are told apart, nothing follows.
  auto object_closed = [&] {
    std::vector<Node> items;
    for (const Node& k : s_.keys) {
      items.push_back(k);
      items.emplace_back();
    }
    if (const Node* k = repeated_key(items))
      fail_line(name_, k->line, "field \"" + k->s + "\" is given more than once in an object");
    p.skip();
    if (!p.eof()) p.fail("unexpected content after the JSON value");
    s_.at = At::done;
    if (s_.data) return Kind::end;
    out.t = Node::T::map;
    out.line = s_.object_line;
    return Kind::no_data;
  };
  auto after_sessions = [&] { return s_.depth == 0 ? At::after : At::object_next; };
  for (;;) {
    switch (s_.at) {
      case At::start:
        element();
        if (p.peek() == '[') {
          s_.sessions_line = line_;
          ++pos_;
          s_.at = At::sessions_first;
        } else if (p.peek() == '{') {
          s_.object_line = line_;
          ++pos_;
          s_.at = At::object_first;
        } else {
          p.value(out, 0);
          s_.at = At::after;
          what = "the history";
          return Kind::not_list;
        }
        break;
      case At::object_first:
        p.skip();
        if (!p.eof() && p.peek() == '}') {
          ++pos_;
          return object_closed();
        }
        s_.at = At::object_key;
        break;
      case At::object_key: {
        p.skip();
        if (p.eof() || p.peek() != '"') p.fail("an object key must be a string");
        Node key;
        key.t = Node::T::string;
        key.line = line_;
        p.string_lit(key.s);
        p.skip();
        if (p.eof() || p.peek() != ':') p.fail("expected ':' after an object key");
        ++pos_;
        const bool data = key.s == "data" && !s_.data;
        s_.keys.push_back(std::move(key));
        if (data) {
          s_.data = true;
          element();
          if (p.peek() == '[') {
            s_.sessions_line = line_;
            s_.depth = 1;
            ++pos_;
            s_.at = At::sessions_first;
            break;
          }
          p.value(out, 1);
          s_.at = At::object_next;
          what = "the history";
          return Kind::not_list;
        }
        Node drop;
        p.value(drop, 1);
        s_.at = At::object_next;
        break;
      }
      case At::object_next:
        p.skip();
        if (p.eof()) fail_line(name_, s_.object_line, "unterminated object");
        if (p.peek() == ',') {
          ++pos_;
          s_.at = At::object_key;
        } else if (p.peek() == '}') {
          ++pos_;
          return object_closed();
        } else {
          p.fail("expected ',' or '}'");
        }
        break;
      case At::sessions_first:
        p.skip();
        if (!p.eof() && p.peek() == ']') {
          ++pos_;
          s_.at = after_sessions();
        } else {
          s_.at = At::sessions_elem;
        }
        break;
      case At::sessions_elem:
        element();
        if (p.peek() == '[') {
          s_.session_line = line_;
          ++pos_;
          s_.at = At::session_first;
          return Kind::session;
        }
        p.value(out, s_.depth + 1);
        s_.at = At::sessions_next;
        what = "a session";
        return Kind::not_list;
      case At::sessions_next: next_of(s_.sessions_line, At::sessions_elem, after_sessions()); break;
      case At::session_first:
        p.skip();
        if (!p.eof() && p.peek() == ']') {
          ++pos_;
          s_.at = At::sessions_next;
        } else {
          s_.at = At::session_elem;
        }
        break;
      case At::session_elem:
        p.value(out, s_.depth + 2);
        s_.at = At::session_next;
        return Kind::txn;
      case At::session_next: next_of(s_.session_line, At::session_elem, At::sessions_next); break;
      case At::after:
        p.skip();
        if (!p.eof()) p.fail("unexpected content after the JSON value");
        s_.at = At::done;
        return Kind::end;
      case At::done: return Kind::end;
    }
  }
}

Node JsonStream::parse_one() {
  JsonParser p{{*this}};
  Node out;
  p.value(out, 0);
  p.skip();
  if (!p.eof()) p.fail("unexpected content after the JSON value");
  return out;
}

}  // namespace isocheck::imp

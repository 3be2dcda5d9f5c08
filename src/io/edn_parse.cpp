// EDN, as Jepsen and Elle write their histories: the values of a file read
// one top-level value at a time (see EdnStream in import_common.h).
#include "io/import_common.h"

namespace isocheck::imp {


struct EdnParser : StreamParser<EdnStream> {
  std::string_view t() const { return st.text_; }
  [[noreturn]] void fail_at(uint32_t line, const std::string& what) const { fail_line(st.name_, line, what); }

  static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f' || c == '\v'; }
  static bool is_delim(char c) {
    return is_ws(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' || c == ';';
  }

  // Skips whitespace, commas, comments and #_ discarded forms.
  void skip(int depth) {
    while (!eof()) {
      char c = peek();
      if (c == '\n') {
        ++st.line_;
        ++st.pos_;
      } else if (is_ws(c)) {
        ++st.pos_;
      } else if (c == ';') {
        while (!eof() && peek() != '\n') ++st.pos_;
      } else if (c == '#' && avail(2) && t()[st.pos_ + 1] == '_') {
        st.pos_ += 2;
        Node discard;
        value(discard, depth + 1);
      } else {
        return;
      }
    }
  }

  std::string_view token() {
    size_t b = st.pos_;
    while (!eof() && !is_delim(peek())) ++st.pos_;
    return t().substr(b, st.pos_ - b);
  }

  void string_lit(Node& out) {
    uint32_t start = st.line_;
    ++st.pos_;  // opening quote
    out.t = Node::T::string;
    for (;;) {
      if (eof()) fail_at(start, "unterminated string");
      char c = t()[st.pos_++];
      if (c == '"') return;
      if (c == '\n') ++st.line_;
      if (c != '\\') {
        out.s.push_back(c);
        continue;
      }
      if (eof()) fail_at(start, "unterminated string");
      char e = t()[st.pos_++];
      switch (e) {
        case 'n': out.s.push_back('\n'); break;
        case 't': out.s.push_back('\t'); break;
        case 'r': out.s.push_back('\r'); break;
        case 'b': out.s.push_back('\b'); break;
        case 'f': out.s.push_back('\f'); break;
        case '"': out.s.push_back('"'); break;
        case '\\': out.s.push_back('\\'); break;
        case '/': out.s.push_back('/'); break;
        case 'u': {
          uint32_t cp = 0;
          for (int k = 0; k < 4; ++k) {
            if (eof()) fail_at(start, "unterminated string");
            int d = hex_digit(t()[st.pos_++]);
            if (d < 0) fail("bad \\u escape in a string");
            cp = cp * 16 + static_cast<uint32_t>(d);
          }
          put_utf8(out.s, cp);
          break;
        }
        default:
          if (e == '\n') ++st.line_;
          out.s.push_back(e);  // tolerate unknown escapes
      }
    }
  }

  void number(Node& out, std::string_view tok) {
    std::string_view digits = tok;
    if (!digits.empty() && digits.back() == 'N') digits.remove_suffix(1);
    int64_t v;
    if (parse_int(digits, v)) {
      out.t = Node::T::integer;
      out.i = v;
      return;
    }
    // Big integers, floats, ratios, decimals: kept as text.
    for (char c : tok)
      if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == 'M' ||
            c == 'N' || c == '/'))
        fail("invalid number \"" + std::string(tok.substr(0, 40)) + "\"");
    out.t = Node::T::number;
    out.s = std::string(tok);
  }

  void collection(Node& out, Node::T kind, char close, int depth) {
    uint32_t start = st.line_;
    out.t = kind;
    // Jepsen op maps hold ~6 pairs and micro-ops 3 forms: one allocation
    // instead of a chain of regrowths (which moved whole Node trees).
    out.items.reserve(kind == Node::T::map ? 16 : 4);
    for (;;) {
      skip(depth);
      if (eof()) fail_at(start, std::string("unterminated ") + kind_name(kind) + " (missing '" + close + "')");
      char c = peek();
      if (c == close) {
        ++st.pos_;
        break;
      }
      if (c == ')' || c == ']' || c == '}')
        fail(std::string("unexpected '") + c + "' (expected '" + close + "' to close " + kind_name(kind) +
             " opened on line " + std::to_string(start) + ")");
      out.items.emplace_back();
      value(out.items.back(), depth + 1);
    }
    if (kind == Node::T::map && out.items.size() % 2 != 0)
      fail_at(start, "a map needs an even number of forms (key value pairs)");
    if (kind == Node::T::map)
      if (const Node* k = repeated_key(out.items)) fail_at(k->line, "key " + k->brief() + " is given more than once in a map");
  }

  // Parses one value; the caller has skipped whitespace.
  void value(Node& out, int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    skip(depth);
    if (eof()) fail("unexpected end of input (a value was expected)");
    out.line = st.line_;
    char c = peek();
    switch (c) {
      case '(': ++st.pos_; return collection(out, Node::T::list, ')', depth);
      case '[': ++st.pos_; return collection(out, Node::T::vector, ']', depth);
      case '{': ++st.pos_; return collection(out, Node::T::map, '}', depth);
      case ')': case ']': case '}': fail(std::string("unexpected '") + c + "'");
      case '"': return string_lit(out);
      case '\\': {
        ++st.pos_;
        if (eof()) fail("unexpected end of input after '\\'");
        size_t b = st.pos_++;
        while (!eof() && !is_delim(peek())) ++st.pos_;
        out.t = Node::T::character;
        out.s = std::string(t().substr(b, st.pos_ - b));
        return;
      }
      case '#': {
        ++st.pos_;
        if (eof()) fail("unexpected end of input after '#'");
        char d = peek();
        if (d == '{') {
          ++st.pos_;
          return collection(out, Node::T::set, '}', depth);
        }
        if (d == '"') return string_lit(out);  // regex literal: kept as a string
        // Tagged literal #tag value: the tag is dropped, the value kept.
        std::string_view tag = token();
        if (tag.empty()) fail(std::string("unexpected '") + d + "' after '#'");
        return value(out, depth + 1);
      }
      case ':': {
        ++st.pos_;
        std::string_view name = token();
        if (name.empty()) fail("empty keyword");
        out.t = Node::T::keyword;
        out.s = std::string(name);
        return;
      }
      default: break;
    }
    std::string_view tok = token();
    if (tok.empty()) fail(std::string("unexpected character '") + c + "'");
    bool numeric = (tok[0] >= '0' && tok[0] <= '9') ||
                   ((tok[0] == '+' || tok[0] == '-') && tok.size() > 1 && tok[1] >= '0' && tok[1] <= '9');
    if (numeric) return number(out, tok);
    if (tok == "nil") {
      out.t = Node::T::nil;
    } else if (tok == "true" || tok == "false") {
      out.t = Node::T::boolean;
      out.b = tok == "true";
    } else {
      out.t = Node::T::symbol;
      out.s = std::string(tok);
    }
  }
};

bool EdnStream::next(Node& out) { return next_over_window(*this, out); }

bool EdnStream::next_value(Node& out) {
  EdnParser p{{*this}};
  out = Node();
  p.skip(0);
  if (top_ == -1) {
    if (p.eof()) return false;
    char c = p.peek();
    if (c == '[' || c == '(') {
      top_ = c == '[' ? ']' : ')';
      ++pos_;
    } else {
      top_ = 0;
    }
    p.skip(0);
  }
  if (top_ != 0) {
    if (p.eof()) p.fail(std::string("unexpected end of input: the top-level collection is not closed with '") +
                        static_cast<char>(top_) + "'");
    if (p.peek() == top_) {
      ++pos_;
      top_ = 0;
      p.skip(0);
      if (!p.eof()) p.fail("unexpected content after the closing '" + std::string(1, text_[pos_ - 1]) + "'");
      return false;
    }
  } else if (p.eof()) {
    return false;
  }
  p.value(out, 0);
  return true;
}

}  // namespace isocheck::imp

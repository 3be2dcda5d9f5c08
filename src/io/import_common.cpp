#include "io/import_common.h"

#include <charconv>
#include <fstream>
#include <new>
#include <sstream>
#include <unordered_set>

#include "core/text_escape.h"

namespace isocheck {

uint64_t ImportStats::skipped_total() const {
  uint64_t n = 0;
  for (const auto& [k, v] : skipped) n += v;
  return n;
}

std::string ImportStats::describe() const {
  std::string out;
  // Reasons may quote the input: escaped, so that each stays one line.
  for (const auto& [k, v] : skipped) out += "skipped " + std::to_string(v) + ": " + printable(k) + "\n";
  for (const auto& [k, v] : notes) out += "note " + std::to_string(v) + ": " + printable(k) + "\n";
  return out;
}

namespace imp {

constexpr int kMaxDepth = 200;

void fail_line(const std::string& name, uint32_t line, const std::string& what) {
  throw InputError(name + ":" + std::to_string(line), what);
}

void fail_byte(const std::string& name, uint64_t offset, const std::string& what) {
  throw InputError(name + ": byte " + std::to_string(offset), what);
}

namespace {

bool same_scalar(const Node& a, const Node& b) {
  return a.t == b.t && a.t < Node::T::vector && a.s == b.s && a.i == b.i && a.b == b.b;
}

// The second occurrence of a scalar key in map items (k0 v0 k1 v1 ...), or
// nullptr: a repeated key would let one value silently replace the other.
const Node* repeated_key(const std::vector<Node>& items) {
  size_t n = items.size() / 2;
  if (n < 2) return nullptr;
  if (n <= 32) {
    for (size_t i = 1; i < n; ++i)
      for (size_t j = 0; j < i; ++j)
        if (same_scalar(items[2 * i], items[2 * j])) return &items[2 * i];
    return nullptr;
  }
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    const Node& k = items[2 * i];
    if (k.t >= Node::T::vector) continue;
    std::string id = std::to_string(static_cast<int>(k.t)) + ":" + std::to_string(k.i) + ":" + (k.b ? "1" : "0") + k.s;
    if (!seen.insert(std::move(id)).second) return &k;
  }
  return nullptr;
}

}  // namespace

std::string read_whole_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, "cannot open the file");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw InputError(path, "cannot read the file");
  if (ss.fail() && f.peek() != std::char_traits<char>::eof()) throw std::bad_alloc();  // the copy ran out of memory
  return std::move(ss).str();
}

const char* kind_name(Node::T t) {
  switch (t) {
    case Node::T::nil: return "nil";
    case Node::T::boolean: return "a boolean";
    case Node::T::integer: return "an integer";
    case Node::T::number: return "a non-integer number";
    case Node::T::string: return "a string";
    case Node::T::keyword: return "a keyword";
    case Node::T::symbol: return "a symbol";
    case Node::T::character: return "a character";
    case Node::T::vector: return "a vector";
    case Node::T::list: return "a list";
    case Node::T::set: return "a set";
    case Node::T::map: return "a map";
  }
  return "?";
}

const Node* Node::get(std::string_view key) const {
  if (t != T::map) return nullptr;
  for (size_t k = 0; k + 1 < items.size(); k += 2)
    if (items[k].is(key)) return &items[k + 1];
  return nullptr;
}

std::string Node::brief() const {
  switch (t) {
    case T::integer: return std::to_string(i);
    case T::keyword: return ":" + s;
    case T::string: return "\"" + s.substr(0, 40) + "\"";
    case T::symbol:
    case T::number: return s.substr(0, 40);
    default: return kind_name(t);
  }
}

uint32_t Sessions::index(int64_t name) {
  auto [it, fresh] = map.try_emplace(name, static_cast<uint32_t>(h.session_name.size()));
  if (fresh) h.session_name.push_back(name);
  return it->second;
}

// Encodes code point cp as UTF-8 (invalid code points become U+FFFD).
static void put_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Integer text ([+-]?digits) to int64; false on overflow or bad syntax.
static bool parse_int(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = static_cast<unsigned>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    out = static_cast<int64_t>(v);
  }
  return true;
}

// ---------------------------------------------------------------- EDN

struct EdnParser {
  EdnStream& st;
  std::string_view t() const { return st.text_; }
  [[noreturn]] void fail(const std::string& what) const { fail_line(st.name_, st.line_, what); }
  [[noreturn]] void fail_at(uint32_t line, const std::string& what) const { fail_line(st.name_, line, what); }
  bool eof() const { return st.pos_ >= st.text_.size(); }
  char peek() const { return st.text_[st.pos_]; }

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
      } else if (c == '#' && st.pos_ + 1 < t().size() && t()[st.pos_ + 1] == '_') {
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

EdnStream::EdnStream(std::string_view text, const std::string& name) : text_(text), name_(name) {}

bool EdnStream::next(Node& out) {
  EdnParser p{*this};
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

// ---------------------------------------------------------------- JSON

struct JsonParser {
  JsonStream& st;
  [[noreturn]] void fail(const std::string& what) const { fail_line(st.name_, st.line_, what); }
  bool eof() const { return st.pos_ >= st.text_.size(); }
  char peek() const { return st.text_[st.pos_]; }

  void skip() {
    while (!eof()) {
      char c = peek();
      if (c == '\n') ++st.line_;
      else if (c != ' ' && c != '\t' && c != '\r') return;
      ++st.pos_;
    }
  }

  void expect_word(std::string_view w) {
    if (st.text_.substr(st.pos_, w.size()) != w) fail("invalid JSON value");
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
          if (cp >= 0xD800 && cp < 0xDC00 && st.text_.substr(st.pos_, 2) == "\\u") {
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

JsonStream::JsonStream(std::string_view text, const std::string& name) : text_(text), name_(name) {
  // A UTF-8 byte order mark is tolerated.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool JsonStream::next(Node& out) {
  JsonParser p{*this};
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

Node JsonStream::parse_one() {
  JsonParser p{*this};
  Node out;
  p.value(out, 0);
  p.skip();
  if (!p.eof()) p.fail("unexpected content after the JSON value");
  return out;
}

// ---------------------------------------------------------------- YAML

namespace {

struct YLine {
  uint32_t indent;
  std::string_view text;
  uint32_t line;
};

struct YamlParser {
  const std::string& name;
  std::vector<YLine> lines;
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
      while (idx < lines.size() && lines[idx].indent == indent && is_dash(lines[idx].text)) {
        YLine& l = lines[idx];
        size_t off = 1;
        while (off < l.text.size() && l.text[off] == ' ') ++off;
        if (off == l.text.size()) {
          ++idx;
          if (idx < lines.size() && lines[idx].indent > indent) n.items.push_back(block(lines[idx].indent, depth + 1));
          else n.items.emplace_back();
        } else {
          l.indent = indent + static_cast<uint32_t>(off);
          l.text = l.text.substr(off);
          n.items.push_back(block(l.indent, depth + 1));
        }
      }
    } else if (key_colon(first.text) != std::string_view::npos) {
      n.t = Node::T::map;
      while (idx < lines.size() && lines[idx].indent == indent && !is_dash(lines[idx].text)) {
        YLine l = lines[idx];
        size_t c = key_colon(l.text);
        if (c == std::string_view::npos) fail(l.line, "expected 'key: value' in a mapping");
        n.items.push_back(key_node(l.text.substr(0, c), l.line));
        std::string_view rest = trim(l.text.substr(c + 1));
        ++idx;
        if (rest.empty()) {
          if (idx < lines.size() && (lines[idx].indent > indent ||
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
    if (idx < lines.size() && lines[idx].indent > indent)
      fail(lines[idx].line, "unexpected indentation");
    return n;
  }
};

}  // namespace

Node parse_yaml(std::string_view text, const std::string& name) {
  YamlParser p{name, {}};
  uint32_t lineno = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    uint32_t ind = 0;
    while (ind < l.size() && l[ind] == ' ') ++ind;
    if (ind < l.size() && l[ind] == '\t') fail_line(name, lineno, "a tab in YAML indentation");
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
    body = YamlParser::trim(body);
    if (body.empty()) continue;
    if (ind == 0 && (body == "---" || body == "..." || body.substr(0, 4) == "--- " || body.substr(0, 2) == "%Y")) {
      if (body.substr(0, 4) == "--- ") {
        std::string_view rest = YamlParser::trim(body.substr(4));
        if (!rest.empty()) p.lines.push_back({4, rest, lineno});
      }
      continue;
    }
    p.lines.push_back({ind, body, lineno});
    if (nl == text.size()) break;
  }
  if (p.lines.empty()) return Node();
  Node n = p.block(p.lines[0].indent, 0);
  if (p.idx < p.lines.size()) fail_line(name, p.lines[p.idx].line, "unexpected content (bad indentation?)");
  return n;
}

// ---------------------------------------------------------------- value 0 rule

bool only_zero_writes(const History& h, uint64_t from, uint64_t to) {
  if (from == to || h.values.named()) return false;
  for (uint64_t o = from; o < to; ++o)
    if (h.op_kind[o] != OpKind::write || h.op_value[o] != 0) return false;
  return true;
}

void drop_last_txn(History& h) {
  uint64_t from = h.txn_op_offset[h.txn_id.size() - 1];
  h.op_kind.resize(from);
  h.op_key.resize(from);
  h.op_value.resize(from);
  h.op_list_offset.resize(from + 1);
  h.list_value.resize(h.op_list_offset.back());
  h.txn_id.pop_back();
  h.txn_session.pop_back();
  h.txn_status.pop_back();
  h.txn_begin.pop_back();
  h.txn_end.pop_back();
  h.txn_op_offset.pop_back();
}

void apply_zero_is_initial(History& h, ImportStats& st) {
  if (h.values.named()) return;  // these formats only have integer values
  const Sym zero = 0;           // integer mode: the symbol of 0 is 0
  std::unordered_set<Sym> zero_written;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] == TxnStatus::aborted) continue;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
      if (h.op_kind[o] == OpKind::write && h.op_value[o] == zero) zero_written.insert(h.op_key[o]);
  }
  uint64_t initial = 0, explicit_zero = 0;
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    if (h.op_kind[o] != OpKind::read || h.op_value[o] != zero) continue;
    if (zero_written.count(h.op_key[o])) {
      ++explicit_zero;
    } else {
      h.op_value[o] = kNullValue;
      ++initial;
    }
  }
  if (initial) st.notes["reads of value 0 taken as reads of the initial state"] += initial;
  if (explicit_zero) st.notes["reads of value 0 of a key that a transaction explicitly writes 0 to (read that write)"] += explicit_zero;
}

}  // namespace imp
}  // namespace isocheck

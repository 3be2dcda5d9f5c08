// Block YAML as serde_yaml writes it (dbcop histories), read whole.
#include <vector>

#include "io/import_common.h"

namespace isocheck::imp {


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

}  // namespace isocheck::imp

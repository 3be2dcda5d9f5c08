#include "io/import_common.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <unordered_set>

#include "core/flat_hash.h"
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


void fail_line(const std::string& name, uint32_t line, const std::string& what) {
  throw InputError(name + ":" + std::to_string(line), what);
}

void fail_byte(const std::string& name, uint64_t offset, const std::string& what) {
  throw InputError(name + ": byte " + std::to_string(offset), what);
}

static bool same_scalar(const Node& a, const Node& b) {
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

TextWindow::TextWindow(const std::string& path, size_t block)
    : final_(false), path_(path), block_(std::max<size_t>(block, 16)) {
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) throw InputError(path, "cannot open the file");
  std::setvbuf(f_, nullptr, _IONBF, 0);  // blocks go straight into buf_
  more(0);
}

TextWindow::~TextWindow() {
  if (f_) std::fclose(f_);
}

void TextWindow::more(size_t consumed) {
  if (final_) return;
  const size_t keep = text_.size() - consumed;
  if (keep > 0) std::memmove(buf_.data(), text_.data() + consumed, keep);
  const size_t want = std::max(block_, 2 * keep);
  if (buf_.size() < want) buf_.resize(want);
  const size_t room = buf_.size() - keep;
  const size_t got = std::fread(buf_.data() + keep, 1, room, f_);
  if (got < room) {
    if (std::ferror(f_)) throw InputError(path_, "cannot read the file");
    final_ = true;
  }
  text_ = std::string_view(buf_.data(), keep + got);
}

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
void put_utf8(std::string& out, uint32_t cp) {
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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Integer text ([+-]?digits) to int64; false on overflow or bad syntax.
bool parse_int(std::string_view s, int64_t& out) {
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
  ZeroKeys written;  // the whole history's keys written 0
  written.collect(h);
  apply_zero_is_initial(h, st, written);
}

void ZeroKeys::collect(const History& h) {
  if (h.values.named()) return;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] == TxnStatus::aborted) continue;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (h.op_kind[o] != OpKind::write || h.op_value[o] != 0) continue;
      const Sym k = h.op_key[o];
      if (!h.keys.named()) ints.insert(SymbolTable::as_int(k));
      else if (h.keys.is_int(k)) ints.insert(std::stoll(h.keys.name(k)));
      else names.insert(h.keys.name(k));
    }
  }
}

std::string content_id(const std::string& path, Format f) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) return "";  // the reader that follows reports it
  std::vector<unsigned char> buf(1 << 20);
  uint64_t h = 0x9e3779b97f4a7c15ULL, size = 0;
  for (size_t got; (got = std::fread(buf.data(), 1, buf.size(), fp)) > 0;) {
    size_t i = 0;
    for (; i + 8 <= got; i += 8) {
      uint64_t w;
      std::memcpy(&w, buf.data() + i, 8);
      h = mix64(h ^ w) + i;
    }
    for (; i < got; ++i) h = mix64(h ^ buf[i]);
    h = mix64(h ^ got);
    size += got;
  }
  const bool bad = std::ferror(fp);
  std::fclose(fp);
  if (bad) return "";
  return path + "\n" + std::to_string(static_cast<int>(f)) + "\n" + std::to_string(size) + ":" + std::to_string(h);
}

bool ZeroKeys::has(const SymbolTable& keys, Sym k) const {
  if (!keys.named()) return ints.count(SymbolTable::as_int(k)) > 0;
  if (keys.is_int(k)) return ints.count(std::stoll(keys.name(k))) > 0;
  return names.count(keys.name(k)) > 0;
}

void apply_zero_is_initial(History& h, ImportStats& st, const ZeroKeys& written) {
  if (h.values.named()) return;
  uint64_t initial = 0, explicit_zero = 0;
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    if (h.op_kind[o] != OpKind::read || h.op_value[o] != 0) continue;
    if (written.has(h.keys, h.op_key[o])) {
      ++explicit_zero;
    } else {
      h.op_value[o] = kNullValue;
      ++initial;
    }
  }
  if (initial) st.notes["reads of value 0 taken as reads of the initial state"] += initial;
  if (explicit_zero) st.notes["reads of value 0 of a key that a transaction explicitly writes 0 to (read that write)"] += explicit_zero;
}

uint32_t PieceSessions::index(History& h, int64_t name) {
  auto [it, fresh] = map.try_emplace(name, static_cast<uint32_t>(h.session_name.size()));
  if (fresh) h.session_name.push_back(name);
  return it->second;
}

void PieceSessions::reset(const History& h) {
  map.clear();
  for (uint32_t s = 0; s < h.session_name.size(); ++s) map.emplace(h.session_name[s], s);
}

std::unique_ptr<ImportPass> open_import_pass(const std::string& path, Format f, ImportStats& st, size_t block,
                                             bool whole) {
  switch (f) {
    case Format::polysi: return open_polysi_pass(path, st, block, whole);
    case Format::dbcop:
    case Format::dbcop_json:
    case Format::dbcop_text: return open_dbcop_pass(path, f, st, block, whole);
    default: return nullptr;
  }
}

History run_whole(ImportPass& p, ImportStats& st) {
  History h;
  while (p.step(h)) {
  }
  p.settle(h, nullptr);
  st.format = p.format_name();
  st.txns = h.txn_count();
  return h;
}

}  // namespace imp
}  // namespace isocheck

// The JSONL line shape isocheck itself writes (io/jsonl_stream.h), read
// without a JSON parser:
//
//   {"id":I,"session":I,"status":"committed|aborted|unknown"[,"begin":I,"end":I],"ops":[OP,...]}
//   OP = ["r",KEY,null|V|[V,...]] | ["w",KEY,V] | ["append",KEY,V]
//      | ["scan",KEY,KEY,[[KEY,V],...]],  KEY, V = I | S
//
// with no whitespace, integers of at most 18 digits without leading zeros
// (never "-0"), and strings of printable ASCII without escapes. Every such
// line is valid JSON and means what the general parser (simdjson, io/jsonl.cpp)
// makes of it; a line of any other shape is declined (scan_fast_line returns
// false) and goes to the general parser, which accepts it or names its
// problem. So this reader only decides how a line is read, never whether it
// is accepted or what an error says.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/history.h"

namespace isocheck::jsonl_fast {

struct Value {
  enum Type : uint8_t { null, integer, string, list };
  Type type = null;
  int64_t i = 0;
  std::string_view s;
  uint32_t list_begin = 0, list_end = 0;  // list: elements in Line::list
};

struct Op {
  OpKind kind = OpKind::read;  // read, write or append (a scan: unused)
  Value key;                   // integer or string (a scan: its lo)
  uint64_t key_hash = 0;       // (the reader's: its hash, when it was prefetched)
  Value value;                 // (a scan: its hi)
  // A range scan without a value predicate: its rows are
  // Line::rows[rows_begin, rows_end).
  bool scan = false;
  uint32_t rows_begin = 0, rows_end = 0;
};

struct Row {
  Value key, value;  // integer or string each
};

struct Line {
  int64_t id = 0, session = 0, begin = kNoTime, end = kNoTime;
  TxnStatus status = TxnStatus::committed;
  std::vector<Op> ops;      // the first n_ops (the rest: room kept for later lines)
  size_t n_ops = 0;
  std::vector<Value> list;  // the elements of list reads (integer or string)
  std::vector<Row> rows;    // the scans' rows
  bool has_scans = false;
};

class Cursor {
 public:
  Cursor(const char* p, const char* e) : p_(p), e_(e) {}
  bool at_end() const { return p_ == e_; }
  bool lit(const char* s, size_t n) {
    if (static_cast<size_t>(e_ - p_) < n || std::memcmp(p_, s, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool ch(char c) {
    if (p_ == e_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool peek(char c) const { return p_ != e_ && *p_ == c; }
  // -?(0|[1-9][0-9]{0,17}), not -0: always a 64-bit integer to simdjson.
  bool integer(int64_t& v) {
    const bool neg = ch('-');
    if (p_ == e_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
      v = 0;
      return !neg && (p_ == e_ || *p_ < '0' || *p_ > '9');
    }
    uint64_t x;
    if (!digits(x)) return false;
    v = neg ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
    return true;
  }
  // The digits from here (the first one not 0) into x; false past 18.
  __attribute__((always_inline)) bool digits(uint64_t& x) {
    const char* b = p_;
    x = 0;
    while (p_ != e_ && *p_ >= '0' && *p_ <= '9') {
      if (p_ - b == 18) return false;
      x = x * 10 + static_cast<uint64_t>(*p_ - '0');
      ++p_;
    }
    return true;
  }
  // "..." of bytes 0x20-0x7E other than '"' and '\\' (no escapes, ASCII).
  bool string(std::string_view& s) {
    if (!ch('"')) return false;
    const char* b = p_;
    while (p_ != e_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20 || c > 0x7E || c == '\\') return false;
      ++p_;
    }
    if (p_ == e_) return false;
    s = std::string_view(b, static_cast<size_t>(p_ - b));
    ++p_;
    return true;
  }
  // scalar(), inlined where the value is a positive integer (most of a
  // scan's rows): [1-9][0-9]{0,17} read in place, anything else by scalar().
  __attribute__((always_inline)) bool row_scalar(Value& v) {
    if (p_ == e_ || *p_ < '1' || *p_ > '9') return scalar(v);
    uint64_t x;
    if (!digits(x)) return false;
    v.type = Value::integer;
    v.i = static_cast<int64_t>(x);
    return true;
  }
  // An integer or a string.
  bool scalar(Value& v) {
    if (peek('"')) {
      v.type = Value::string;
      return string(v.s);
    }
    v.type = Value::integer;
    return integer(v.i);
  }

 private:
  const char* p_;
  const char* e_;
};

inline bool read_value(Cursor& c, Line& out, Value& v) {
  if (c.lit("null", 4)) {
    v.type = Value::null;
    return true;
  }
  if (!c.ch('[')) return c.scalar(v);
  v.type = Value::list;
  v.list_begin = v.list_end = static_cast<uint32_t>(out.list.size());
  if (!c.ch(']')) {
    do {
      out.list.emplace_back();
      if (!c.scalar(out.list.back())) return false;
    } while (c.ch(','));
    if (!c.ch(']')) return false;
  }
  v.list_end = static_cast<uint32_t>(out.list.size());
  return true;
}

// ["scan",lo,hi,[[k,v],...]] after its '["': lo and hi in op.key and
// op.value, the rows appended to out.rows.
inline bool read_scan(Cursor& c, Line& out, Op& op) {
  if (!c.lit("scan\",", 6)) return false;
  // lo, hi, then the rows [[k, v], ...]
  op.scan = out.has_scans = true;
  if (!c.scalar(op.key) || !c.ch(',') || !c.scalar(op.value) || !c.ch(',') || !c.ch('[')) return false;
  op.rows_begin = static_cast<uint32_t>(out.rows.size());
  if (!c.ch(']')) {
    do {
      out.rows.emplace_back();
      Row& r = out.rows.back();
      if (!c.ch('[') || !c.row_scalar(r.key) || !c.ch(',') || !c.row_scalar(r.value) || !c.ch(']')) return false;
    } while (c.ch(','));
    if (!c.ch(']')) return false;
  }
  op.rows_end = static_cast<uint32_t>(out.rows.size());
  if (!c.ch(']')) return false;
  ++out.n_ops;
  return true;
}

inline bool read_op(Cursor& c, Line& out) {
  if (!c.lit("[\"", 2)) return false;
  // (in place: a fresh Op is zeroed whole, a tenth of the scan)
  if (out.n_ops == out.ops.size()) out.ops.emplace_back();
  Op& op = out.ops[out.n_ops];
  op.key_hash = 0;
  op.scan = false;
  if (c.lit("r\",", 3)) op.kind = OpKind::read;
  else if (c.lit("w\",", 3)) op.kind = OpKind::write;
  else if (c.lit("append\",", 8)) op.kind = OpKind::append;
  else return read_scan(c, out, op);
  if (!c.scalar(op.key) || !c.ch(',')) return false;
  if (op.kind == OpKind::read) {
    if (!read_value(c, out, op.value)) return false;
  } else if (!c.scalar(op.value)) {
    return false;
  }
  if (!c.ch(']')) return false;
  ++out.n_ops;
  return true;
}

// True when [p, e) is a whole line of the shape above; `out` then holds it
// (its string views point into the line).
// Key order on a line's keys as stated, the order key_less (core/
// predicates.h) gives their symbols: integers before strings, integers by
// value, strings bytewise.
inline bool key_less(const Value& a, const Value& b) {
  if (a.type != b.type) return a.type == Value::integer;
  return a.type == Value::integer ? a.i < b.i : a.s < b.s;
}

// A scan whose rows lie in [lo, hi], each key after the one before (what the
// general reader checks of a scan, io/jsonl.cpp scan_op).
inline bool scan_in_order(const Line& l, const Op& op) {
  if (key_less(op.value, op.key)) return false;
  for (uint32_t r = op.rows_begin; r < op.rows_end; ++r) {
    const Value& k = l.rows[r].key;
    if (key_less(k, op.key) || key_less(op.value, k)) return false;
    if (r > op.rows_begin && !key_less(l.rows[r - 1].key, k)) return false;
  }
  return true;
}

inline bool scan_fast_line(const char* p, const char* e, Line& out) {
  Cursor c(p, e);
  out.n_ops = 0;
  out.list.clear();
  out.rows.clear();
  out.has_scans = false;
  out.begin = out.end = kNoTime;
  if (!c.lit("{\"id\":", 6) || !c.integer(out.id)) return false;
  if (!c.lit(",\"session\":", 11) || !c.integer(out.session)) return false;
  if (!c.lit(",\"status\":\"", 11)) return false;
  if (c.lit("committed\"", 10)) out.status = TxnStatus::committed;
  else if (c.lit("aborted\"", 8)) out.status = TxnStatus::aborted;
  else if (c.lit("unknown\"", 8)) out.status = TxnStatus::unknown;
  else return false;
  if (c.lit(",\"begin\":", 9)) {
    if (!c.integer(out.begin) || !c.lit(",\"end\":", 7) || !c.integer(out.end)) return false;
  }
  if (!c.lit(",\"ops\":[", 8)) return false;
  if (!c.ch(']')) {
    do {
      if (!read_op(c, out)) return false;
    } while (c.ch(','));
    if (!c.ch(']')) return false;
  }
  return c.ch('}') && c.at_end();
}

}  // namespace isocheck::jsonl_fast

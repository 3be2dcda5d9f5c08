#include "io/jsonl_stream.h"

#include <charconv>
#include <cstdio>
#include <ostream>

#include "core/text_escape.h"

namespace isocheck {
namespace {

// Strings: the one JSON escaper (util/text_escape.h).
void put_json_string(std::string& out, std::string_view s) { append_json_string(out, s); }

void put_int(std::string& out, int64_t v) {
  char b[24];
  auto [p, ec] = std::to_chars(b, b + sizeof b, v);
  out.append(b, p);
}

void put_sym(std::string& out, const SymbolTable& t, Sym s) {
  if (!t.named()) return put_int(out, SymbolTable::as_int(s));
  if (t.is_int(s)) out += t.name(s);
  else put_json_string(out, t.name(s));
}

void flush(std::string& out, std::ostream& os) {
  os.write(out.data(), static_cast<std::streamsize>(out.size()));
  out.clear();
}

}  // namespace

void write_jsonl_header(const std::string& time_unit, std::ostream& os) {
  std::string out = "{\"isocheck\":1";
  if (!time_unit.empty()) {
    out += ",\"time_unit\":";
    put_json_string(out, time_unit);
  }
  out += "}\n";
  flush(out, os);
}

void put_jsonl_int(std::string& out, int64_t v) { put_int(out, v); }

void put_jsonl_txn_head(std::string& out, const History& h, TxnIdx t) {
  out += "{\"id\":";
  put_int(out, h.txn_id[t]);
  out += ",\"session\":";
  put_int(out, h.session_name[h.txn_session[t]]);
  out += ",\"status\":\"";
  out += to_string(h.txn_status[t]);
  out += '"';
  if (h.txn_begin[t] != kNoTime) {
    out += ",\"begin\":";
    put_int(out, h.txn_begin[t]);
    out += ",\"end\":";
    put_int(out, h.txn_end[t]);
  }
  out += ",\"ops\":[";
}

void put_jsonl_op(std::string& out, const History& h, OpIdx o) {
  out += "[\"";
  out += to_string(h.op_kind[o]);
  out += "\",";
  put_sym(out, h.keys, h.op_key[o]);
  out.push_back(',');
  if (h.op_kind[o] == OpKind::read_list) {
    out.push_back('[');
    auto l = h.list(o);
    for (size_t i = 0; i < l.size(); ++i) {
      if (i) out.push_back(',');
      put_sym(out, h.values, l[i]);
    }
    out.push_back(']');
  } else if (h.op_value[o] == kNullValue) {
    out += "null";
  } else {
    put_sym(out, h.values, h.op_value[o]);
  }
  out.push_back(']');
}

void write_jsonl_txns(const History& h, std::ostream& os, bool header) {
  if (header) write_jsonl_header(h.time_unit, os);
  std::string out;
  out.reserve(1 << 20);
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    put_jsonl_txn_head(out, h, t);
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (o != h.op_begin(t)) out.push_back(',');
      put_jsonl_op(out, h, o);
    }
    out += "]}\n";
    if (out.size() > (1 << 20) - 4096) flush(out, os);
  }
  flush(out, os);
}

}  // namespace isocheck

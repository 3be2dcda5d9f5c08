// Shared test fixtures for the history model: field-by-field comparison, a
// deterministic random history covering every column, and slicing.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/expect_fields.h"
#include "core/history.h"
#include "io/jsonl.h"

namespace isocheck::testkit {

// One JSONL transaction line: its id, session and operations (the text inside
// "ops":[...]), with begin/end times when begin >= 0.
inline std::string txn_line(int id, int session, const std::string& ops, int64_t begin = -1, int64_t end = -1,
                            const std::string& status = "committed") {
  std::string times = begin >= 0 ? ",\"begin\":" + std::to_string(begin) + ",\"end\":" + std::to_string(end) : "";
  return "{\"id\":" + std::to_string(id) + ",\"session\":" + std::to_string(session) + ",\"status\":\"" + status +
         "\"" + times + ",\"ops\":[" + ops + "]}\n";
}

inline void expect_same_table(const SymbolTable& a, const SymbolTable& b) {
  EXPECT_EQ(a.named(), b.named());
  if (a.named() && b.named()) {
    EXPECT_EQ(a.names(), b.names());
    std::vector<uint8_t> fa = a.int_flags(), fb = b.int_flags();
    fa.resize(a.names().size()), fb.resize(b.names().size());
    EXPECT_EQ(fa, fb);
  }
}

// Every per-transaction and per-operation column.
inline void expect_same_columns(const History& a, const History& b) {
  expect_same_fields(a, b, "txn_id txn_session txn_status txn_begin txn_end txn_op_offset"
                     " op_kind op_key op_value op_list_offset list_value session_name",
                     &History::txn_id, &History::txn_session, &History::txn_status, &History::txn_begin,
                     &History::txn_end, &History::txn_op_offset, &History::op_kind, &History::op_key,
                     &History::op_value, &History::op_list_offset, &History::list_value, &History::session_name);
}

// The columns plus the time unit and both symbol tables.
inline void expect_same(const History& a, const History& b) {
  expect_same_columns(a, b);
  EXPECT_EQ(a.time_unit, b.time_unit);
  expect_same_table(a.keys, b.keys);
  expect_same_table(a.values, b.values);
}

inline std::string jsonl_text(const History& h) {
  std::ostringstream s;
  write_jsonl(h, s);
  return s.str();
}

// A deterministic random history: shuffled ids, sparse sessions (to take the
// hash path), lists, nulls, mixed times.
inline History random_history(size_t n, bool named, uint32_t seed) {
  std::mt19937_64 rng(seed);
  History h;
  h.time_unit = "us";
  std::vector<int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int64_t>(i) * 3 - 100;
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<int64_t> sess_names = {5, 4000000000LL, 0, 77, 123456789};
  std::vector<uint32_t> dense(sess_names.size(), UINT32_MAX);
  if (named) {
    std::vector<std::string> kn, vn;
    std::vector<uint8_t> ki, vi;
    for (int i = 0; i < 20; ++i) kn.push_back(i % 3 ? "k" + std::to_string(i) : std::to_string(i)), ki.push_back(i % 3 == 0);
    for (int i = 0; i < 50; ++i) vn.push_back(i % 2 ? "v" + std::to_string(i) : std::to_string(i)), vi.push_back(i % 2 == 0);
    h.keys.set_named(kn, ki);
    h.values.set_named(vn, vi);
  }
  Sym nk = named ? 20 : 1000, nv = named ? 50 : 1u << 30;
  std::vector<Sym> lst;
  for (size_t t = 0; t < n; ++t) {
    size_t s = rng() % sess_names.size();
    if (dense[s] == UINT32_MAX) dense[s] = h.session_name.size(), h.session_name.push_back(sess_names[s]);
    int64_t b = kNoTime, e = kNoTime;
    if (rng() % 3) b = static_cast<int64_t>(rng() % 1000), e = b + static_cast<int64_t>(rng() % 50);
    h.begin_txn(ids[t], dense[s], static_cast<TxnStatus>(rng() % 3), b, e);
    size_t ops = rng() % 6;
    for (size_t o = 0; o < ops; ++o) {
      Sym k = rng() % nk;
      switch (rng() % 5) {
        case 0: h.add_op(OpKind::read, k, kNullValue); break;
        case 1: h.add_op(OpKind::read, k, rng() % nv); break;
        case 2: h.add_op(OpKind::write, k, rng() % nv); break;
        case 3: h.add_op(OpKind::append, k, rng() % nv); break;
        default:
          lst.clear();
          for (size_t i = rng() % 4; i > 0; --i) lst.push_back(rng() % nv);
          h.add_list_read(k, lst);
      }
    }
    h.end_txn();
  }
  return h;
}

// The transactions [a, b) of h, as a range read or a chunk should hold them.
inline History slice(const History& h, size_t a, size_t b) {
  History s;
  s.keys = h.keys;
  s.values = h.values;
  s.time_unit = h.time_unit;
  std::vector<uint32_t> dense(h.session_count(), UINT32_MAX);
  for (size_t t = a; t < b; ++t) {
    uint32_t& d = dense[h.txn_session[t]];
    if (d == UINT32_MAX) d = s.session_name.size(), s.session_name.push_back(h.session_name[h.txn_session[t]]);
    s.begin_txn(h.txn_id[t], d, h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (h.op_kind[o] == OpKind::read_list) s.add_list_read(h.op_key[o], h.list(o));
      else s.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
    }
    s.end_txn();
  }
  return s;
}

}  // namespace isocheck::testkit

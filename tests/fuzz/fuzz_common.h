// Shared by the libFuzzer targets: run one importer on the input; an
// InputError is the expected answer to bad input, anything else (a crash, a
// sanitizer report, another exception) is a finding. A history that imports
// must satisfy the model's structural invariants.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/errors.h"
#include "core/history.h"
#include "io/import.h"

namespace isocheck::fuzz {

inline void require(bool ok) {
  if (!ok) std::abort();
}

inline void check_invariants(const History& h) {
  size_t n = h.txn_count();
  require(h.txn_session.size() == n && h.txn_status.size() == n && h.txn_begin.size() == n && h.txn_end.size() == n);
  require(h.txn_op_offset.size() == n + 1 && h.txn_op_offset.front() == 0 && h.txn_op_offset.back() == h.op_count());
  for (size_t t = 0; t < n; ++t) {
    require(h.txn_op_offset[t] <= h.txn_op_offset[t + 1]);
    require(h.txn_session[t] < h.session_count());
    require((h.txn_begin[t] == kNoTime) == (h.txn_end[t] == kNoTime));
    require(h.txn_begin[t] == kNoTime || h.txn_begin[t] <= h.txn_end[t]);
  }
  require(h.op_key.size() == h.op_count() && h.op_value.size() == h.op_count());
  require(h.op_list_offset.size() == h.op_count() + 1 && h.op_list_offset.back() == h.list_value.size());
  for (size_t o = 0; o < h.op_count(); ++o) {
    require(h.op_list_offset[o] <= h.op_list_offset[o + 1]);
    if (h.op_kind[o] != OpKind::read_list) require(h.op_list_offset[o] == h.op_list_offset[o + 1]);
    if (h.keys.named()) require(h.op_key[o] < h.keys.size());
    if (h.values.named() && h.op_kind[o] != OpKind::read_list && h.op_value[o] != kNullValue)
      require(h.op_value[o] < h.values.size());
  }
}

template <class F>
int run(const uint8_t* data, size_t size, F&& parse) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  try {
    ImportStats st;
    History h = parse(in, st);
    check_invariants(h);
    require(st.txns == h.txn_count());
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace isocheck::fuzz

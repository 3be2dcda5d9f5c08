// Test helper: many histories glued into one with disjoint keys, so that the
// communication graph has many blocks. Piece i's key k becomes k + i * 1000
// (integer keys), its sessions become s + session_base(i), and with `share`
// piece i's session 0 is piece i-1's session 0 — an articulation session
// shared by consecutive pieces. Transactions are interleaved round-robin
// (file order inside each piece kept), ids renumbered 1..n.
#pragma once
#include <algorithm>
#include <vector>

#include "core/history.h"

namespace isocheck::testing_glue {

inline History glue(const std::vector<History>& parts, bool share) {
  History out;
  std::vector<uint32_t> base(parts.size(), 0);
  uint32_t next_session = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    base[i] = (share && i > 0) ? next_session - 1 : next_session;
    // with sharing, local session 0 maps to the previous piece's last session slot,
    // the others to fresh numbers after it
    next_session += static_cast<uint32_t>(parts[i].session_count()) - ((share && i > 0) ? 1 : 0);
  }
  // Session of piece i, local s.
  std::vector<uint32_t> first_fresh(parts.size(), 0);
  {
    uint32_t n = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      first_fresh[i] = n;
      n += static_cast<uint32_t>(parts[i].session_count()) - ((share && i > 0) ? 1 : 0);
    }
  }
  // Shared session of piece i (i > 0): piece i-1's session 0 -> global of piece i-1 local 0.
  std::vector<uint32_t> zero(parts.size(), 0);
  auto global_session = [&](size_t i, uint32_t s) -> uint32_t {
    if (share && i > 0) return s == 0 ? zero[i - 1] : first_fresh[i] + s - 1;
    return first_fresh[i] + s;
  };
  for (size_t i = 0; i < parts.size(); ++i) zero[i] = global_session(i, 0);
  uint32_t sessions = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    for (uint32_t s = 0; s < parts[i].session_count(); ++s) sessions = std::max(sessions, global_session(i, s) + 1);
  for (uint32_t s = 0; s < sessions; ++s) out.session_name.push_back(s);
  std::vector<TxnIdx> pos(parts.size(), 0);
  int64_t id = 1;
  bool more = true;
  while (more) {
    more = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      const History& h = parts[i];
      if (pos[i] >= h.txn_count()) continue;
      more = true;
      TxnIdx t = pos[i]++;
      out.begin_txn(id++, global_session(i, h.txn_session[t]), h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
      Sym off = static_cast<Sym>(i) * 1000;
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        if (h.op_kind[o] == OpKind::read_list) out.add_list_read(h.op_key[o] + off, h.list(o));
        else out.add_op(h.op_kind[o], h.op_key[o] + off, h.op_value[o]);
      }
      out.end_txn();
    }
  }
  if (!parts.empty()) out.time_unit = parts[0].time_unit;
  return out;
}

}  // namespace isocheck::testing_glue

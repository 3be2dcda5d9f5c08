// What the exhaustive oracles (oracle.cpp, oracle_weak.cpp) read alike from a
// history: observations, who wrote each value, and which transactions take
// part. Like them it shares nothing with src/ but the History model.
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "core/history.h"

namespace isocheck::oracle_detail {

using Seq = std::vector<Sym>;

inline bool is_read(OpKind k) { return k == OpKind::read || k == OpKind::read_list; }

// The sequence a read observes: a list read's list; a register read's value,
// or [] for null.
inline Seq observation(const History& h, OpIdx o) {
  if (h.op_kind[o] == OpKind::read_list) {
    auto l = h.list(o);
    return Seq(l.begin(), l.end());
  }
  if (h.op_value[o] == kNullValue) return {};
  return {h.op_value[o]};
}

struct Writer {
  TxnIdx txn;
  OpIdx op;
};

// Who wrote what, (key, value) -> writes in file order, of every status.
using Writers = std::map<std::pair<Sym, Sym>, std::vector<Writer>>;

inline Writers writers_of(const History& h) {
  Writers writers;
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
      if (!is_read(h.op_kind[o])) writers[{h.op_key[o], h.op_value[o]}].push_back({t, o});
  return writers;
}

// The included transactions: the committed ones, plus (fixpoint) every
// unknown one that wrote a value an included transaction read.
inline std::vector<bool> included_txns(const History& h, const Writers& writers) {
  std::vector<bool> included(h.txn_count(), false);
  std::vector<TxnIdx> work;
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.txn_status[t] == TxnStatus::committed) included[t] = true, work.push_back(t);
  while (!work.empty()) {
    TxnIdx t = work.back();
    work.pop_back();
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (!is_read(h.op_kind[o])) continue;
      for (Sym v : observation(h, o)) {
        auto it = writers.find({h.op_key[o], v});
        if (it == writers.end()) continue;
        for (const Writer& w : it->second)
          if (h.txn_status[w.txn] == TxnStatus::unknown && !included[w.txn])
            included[w.txn] = true, work.push_back(w.txn);
      }
    }
  }
  return included;
}

}  // namespace isocheck::oracle_detail

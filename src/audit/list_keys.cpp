// Keys used both as lists and as registers. verify's check refuses such a
// log at the first operation, in file order and of any transaction, that
// writes with w, or reads one value of, a key appended to or read as a list
// anywhere (graph/known_graph.h, first_list_key_misuse). A round sees only
// its own operations and the kept ones: the append may come rounds after the
// write, and the write's transaction may be forgotten by then. So when pass 1
// met both kinds of operation the log is read once more, each key's use kept
// (by symbol for HDF5, whose symbols are the file's; by name otherwise, each
// piece having its own tables), and the first misuse is the audit's error,
// with verify's words, before any round is checked.
#include <string>
#include <unordered_map>
#include <vector>

#include "audit/auditor.h"
#include "core/flat_hash.h"
#include "graph/known_graph.h"

namespace isocheck::audit_detail {

void Auditor::refuse_list_key_misuse() {
  stage("audit pass 1 (keys used as lists and as registers)");
  struct Use {
    uint64_t txn = ~uint64_t{0};  // the first register operation's transaction (log order); ~0: none
    int64_t id = 0;
    uint64_t pos = 0;  // its position in the transaction
    bool list = false, writes = false;
    std::string key;  // the key's text
  };
  std::vector<Use> uses;
  FlatMap64 by_symbol{1024};
  std::unordered_map<std::string, uint32_t> by_name;
  LogReader rr = open_log();
  std::string name;
  for (uint64_t row = 0;;) {
    History h = rr.next(opt_.round_txns);
    if (h.txn_count() == 0) break;
    const SymbolTable& keys = rr.key_table(h);
    for (TxnIdx t = 0; t < h.txn_count(); ++t)
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        const OpKind kind = h.op_kind[o];
        const bool list = uses_as_list(kind), reg = uses_as_register(kind, h.op_value[o]);
        if (!list && !reg) continue;
        const Sym k = h.op_key[o];
        uint32_t i;
        if (rr.hdf5()) {
          bool fresh;
          i = static_cast<uint32_t>(by_symbol.get_or_insert(k, uses.size(), fresh));
          if (fresh) uses.emplace_back();
        } else {
          name.assign(1, keys.is_int(k) ? 'i' : 's');
          name += keys.text(k);
          auto [it, fresh] = by_name.try_emplace(name, static_cast<uint32_t>(uses.size()));
          if (fresh) uses.emplace_back();
          i = it->second;
        }
        Use& u = uses[i];
        u.list |= list;
        if (reg && u.txn == ~uint64_t{0})  // (the log is read in order: the first is the earliest)
          u.txn = row + t, u.id = h.txn_id[t], u.pos = o - h.op_begin(t), u.writes = kind == OpKind::write,
          u.key = keys.text(k);
      }
    row += h.txn_count();
  }
  const Use* first = nullptr;
  for (const Use& u : uses)
    if (u.list && u.txn != ~uint64_t{0} && (!first || u.txn < first->txn || (u.txn == first->txn && u.pos < first->pos)))
      first = &u;
  if (first) throw InputError(path_, list_key_misuse(first->id, first->pos, first->key, first->writes).what());
}

}  // namespace isocheck::audit_detail

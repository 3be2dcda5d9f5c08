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
  std::vector<ListKeyUse> uses;
  std::vector<std::string> texts;  // per entry of uses: the key's text, once it has a register use
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
        if (!uses_as_list(h.op_kind[o]) && !uses_as_register(h.op_kind[o], h.op_value[o])) continue;
        const Sym k = h.op_key[o];
        uint32_t i;
        bool fresh;
        if (rr.hdf5()) {
          i = static_cast<uint32_t>(by_symbol.get_or_insert(k, uses.size(), fresh));
        } else {
          name.assign(1, keys.is_int(k) ? 'i' : 's');
          name += keys.text(k);
          auto it = by_name.try_emplace(name, static_cast<uint32_t>(uses.size()));
          i = it.first->second, fresh = it.second;
        }
        if (fresh) uses.emplace_back(), texts.emplace_back();
        const bool had = uses[i].has_register();
        uses[i].note(h.op_kind[o], h.op_value[o], row + t, h.txn_id[t], o - h.op_begin(t));
        if (!had && uses[i].has_register()) texts[i] = keys.text(k);
      }
    row += h.txn_count();
  }
  size_t first = uses.size();
  for (size_t i = 0; i < uses.size(); ++i)
    if (uses[i].misused() && (first == uses.size() || uses[i].before(uses[first]))) first = i;
  if (first < uses.size()) {
    const ListKeyUse& u = uses[first];
    throw InputError(path_, list_key_misuse(u.id, u.pos, texts[first], u.writes).what());
  }
}

}  // namespace isocheck::audit_detail

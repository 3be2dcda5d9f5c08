// String keys and values of a file read by ranges (JSONL), numbered across
// ranks exactly as one process reading the whole file numbers them, with no
// rank holding the whole table.
//
// One process's numbering (core/history.h SymbolTable): while a table has
// seen integers only, a symbol is the integer; its first string switches it
// to names, that string becoming symbol 0 and the integers seen before it
// following in order of first appearance (History::remap_keys), every later
// new name appended. So with names ordered by their first appearance in the
// file (an integer and a string of the same digits apart), the name at rank
// i gets i + 1 when it appears before the first string, i after it, and the
// first string 0.
//
// Distributed: each rank parses its range slice by slice and sends every
// distinct name of a slice, with its position (rank, operation of the
// range), to the rank owning the name (a hash); the owner keeps the first
// position. The owner then tells the rank of that first position, which
// numbers the names first seen in its range in order (an exclusive scan of
// the counts gives its first rank), keeps their text (what a report later
// fetches) and answers the owner with the symbols. A slice read afterwards
// asks the owners for its names' symbols. Each rank holds the names it owns
// (about 1/P of them) and those first seen in its range, and never a table
// of every name.
//
// Used by the key shards (KeyShardOptions::names, once per round of
// slices) and by the components on owned data (RangeSource::names, once per
// round of chunks). Their pieces and shards then hold symbols only; the
// messages that name keys from inside a piece (a key used as a list and as a
// register) need list operations, which number() refuses (kLists: such a
// file is read on rank 0).
#pragma once
#include <cstdint>
#include <exception>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/history.h"
#include "solver/check.h"

namespace isocheck::dist {

class RangeNames {
 public:
  static constexpr int kKeys = 1, kValues = 2;  // table bits
  static constexpr int kLists = -1;              // number(): list operations were met

  // Collective. Reads this rank's range (`count` transactions, read(lo, hi)
  // transactions [lo, hi) of it, ranks in file order) in slices and numbers
  // the names of the tables in `tables`. Returns the tables some slice had
  // strings in (the same on every rank): when that holds a table not asked
  // for, call again with it. kLists when a slice holds list operations
  // (lists' values are numbered in another order: not done here). A slice
  // that cannot be read throws, on every rank, the first such error in the
  // file (after every rank has finished its rounds).
  int number(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read, int tables);

  // Collective, once per round of slices on every rank: the slice's key and
  // value symbols replaced by the history's (`slice` nullptr: this rank
  // reads none this round); its numbered tables are left empty in integer
  // mode (the shards need symbols only). Throws after the round's exchanges
  // when a name was not numbered (the file changed between the reads).
  void renumber(History* slice);
  // renumber() in a round that must go on whatever happens: a failure is
  // kept in `error` (unless one is there already) and the slice dropped, so
  // that the caller stays in the rounds and throws it after them.
  void renumber_keeping_error(std::optional<History>& slice, std::exception_ptr& error);
  // The tables (kKeys, kValues) in which h has named (string) symbols.
  static int named_tables(const History& h) {
    return (h.keys.named() ? kKeys : 0) | (h.values.named() ? kValues : 0);
  }

  // Collective: rank 0's report history `h` (with `r`, its result) has the
  // history's symbols: they become dense symbols in the same order, and its
  // tables hold their names, fetched from the ranks that hold them. The
  // symbols a report names: its operations' keys and values, the anomalies'
  // (Anomaly::key, value) and the general engine's unknown orders
  // (ConstraintRef::key). `fill` tells whether rank 0 has one (rank 0's
  // value counts).
  void name_report(bool fill, History& h, CheckResult& r);

  int tables() const { return tables_; }

 private:
  // Names by a 64-bit hash of their text (flat, open addressing; the text
  // in one arena), those of equal hashes told apart by their text.
  class NameTable {
   public:
    // The value of the name (hash h): added with `init` when absent (fresh).
    uint64_t& get(uint64_t h, bool is_int, std::string_view text, uint64_t init, bool& fresh);
    const uint64_t* find(uint64_t h, bool is_int, std::string_view text) const;
    size_t size() const { return count_; }
    // f(is_int, text, value&) for every name.
    template <class F> void for_each(F&& f) {
      for (Slot& x : slots_)
        if (x.used) f(x.is_int != 0, std::string_view(arena_.data() + x.off, x.len), x.value);
    }

   private:
    struct Slot {
      uint64_t hash = 0, value = 0, off = 0;
      uint32_t len = 0;
      uint8_t used = 0, is_int = 0;
    };
    std::vector<Slot> slots_ = std::vector<Slot>(16);
    std::string arena_;
    size_t count_ = 0;
  };
  struct Table {
    // The names this rank owns: first position (number), then symbol.
    NameTable owned;
    // The names first seen in this rank's range, by symbol.
    std::vector<std::pair<Sym, std::string>> held;
    uint64_t first_string = UINT64_MAX;  // position of the table's first string
  };
  void assign_symbols(Table& t);
  Table table_[2];
  int tables_ = 0;  // numbered tables
};

}  // namespace isocheck::dist

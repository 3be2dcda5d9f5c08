// Range scans, inserts and deletes: the operations a history states before
// they are expanded into the point reads and writes they stand for.
//
// Model. Every key starts absent (the initial state, `null`). `w k v` and
// `insert k v` make k present with value v; `insert` also requires k to be
// absent just before (in the transaction's view). `delete k v` makes k absent
// again; v names that deleted version (a tombstone, unique per key like a
// written value). A scan [lo, hi] returns exactly the present rows (k, v)
// with lo <= k <= hi, ordered by key.
//
// Expansion (exact for the keys it accepts). The keys whose state ever
// changes are the keys written, inserted or deleted somewhere in the history;
// every other key is absent throughout, so a scan's silence about it says
// nothing. For each scan and each such key k in its range:
//   * a returned row (k, v) is the point read `r k v`;
//   * k missing from the rows is a read of the absent version it saw: the
//     transaction's own tombstone when it deleted k itself before, otherwise
//     the initial state `r k null` — exact when no transaction deletes k, the
//     only absent version then being the initial one.
// `insert k v` is `r k null` (the absence it required) then `w k v`; after the
// transaction's own delete of k it is `w k v`. `delete k v` is `w k v`.
// When a scan sees absent, or an insert requires absent, a key that another
// transaction deletes, several absent versions qualify and which one was seen
// is unknown. Such a read is kept open when the caller allows it
// (ExpandOptions::absent_choices): `r k null` listed in
// History::absent_choice_ops, a read of "some absent version of k" that the
// engine places (graph/known_graph.h, AbsentChoice) or decides by cases
// (solver/open_reads.h). Otherwise expand_predicates() refuses such
// histories as not decided. An insert's open read is not a scan's (it is
// not in History::scan_ops). One exception, the common "insert, later delete": a key with a single insert,
// no `w`, and deletes that each observed a present value of the key (a read
// or a scan row) before deleting it. Its only present versions are the
// insert's, every tombstone follows one of them, so the insert's absence is
// the initial one.
//
// Value predicates (`WHERE v < 5` on a scan: PredicateOp::where). The scan
// returns the present rows of its range that satisfy the predicate; a
// returned row that does not is an input error. A key of the range it did
// not return is a read of a version that does not match: the transaction's
// own version when it wrote or deleted the key before; nothing when no value
// ever written to the key matches (every version qualifies: no constraint);
// `r k null` when the initial absence is the only version that does not match
// (no deletes of k, every written value matches); otherwise open among the
// versions that do not match, kept like an open absence (absent_choice_ops,
// with the predicate in History::op_value_predicate) or refused as not decided.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/history.h"
#include "core/populate.h"

namespace isocheck {

struct PredicateOp {
  enum Kind : uint8_t { scan, insert, del } kind;
  TxnIdx txn;        // the transaction
  uint32_t pos;      // its index among the transaction's operations as stated
  Sym key = 0;       // insert/delete: the key; scan: lo
  Sym hi = 0;        // scan: hi
  Sym value = 0;     // insert: the value; delete: the tombstone
  std::vector<std::pair<Sym, Sym>> rows;  // scan: (key, value), ordered by key
  // scan: its condition on values (`WHERE v < 5`); the rows are then the
  // present rows of the range that satisfy it.
  bool has_where = false;
  ValuePredicate where;
  // scan: a declared key set (`WHERE k IN (...)`) instead of the range; key
  // and hi are then its smallest and largest key (a range covering it).
  bool has_key_set = false;
  std::vector<Sym> key_set;  // ordered by key, no key twice
};

// A history as stated: `base` holds its reads and writes, `ops` (ordered by
// transaction, then pos) its scans, inserts and deletes.
struct PredicateHistory {
  History base;
  std::vector<PredicateOp> ops;
};

// The same operations flat, as the JSONL reader builds them: no heap object
// per operation; scan i's rows are rows[ops[i].row_begin, ops[i].row_end) of
// one array that every scan shares (a history of 10^5 scans of 50 rows each
// would otherwise make 10^5 small vectors).
struct PredicateRec {
  PredicateOp::Kind kind;
  TxnIdx txn;
  uint32_t pos;
  Sym key = 0, hi = 0, value = 0;  // as in PredicateOp
  uint64_t row_begin = 0, row_end = 0;
  uint32_t where = 0;  // scan: 0, or 1 + its value predicate's index in PredicateList::wheres
  // scan over a declared key set: its keys are set_keys[set_begin, set_end)
  // of PredicateList (key and hi then cover them).
  bool key_set = false;
  uint64_t set_begin = 0, set_end = 0;
};
// Scan rows in blocks of 2^18: growing never copies the rows already held
// (nor makes the kernel map fresh pages for a copy of them, which a doubling
// vector does for twice their size).
class ScanRows {
 public:
  using Row = std::pair<Sym, Sym>;  // (key, value)
  // (A row a scan reads is two stores and two counts here; the next block
  // is a call once in 2^18 rows.)
  void push_back(Row r) {
    if (room_ == 0) [[unlikely]] next_block();
    *next_++ = r;
    --room_, ++n_;
  }
  size_t size() const { return n_; }
  Row& operator[](size_t i) { return blocks_[i >> kShift][i & kMask]; }
  const Row& operator[](size_t i) const { return blocks_[i >> kShift][i & kMask]; }
  // Rows [b, e) as one array when they lie in one block, else nullptr.
  const Row* contiguous(size_t b, size_t e) const {
    if (b == e || (b >> kShift) != ((e - 1) >> kShift)) return nullptr;
    return &blocks_[b >> kShift][b & kMask];
  }
  // f(row) for every row, in order.
  template <class F> void for_each(F&& f) {
    for (size_t b = 0; b < blocks_.size(); ++b)
      for (size_t i = 0, e = std::min(kBlock, n_ - (b << kShift)); i < e; ++i) f(blocks_[b][i]);
  }

 private:
  static constexpr size_t kShift = 18, kBlock = size_t{1} << kShift, kMask = kBlock - 1;  // 4 MiB blocks
  [[gnu::noinline]] void next_block() {
    blocks_.push_back(std::make_unique_for_overwrite<Row[]>(kBlock));
    next_ = blocks_.back().get(), room_ = kBlock;
    populate_pages(next_, kBlock * sizeof(Row));  // (mapped in one call, not a fault a page)
  }
  std::vector<std::unique_ptr<Row[]>> blocks_;
  size_t n_ = 0;
  Row* next_ = nullptr;  // where the next row goes, in the last block
  size_t room_ = 0;      // rows left there
};

struct PredicateList {
  std::vector<PredicateRec> ops;  // ordered by transaction, then pos
  ScanRows rows;                  // each scan's ordered by key
  std::vector<ValuePredicate> wheres;
  std::vector<Sym> set_keys;  // the key-set scans' keys, each scan's ordered by key
};

// Key order for ranges: integers before strings, integers by value, strings
// bytewise. Values compare the same way (pass the value table).
bool key_less(const SymbolTable& keys, Sym a, Sym b);
// Whether a present row's value v satisfies p (v is not null; a tombstone is
// absent and satisfies nothing: callers exclude it).
bool predicate_matches(const SymbolTable& values, const ValuePredicate& p, Sym v);
// "v < 5", "v between 1 and 9", "v = \"x\"".
std::string predicate_text(const History& h, const ValuePredicate& p);

// The point reads and writes the history stands for (see above). Scan reads
// are listed in History::scan_ops. Throws InputError (naming `file`) for a
// scan over a key that is appended to or read as a list, or a row naming a
// deleted version, and ResourceError ("not decided: ...") for the ambiguous
// absences described above.
struct ExpandOptions {
  // Keep a scan's absence of a key another transaction deletes, and an
  // insert's required absence of one, open (see above) instead of refusing
  // the history. Only callers whose checks know
  // History::absent_choice_ops ask for it (one process's verify, info,
  // convert); the others keep refusing.
  bool absent_choices = false;
  // false: a result without list reads gets no list offsets at all, the
  // state History::release_unused_list_offsets() leaves (callers that release
  // them anyway: 8 bytes an expanded operation never written).
  bool list_offsets = true;
};
History expand_predicates(const PredicateHistory& ph, const std::string& file, const ExpandOptions& opt = {});
// The same from the flat form; `base` is consumed (its tables move into the
// result).
History expand_predicates(History&& base, const PredicateList& preds, const std::string& file,
                          const ExpandOptions& opt = {});

// What expanding a piece of a history (the audit's rounds) needs of the
// whole history, in the piece's symbols: the keys whose state changes
// anywhere in the history that the piece's predicate operations name or its
// scans cover, each with what the whole history does to it, and those keys'
// tombstones that the piece's value table names. With them the piece expands
// exactly as its transactions do in expand_predicates() of the whole.
struct PredicateKeyFacts {
  struct Key {
    Sym key = 0;
    bool written = false;   // by a `w` somewhere
    bool list = false;      // appended to or read as a list somewhere
    bool deleted = false;   // deleted somewhere
    uint8_t inserts = 0;    // inserts of it: 0, 1, or 2 for more than one
    // Some delete of it was not preceded, in its transaction, by an
    // observation of a present value of the key (a read, a scan row, an insert).
    bool unobserved_delete = false;
  };
  std::vector<Key> keys;
  std::vector<std::pair<Sym, Sym>> tombstones;  // (key, tombstone)
};
// A piece expanded with the whole history's facts (instead of its own).
History expand_predicates(History&& base, const PredicateList& preds, const std::string& file,
                          const PredicateKeyFacts& whole, const ExpandOptions& opt = {});

}  // namespace isocheck

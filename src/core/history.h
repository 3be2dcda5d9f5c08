// The in-memory history: columnar (struct of arrays), dense 32-bit transaction
// indices, keys and values interned to 64-bit symbols. Every later stage reads
// this and nothing else from io/.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/op_runs.h"

namespace isocheck {

using TxnIdx = uint32_t;   // dense index of a transaction in file order
using OpIdx = uint64_t;    // dense index of an operation
using Sym = uint64_t;      // interned key or value

// A read of the initial state (`null` in JSONL).
inline constexpr Sym kNullValue = 0x8000000000000000ULL;
// `begin`/`end` absent.
inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

enum class TxnStatus : uint8_t { committed = 0, aborted = 1, unknown = 2 };
enum class OpKind : uint8_t { read = 0, write = 1, append = 2, read_list = 3 };

const char* to_string(TxnStatus s);
const char* to_string(OpKind k);

// Keys or values. While every symbol seen is an integer the table stays in
// "integer mode": a symbol is the integer itself and no names are stored (the
// common, fast case). The first string switches it to "named mode": symbols are
// dense indices into `names`, and `is_int` remembers which names were integers
// so that writing back is lossless.
class SymbolTable {
 public:
  bool named() const { return named_; }
  // Integer mode only: the integer a symbol stands for.
  static int64_t as_int(Sym s) { return static_cast<int64_t>(s); }

  // Returns the symbol. In integer mode the caller must remap symbols it has
  // already stored when `switched_to_named()` becomes true (see remap()).
  // (Inline: in integer mode the symbol is the integer, and a reader asks
  // once per key and value it reads.)
  Sym intern_int(int64_t v) { return named_ ? intern_int_named(v) : static_cast<Sym>(v); }
  Sym intern_string(std::string_view s);

  // True once, right after a switch from integer to named mode happened inside
  // intern_string(); the caller then maps its stored symbols through remap().
  bool take_switch() { bool s = switched_; switched_ = false; return s; }
  // Maps a symbol minted in integer mode to its named-mode symbol.
  Sym remap(Sym old_int_symbol) const;

  size_t size() const { return named_ ? names_.size() : ints_seen_; }
  // Human text of a symbol: the integer, or the string (no quotes).
  std::string text(Sym s) const;
  bool is_int(Sym s) const { return !named_ || is_int_[s]; }
  const std::string& name(Sym s) const { return names_[s]; }

  // Direct construction (HDF5 reader, tests).
  void set_named(std::vector<std::string> names, std::vector<uint8_t> is_int);
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<uint8_t>& int_flags() const { return is_int_; }
  void note_int_count(size_t n) { ints_seen_ = n; }

 private:
  Sym intern_int_named(int64_t v);
  Sym intern_name(std::string_view s, bool is_int);
  bool named_ = false;
  bool switched_ = false;
  size_t ints_seen_ = 0;  // distinct count is unknown in integer mode; informational
  std::vector<std::string> names_;
  std::vector<uint8_t> is_int_;
  // name -> symbol, for interning. set_named() leaves it to the first
  // intern: a reader of a file's table of 10^7 key names never interns, and
  // building the map took most of the table's load time and ~70 bytes a name.
  std::unordered_map<std::string, Sym> index_;
  bool index_complete_ = true;
  void build_index();
  std::unordered_map<int64_t, Sym> int_to_named_;  // filled at the switch
};

// A range scan's condition on the rows' values (`WHERE v < 5`): the scan
// returns the present rows of its range whose value satisfies it. Absent rows
// (the initial state, a tombstone) never do. Constants are value symbols of
// the history's table; values compare as keys do (core/predicates.h
// key_less: integers before strings, integers by value, strings bytewise).
struct ValuePredicate {
  enum Cmp : uint8_t { eq, ne, lt, le, gt, ge, between } cmp = eq;
  Sym a = 0, b = 0;  // b: between's upper bound (inclusive)
  bool operator==(const ValuePredicate&) const = default;
};

struct History {
  // Per transaction (size n).
  std::vector<int64_t> txn_id;        // the user's id, unique
  std::vector<uint32_t> txn_session;  // dense session index
  std::vector<TxnStatus> txn_status;
  std::vector<int64_t> txn_begin;     // kNoTime when absent
  std::vector<int64_t> txn_end;
  std::vector<uint64_t> txn_op_offset{0};  // size n+1: ops of t are [off[t], off[t+1])

  // Per operation.
  std::vector<OpKind> op_kind;
  std::vector<Sym> op_key;
  std::vector<Sym> op_value;               // read_list: unused (0)
  // size ops+1: list of op i is [lo[i], lo[i+1]); empty after
  // release_unused_list_offsets() on a history without list reads.
  std::vector<uint64_t> op_list_offset{0};
  std::vector<Sym> list_value;

  SymbolTable keys, values;
  std::vector<int64_t> session_name;  // user's session number per dense session index
  std::string time_unit;              // "" when unknown: only order of times matters
  // Reads that stand for a range scan's observation (core/predicates.h),
  // sorted: scan_ops every one, scan_absent_ops those of keys the scan saw
  // absent, absent_choice_ops those of scan_absent_ops whose absent version
  // is open (the key is deleted by another transaction: the scan saw the
  // initial state or one of the key's tombstones, which one the history does
  // not say; the engine chooses, graph/known_graph.h AbsentChoice); and the
  // writes that stand for a delete (their value the tombstone). Empty for
  // histories without scans or deletes. Reports name cycles by them and word
  // their operations as the user stated them. scan_ops is held as runs: a
  // scan's reads are consecutive, and there are ten of them or more a scan.
  OpRuns scan_ops;
  std::vector<OpIdx> scan_absent_ops, absent_choice_ops, delete_ops;
  // Operation o's predicate mark, as HDF5's /op/scan column stores it: 0 a
  // plain operation, 1 a read of a row a scan returned, 2 a read of a key a
  // scan saw absent, 3 a write standing for a delete, 4 a read of a key a
  // scan saw absent in an open absent version (its value is null), 6 an
  // insert's read of the open absent version it required (in
  // absent_choice_ops, not a scan's). (HDF5's 5 is a 4 with a value
  // predicate; in memory that is op_value_predicate's.)
  uint8_t predicate_mark(OpIdx o) const {
    if (!delete_ops.empty() && std::binary_search(delete_ops.begin(), delete_ops.end(), o)) return 3;
    if (!scan_ops.contains(o)) return is_absent_choice(o) ? 6 : 0;
    if (is_absent_choice(o)) return 4;
    return std::binary_search(scan_absent_ops.begin(), scan_absent_ops.end(), o) ? 2 : 1;
  }
  // Records mark m of operation o; operations must be marked in increasing
  // order (the lists stay sorted).
  void mark_predicate(OpIdx o, uint8_t m) {
    if (m == 3) delete_ops.push_back(o);
    else if (m != 0 && m != 6) scan_ops.push_back(o);
    if (m == 2 || m == 4) scan_absent_ops.push_back(o);
    if (m == 4 || m == 6) absent_choice_ops.push_back(o);
  }
  // An insert's open read (mark 6): an open absence that is not a scan's.
  bool is_insert_choice(OpIdx o) const { return is_absent_choice(o) && !scan_ops.contains(o); }
  // The value predicates of the scans that have one, and, sorted by
  // operation, which one each read of a key such a scan did not return
  // stands for (marks 2 and 4 of the scan's reads: the key's version it saw
  // did not match, whether absent or present with another value). A mark-4
  // read with a predicate is open among the key's versions that do not
  // match it, not only among its absent ones. Empty without value predicates.
  std::vector<ValuePredicate> value_predicates;
  std::vector<std::pair<OpIdx, uint32_t>> op_value_predicate;
  const ValuePredicate* value_predicate_of(OpIdx o) const {
    if (op_value_predicate.empty()) return nullptr;
    auto it = std::lower_bound(op_value_predicate.begin(), op_value_predicate.end(), std::pair<OpIdx, uint32_t>{o, 0});
    return it != op_value_predicate.end() && it->first == o ? &value_predicates[it->second] : nullptr;
  }
  // Operation from_op's value predicate in `from` (a history this one takes
  // operations of, with the same value symbols) for operation to_op here;
  // operations in increasing order, as mark_predicate().
  void copy_value_predicate(const History& from, OpIdx from_op, OpIdx to_op) {
    const ValuePredicate* p = from.value_predicate_of(from_op);
    if (!p) return;
    if (value_predicates.size() != from.value_predicates.size()) value_predicates = from.value_predicates;
    op_value_predicate.push_back({to_op, static_cast<uint32_t>(p - from.value_predicates.data())});
  }
  bool is_absent_choice(OpIdx o) const {
    return !absent_choice_ops.empty() && std::binary_search(absent_choice_ops.begin(), absent_choice_ops.end(), o);
  }
  bool is_delete(OpIdx o) const {
    return !delete_ops.empty() && std::binary_search(delete_ops.begin(), delete_ops.end(), o);
  }

  // Optional: each operation's index in its whole transaction, for a piece
  // that holds some of a transaction's operations (mpi/owned.cpp sets it
  // where a piece's error names an operation). Empty: o - op_begin(t).
  std::vector<uint32_t> op_position;
  uint64_t position_in_txn(OpIdx o, TxnIdx t) const {
    return o < op_position.size() ? op_position[o] : o - op_begin(t);
  }

  size_t txn_count() const { return txn_id.size(); }
  // The transaction operation o belongs to.
  TxnIdx txn_of_op(OpIdx o) const {
    return static_cast<TxnIdx>(std::upper_bound(txn_op_offset.begin(), txn_op_offset.end(), o) - txn_op_offset.begin() - 1);
  }
  size_t op_count() const { return op_kind.size(); }
  size_t session_count() const { return session_name.size(); }
  uint64_t op_begin(TxnIdx t) const { return txn_op_offset[t]; }
  uint64_t op_end(TxnIdx t) const { return txn_op_offset[t + 1]; }
  std::span<const Sym> list(OpIdx o) const {
    if (op_list_offset.empty()) return {};
    return {list_value.data() + op_list_offset[o], list_value.data() + op_list_offset[o + 1]};
  }
  // Checking needs list offsets only for list reads: without any, free them
  // (8 bytes an operation). Read-only from then on: no ops may be added.
  void release_unused_list_offsets();
  bool has_times(TxnIdx t) const { return txn_begin[t] != kNoTime && txn_end[t] != kNoTime; }
  // f(key, value) for every value transaction t read: register reads other
  // than the initial state, and every element of its list reads.
  template <class F> void for_each_read_value(TxnIdx t, F&& f) const {
    for (OpIdx o = op_begin(t); o < op_end(t); ++o) {
      if (op_kind[o] == OpKind::read && op_value[o] != kNullValue) f(op_key[o], op_value[o]);
      if (op_kind[o] == OpKind::read_list)
        for (Sym v : list(o)) f(op_key[o], v);
    }
  }

  // Builders used by readers and generators.
  void begin_txn(int64_t id, uint32_t session, TxnStatus st, int64_t begin, int64_t end);
  void add_op(OpKind k, Sym key, Sym value);         // read / write / append
  void add_list_read(Sym key, std::span<const Sym> values);
  void end_txn() { txn_op_offset.push_back(op_kind.size()); }
  // Room for this many more transactions and operations (without list
  // values): builders that know their size skip the regrowth copies.
  void reserve_more(size_t txns, size_t ops);

  // After a symbol table switched to named mode, remap stored symbols.
  // Takes `from`'s key and value tables, session names and time unit (a
  // history rebuilt from another's operations keeps its symbols).
  void take_tables(History& from) {
    keys = std::move(from.keys);
    values = std::move(from.values);
    session_name = std::move(from.session_name);
    time_unit = std::move(from.time_unit);
  }
  void remap_keys();
  void remap_values();

  // Bytes held by the arrays (for `info` and the memory benchmark).
  size_t resident_bytes() const;
};

// Human text of a value symbol, with `null` for the initial state.
std::string value_text(const History& h, Sym v);

// Committed transactions plus unknown ones whose writes an included
// transaction read (transitively) — the rule of build_known_graph, computed
// on the whole history so that projections (and a check that builds no
// graph) agree with it.
std::vector<uint8_t> included_transactions(const History& h);

}  // namespace isocheck

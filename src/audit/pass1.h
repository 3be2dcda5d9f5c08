// Pass 1 of the audit (docs/audit.md): per round, the least "previous fence"
// value and the least begin time. Split into pieces of whole rounds that
// threads scan independently: a transaction's previous fence is known inside
// its piece once its session has had a fence there; before that it depends
// on the pieces before, so the piece records the session instead, and
// merge_pass1 settles it in file order. The merged result equals one scan of
// the whole log.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "io/hdf5_range.h"
#include "core/history.h"
#include "core/flat_hash.h"

namespace isocheck {

// A fence reads the fence key (value k, or null = 0) and then writes k + 1,
// and nothing else (docs/audit.md "Fences"). True when the ops touch the
// fence key `fk`; `value` = k + 1 for a committed fence; `well_formed` false
// when they touch it otherwise.
bool fence_ops(const OpKind* kind, const Sym* key, const Sym* val, size_t n, TxnStatus status, Sym fk,
               const SymbolTable& values, int64_t& value, bool& well_formed);

inline constexpr uint64_t kNoRow = std::numeric_limits<uint64_t>::max();

// What one piece (consecutive whole rounds) of the log says.
struct Pass1Piece {
  uint64_t first_round = 0;
  // Per round of the piece: the least pf of transactions whose previous
  // fence is in the piece (kPosInf when none), the least begin, and the
  // sessions whose transactions came before their first fence in the piece
  // (flat: sessions of round i are open_sessions[open_offset[i], open_offset[i+1])).
  std::vector<int64_t> min_pf, min_begin;
  // Per round (when asked for): the least end of a transaction with times,
  // not aborted, that writes or appends (--time-order, docs/audit.md).
  std::vector<int64_t> min_write_end;
  std::vector<uint64_t> open_offset{0};
  std::vector<int64_t> open_sessions;
  std::vector<std::pair<int64_t, int64_t>> last_fence;  // session -> value of its last fence in the piece
  bool any_fence = false;
  uint64_t writes = 0;  // writes and appends, when the scan was given op kinds
  // Operations that use a key as a list (appends, list reads) and as a
  // register (writes, reads of one value; every read when the scan was not
  // given values): a log with both may use one key both ways.
  uint64_t list_ops = 0, register_ops = 0;
  // First row that breaks the fence rule / has no times (kNoRow: none), and
  // its transaction id when the scan knew it (JSONL; HDF5 ids are looked up).
  uint64_t bad_fence_row = kNoRow, bad_time_row = kNoRow;
  int64_t bad_fence_id = 0, bad_time_id = 0;
  bool bad_fence_id_known = false, bad_time_id_known = false;
  uint64_t txns = 0;
};

// Scans the rows [first_row, first_row + cols.session.size()) of a piece,
// given as columns; rows must continue the piece's rows (rounds of
// round_txns rows from first_round * round_txns). fk = ~0: no fence key.
// ids: transaction ids of the rows (messages), or null.
class Pass1Scanner {
 public:
  // need_write_ends: record min_write_end (the columns then hold times and op kinds).
  Pass1Scanner(Pass1Piece& out, uint64_t round_txns, Sym fk, bool need_times, bool need_write_ends = false);
  void scan(const Hdf5Columns& cols, const SymbolTable& values, uint64_t first_row, const int64_t* ids);
  void finish();  // closes the last round, records the last fences
  void set_fence_key(Sym fk) { fk_ = fk; }  // JSONL: every chunk has its own tables

 private:
  void close_round();
  Pass1Piece& p_;
  uint64_t R_;
  Sym fk_;
  bool need_times_, need_write_ends_;
  uint64_t row_in_round_ = 0;
  int64_t min_pf_, min_begin_, min_write_end_;
  // Per session seen in the piece (dense index by first appearance): its
  // name, whether it had a fence in the piece and the last one's value, and
  // the last round (+1) it was recorded open in.
  FlatMap64 index_{256};
  std::vector<int64_t> name_, fence_;
  std::vector<uint8_t> has_fence_;
  std::vector<uint64_t> opened_;
};

// The per-round results of the pieces (in file order) merged, as AuditState
// wants them: round_min_pf, round_min_begin (kNegInf from the round of the
// first transaction without times), and the first problem rows.
// round_txns: the rounds' size (every piece but the last is whole rounds).
struct Pass1Result {
  std::vector<int64_t> round_min_pf, round_min_begin;
  std::vector<int64_t> round_min_write_end;  // (empty unless asked for)
  bool any_fence = false;
  uint64_t writes = 0;  // (0 when no op kinds were scanned)
  uint64_t list_ops = 0, register_ops = 0;  // (Pass1Piece)
  uint64_t bad_fence_row = kNoRow, bad_time_row = kNoRow;
  int64_t bad_fence_id = 0, bad_time_id = 0;
  bool bad_fence_id_known = false, bad_time_id_known = false;
  uint64_t txns = 0;
};
Pass1Result merge_pass1(const std::vector<Pass1Piece>& pieces, uint64_t round_txns);

}  // namespace isocheck

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/predicates.h"

namespace isocheck {

// The keys whose state changes anywhere in a log with range scans, inserts
// and deletes (written, appended, read as a list, inserted or deleted:
// core/predicates.h), gathered by pass 1 from pieces that each have symbol
// tables of their own, so by name: one entry per such key, with what the log
// does to it and its tombstones. With them each round's scans, inserts and
// deletes expand exactly as expand_predicates() expands them in the whole log.
class LogPredicateKeys {
 public:
  // The next piece of the log, in file order: its reads and writes, and its
  // predicate operations unexpanded (in its symbols).
  void add(const History& h, const PredicateList& preds);
  // After the last piece.
  void finish();
  // Whether the log holds a scan, insert or delete.
  bool any() const { return any_; }
  size_t keys() const { return infos_.size(); }
  // Piece `h` (its predicate operations `preds`) expanded as the whole log
  // expands it. The changing keys its scans cover go into h's key table.
  // Throws what expand_predicates() throws (InputError naming `file`,
  // ResourceError "not decided").
  History expand(History&& h, const PredicateList& preds, const std::string& file) const;

 private:
  struct Info {
    bool written = false, list = false, deleted = false, unobserved = false;
    uint8_t inserts = 0;
    std::vector<std::string> tombstones;  // (value names, see name_of in pass1.cpp)
  };
  // A delete whose transaction observed the key before it only through
  // reads: unobserved when every value read is a tombstone of the key,
  // which a later piece may tell.
  struct Pending {
    std::string key;
    std::vector<std::string> values;
  };
  bool any_ = false;
  // One entry per key; integer keys found by their value, string keys by
  // their text (integer keys, the common case, are never hashed as text).
  std::deque<Info> infos_;
  FlatMap64 ints_{1024};
  std::unordered_map<std::string, uint32_t> strings_;
  Info* find(const SymbolTable& t, Sym s);
  Info& get(const SymbolTable& t, Sym s);
  Info& get(const std::string& name);  // by name_of
  // Every entry in key order, by name (see name_of in pass1.cpp).
  std::vector<std::pair<std::string, const Info*>> sorted_;
  std::vector<Pending> pending_;
};

}  // namespace isocheck

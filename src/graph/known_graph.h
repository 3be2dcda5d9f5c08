// The known dependency graph of a history: WR from unique values, WW from
// read-modify-write links and list prefixes, RW derived from both, SO from
// sessions — plus the per-transaction anomalies found on the way (MTC §IV,
// Adya's G1a/G1b). Keys whose version order the history does not reveal
// (blind writes) are listed for the general engine, never guessed.
#pragma once
#include <span>
#include <vector>

#include "core/edges.h"
#include "core/errors.h"
#include "core/history.h"
#include "core/anomaly.h"

namespace isocheck {

struct KnownGraphOptions {
  // Snapshot isolation needs the order between two unread blind writes of a
  // key (serializability does not): with `for_si` such keys count as unknown.
  bool for_si = false;
  // About this many writes per partition of the (key, value) -> writer join
  // (0: sized to stay in cache). Tests set it small to get many partitions.
  size_t join_partition_writes = 0;
  // The join's first scatter makes at most 2^this buckets, each then split
  // into its partitions (default 8). Tests set it small so that the second
  // split runs on small histories too.
  int join_bucket_bits = 8;
  // Run pass 2 (the RW edges) even where pass 1 shows it has nothing to add:
  // for the tests that skipping it changes no edge.
  bool always_pass2 = false;
};

// One chain of versions of a key linked by read-modify-write (or list order):
// its transactions in version order. `readers_of_tail` read its last version.
// A view into ChainStore's flat arrays.
struct VersionChain {
  std::span<const TxnIdx> txns;
  std::span<const uint32_t> write_pos;  // position of each txn's final write of the key
  std::span<const TxnIdx> readers_of_tail;
  std::span<const uint32_t> reader_pos;
  bool from_init = false;  // the chain starts by reading the initial state
};

// Every chain of every unordered key in four flat arrays with offsets: a
// history with 10^6 chains must not mean 4·10^6 small vectors.
class ChainStore {
 public:
  // Build one chain at a time: open, add its transactions, then its tail's readers, close.
  void open(bool from_init) { from_init_.push_back(from_init); }
  void add_txn(TxnIdx t, uint32_t write_pos) { txns_.push_back(t), write_pos_.push_back(write_pos); }
  void add_reader(TxnIdx t, uint32_t pos) { readers_.push_back(t), reader_pos_.push_back(pos); }
  void close() { txn_end_.push_back(txns_.size()), reader_end_.push_back(readers_.size()); }
  void shrink_to_fit() {
    txns_.shrink_to_fit(), readers_.shrink_to_fit(), write_pos_.shrink_to_fit(), reader_pos_.shrink_to_fit();
    txn_end_.shrink_to_fit(), reader_end_.shrink_to_fit(), from_init_.shrink_to_fit();
  }
  uint32_t size() const { return static_cast<uint32_t>(from_init_.size()); }
  // The chain being built (after open(), before close()) has this many transactions.
  size_t open_txns() const { return txns_.size() - (txn_end_.empty() ? 0 : txn_end_.back()); }
  VersionChain chain(uint32_t c) const {
    const uint64_t t0 = c ? txn_end_[c - 1] : 0, t1 = txn_end_[c];
    const uint64_t r0 = c ? reader_end_[c - 1] : 0, r1 = reader_end_[c];
    return {{txns_.data() + t0, t1 - t0}, {write_pos_.data() + t0, t1 - t0},
            {readers_.data() + r0, r1 - r0}, {reader_pos_.data() + r0, r1 - r0}, from_init_[c] != 0};
  }

 private:
  std::vector<TxnIdx> txns_, readers_;
  std::vector<uint32_t> write_pos_, reader_pos_;
  std::vector<uint64_t> txn_end_, reader_end_;
  std::vector<uint8_t> from_init_;
};

// A key whose chains' relative order is unknown: chains [first_chain,
// end_chain) of DependencyGraph::chains (the init chain first when there is one).
struct UnorderedKey {
  Sym key;
  // Only snapshot isolation needs this order: two or more writes nobody read,
  // after a known chain. Serializability places them freely; SER's certain
  // edges to them are already in the graph.
  bool si_only = false;
  uint32_t first_chain = 0, end_chain = 0;
};

// The chains of `uk` that hold writes and do not start from the initial
// state, in order; the init chain's index goes to `init` (UINT32_MAX: none).
inline std::vector<uint32_t> free_chains(const ChainStore& chains, const UnorderedKey& uk, uint32_t& init) {
  std::vector<uint32_t> free;
  init = UINT32_MAX;
  for (uint32_t c = uk.first_chain; c < uk.end_chain; ++c) {
    const VersionChain vc = chains.chain(c);
    if (vc.from_init) init = c;
    else if (!vc.txns.empty()) free.push_back(c);
  }
  return free;
}

// A range scan's read of a key in an open absent version (History::
// absent_choice_ops), on a key whose version order is known: the key was
// present from `first`'s write until `end`'s delete, and the scan saw it
// absent, so it ran before `first` (reader -rw-> first) or after `end`
// (end -wr-> reader). One per such run of present versions; a run no delete
// ends is a certain reader -rw-> first edge instead.
struct AbsentChoice {
  TxnIdx reader;
  uint32_t read_pos;  // the read's position in the reader
  Sym key;
  TxnIdx first, end;
};

// "not decided" for a scan's open read (History::absent_choice_ops) of `key`
// that the build cannot place: the key's version order is unknown (blind
// writes), the scan's transaction writes the key without reading it first,
// or an unread transaction of unknown status writes it. check() decides such
// reads by cases (solver/open_reads.h).
struct OpenReadUndecided : ResourceError {
  OpenReadUndecided(const std::string& what, Sym k) : ResourceError(what), key(k) {}
  Sym key;
};

struct DependencyGraph {
  uint32_t n = 0;                   // transactions = vertices
  std::vector<uint8_t> included;    // committed, or unknown and read by someone
  EdgeList edges;                   // so, wr, ww, rw (all certain)
  std::vector<Anomaly> anomalies;
  std::vector<UnorderedKey> unordered;  // need constraints (general engine)
  ChainStore chains;                    // their chains
  uint64_t unordered_write_pairs = 0;   // pairs of writes whose order is unknown
  std::vector<AbsentChoice> absent_choices;  // need constraints (general engine)
  // Where the build's phases end in `edges`: pass 1 (WR, WW of read-modify-
  // write), then the WW edges to unread blind "tails" (keys by symbol, tails
  // by transaction), then pass 2 (RW), lists, session order. Key shards use
  // them to merge per-key graphs in the whole build's order.
  uint64_t edges_pass1_end = 0, edges_blind_end = 0;
  // Pass 2 did not run: pass 1 settled every external read's RW edge (each
  // read by a transaction that then overwrote the key).
  bool pass2_skipped = false;
  // Set by build_known_graph alone: `anomalies` lists every anomaly of the
  // history, and edges [0, edges_pass1_end) hold the WR edge of each included
  // transaction's first external read of each register key, in transaction
  // and operation order (the weak-level checker takes its reads from them).
  bool whole_build = false;
};

// Throws InputError for histories that cannot be interpreted (a key used both
// as a register and as a list: list_key_misuse).
DependencyGraph build_known_graph(const History& h, const KnownGraphOptions& opt);

// The first operation, in history order and of any transaction whatever its
// status, that uses a key appended to or read as a list anywhere as a
// register: a write, or a read of a single value. kNoOp when there is none.
// build_known_graph refuses the history at that operation; the ranks, which
// check pieces that may leave it out (another piece, an aborted transaction,
// a piece past the last one the report needs), ask first.
constexpr OpIdx kNoOp = ~OpIdx{0};
OpIdx first_list_key_misuse(const History& h);
// An operation that uses its key as a list / as a register (a read of null,
// the initial state, is neither).
inline bool uses_as_list(OpKind k) { return k == OpKind::append || k == OpKind::read_list; }
inline bool uses_as_register(OpKind k, Sym value) {
  return k == OpKind::write || (k == OpKind::read && value != kNullValue);
}
// One key's uses, for readers that see a history a piece at a time (the
// ranks' ranges, the audit's log): whether it is used as a list, and its
// first register operation by file position (transaction index, position in
// it). Plain data: the ranks send it to the key's owner.
struct ListKeyUse {
  uint64_t key = 0;
  uint64_t txn = ~uint64_t{0};  // ~0: no register operation
  int64_t id = 0;               // that transaction's id
  uint32_t pos = 0;
  uint8_t list = 0, writes = 0;
  uint8_t pad[2] = {};
  bool has_register() const { return txn != ~uint64_t{0}; }
  bool misused() const { return list && has_register(); }
  bool before(const ListKeyUse& o) const { return txn != o.txn ? txn < o.txn : pos < o.pos; }
  // Operation `kind` (value `value`) at position `pos` of transaction `txn`
  // (id `id`); operations must come in file order.
  void note(OpKind kind, Sym value, uint64_t txn_index, int64_t txn_id, uint64_t op_pos) {
    list |= uses_as_list(kind);
    if (!has_register() && uses_as_register(kind, value))
      txn = txn_index, id = txn_id, pos = static_cast<uint32_t>(op_pos), writes = kind == OpKind::write;
  }
  // The same key's uses seen elsewhere (another range).
  void merge(const ListKeyUse& o) {
    const uint8_t l = list | o.list;
    if (o.before(*this)) *this = o;
    list = l;
  }
};

// build_known_graph's error for that operation: transaction `txn_id`'s
// operation at `pos` (in the transaction) `writes` key `key_text` or reads a
// single value of it.
InputError list_key_misuse(int64_t txn_id, uint64_t pos, const std::string& key_text, bool writes);

}  // namespace isocheck

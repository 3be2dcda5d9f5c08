// Components on owned data (docs/dist.md, "Owned data"): no rank holds the
// whole history. Every rank reads a consecutive range of transactions, chunk
// by chunk, twice: a first pass learns the sessions (numbered by first
// appearance in file order, as one process numbers them), the partition
// stage's (key, session, operations) rows and what the included set needs;
// after the partition, pieces are assigned to ranks largest-first (balanced
// by operations) and a second pass sends every transaction's operations of
// each piece, once, to the rank solving that piece (MPI_Alltoallv per chunk).
// A rank then holds the encoded pieces it was given and, while it solves one,
// that piece's history; reading HDF5 or JSONL it never holds its whole range
// next to them.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/history.h"
#include "mpi/messages.h"
#include "mpi/range_names.h"
#include "mpi/replay_lines.h"
#include "mpi/scheduler.h"
#include "mpi/shard_partition.h"
#include "partition/partition.h"

namespace isocheck::dist {

// A rank's consecutive range [first, last) of the file's n transactions, read
// chunk by chunk; the symbol tables (needed only for pieces that are the
// whole history) and the time unit.
class RangeSource {
 public:
  virtual ~RangeSource() = default;
  std::string file;
  uint64_t n = 0, first = 0, last = 0;
  SymbolTable keys, values;
  std::string time_unit;
  // The tables (RangeNames::kKeys, kValues) a chunk read in a round had
  // named (string) symbols in, left so: chunks number them apart, so this
  // source cannot give the history's symbols (the caller numbers them with
  // the other ranks, `names`, or reads the file on one rank). Integer
  // symbols are the integers themselves.
  int named = 0;
  // Names numbered across ranks (mpi/range_names.h): every chunk read in a
  // round gets the history's symbols, collectively; a report's history gets
  // its names from RangeNames::name_report. Null: symbols are as read.
  RangeNames* names = nullptr;
  // The file states range scans, inserts or deletes (JSONL): they are
  // expanded over the whole file (core/predicates.h), so the caller reads it
  // on one rank instead. Set by the (collective) constructor, on every rank.
  bool states_predicates = false;
  // Throws the InputError one process reading the file gives for a
  // transaction id repeated at transaction b (first seen at a); called on
  // the rank whose range holds b.
  [[noreturn]] virtual void duplicate_id(int64_t id, uint64_t a, uint64_t b);
  // Transactions [a, b) (global indices inside [first, last)), their
  // operations and list values; sessions may be numbered locally (only the
  // user's session names are used).
  virtual History chunk(uint64_t a, uint64_t b) = 0;
  // Operations this source keeps in memory (its range, when it holds one).
  virtual uint64_t ops_resident() const { return 0; }
  // Frees what the source keeps in memory; chunk() may not be called after
  // unless can_fetch() (sources that read the file again).
  virtual void release() {}
  virtual bool can_fetch() const { return true; }
  // Fills `keys` and `values` when they are read only on demand (HDF5: a
  // rank's chunks carry symbols, not names, so most ranks never hold the
  // file's name tables): before a whole-history piece, a message that names
  // a key, the report's history.
  virtual void load_tables() {}
};

// Each rank reads its own hyperslab of an HDF5 file (the file and its tables
// opened once). Not collective.
std::unique_ptr<RangeSource> hdf5_source(const std::string& file);
// JSONL read in parallel: every rank takes the lines starting in its share of
// the file's bytes, and parses a chunk of them at a time (the file's header
// line in front, so that line numbers and the time unit are the file's).
// Collective.
std::unique_ptr<RangeSource> jsonl_source(const std::string& file);
// A history read on `root` (JSONL, imported formats), scattered in P
// consecutive transaction ranges (lists included; symbol tables broadcast);
// the root's copy is freed. Collective.
std::unique_ptr<RangeSource> scattered_source(History&& h, int root);

// What the first pass learned, the same on every rank except `included`.
struct OwnedScan {
  uint64_t txns = 0, ops = 0, committed = 0;  // whole history: included transactions
  uint32_t sessions = 0;
  int named = 0;  // some chunk had named symbols (RangeSource::named, its bits): nothing else is filled
  std::vector<KeyTriple> triples;             // this rank's rows, global session ids
  std::vector<uint8_t> included;               // per transaction of this rank's range
  ReplayFacts replay;                          // for the report's replay lines
};

// Pass 1 (collective): sessions, rows, included set.
OwnedScan scan_owned(RangeSource& src);

// The transactions `txns` (sorted whole-history indices, the same list on
// every rank), each read by the rank whose range holds it and gathered on
// rank 0: a history of just those transactions, in that order, with all
// their operations, sessions by first appearance and the file's tables
// (rank 0; the other ranks get an empty one). Collective.
History fetch_transactions(RangeSource& src, const std::vector<TxnIdx>& txns);
// `r` with its transactions renumbered into fetch_transactions' order.
CheckResult renumber_result(const CheckResult& r, const std::vector<TxnIdx>& txns);
// The transactions a report of `r` names: witnesses, unsat cores, anomalies.
std::vector<TxnIdx> named_transactions(const CheckResult& r);
// Whether the report of `r` (renumbered to `part`, the named transactions)
// needs the whole history after all: a witness edge ordered by an append is
// confirmed by the list reads that show it (what the witness rules out), and
// those readers are not among the named transactions.
bool report_needs_whole(const CheckResult& r, const History& part);

// The pieces a rank was given, encoded, and their decoding.
class OwnedPieces {
 public:
  // Pass 2 (collective): routes every transaction of this rank's range to the
  // ranks solving its pieces (job.pieces() pieces, `owner[i]` solving piece
  // i; pieces in `skip` are not sent). Fills part's comp_txns.
  void distribute(RangeSource& src, const Job& job, Partition& part, const std::vector<uint8_t>& included,
                  const std::vector<int>& owner, const std::vector<uint8_t>& skip);
  // Bytes of encoded pieces this rank holds, and of the largest of them.
  uint64_t bytes() const { return bytes_; }
  uint64_t largest_bytes() const;
  uint64_t ops() const { return ops_; }
  // Checks piece i (given to this rank) and frees its data. Thread-safe
  // against nothing else: one caller at a time.
  PieceResult solve(const Job& job, uint32_t i);
  // A stolen piece's data: posted to rank `to` (freed here once `finish_sends`
  // returns), or received from rank `from` (blocking). Point-to-point, so
  // only the two ranks take part.
  void send_piece(uint32_t i, int to);
  void finish_sends();
  void recv_piece(uint32_t i, int from);
  void clear() { std::vector<Piece>().swap(pieces_); }

 private:
  // One source rank's records of a piece, in file order: one segment per
  // round of the exchange (each sized exactly, moved in whole; a piece's
  // records are never re-encoded or copied record by record).
  struct Source {
    std::vector<std::vector<char>> segs;
    uint64_t bytes = 0, ops = 0, txns = 0;
    void free() { std::vector<std::vector<char>>().swap(segs), bytes = ops = txns = 0; }
  };
  struct Piece {
    std::vector<Source> from;  // per source rank
    uint64_t bytes = 0;
  };
  std::vector<Piece> pieces_;
  uint64_t bytes_ = 0;
  // Bytes of segments freed since the heap was last trimmed.
  static constexpr uint64_t kTrimBytes = uint64_t{32} << 20;
  uint64_t freed_ = 0;
  std::atomic<uint64_t> ops_{0};  // rank 0: its worker thread solves while the main thread sends
  struct Outgoing {
    uint32_t piece;
    std::vector<std::vector<char>> data;  // per source rank, its segments joined
    std::vector<uint64_t> head;
    std::vector<MPI_Request> reqs;
  };
  std::vector<Outgoing> out_;
  SymbolTable keys_, values_;
  RangeSource* tables_ = nullptr;  // the source's tables (solve(): a block's error worded with names)
  std::string time_unit_;
};

}  // namespace isocheck::dist

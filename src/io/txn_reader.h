// Transactions a piece at a time, from any history format: the audit's round
// reader and the whole-history reader (load_history) share these readers.
// JSONL, Elle EDN / elle-cli JSON, PolySI text, dbcop .hist, bincode, JSON
// and YAML are read through a window of the file that slides on, so memory holds one piece
// and what the format makes a reader remember: Elle's invocations still open;
// PolySI's open transaction per session and every transaction id with its
// session (an id may not come back); for the value-0 rule of PolySI and
// dbcop, the keys written 0 (gathered by a first pass, which also checks the
// file). Cobra logs are read one log after another through a buffer, a
// transaction at a time: a first pass checks every record and joins, in
// partitions of a bounded size with the logs scanned again for each, the
// transaction ids (one used twice) and the reads to the writes they name
// (the notes on reads the logs contradict); the reader then remembers the
// open transaction and a few numbers. Every imported format is streamed;
// WholeTxnReader (an import read whole, handed out in pieces) is left for a
// format that is not.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/history.h"
#include "io/import.h"
#include "io/sink.h"

namespace isocheck {

// A reader-wide number for each key symbol of the last piece (JSONL): ids[s]
// is the same number for the same key string in every piece one reader gives,
// so a consumer that maps the pieces' keys into a table of its own can
// remember the mapping across pieces without hashing the names again.
// `space` tells readers apart (numbers of different readers are unrelated).
// Empty ids: the piece's keys have no such numbers (integer keys, or a format
// that does not give them).
struct KeyIds {
  uint64_t space = 0;
  std::vector<uint32_t> ids;
};

// What a reader holds between pieces, for tests: the bytes of its window of
// the file; the most records (operations of open transactions, transactions
// completed beyond the piece handed out) it held at once; the transaction
// ids it keeps to refuse a reused one (a format whose ids may come back).
struct ReaderHeld {
  uint64_t bytes = 0;
  uint64_t records = 0;
  uint64_t ids = 0;
  // The most bytes a first pass held at once beyond its window (Cobra: the
  // partition of transaction ids and writes its joins hold).
  uint64_t pass_bytes = 0;
};

struct TxnPosition {
  uint64_t txn = 0;   // transactions before this position
  uint64_t byte = 0;  // JSONL: byte offset of the next line
  uint64_t line = 0;  // JSONL: lines before it
};

class TxnReader {
 public:
  virtual ~TxnReader() = default;
  // Up to n more transactions, as a history with symbol tables of its own
  // (ids unique within it); empty at the end. Throws InputError naming the
  // file and line on malformed input.
  virtual History next(uint64_t n) = 0;
  // next() for a scan that asks of each key only whether it is `fence_key`
  // (the audit's pass 1): a reader may leave keys uninterned, naming in the
  // key table only that key and one for all the others.
  virtual History next_scan(uint64_t n, const std::string& fence_key) {
    (void)fence_key;
    return next(n);
  }
  // The key numbers of the piece next() returned last (see KeyIds); moved
  // out, so a second call returns none.
  virtual KeyIds take_key_ids() { return {}; }
  virtual TxnPosition position() const = 0;
  // Back to a position this reader (or another of the same file) gave.
  virtual void seek(const TxnPosition& p) = 0;
  // What the importer skipped or noted so far (import_history's counts).
  virtual const ImportStats& stats() const = 0;
  // Whether pieces are read from the file as they are asked for (false: the
  // format is read whole first).
  virtual bool streamed() const = 0;
  // (Readers of imported formats read a transaction at a time tell it.)
  virtual ReaderHeld held() const { return {}; }
};

// A streamed reader that cannot jump into its file (what it remembers at a
// position — Elle's open invocations, an importer's open transactions and
// ids — is not in the file there): seek() starts it over and reads forward.
// A subclass keeps pos_ and stats_, starts over in restart(), and hands its
// pieces out through handed_out().
class ForwardTxnReader : public TxnReader {
 public:
  TxnPosition position() const override { return pos_; }
  void seek(const TxnPosition& p) override {
    restart();
    while (pos_.txn < p.txn)
      if (next(std::min<uint64_t>(p.txn - pos_.txn, 1 << 16)).txn_count() == 0) break;
  }
  const ImportStats& stats() const override { return stats_; }
  bool streamed() const override { return true; }

 protected:
  virtual void restart() = 0;
  History handed_out(History h) {
    pos_.txn += h.txn_count();
    stats_.txns = pos_.txn;
    return h;
  }
  ImportStats stats_;
  TxnPosition pos_;
};

// Every transaction of `r`, `piece` at a time, into the sink `open` makes at
// the first piece (with that piece's time unit; an empty input gets none).
// Ids must be unique across the pieces (a piece checks its own): 8 bytes a
// transaction are kept to check that at the end; a repeat is an InputError
// naming `path` and the id, and the sink is dropped unfinished. Returns the
// transactions copied.
uint64_t copy_pieces(TxnReader& r, const std::string& path, uint64_t piece,
                     const std::function<std::unique_ptr<HistorySink>(const std::string& time_unit)>& open);

// `f` must be a known format other than HDF5 (UsageError otherwise).
std::unique_ptr<TxnReader> open_txn_reader(const std::string& path, Format f);

// PolySI text, dbcop .hist, bincode, JSON or YAML a transaction at a time
// through a window of `block` bytes (tests use small ones).
std::unique_ptr<TxnReader> open_pass_reader(const std::string& path, Format f, size_t block = 8 << 20);

// Cobra client logs (one file, or a folder of T<n>.log; import_cobra.cpp),
// the logs read in turn through a buffer of `block` bytes. A first pass
// checks every log (a malformed one throws at open, as the whole import
// does) and joins transaction ids (one used twice) and reads to the writes
// they name (the notes on reads the logs contradict) in partitions of about
// `join_budget` bytes, the logs scanned again for each partition.
std::unique_ptr<TxnReader> open_cobra_reader(const std::string& path, size_t block = 8 << 20,
                                             uint64_t join_budget = uint64_t{256} << 20);

// Elle EDN / elle-cli JSON (import_edn.cpp). `block`: the file window's
// block size (tests use small ones).
std::unique_ptr<TxnReader> open_elle_reader(const std::string& path, Format f, size_t block = 8 << 20);
// The whole history of an Elle file, its text read through a window.
History read_elle_file(const std::string& path, Format f, ImportStats& st, size_t block = 8 << 20);

}  // namespace isocheck

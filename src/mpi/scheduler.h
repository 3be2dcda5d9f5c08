// The solve stage of the MPI driver: pieces (piece 0 = the whole history when
// SSER is asked, then one piece per block for SER/SI, the largest first), the
// work queue that hands them out (rank 0 answers requests; a local worker
// thread on rank 0 computes too), and the merge of the pieces' results into
// one report with the tie-break of docs/dist.md.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/history.h"
#include "mpi/messages.h"
#include "mpi/replay_lines.h"
#include "partition/partition.h"
#include "solver/check.h"

namespace isocheck::dist {

struct Job {
  const History& h;
  const Partition& p;
  const std::vector<uint8_t>& included;
  const SessionTxns& index;
  const CheckOptions& opt;
  bool whole_sser;                 // piece 0 is the whole history for SSER
  std::vector<Level> split_levels;  // SER / SI, decided per block
  bool whole_split;                // one block: check SER/SI on the whole history (same as one process)
  // The whole history's facts for the report's replay lines; null: no lines.
  const ReplayFacts* replay = nullptr;
  // The piece that is the whole history and replays it as check() does
  // (mpi/replay_lines.h); -1: blocks only.
  int32_t whole_piece() const { return whole_sser || whole_split ? 0 : -1; }
  uint32_t pieces() const {
    uint32_t n = whole_sser ? 1 : 0;
    if (!split_levels.empty()) n += whole_split ? 1 : static_cast<uint32_t>(p.comp_sessions.size());
    return n;
  }
  // Levels piece i decides.
  std::vector<Level> levels_of(uint32_t i) const {
    if (whole_sser && i == 0) return {Level::sser};
    return split_levels;
  }
};

// One piece checked (check() on its projection, or on the whole history),
// mapped back to the whole history's transactions and operation positions.
// Input and resource errors become the result's error_code.
PieceResult run_piece(const Job& job, uint32_t i);

// check()'s result on a piece's history `local`, mapped back: `txn` gives each
// local transaction's whole-history index and `pos` each local operation's
// position inside its whole-history transaction (both nullptr when `local` is
// the whole history).
PieceResult piece_result(const CheckResult& r, int32_t piece, const History& local, const std::vector<TxnIdx>* txn,
                         const std::vector<uint32_t>* pos);
// check() on a piece's history with the piece's levels; input and resource
// errors become the result's error_code.
PieceResult check_piece(const Job& job, uint32_t i, const History& local, const std::vector<TxnIdx>* txn,
                        const std::vector<uint32_t>* pos);
PieceResult piece_error(uint32_t i, int code, const std::string& what);

// Which pieces still matter: without --all-violations, once every level has a
// violating piece, pieces above the highest of those lowest violators cannot
// change the report (each level reports its lowest violating piece).
struct Board {
  const Job& job;
  bool all_violations;
  std::map<int32_t, PieceResult> done;
  uint32_t next = 0;
  // Static assignment (pieces whose data lives on one rank): per piece, the
  // rank that solves it; empty: any rank takes the next piece.
  std::vector<int> owner;
  std::vector<uint32_t> next_of;  // per rank, with `owner`
  std::vector<uint8_t> taken;     // with `owner`: handed out (to its owner or a thief)
  std::vector<int> taker;         // with `owner`: the rank a handed-out piece went to
  uint32_t stolen = 0;            // pieces a rank took from another's list
  // Per piece, its operations; with it a rank asking for work is handed its
  // next pieces up to kBatchOps operations at once (one request and reply per
  // batch, not per piece: a thousand small components each paid an MPI round
  // trip). Empty: one piece per request.
  std::vector<uint64_t> weight;
  static constexpr uint64_t kBatchOps = uint64_t{1} << 16;
  static constexpr size_t kBatchPieces = 256;
  // Records a finished piece (its number is r.piece) and what it means for
  // the cutoff: kept per level as the lowest violating piece, so cutoff() is
  // O(levels), not a walk over every finished piece on every request (that
  // was quadratic in the pieces: seconds at 10^4 small components).
  void add(PieceResult r) {
    const uint32_t i = static_cast<uint32_t>(r.piece);
    if (r.error_code) lowest_error_ = std::min(lowest_error_, i);
    for (Level l : job.levels_of(i)) {
      // (Any anomaly fails SER, SI and SSER; a weak level only by its own
      // outcome: a lost update does not fail read committed.)
      bool bad = !r.anomalies.empty() && !is_weak(l);
      for (auto& o : r.levels) if (static_cast<Level>(o.level) == l && !o.holds && o.decided) bad = true;
      if (bad) {
        auto [it, fresh] = lowest_bad_.emplace(l, i);
        if (!fresh) it->second = std::min(it->second, i);
      }
    }
    done[r.piece] = std::move(r);
  }
  uint32_t cutoff() const {
    if (all_violations) return job.pieces();
    // An error ends the run: pieces [0, the lowest one that failed] matter
    // (its error is the run's, merge_on_root).
    if (lowest_error_ != UINT32_MAX) return std::min(job.pieces(), lowest_error_ + 1);
    uint32_t c = 0;
    auto need = [&](Level l) {
      auto it = lowest_bad_.find(l);
      if (it == lowest_bad_.end()) return false;
      c = std::max(c, it->second);
      return true;
    };
    if (job.whole_sser && !need(Level::sser)) return job.pieces();
    for (Level l : job.split_levels) if (!need(l)) return job.pieces();
    return c + 1;  // pieces [0, c] matter
  }
  // `first` (just taken for `who`) and more of `who`'s next pieces while the
  // batch holds under kBatchOps operations; each piece is taken as take() does.
  std::vector<int> take_batch(int who, int first) {
    std::vector<int> batch{first};
    if (first < 0 || weight.empty()) return batch;
    uint64_t ops = weight[static_cast<size_t>(first)];
    while (ops < kBatchOps && batch.size() < kBatchPieces) {
      int j = take(who);
      if (j < 0) break;
      batch.push_back(j), ops += weight[static_cast<size_t>(j)];
    }
    return batch;
  }
  // Next piece for rank `who` to run, or -1.
  int take(int who) {
    uint32_t c = cutoff();
    if (!owner.empty()) {
      if (next_of.size() <= static_cast<size_t>(who)) next_of.resize(who + 1, 0);
      if (taken.size() < job.pieces()) taken.resize(job.pieces(), 0), taker.resize(job.pieces(), -1);
      uint32_t& nx = next_of[who];
      while (nx < job.pieces() && (owner[nx] != who || taken[nx] || done.count(static_cast<int32_t>(nx)))) ++nx;
      if (nx >= c) return -1;
      taken[nx] = 1, taker[nx] = who;
      return static_cast<int>(nx++);
    }
    while (next < job.pieces() && done.count(static_cast<int32_t>(next))) ++next;
    if (next >= c) return -1;
    return static_cast<int>(next++);
  }

  // Kept by add(); read through cutoff().
  uint32_t lowest_error_ = UINT32_MAX;   // the lowest piece that ended in an error
  std::map<Level, uint32_t> lowest_bad_;  // per level, its lowest violating piece
};

// With `owner`: a piece of another rank's list that nobody has started, for
// `thief` (the lowest-numbered below the cutoff whose owner is busy with a
// piece: an idle owner takes it itself, without moving its data), and in
// `victim` the rank holding its data; -1 when there is none.
int steal_piece(Board& b, int thief, int& victim);

// Moving a stolen piece's data (mpi/owned.h): `send` posts the piece's data to
// rank `to` (the data stays valid until `finish` returns); `recv` receives a
// piece from rank `from` (blocking).
struct PieceMover {
  std::function<void(uint32_t piece, int to)> send;
  std::function<void()> finish;
  std::function<void(uint32_t piece, int from)> recv;
};

// The work queue. Collective. Rank 0 hands pieces out on request (a local
// worker thread computes too) and passes each finished result to `record`
// (called under a lock, on rank 0 only); the other ranks ask, compute and send
// results back. Returns true on every rank when a signal stopped the queue.
// `solve` computes a piece (run_piece when empty); with Board::owner each
// rank is handed only its own pieces.
// With a mover (and Board::owner), a rank whose own pieces are done steals a
// piece nobody started: its owner sends the data at its next request (rank 0
// at once); rank 0's local worker does not steal.
bool run_work_queue(const Job& job, Board& board, const std::function<void(PieceResult&&)>& record,
                    const std::function<PieceResult(uint32_t)>& solve = {}, const PieceMover* mover = nullptr);

// The report from the pieces below `cutoff` (rank 0): `txns` transactions in
// the history, `committed` of them included.
CheckResult merge(const Job& job, const std::map<int32_t, PieceResult>& done, uint32_t cutoff, uint64_t txns,
                  uint64_t committed);

}  // namespace isocheck::dist

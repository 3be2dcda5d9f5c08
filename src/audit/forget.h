// Forgetting (docs/audit.md): one ForgetPass per attempt, its phases in order
//   candidates     the transactions ordered before every later one (the rule)
//   index_touches  per transaction and key: reads, final write, blindness
//   index_versions (key, value) versions, their readers and successors
//   index_blind    writers of blind keys by order value; real-time and
//                  --time-order successors; session successors
//   propagate      "unfrozen" along every edge that may exist, from the roots
//   settle_frontier the frozen final writes per key; ambiguous ones kept
//   build_summary  the new summary from the frontier, the kept ones copied
// forget.cpp holds the first three and the driver, forget_edges.cpp the
// edges and propagation, forget_frontier.cpp the frontier (and the
// later-read check), forget_summary.cpp the new carry.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "audit/auditor.h"
#include "core/timer.h"

namespace isocheck::audit_detail {

class ForgetPass {
 public:
  ForgetPass(Auditor& a, uint64_t round, RoundStat& st);
  void run();

 private:
  // Per transaction and key: versions read, the version installed, blindness.
  struct Touch {
    Sym key;
    Sym read_v;     // first read before any write (when has_read)
    Sym write_v;    // final write (when has_write)
    bool blind;     // wrote without reading first
    bool list;
    // (flags, not a reserved symbol: in an integer-mode table every 64-bit
    // pattern is some integer's symbol)
    bool has_read = false, has_write = false;
    uint32_t slot = ~0u;  // blind (or list) key's slot (set with the blind keys), ~0u: none
    uint32_t wver = ~0u;  // version id of write_v (set with the versions)
    uint32_t read_at = 0; // reads[] index of the read of read_v
    OpIdx write_op = 0;   // the op of write_v
  };
  // A frozen final write: its key, write, writer and version. 24 bytes: the
  // value, ord and lim are looked up through op and txn (the sort by key
  // moves every record twice; a 56-byte record with them copied in cost
  // more to move than the lookups do).
  struct FinalWrite {
    Sym key;
    OpIdx op;       // the write (ops grow with the transaction)
    uint32_t txn;
    uint32_t wver;  // version written
  };
  // One range of whole keys of the frontier (settle_frontier, on threads).
  struct KeyPart {
    std::vector<FinalWrite> frontier, top;
    std::vector<uint32_t> ambiguous;
    std::vector<FinalWrite> one_read;  // the version later reads see, to be confirmed
    std::vector<uint32_t> one_read_tops;
    size_t unread = 0;
  };

  void phase(const char* name);
  // The phases (see above); false from candidates(): nothing to forget.
  bool candidates();
  void index_touches();
  void index_versions();
  void index_blind();
  void index_time_edges();
  void propagate();
  bool too_little();
  void settle_frontier();
  void collect_final_writes();
  bool frontier_pass();
  void key_frontier(size_t from, size_t to, KeyPart& part) const;
  bool must_precede(const FinalWrite& f) const;
  // false: nothing is dropped (the carry stays as it is)
  bool build_summary();
  uint32_t new_session(int64_t name);
  void copy_kept();

  // f(op, rmw_of_initial) for each write of summary piece t: every key once,
  // as "r k null, w k v" (rmw_of_initial) or "w k v".
  template <class F>
  void summary_writes(uint32_t t, F&& f) const {
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write)
        f(o, o > c.op_begin(t) && c.op_kind[o - 1] == OpKind::read && c.op_key[o - 1] == c.op_key[o] &&
                 c.op_value[o - 1] == kNullValue);
  }
  // Order values: a precedes b when ord(a) <= lim(b) (fence: nf <= pf; time:
  // end + skew < begin).
  int64_t ord(uint32_t t) const;
  int64_t lim(uint32_t u) const;  // largest ord(t) with t before u
  uint32_t read_version(size_t i);
  // The old summary's read-modify-write of the initial state: "r k null,
  // w k v" in a piece (a piece's other writes are blind).
  bool first_version(const FinalWrite& f) const {
    const OpIdx o = f.op;
    return f.txn < old_pieces && o > c.op_begin(f.txn) && c.op_kind[o - 1] == OpKind::read &&
           c.op_key[o - 1] == f.key && c.op_value[o - 1] == kNullValue;
  }
  // Propagation: a transaction reached along an edge (maybe: one that exists
  // only for some version orders).
  void visit(uint32_t t, bool maybe);
  void ask_writers(Sym k);
  void visit_wanted_writers();
  void visit_blind_successors(uint32_t u);
  void visit_time_successors(uint32_t u);

  Auditor& a_;
  AuditState& s_;
  const AuditOptions& opt_;
  History& c;  // the carry
  const uint64_t round_;
  RoundStat& st_;
  const size_t n;
  const uint32_t old_pieces;  // the summary: carry txns [0, old_pieces)
  // Pieces [0, unindexed) get no touches (index_touches); tests index them
  // all like any transaction (the general pass) and compare.
  const uint32_t unindexed;
  // Steps split over threads (results put together in order, so the same
  // as one thread), when there is enough to split.
  const unsigned threads;
  static constexpr size_t kParallelTxns = 1 << 14;
  const bool fence;
  const int64_t skew;
  bool rt_edges = false;
  Timer ph_timer_;
  std::string ph_log_;

  // candidates
  int64_t m = kNegInf;  // fence rule: the bound (the fences up to it are frozen)
  std::vector<uint8_t> cand;
  // index_touches
  std::vector<uint64_t> touch_off;
  std::vector<Touch> touches;
  std::vector<uint8_t> root, aborted;
  std::vector<uint64_t> reads_off;
  std::vector<std::pair<Sym, Sym>> reads;  // every (key, value) read per txn
  std::vector<OpIdx> read_op;              // the op of each
  // index_versions
  uint32_t nv = 0;
  PairMap vid{0};                          // versions no carry transaction wrote
  std::vector<uint32_t> rver;              // version id of each read
  FlatMap64 key_blind{1024};               // blind (or list) keys -> their slot
  std::vector<uint32_t> rd_off, rd_dst, sc_off, sc_dst;  // readers / successors per version
  // index_blind
  bool any_blind = false;  // (read-modify-write logs: none)
  std::vector<uint32_t> slot_off, slot_done;         // slot s: slot_w[slot_off[s], slot_off[s+1])
  std::vector<std::pair<int64_t, uint32_t>> slot_w;  // (ord, writer), ascending per slot
  // Per slot: writers past `done` that a reader skipped (the writer of the
  // version it read) and later readers must still consider.
  std::vector<std::vector<uint32_t>> slot_skipped;
  std::vector<uint32_t> writer_of;                   // version -> its writer (blind keys present)
  std::vector<uint32_t> by_begin;                    // real-time successors (sser): by begin
  size_t rt_done = 0;
  bool tw_edges = false;
  FlatMap64 tw_slot{0};
  std::vector<uint32_t> tw_off, tw_done;             // slot k: tw_w[tw_off[k], tw_done[k]) not visited yet
  std::vector<std::pair<int64_t, uint32_t>> tw_w;    // (begin, writer), ascending per slot
  std::vector<uint32_t> next_in_session;
  // propagate
  std::vector<uint8_t> unfrozen, extra_root;
  std::vector<uint32_t> stack_;
  FlatMap64 null_asked{64};
  bool minus_one_asked = false;  // the key ~0 (integer -1), which FlatMap64 cannot hold
  std::vector<Sym> wanted;
  bool gave_up = false;
  // settle_frontier
  std::vector<FinalWrite> frontier;
  std::vector<FinalWrite> fw;  // final writes of frozen transactions, by key
  bool fw_built = false;
  bool settle = false, settle_one = false;
  size_t settled = 0;
  // build_summary / copy_kept
  History nc;
  std::vector<int64_t> npf, nnf;
  std::vector<uint8_t> npend;
  bool summary = false;
};

}  // namespace isocheck::audit_detail

// Which forgetting rule a log is audited under, and what pass 1 learns for
// it: per round the least previous-fence value, the least begin and (the
// fence rule with --time-order) the least writer's end; the later-reads index
// for logs with blind writes (docs/audit.md, "Ambiguous frontiers").
#include <algorithm>
#include <mutex>

#include "audit/auditor.h"
#include "audit/pass1.h"
#include "core/errors.h"
#include "io/hdf5_range.h"
#include "io/jsonl.h"
#include "core/predicates.h"

namespace isocheck::audit_detail {
namespace {

// Column buffers for pieces read on threads: a piece takes one, and gives
// it back for the next piece, so that each thread's buffers are faulted in
// once, not per piece (that was a tenth of pass 1), and freed at the end.
class ColumnsPool {
 public:
  class Lease {
   public:
    explicit Lease(ColumnsPool& p) : pool_(p) {
      std::lock_guard<std::mutex> g(p.lock_);
      if (!p.free_.empty()) c_ = std::move(p.free_.back()), p.free_.pop_back();
    }
    ~Lease() {
      std::lock_guard<std::mutex> g(pool_.lock_);
      pool_.free_.push_back(std::move(c_));
    }
    Hdf5Columns& operator*() { return c_; }
    Hdf5Columns* operator->() { return &c_; }

   private:
    ColumnsPool& pool_;
    Hdf5Columns c_;
  };

 private:
  std::mutex lock_;
  std::vector<Hdf5Columns> free_;
};

// What pass 1 asks of a piece with scans, inserts and deletes, before the
// keys they expand over are known: each transaction's operations as its
// expansion has them (core/predicates.h), but for the reads of keys a scan
// saw absent, which only the whole log tells. Of those only the fence key
// matters to pass 1 (a transaction that reads it is no fence and breaks the
// fence rule): a scan whose range holds the fence key `fk` reads it (every
// fence writes it, so the expansion reads it, as a row or absent). Writes
// and their transactions are all there (the duplicate check's size, the
// writers' least end of --time-order).
History pass1_view(History&& h, const PredicateList& preds, Sym fk) {
  History out;
  out.reserve_more(h.txn_count(), h.op_count() + 2 * preds.ops.size());
  auto covers_fence = [&](const PredicateRec& p) {
    return fk != ~0ULL && !key_less(h.keys, fk, p.key) && !key_less(h.keys, p.hi, fk);
  };
  size_t next = 0;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    out.begin_txn(h.txn_id[t], h.txn_session[t], h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
    OpIdx o = h.op_begin(t);
    for (uint32_t pos = 0;; ++pos) {
      if (next < preds.ops.size() && preds.ops[next].txn == t && preds.ops[next].pos == pos) {
        const PredicateRec& p = preds.ops[next++];
        if (p.kind == PredicateOp::scan) {
          bool fence_row = false;
          for (uint64_t r = p.row_begin; r < p.row_end; ++r) {
            out.add_op(OpKind::read, preds.rows[r].first, preds.rows[r].second);
            fence_row |= preds.rows[r].first == fk;
          }
          if (!fence_row && covers_fence(p)) out.add_op(OpKind::read, fk, kNullValue);
        } else {
          if (p.kind == PredicateOp::insert) out.add_op(OpKind::read, p.key, kNullValue);
          out.add_op(OpKind::write, p.key, p.value);
        }
        continue;
      }
      if (o == h.op_end(t)) break;
      if (h.op_kind[o] == OpKind::read_list) out.add_list_read(h.op_key[o], h.list(o));
      else out.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
      ++o;
    }
    out.end_txn();
  }
  out.take_tables(h);
  return out;
}

}  // namespace

// Pass 1: per round, the least previous-fence value and the least begin.
// HDF5: only the columns it needs (no ids, list offsets or lists; the file's
// tables once), in pieces of whole rounds scanned on threads and merged in
// file order (src/audit/pass1.h); JSONL: whole chunks, one piece.
void Auditor::prescan() {
  const uint64_t R = opt_.round_txns;
  // Chunks of several rounds (fewer, larger reads), statistics per round.
  const uint64_t chunk_rows = R * std::max<uint64_t>(1, std::min<uint64_t>(8, 1000000 / R));
  const bool hdf5 = reader_.hdf5();
  // Only what the rules that can apply need (choose_rule): times only for
  // the time rule (sser alone; a time column is then read and checked in
  // pass 2 anyway), fences unless the time or no rule is forced (under auto
  // the report says whether fences were present too).
  const auto& levels = opt_.check.levels;
  const bool need_times = levels.size() == 1 && levels[0] == Level::sser && opt_.rule != "fence" && opt_.rule != "none";
  const bool need_fences = opt_.rule != "time" && opt_.rule != "none";
  // --time-order under the fence rule: per round, the least end of a timed
  // writer (docs/audit.md, "The fence rule with --time-order").
  const bool need_write_ends = need_fences && fence_time_order();
  // The fence key's symbol in a table (~0: absent).
  auto fence_key_in = [&](const SymbolTable& t) {
    Sym fk = ~0ULL;
    if (t.named())
      for (Sym i = 0; i < t.names().size(); ++i)
        if (!t.is_int(i) && t.name(i) == opt_.fence_key) fk = i;
    return fk;
  };
  std::vector<Pass1Piece> pieces;
  if (hdf5) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    const SymbolTable& values = file.values();
    const Sym fk = need_fences ? fence_key_in(file.keys()) : ~0ULL;
    const uint64_t total = reader_.total(), rounds = (total + R - 1) / R;
    const unsigned threads = audit_threads();
    // Pieces of whole rounds, about two per thread (a shared machine's
    // threads do not all run at the same speed; more pieces inflate more
    // chunks twice, at their edges), at most chunk_rows each.
    uint64_t piece_rounds = std::max<uint64_t>(1, (rounds + 2 * threads - 1) / (2 * threads));
    piece_rounds = std::min(piece_rounds, chunk_rows / R);
    const uint64_t piece_rows = piece_rounds * R, n_pieces = (total + piece_rows - 1) / piece_rows;
    pieces.resize(n_pieces);
    using C = Hdf5RangeReader;
    ColumnsPool pool;
    // (op kinds for the duplicate check: its set is sized for the log's writes)
    const unsigned which = C::kIds | C::kSession | C::kStatus | (need_times || need_write_ends ? C::kTimes : 0u) |
                           (need_fences ? C::kOps : C::kOpKinds);  // (kinds: the duplicate check's
                                                                     // count, lists and registers)
    std::vector<IdsInOrder> ids(n_pieces);
    parallel_pieces(n_pieces, threads, [&](uint64_t i) {
      Pass1Piece& p = pieces[i];
      p.first_round = i * piece_rounds;
      Pass1Scanner scan(p, R, fk, need_times, need_write_ends);
      const uint64_t row = i * piece_rows, last_row = std::min(total, row + piece_rows);
      ColumnsPool::Lease cols(pool);
      file.columns(row, last_row, which, *cols);
      ids[i].add(cols->id.data(), cols->id.size());
      scan.scan(*cols, values, row, nullptr);
      scan.finish();
    });
    for (const IdsInOrder& piece : ids) ids_in_order_.add(piece);
  } else {
    // JSONL with scans, inserts and deletes: keys interned, and the keys
    // whose state changes gathered (their rounds expand over them). Whether
    // a log states them is known only from its lines: pass 1 reads without
    // interning keys and starts again, with them, at the first one it meets.
    auto pass = [&](std::shared_ptr<LogPredicateKeys> keys) {
      pieces.assign(1, Pass1Piece{});
      ids_in_order_ = IdsInOrder{};
      Pass1Scanner scan(pieces[0], R, ~0ULL, need_times, need_write_ends);
      uint64_t row = 0;
      while (true) {
        PredicateList preds;
        History h = keys ? reader_.next_predicates(R, preds)
                         : reader_.next_scan(R, opt_.fence_key);  // (a round: what pass 2 holds too)
        if (h.txn_count() == 0) break;
        const Sym fk = need_fences ? fence_key_in(h.keys) : ~0ULL;
        if (keys) {
          keys->add(h, preds);
          if (!preds.ops.empty()) h = pass1_view(std::move(h), preds, fk);
        }
        Hdf5Columns cols;
        cols.session.resize(h.txn_count());
        for (TxnIdx t = 0; t < h.txn_count(); ++t) cols.session[t] = h.session_name[h.txn_session[t]];
        cols.status = std::move(h.txn_status);
        cols.begin = std::move(h.txn_begin);
        cols.end = std::move(h.txn_end);
        cols.op_offset = std::move(h.txn_op_offset);
        cols.op_kind = std::move(h.op_kind);
        cols.op_key = std::move(h.op_key);
        cols.op_value = std::move(h.op_value);
        ids_in_order_.add(h.txn_id.data(), h.txn_count());
        // Each JSONL chunk has its own tables: the fence key's symbol per chunk.
        scan.set_fence_key(fk);
        scan.scan(cols, h.values, row, h.txn_id.data());
        row += cols.session.size();
      }
      scan.finish();
      if (keys) {
        keys->finish();
        if (keys->any()) pred_keys_ = std::move(keys);
      }
    };
    try {
      pass(nullptr);
    } catch (const JsonlStatesPredicates&) {
      reader_ = open_log();
      pass(std::make_shared<LogPredicateKeys>());
    }
  }
  Pass1Result r = merge_pass1(pieces, R);
  s_.round_min_pf = std::move(r.round_min_pf);
  s_.round_min_begin = std::move(r.round_min_begin);
  s_.round_min_write_end = std::move(r.round_min_write_end);
  s_.total_txns = r.txns;
  log_writes_ = r.writes;
  lists_and_registers_ = r.list_ops > 0 && r.register_ops > 0;
  auto id_of = [&](uint64_t row, bool known, int64_t id) {
    return known ? id : reader_.hdf5_file().range(row, row + 1).txn_id[0];
  };
  s_.times_ok = r.bad_time_row == kNoRow;
  if (!s_.times_ok)
    s_.times_problem = "transaction " + std::to_string(id_of(r.bad_time_row, r.bad_time_id_known, r.bad_time_id)) +
                       " has no begin/end";
  s_.fence_ok = r.bad_fence_row == kNoRow;
  if (!s_.fence_ok)
    s_.fence_problem = "transaction " + std::to_string(id_of(r.bad_fence_row, r.bad_fence_id_known, r.bad_fence_id)) +
                       " touches " + opt_.fence_key + " but is not a committed fence (read k, write k+1, nothing else)";
  if (!r.any_fence && s_.fence_ok) {
    s_.fence_ok = false;
    s_.fence_problem = "no fence transactions (key " + opt_.fence_key + ")";
  }
  if (hdf5) reader_.seek(LogPosition{});  // keeps the file's tables
  else reader_ = open_log();
}

void Auditor::gather_predicate_keys() {
  pred_keys_ = log_predicate_keys(path_, opt_.format, opt_.round_txns);
  reader_.set_predicate_keys(pred_keys_);
}

// A write of a key the transaction has not read before it, in the first
// 2^16 transactions. Read-modify-write logs have none: their version order
// is known, so no frontier is ever ambiguous and no index is built.
bool Auditor::starts_with_blind_writes() {
  auto blind = [](const OpKind* kind, const Sym* key, const uint64_t* off, size_t txns) {
    std::vector<Sym> read;
    for (size_t t = 0; t < txns; ++t) {
      read.clear();
      for (uint64_t o = off[t]; o < off[t + 1]; ++o) {
        if (kind[o] == OpKind::read) read.push_back(key[o]);
        if (kind[o] == OpKind::write && std::find(read.begin(), read.end(), key[o]) == read.end()) return true;
      }
    }
    return false;
  };
  // (and the reads there: how large the index will be, decide_spill)
  auto reads = [&](const OpKind* kind, const Sym* value, size_t ops, size_t txns) {
    probe_txns_ = txns;
    probe_reads_ = 0;
    for (size_t o = 0; o < ops; ++o) probe_reads_ += kind[o] == OpKind::read && value[o] != kNullValue;
  };
  const uint64_t probe = std::min<uint64_t>(s_.total_txns, 1 << 16);
  if (reader_.hdf5()) {
    Hdf5Columns c = reader_.hdf5_file().columns(0, probe, Hdf5RangeReader::kOps);
    reads(c.op_kind.data(), c.op_value.data(), c.op_kind.size(), c.op_offset.size() - 1);
    return blind(c.op_kind.data(), c.op_key.data(), c.op_offset.data(), c.op_offset.size() - 1);
  }
  LogReader r = open_log();
  History h = r.next(probe);
  reads(h.op_kind.data(), h.op_value.data(), h.op_kind.size(), h.txn_count());
  return blind(h.op_kind.data(), h.op_key.data(), h.txn_op_offset.data(), h.txn_count());
}

void Auditor::later_reads_of(const Hdf5Columns& c, uint64_t row, uint64_t R, ReadEntries& out) {
  for (size_t t = 0; t + 1 < c.op_offset.size(); ++t)
    for (uint64_t o = c.op_offset[t]; o < c.op_offset[t + 1]; ++o)
      if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue)
        out.push_back({symbol_pair_fp(c.op_key[o], c.op_value[o]), static_cast<uint32_t>((row + t) / R)});
}

// h: from LogReader::next_hashed (its symbols are their hashes).
void Auditor::later_reads_of(const History& h, uint64_t row, uint64_t R, ReadEntries& out) {
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
      if (h.op_kind[o] == OpKind::read && h.op_value[o] != kNullValue)
        out.push_back({pair_fingerprint(h.op_key[o], h.op_value[o], ~0ULL), static_cast<uint32_t>((row + t) / R)});
}

// Every register read of a value (not of the initial state) from file row
// `from` on, with its round, in pieces of whole rounds (HDF5: scanned on
// threads, only the operation columns). The reader's position is kept.
void Auditor::build_later_reads(uint64_t from) {
  const uint64_t R = opt_.round_txns, total = s_.total_txns;
  if ((total + R - 1) / R >= LaterReads::kMaxRounds) return;
  if (s_.spilled) return build_later_reads_spilled(from);
  const uint64_t piece_rounds = std::max<uint64_t>(1, 1000000 / R);
  const uint64_t piece_rows = piece_rounds * R;
  const uint64_t first_piece = from / piece_rows, n_pieces = (total + piece_rows - 1) / piece_rows;
  if (first_piece >= n_pieces) return set_later_reads_built();
  std::vector<std::vector<LaterReads::Entry>> entries(n_pieces - first_piece);
  if (reader_.hdf5()) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    ColumnsPool pool;
    parallel_pieces(entries.size(), audit_threads(), [&](uint64_t i) {
      const uint64_t row = std::max(from, (first_piece + i) * piece_rows);
      const uint64_t last = std::min(total, (first_piece + i + 1) * piece_rows);
      ColumnsPool::Lease lease(pool);
      Hdf5Columns& c = *lease;
      file.columns(row, last, Hdf5RangeReader::kOps, c);
      later_reads_of(c, row, R, entries[i]);
    });
  } else {
    const LogPosition at = reader_.position();
    LogReader r = open_log();
    if (from > 0) r.seek(at);
    uint64_t row = from;
    while (true) {
      History h = r.next_hashed(std::min(R, piece_rows - row % piece_rows));
      if (h.txn_count() == 0) break;
      later_reads_of(h, row, R, entries[row / piece_rows - first_piece]);
      row += h.txn_count();
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t p = first_piece + i;
    later_reads_.add_piece(p * piece_rounds, (p + 1) * piece_rounds, std::move(entries[i]));
  }
  set_later_reads_built();
}

void Auditor::compute_suffixes() {
  size_t n = s_.round_min_pf.size();
  suffix_pf_.assign(n + 1, kPosInf);
  suffix_begin_.assign(n + 1, kPosInf);
  suffix_write_end_.assign(n + 1, kPosInf);
  const bool write_ends = s_.round_min_write_end.size() == n;
  for (size_t i = n; i-- > 0;) {
    suffix_pf_[i] = std::min(suffix_pf_[i + 1], s_.round_min_pf[i]);
    suffix_begin_[i] = std::min(suffix_begin_[i + 1], s_.round_min_begin[i]);
    // (not recorded: every later writer may have ended at any time)
    suffix_write_end_[i] = write_ends ? std::min(suffix_write_end_[i + 1], s_.round_min_write_end[i]) : kNegInf;
  }
}

void Auditor::choose_rule() {
  auto& levels = opt_.check.levels;
  bool sser_only = levels.size() == 1 && levels[0] == Level::sser;
  std::string why_not_time = s_.times_ok ? (sser_only ? "" : "the time rule needs --level sser alone")
                                         : "the time rule needs begin/end on every transaction: " + s_.times_problem;
  std::string why_not_fence = s_.fence_ok ? "" : "the fence rule: " + s_.fence_problem;
  // The fence rule's soundness (docs/audit.md) is argued for SER and SI: with
  // a weaker level asked for, every transaction is kept and each round checks
  // all of them, which equals verify (a violation in a round's transactions,
  // reads of writers not yet read left out, is one of the whole log: each
  // level's axioms only ask more of more reads and transactions).
  std::string weak;
  for (Level l : levels)
    if (is_weak(l)) weak += std::string(weak.empty() ? "" : ", ") + level_short(l);
  if (!weak.empty() && s_.fence_ok) why_not_fence = "the fence rule is proven for ser and si, not for " + weak;
  bool time_ok = why_not_time.empty(), fence_ok = why_not_fence.empty();
  auto& r = s_.result;
  if (opt_.rule == "time" && !time_ok) throw UsageError("--rule time: " + why_not_time);
  if (opt_.rule == "fence" && !fence_ok) throw UsageError("--rule " + why_not_fence);
  if (opt_.rule == "none") {
    s_.rule = ForgetRule::none;
    r.rule_reason = "--rule none";
  } else if ((opt_.rule == "auto" || opt_.rule == "time") && time_ok) {
    s_.rule = ForgetRule::time;
    r.rule_reason = "every transaction has begin/end and only sser is checked: a transaction that ended before "
                    "every later one begins is ordered before them";
    if (opt_.rule == "auto" && fence_ok) r.rule_reason += " (fences present too; the time rule forgets more)";
  } else if (fence_ok) {
    s_.rule = ForgetRule::fence;
    r.rule_reason = "fence transactions on " + opt_.fence_key + " order everything two fences back before the rest";
    // (--time-order: a later write can be ordered before an earlier one by time)
    if (fence_time_order())
      r.rule_reason += "; with --time-order, writers that began after a later writer ended are kept";
  } else {
    s_.rule = ForgetRule::none;
    r.rule_reason = "no forgetting rule applies (" + why_not_fence + "; " + why_not_time + ")";
    r.warnings.push_back("the log fits neither forgetting rule: every transaction is kept and the whole log is "
                         "checked at the end (memory grows with the log); see docs/audit.md");
  }
}

}  // namespace isocheck::audit_detail

#include "mpi/scheduler.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <string_view>
#include <tuple>

#include "core/edges.h"
#include "core/errors.h"
#include "core/limits.h"
#include "mpi/collectives.h"
#include "mpi/mpi_env.h"
#include "solver/witness.h"

namespace isocheck::dist {
namespace {

constexpr int kTagRequest = 11, kTagAssign = 12;

}  // namespace

PieceResult piece_result(const CheckResult& r, int32_t piece, const History& local, const std::vector<TxnIdx>* txn,
                         const std::vector<uint32_t>* pos) {
  PieceResult out;
  out.piece = piece;
  const bool mapped = txn != nullptr;
  auto gtxn = [&](TxnIdx t) { return mapped ? (*txn)[t] : t; };
  auto gpos = [&](TxnIdx local_t, uint32_t p) -> uint32_t { return mapped ? (*pos)[local.op_begin(local_t) + p] : p; };
  for (const Anomaly& a : r.anomalies)
    out.anomalies.push_back({static_cast<uint8_t>(a.kind), gtxn(a.txn), gtxn(a.other), gpos(a.txn, a.op), a.key, a.value});
  for (const LevelResult& lr : r.levels) {
    LevelOutcome o;
    o.level = static_cast<uint8_t>(lr.level);
    o.holds = lr.holds, o.decided = lr.decided, o.reason = lr.reason, o.by_cases = lr.by_cases;
    if (lr.witness) {
      const Witness& w = *lr.witness;
      o.has_witness = true;
      // `why` is an operation position, with the inferred-order marker bit
      // (core/edges.h) on edges the general engine inferred: map the
      // position alone and keep the marker.
      auto global = [&](const EdgeList& c) {
        EdgeList e;
        for (size_t i = 0; i < c.size(); ++i) {
          uint32_t why = c.why[i];
          const uint32_t marker = why & kInferredBit;
          EdgeKind k = c.kind[i];
          if (k == EdgeKind::wr || k == EdgeKind::ww) why = gpos(c.dst[i], why_pos(why)) | marker;
          else if (k == EdgeKind::rw) why = gpos(c.src[i], why_pos(why)) | marker;
          e.add(gtxn(c.src[i]), gtxn(c.dst[i]), k, why);
        }
        return e;
      };
      EdgeList e = global(w.cycle);
      // The name from the piece's own cycle: each of its operations has the
      // key of the whole-history operation it maps to.
      // (A weak level's witness keeps its level's name, as in one process.)
      o.anomaly = mapped && !is_weak(lr.level) ? name_cycle(w.cycle, local) : w.anomaly;
      for (const ForcedOrder& f : w.forced) {
        EdgeList fe = global(f.other_cycle);
        o.forced_edge.push_back(static_cast<uint32_t>(f.edge));
        o.forced_anomaly.push_back(mapped ? name_cycle(f.other_cycle, local) : f.anomaly);
        o.forced_src.insert(o.forced_src.end(), fe.src.begin(), fe.src.end());
        o.forced_dst.insert(o.forced_dst.end(), fe.dst.begin(), fe.dst.end());
        o.forced_why.insert(o.forced_why.end(), fe.why.begin(), fe.why.end());
        for (auto k : fe.kind) o.forced_kind.push_back(static_cast<uint8_t>(k));
        o.forced_end.push_back(static_cast<uint32_t>(o.forced_src.size()));
      }
      // A renamed G0 (solver/forced_orders.h) keeps the name of its forcing cycle.
      if (!w.cycle_anomaly.empty()) {
        o.cycle_anomaly = o.anomaly;
        for (size_t f = 0; f < w.forced.size(); ++f)
          if (w.forced[f].anomaly == w.anomaly) { o.anomaly = o.forced_anomaly[f]; break; }
      }
      o.src = e.src, o.dst = e.dst, o.why = e.why;
      for (auto k : e.kind) o.kind.push_back(static_cast<uint8_t>(k));
      for (auto& c : w.core) {
        o.core_key.push_back(c.key), o.core_first.push_back(gtxn(c.first_head)), o.core_second.push_back(gtxn(c.second_head));
        o.core_absence.push_back(c.absence ? 1 : 0);
      }
      o.core_minimal = w.core_minimal;
    }
    out.levels.push_back(std::move(o));
  }
  out.edges = r.stats.edges, out.constraints = r.stats.constraints, out.ordered_by_time = r.stats.ordered_by_time;
  out.pruned = r.stats.pruned, out.to_solver = r.stats.to_solver, out.subproblems = r.stats.subproblems;
  out.unordered_write_pairs = r.stats.unordered_write_pairs;
  out.decided_at_build = r.stats.decided_at_build;
  out.open_read_checks = r.stats.open_read_checks;
  return out;
}

PieceResult piece_error(uint32_t i, int code, const std::string& what) {
  PieceResult r;
  r.piece = static_cast<int32_t>(i), r.error_code = code, r.error = what;
  return r;
}

// A piece's input and resource errors (and running out of memory) become its
// result's error code, so the rank goes on answering the work queue.
template <class Solve> PieceResult guarded(uint32_t i, Solve&& solve) {
  try {
    return solve();
  } catch (const InputError& e) {
    return piece_error(i, 2, e.what());
  } catch (const ResourceError& e) {
    return piece_error(i, 3, e.what());
  } catch (const std::bad_alloc&) {
    return piece_error(i, 3, "out of memory while checking a piece; run on machines with more memory");
  }
}

PieceResult check_piece(const Job& job, uint32_t i, const History& local, const std::vector<TxnIdx>* txn,
                        const std::vector<uint32_t>* pos) {
  CheckOptions o = job.opt;
  o.levels = job.levels_of(i);
  // A piece on its whole graph: its anomalies are listed (--all-violations;
  // SSER's whole-history piece lists them for the blocks too) and its
  // witnesses are one process's whole-graph ones. The only piece of a run
  // (the whole history, every level) is checked as one process checks it,
  // with the local search around a failed replay unless turned off, so that
  // the report is one process's: the local search and the whole graph may
  // find different cycles, both true.
  if (job.pieces() != 1) o.localise = false;
  return guarded(i, [&] {
    check_limits();
    // (Tests: an internal check failing inside a piece, on any rank's thread.)
    if (const char* t = std::getenv("ISOCHECK_TEST_INTERNAL_ERROR"); t && std::string_view(t) == "piece")
      throw std::logic_error("a check inside a piece failed (test)");
    const CheckResult r = check(local, o);
    PieceResult out = piece_result(r, static_cast<int32_t>(i), local, txn, pos);
    // The replays the report's lines need (SSER's piece 0 speaks for the whole history).
    if (job.replay && !(job.whole_sser && i > 0))
      piece_replays(local, static_cast<int32_t>(i) == job.whole_piece(), o.levels, job.opt, *job.replay, r, out);
    return out;
  });
}

PieceResult run_piece(const Job& job, uint32_t i) {
  return guarded(i, [&] {
    check_limits();
    note_ops_held(job.h.op_count());
    if ((job.whole_sser && i == 0) || job.whole_split) return check_piece(job, i, job.h, nullptr, nullptr);
    uint32_t comp = i - (job.whole_sser ? 1 : 0);
    Projection pr = project(job.h, job.p, comp, job.included, &job.index);
    note_ops_held(job.h.op_count() + pr.h.op_count());
    // Each local operation's position inside its whole-history transaction.
    std::vector<uint32_t> pos(pr.op.size());
    for (TxnIdx t = 0; t < pr.h.txn_count(); ++t)
      for (OpIdx o = pr.h.op_begin(t); o < pr.h.op_end(t); ++o)
        pos[o] = static_cast<uint32_t>(pr.op[o] - job.h.op_begin(pr.txn[t]));
    return check_piece(job, i, pr.h, &pr.txn, &pos);
  });
}

int steal_piece(Board& b, int thief, int& victim) {
  if (b.owner.empty()) return -1;
  const uint32_t c = b.cutoff(), n = b.job.pieces();
  if (b.taken.size() < n) b.taken.resize(n, 0), b.taker.resize(n, -1);
  std::vector<uint8_t> busy(static_cast<size_t>(size()), 0);
  for (uint32_t i = 0; i < n; ++i)
    if (b.taken[i] && b.taker[i] >= 0 && !b.done.count(static_cast<int32_t>(i))) busy[static_cast<size_t>(b.taker[i])] = 1;
  for (uint32_t i = 0; i < std::min(c, n); ++i)
    if (!b.taken[i] && b.owner[i] != thief && busy[static_cast<size_t>(b.owner[i])] &&
        !b.done.count(static_cast<int32_t>(i))) {
      b.taken[i] = 1, b.taker[i] = thief;
      victim = b.owner[i];
      ++b.stolen;
      return static_cast<int>(i);
    }
  return -1;
}

bool run_work_queue(const Job& job, Board& board, const std::function<void(PieceResult&&)>& record,
                    const std::function<PieceResult(uint32_t)>& solve_fn, const PieceMover* mover) {
  const int P = size();
  // Test hook (tests/dist): ranks other than 0 steal before taking their own
  // pieces, so that stolen pieces and their data moves happen on any history.
  const bool steal_first = mover && std::getenv("ISOCHECK_TEST_STEAL_FIRST") && *std::getenv("ISOCHECK_TEST_STEAL_FIRST") == '1';
  // Any other exception a piece throws (an internal error: the known ones are
  // the piece's result already) becomes its result too, exit 3 on rank 0:
  // escaping rank 0's worker thread it would abort the process, and on another
  // rank it would leave rank 0 waiting for that rank's next request.
  auto solve = [&](uint32_t i) {
    try {
      return solve_fn ? solve_fn(i) : run_piece(job, i);
    } catch (const std::exception& e) {
      return piece_error(i, 3, std::string("internal error while checking piece ") + std::to_string(i) + ": " + e.what() +
                                   " (a bug in isocheck; no verdict is given: please report it with the command line)");
    }
  };
  int stop_all = 0;  // 1: a signal arrived somewhere
  if (rank() == 0) {
    std::mutex mu;
    std::atomic<bool> term_seen{false};
    // Local worker: computes pieces, never calls MPI.
    std::thread local([&] {
      while (true) {
        int i;
        {
          std::lock_guard<std::mutex> g(mu);
          if (g_terminate || term_seen) break;
          i = board.take(0);
        }
        if (i < 0) break;
        PieceResult r = solve(static_cast<uint32_t>(i));
        std::lock_guard<std::mutex> g(mu);
        record(std::move(r));
      }
    });
    int active = P - 1;
    // Per rank: stolen pieces it must send, (piece, thief), at its next request.
    std::vector<std::vector<int>> pending(P);
    while (active > 0) {
      MPI_Status st = wait_probe(MPI_ANY_SOURCE, kTagRequest);
      const int who = st.MPI_SOURCE;
      Request req;
      from_bytes(recv_string(st), req);
      // Reply: n, the rank sending the data of a stolen piece (-1: its own),
      // the n pieces to run (n = 0: stop; a stolen piece comes alone), then
      // (piece, rank) pairs this rank must send first.
      std::vector<int> batch{-1};
      int victim = -1;
      {
        std::lock_guard<std::mutex> g(mu);
        if (req.terminating || g_terminate) term_seen = true;
        for (auto& r : req.results) record(std::move(r));
        if (!term_seen) {
          if (steal_first) batch[0] = steal_piece(board, who, victim);
          // (The test hook hands out one piece at a time, so that owners leave
          // pieces to steal.)
          if (batch[0] < 0) batch = steal_first ? std::vector<int>{board.take(who)} : board.take_batch(who, board.take(who));
          if (batch[0] < 0 && mover) batch[0] = steal_piece(board, who, victim);
          if (batch[0] >= 0 && victim >= 0 && victim != 0) pending[victim].insert(pending[victim].end(), {batch[0], who});
        }
        if (batch[0] < 0) batch.clear();
      }
      std::vector<int> reply{static_cast<int>(batch.size()), batch.empty() ? -1 : victim};
      reply.insert(reply.end(), batch.begin(), batch.end());
      // (`pending` is this thread's alone: no lock.)
      reply.insert(reply.end(), pending[who].begin(), pending[who].end());
      pending[who].clear();
      MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_INT, who, kTagAssign, MPI_COMM_WORLD);
      if (!batch.empty() && victim == 0) {  // rank 0's data: the main thread sends it now
        mover->send(static_cast<uint32_t>(batch[0]), who);
        mover->finish();
      }
      if (batch.empty()) --active;
    }
    local.join();
    stop_all = (g_terminate || term_seen) ? 1 : 0;
  } else {
    Request req;
    while (true) {
      req.terminating = g_terminate;
      send_string(to_bytes(req), 0, kTagRequest);
      MPI_Status st = wait_probe(0, kTagAssign);
      int count = 0;
      MPI_Get_count(&st, MPI_INT, &count);
      std::vector<int> reply(static_cast<size_t>(count));
      MPI_Recv(reply.data(), count, MPI_INT, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const size_t n = static_cast<size_t>(reply[0]);
      const int from = reply[1];
      // Stolen pieces go out first (posted, not waited for: the thieves may
      // be sending to this rank too), then a stolen piece comes in.
      for (size_t k = 2 + n; k + 1 < reply.size(); k += 2) mover->send(static_cast<uint32_t>(reply[k]), reply[k + 1]);
      if (n > 0 && from >= 0) mover->recv(static_cast<uint32_t>(reply[2]), from);
      if (reply.size() > 2 + n) mover->finish();
      if (n == 0) break;
      // A signal is honoured between the pieces of a batch: the pieces not
      // started are left undone (a resumed run solves them).
      req.results.clear();
      for (size_t k = 0; k < n && !(k > 0 && g_terminate); ++k) req.results.push_back(solve(static_cast<uint32_t>(reply[2 + k])));
    }
  }
  MPI_Bcast(&stop_all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return stop_all != 0;
}

CheckResult merge(const Job& job, const std::map<int32_t, PieceResult>& done, uint32_t cutoff, uint64_t txns,
                  uint64_t committed) {
  CheckResult r;
  r.stats.txns = txns;
  r.stats.committed = committed;
  if (cutoff < job.pieces()) r.stats.blocks = job.p.comp_sessions.size(), r.stats.blocks_unchecked = job.pieces() - cutoff;
  for (Level l : job.opt.levels) r.levels.push_back({l});
  std::vector<Anomaly> anomalies;
  std::map<Level, const LevelOutcome*> violated, undecided;
  for (auto& [i, pr] : done) {
    if (static_cast<uint32_t>(i) >= cutoff) continue;
    // Anomalies: piece 0 is the whole history when SSER is asked, and then it
    // holds every anomaly (the blocks' pieces would repeat them).
    bool whole_piece = job.whole_sser && i == 0;
    if (whole_piece || !job.whole_sser)
      for (auto& a : pr.anomalies)
        anomalies.push_back({static_cast<AnomalyKind>(a.kind), a.txn, a.other, a.op, a.key, a.value});
    // Stats: edges summed over SER/SI pieces (each edge lies in one block);
    // the general engine's figures from the largest piece, as check() does.
    if (!(job.whole_sser && i == 0) || job.split_levels.empty()) r.stats.edges += pr.edges;
    r.stats.unordered_write_pairs += (job.whole_sser && i == 0 && !job.split_levels.empty()) ? 0 : pr.unordered_write_pairs;
    // (Checks by cases: each piece splits its own open reads, so the sum may
    // differ from one process's count over the whole history.)
    r.stats.open_read_checks += pr.open_read_checks;
    // (A piece no general engine ran on, all zeros, leaves them: one process
    // reports the levels that built a polygraph.)
    const bool engine_ran = pr.constraints || pr.ordered_by_time || pr.decided_at_build;
    if (engine_ran && pr.constraints >= r.stats.constraints) {
      r.stats.constraints = pr.constraints, r.stats.ordered_by_time = pr.ordered_by_time, r.stats.pruned = pr.pruned;
      r.stats.decided_at_build = pr.decided_at_build;
      r.stats.to_solver = pr.to_solver, r.stats.subproblems = pr.subproblems;
    }
    for (auto& o : pr.levels) {
      Level l = static_cast<Level>(o.level);
      if (!o.holds && o.decided && o.has_witness && !violated.count(l)) violated[l] = &o;
      else if (!o.holds && o.decided && !violated.count(l)) violated[l] = &o;
      if (!o.decided && !undecided.count(l)) undecided[l] = &o;
    }
  }
  // One piece that is the whole history keeps check()'s order; anomalies
  // merged from several blocks are sorted by transaction, operation, kind.
  bool whole = job.whole_sser || job.whole_split;
  if (!whole) std::sort(anomalies.begin(), anomalies.end(), [](const Anomaly& a, const Anomaly& b) {
    return std::tie(a.txn, a.op, a.kind, a.other, a.key, a.value) < std::tie(b.txn, b.op, b.kind, b.other, b.key, b.value);
  });
  r.anomalies = anomalies;
  // An anomaly fails the levels that forbid it, as check() says: SER, SI and
  // SSER every one; a weak level those its lattice rank does not allow (a
  // lost update fails SI and above, not read committed). The other levels
  // are decided by their pieces below.
  std::vector<uint8_t> by_anomaly(r.levels.size(), 0);
  for (size_t l = 0; l < r.levels.size(); ++l) {
    LevelResult& lr = r.levels[l];
    if (!is_weak(lr.level)) {
      if (!anomalies.empty())
        lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows", by_anomaly[l] = 1;
      continue;
    }
    for (const Anomaly& a : anomalies)
      if (anomaly_fails(a.kind, lr.level)) {
        lr.holds = false, by_anomaly[l] = 1, lr.reason = anomaly_fails_reason(a.kind, lr.level);
        break;
      }
  }
  if (!anomalies.empty() && std::find(by_anomaly.begin(), by_anomaly.end(), 0) == by_anomaly.end()) return r;
  auto fill = [&](LevelResult& lr, const LevelOutcome& o) {
    lr.holds = o.holds, lr.decided = o.decided, lr.reason = o.reason, lr.by_cases = o.by_cases;
    if (o.has_witness) {
      Witness w;
      w.anomaly = o.anomaly;
      for (size_t i = 0; i < o.src.size(); ++i) w.cycle.add(o.src[i], o.dst[i], static_cast<EdgeKind>(o.kind[i]), o.why[i]);
      for (size_t i = 0; i < o.core_key.size(); ++i)
        w.core.push_back({o.core_key[i], o.core_first[i], o.core_second[i], i < o.core_absence.size() && o.core_absence[i] != 0});
      w.core_minimal = o.core_minimal;
      w.cycle_anomaly = o.cycle_anomaly;
      for (size_t f = 0, e = 0; f < o.forced_edge.size(); ++f) {
        ForcedOrder fo;
        fo.edge = o.forced_edge[f], fo.anomaly = o.forced_anomaly[f];
        for (; e < o.forced_end[f]; ++e)
          fo.other_cycle.add(o.forced_src[e], o.forced_dst[e], static_cast<EdgeKind>(o.forced_kind[e]), o.forced_why[e]);
        w.forced.push_back(std::move(fo));
      }
      lr.witness = std::move(w);
    }
  };
  for (size_t l = 0; l < r.levels.size(); ++l) {
    LevelResult& lr = r.levels[l];
    if (by_anomaly[l]) continue;
    if (violated.count(lr.level)) fill(lr, *violated[lr.level]);
    else if (undecided.count(lr.level)) fill(lr, *undecided[lr.level]);
  }
  // As check(): an undecided SSER with a violated SER takes SER's witness.
  auto find = [&](Level l) -> LevelResult* {
    for (auto& lr : r.levels) if (lr.level == l) return &lr;
    return nullptr;
  };
  LevelResult *sser = find(Level::sser), *ser = find(Level::ser);
  if (sser && !sser->decided && violated.count(Level::ser)) {
    Level keep = sser->level;
    fill(*sser, *violated[Level::ser]);
    sser->level = keep;
  }
  (void)ser;
  return r;
}

}  // namespace isocheck::dist

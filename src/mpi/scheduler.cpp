#include "mpi/scheduler.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
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

PieceResult to_result(const CheckResult& r, int32_t piece, const History& h, const Projection* pr) {
  PieceResult out;
  out.piece = piece;
  auto gtxn = [&](TxnIdx t) { return pr ? pr->txn[t] : t; };
  auto gpos = [&](TxnIdx local_t, uint32_t pos) -> uint32_t {
    if (!pr) return pos;
    OpIdx local_op = pr->h.op_begin(local_t) + pos;
    return static_cast<uint32_t>(pr->op[local_op] - h.op_begin(pr->txn[local_t]));
  };
  for (const Anomaly& a : r.anomalies)
    out.anomalies.push_back({static_cast<uint8_t>(a.kind), gtxn(a.txn), gtxn(a.other), gpos(a.txn, a.op), a.key, a.value});
  for (const LevelResult& lr : r.levels) {
    LevelOutcome o;
    o.level = static_cast<uint8_t>(lr.level);
    o.holds = lr.holds, o.decided = lr.decided, o.reason = lr.reason;
    if (lr.witness) {
      const Witness& w = *lr.witness;
      o.has_witness = true;
      EdgeList e;
      for (size_t i = 0; i < w.cycle.size(); ++i) {
        // `why` is an operation position, with the inferred-order marker bit
        // (core/edges.h) on edges the general engine inferred: map the
        // position alone and keep the marker.
        uint32_t why = w.cycle.why[i];
        const uint32_t marker = why & kInferredBit;
        EdgeKind k = w.cycle.kind[i];
        if (k == EdgeKind::wr || k == EdgeKind::ww) why = gpos(w.cycle.dst[i], why_pos(why)) | marker;
        else if (k == EdgeKind::rw) why = gpos(w.cycle.src[i], why_pos(why)) | marker;
        e.add(gtxn(w.cycle.src[i]), gtxn(w.cycle.dst[i]), k, why);
      }
      o.anomaly = pr ? name_cycle(e, h) : w.anomaly;
      o.src = e.src, o.dst = e.dst, o.why = e.why;
      for (auto k : e.kind) o.kind.push_back(static_cast<uint8_t>(k));
      for (auto& c : w.core) o.core_key.push_back(c.key), o.core_first.push_back(gtxn(c.first_head)), o.core_second.push_back(gtxn(c.second_head));
      o.core_minimal = w.core_minimal;
    }
    out.levels.push_back(std::move(o));
  }
  out.edges = r.stats.edges, out.constraints = r.stats.constraints, out.ordered_by_time = r.stats.ordered_by_time;
  out.pruned = r.stats.pruned, out.to_solver = r.stats.to_solver, out.subproblems = r.stats.subproblems;
  out.unordered_write_pairs = r.stats.unordered_write_pairs;
  out.decided_at_build = r.stats.decided_at_build;
  return out;
}

}  // namespace

PieceResult run_piece(const Job& job, uint32_t i) {
  CheckOptions o = job.opt;
  o.levels = job.levels_of(i);
  // Every piece on its whole graph: its anomalies are listed (--all-violations)
  // and its witnesses are one process's whole-graph ones.
  o.localise = false;
  try {
    check_limits();
    note_ops_held(job.h.op_count());
    if ((job.whole_sser && i == 0) || job.whole_split) return to_result(check(job.h, o), static_cast<int32_t>(i), job.h, nullptr);
    uint32_t comp = i - (job.whole_sser ? 1 : 0);
    Projection pr = project(job.h, job.p, comp, job.included, &job.index);
    note_ops_held(job.h.op_count() + pr.h.op_count());
    return to_result(check(pr.h, o), static_cast<int32_t>(i), job.h, &pr);
  } catch (const InputError& e) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 2, r.error = e.what();
    return r;
  } catch (const ResourceError& e) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 3, r.error = e.what();
    return r;
  } catch (const std::bad_alloc&) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 3, r.error = "out of memory while checking a piece; run on machines with more memory";
    return r;
  }
}

bool run_work_queue(const Job& job, Board& board, const std::function<void(PieceResult&&)>& record) {
  const int P = size();
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
          i = board.take();
        }
        if (i < 0) break;
        PieceResult r = run_piece(job, static_cast<uint32_t>(i));
        std::lock_guard<std::mutex> g(mu);
        record(std::move(r));
      }
    });
    int active = P - 1;
    while (active > 0) {
      MPI_Status st = wait_probe(MPI_ANY_SOURCE, kTagRequest);
      Request req;
      from_bytes(recv_string(st), req);
      int assign;
      {
        std::lock_guard<std::mutex> g(mu);
        if (req.terminating || g_terminate) term_seen = true;
        if (req.has_result) record(std::move(req.result));
        assign = term_seen ? -1 : board.take();
      }
      MPI_Send(&assign, 1, MPI_INT, st.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD);
      if (assign < 0) --active;
    }
    local.join();
    stop_all = (g_terminate || term_seen) ? 1 : 0;
  } else {
    Request req;
    while (true) {
      req.terminating = g_terminate;
      send_string(to_bytes(req), 0, kTagRequest);
      int assign;
      wait_probe(0, kTagAssign);
      MPI_Recv(&assign, 1, MPI_INT, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (assign < 0) break;
      req.result = run_piece(job, static_cast<uint32_t>(assign));
      req.has_result = true;
    }
  }
  MPI_Bcast(&stop_all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return stop_all != 0;
}

CheckResult merge(const Job& job, const std::map<int32_t, PieceResult>& done, uint32_t cutoff, const History& h,
                  const std::vector<uint8_t>& included) {
  CheckResult r;
  r.stats.txns = h.txn_count();
  r.stats.committed = static_cast<size_t>(std::count(included.begin(), included.end(), 1));
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
    if (pr.constraints >= r.stats.constraints) {
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
  if (!anomalies.empty()) {
    for (auto& lr : r.levels) lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows";
    return r;
  }
  auto fill = [&](LevelResult& lr, const LevelOutcome& o) {
    lr.holds = o.holds, lr.decided = o.decided, lr.reason = o.reason;
    if (o.has_witness) {
      Witness w;
      w.anomaly = o.anomaly;
      for (size_t i = 0; i < o.src.size(); ++i) w.cycle.add(o.src[i], o.dst[i], static_cast<EdgeKind>(o.kind[i]), o.why[i]);
      for (size_t i = 0; i < o.core_key.size(); ++i) w.core.push_back({o.core_key[i], o.core_first[i], o.core_second[i]});
      w.core_minimal = o.core_minimal;
      lr.witness = std::move(w);
    }
  };
  for (auto& lr : r.levels) {
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

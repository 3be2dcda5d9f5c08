#include "solver/check.h"

#include <memory>

#include "closure/closure.h"
#include "closure/windowed_closure.h"
#include "core/enum_names.h"
#include "core/errors.h"

#include <algorithm>
#include <optional>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "graph/polygraph_build.h"
#include "solver/polygraph_solver.h"
#include "solver/acyclic.h"
#include "solver/forced_orders.h"
#include "solver/si_replay.h"
#include "solver/linearizability.h"
#include "solver/local_check.h"
#include "solver/open_reads.h"
#include "solver/witness.h"
#include "solver/weak_levels.h"

namespace isocheck {

// Why a history with scans' open reads (History::absent_choice_ops) is
// undecided where every read must name its version.
static std::string open_scan_read_text(const History& h) {
  for (OpIdx o : h.absent_choice_ops)
    if (h.value_predicate_of(o))
      return "a range scan with a value predicate did not return a key with several versions that do not match "
             "(which one it saw is open)";
  return "a range scan saw absent, or an insert required absent, a key another transaction deletes (which absent "
         "version it saw is open)";
}

namespace {

constexpr EnumName<ClosureChoice> kClosureChoices[] = {
    {ClosureChoice::automatic, "auto"}, {ClosureChoice::cpu, "cpu"}, {ClosureChoice::gpu, "gpu"}};
static_assert(indexed_by_value(kClosureChoices));

}  // namespace

const char* to_string(ClosureChoice c) { return name_in(kClosureChoices, c); }


namespace {

std::optional<Witness> cycle_witness(const LevelGraph& lg, const DependencyGraph& g, const History& h) {
  std::vector<uint32_t> cyc = find_cycle(lg.csr, lg.txn_count);
  if (cyc.empty()) return std::nullopt;
  Witness w;
  w.cycle = label_cycle(cyc, lg, g);
  w.anomaly = name_cycle(w.cycle, h);
  return w;
}

}  // namespace

namespace {

// Transactions with their real-time edges in a realtime-layout graph.
TimeWindows time_windows(const DependencyGraph& g, const History& h, uint32_t vertices, int64_t skew) {
  TimeWindows w;
  w.skew = skew;
  w.lo.assign(vertices, TimeWindows::kUnknown);
  w.hi.assign(vertices, TimeWindows::kUnknown);
  for (TxnIdx t = 0; t < g.n; ++t)
    if (g.included[t] && h.has_times(t)) w.lo[t] = h.txn_begin[t], w.hi[t] = h.txn_end[t];
  return w;
}

// `--closure auto` uses a GPU (when the build and the machine have one) from
// this many constraints on.
constexpr size_t kGpuAutoConstraints = 20000;

struct Outcome {
  bool holds = true, decided = true;
  std::string reason;
  std::optional<Witness> witness;
};

// Decides one level on the dependency graph: the linear engine when every
// relevant version order is known, the general engine (polygraph) otherwise.
Outcome decide(Level level, const DependencyGraph& g, const History& h, const CheckOptions& opt, CheckStats& stats,
               ClosureEngine* chosen_engine, EdgeList* donated) {
  Outcome out;
  bool relevant_unknown = false;
  for (auto& uk : g.unordered) relevant_unknown |= (!uk.si_only || level == Level::si);
  relevant_unknown |= !g.absent_choices.empty();
  GraphLayout layout = level == Level::si ? GraphLayout::split : level == Level::sser ? GraphLayout::realtime : GraphLayout::plain;
  // --time-order orders every key's writes by time, read or not (SSER's
  // real-time edges already do): the level polygraph carries those edges, so
  // SER and SI take it even when no version order is unknown.
  const bool time_edges = opt.time_order && layout != GraphLayout::realtime;
  if (!relevant_unknown && !time_edges) {
    if (layout != GraphLayout::realtime && forward_in_file_order(g)) return out;  // acyclic: holds
    LevelGraph lg = layout == GraphLayout::split ? si_graph(g)
                    : layout == GraphLayout::realtime ? sser_graph(g, h, opt.clock_skew)
                                                      : ser_graph(g);
    out.witness = cycle_witness(lg, g, h);
    out.holds = !out.witness;
    return out;
  }
  if (opt.linear_only && relevant_unknown) {
    out.decided = false;
    out.reason = g.unordered.empty()
                     ? std::to_string(g.absent_choices.size()) +
                           " range-scan or insert absences of deleted keys: which absent version each saw is open"
                     : std::to_string(g.unordered_write_pairs) + " unordered write pairs on " +
                           std::to_string(g.unordered.size()) + " keys (blind writes): the version order is unknown";
    return out;
  }
  PolygraphOptions po;
  po.layout = layout;
  po.clock_skew = opt.clock_skew;
  po.time_order = opt.time_order;
  po.include_si_only = level == Level::si;
  LevelPolygraph lp = build_level_polygraph(g, h, po, donated);
  SolveOptions so;
  so.backend = opt.cadical ? Backend::cadical : Backend::own;
  so.threads = opt.threads;
  std::unique_ptr<ClosureEngine> engine;
  if (chosen_engine) {
    so.closure = chosen_engine;
  } else if (opt.closure == ClosureChoice::automatic) {
    // A GPU pays for its transfers only on large problems.
    if (lp.pg.constraints.size() >= kGpuAutoConstraints) engine = make_closure_engine("gpu", opt.threads);
    so.closure = engine.get();
  }
  // SSER: real time answers reachability between non-overlapping
  // transactions; only overlapping pairs reach the closure engine.
  std::unique_ptr<ClosureEngine> cpu;
  std::unique_ptr<WindowedClosure> windowed;
  if (layout == GraphLayout::realtime) {
    if (!so.closure) {
      CpuClosureOptions co;
      co.threads = opt.threads;
      cpu = std::make_unique<CpuClosure>(co);
      so.closure = cpu.get();
    }
    windowed = std::make_unique<WindowedClosure>(*so.closure, time_windows(g, h, lp.pg.vertex_count, opt.clock_skew));
    so.closure = windowed.get();
  }
  PolygraphResult pr = solve_polygraph(lp.pg, so);
  if (lp.pg.constraints.size() >= stats.constraints) {
    stats.constraints = lp.pg.constraints.size();
    stats.ordered_by_time = lp.ordered_by_time;
    stats.decided_at_build = lp.decided_at_build;
    stats.pruned = pr.pruned;
    stats.to_solver = pr.to_solver;
    stats.subproblems = pr.subproblems;
  }
  if (!pr.decided) {
    out.decided = false;
    out.reason = "the SAT search ran out of its time budget";
    return out;
  }
  out.holds = pr.acyclic;
  if (!pr.acyclic) {
    Witness w;
    w.cycle = cycle_to_txn_edges(pr.witness_cycle, lp);
    w.anomaly = name_cycle(w.cycle, h);
    explain_forced_orders(w, lp, g, h);
    for (uint32_t c : pr.core_constraints) {
      const ConstraintOrigin& o = lp.origin[c];
      w.core.push_back({o.key, o.first_head, o.second_head, o.absence});
    }
    w.core_minimal = pr.core_minimal;
    out.witness = std::move(w);
  }
  return out;
}

// An engine named by the user must exist even when no graph is needed.
std::unique_ptr<ClosureEngine> chosen_closure(const CheckOptions& opt) {
  std::unique_ptr<ClosureEngine> chosen_engine;
  if (opt.closure == ClosureChoice::gpu) {
    chosen_engine = make_closure_engine(to_string(opt.closure), opt.threads);
    if (!chosen_engine)
      throw UsageError(std::string("--closure ") + to_string(opt.closure) + ": no such engine in this build or no device present");
  }
  return chosen_engine;
}

CheckResult check_levels(const History& h, DependencyGraph& g, const CheckOptions& opt,
                         std::unique_ptr<ClosureEngine> chosen_engine, bool ser_violated = false);

// The weak levels requested, weakest first. With lattice shortcuts a level is
// settled by a stronger one that holds (SI ⇒ PC ⇒ CC ⇒ RA ⇒ RC ⇒ RU) or a
// weaker weak one that fails; otherwise by its own engine.
void decide_weak_levels(const History& h, const DependencyGraph& g, const CheckOptions& opt, CheckResult& r) {
  std::vector<LevelResult*> weak;
  for (auto& lr : r.levels) if (is_weak(lr.level)) weak.push_back(&lr);
  if (weak.empty()) return;
  std::sort(weak.begin(), weak.end(), [](auto* a, auto* b) { return lattice_rank(a->level) < lattice_rank(b->level); });
  std::unique_ptr<WeakChecker> checker;
  const LevelResult* failed = nullptr;  // the weakest weak level found violated
  for (LevelResult* lr : weak) {
    const int rank = lattice_rank(lr->level);
    const Anomaly* anomaly = nullptr;
    for (const Anomaly& a : g.anomalies)
      if (anomaly_fails(a.kind, lr->level)) { anomaly = &a; break; }
    if (anomaly) {
      lr->holds = false;
      lr->reason = anomaly_fails_reason(anomaly->kind, lr->level);
      if (!failed) failed = lr;
      continue;
    }
    if (opt.lattice_shortcuts) {
      bool proved = false;
      for (auto& other : r.levels)
        proved |= lattice_rank(other.level) > rank && !is_weak(other.level) && other.decided && other.holds;
      if (proved) continue;
      if (failed && failed->decided) {
        lr->holds = false, lr->reason = failed->reason, lr->witness = failed->witness;
        continue;
      }
    }
    if (!h.absent_choice_ops.empty()) {
      // The weak engines resolve every read to one version; a scan's open
      // absence is several.
      lr->decided = false;
      lr->reason = open_scan_read_text(h) + ", and the weak levels are decided only where every read names its version";
      continue;
    }
    if (!checker) checker = std::make_unique<WeakChecker>(h, g);
    WeakOutcome o;
    if (lr->level == Level::pc) {
      std::string pre = checker->precondition(Level::pc);
      if (!pre.empty()) o.holds = false, o.reason = pre;
      else o = decide_prefix(h, g.included, opt, opt.lattice_shortcuts ? &g : nullptr);
    } else {
      o = checker->decide(lr->level);
    }
    lr->holds = o.holds, lr->decided = o.decided, lr->reason = o.reason, lr->witness = o.witness;
    if (!o.holds && o.decided && !failed) failed = lr;
  }
}

}  // namespace

namespace {

// The levels the serial witness did not settle (sw: its failed attempt, for
// the local search): around the failed read first, then the whole graph.
CheckResult check_without_witness(const History& h, const CheckOptions& opt, SerialWitness& sw,
                                  std::unique_ptr<ClosureEngine> chosen_engine) {
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  // (The local search checks regions of the history one read at a time;
  // a scan's open absence is not one read: it is left to the whole graph.)
  if (opt.serial_witness && opt.localise && h.absent_choice_ops.empty()) {
    // Without times on every transaction SSER refuses the replay before it
    // runs: file order still shows where to look.
    auto untimed = [&] {
      for (TxnIdx t = 0; t < h.txn_count(); ++t)
        if (h.txn_status[t] == TxnStatus::committed && !h.has_times(t)) return true;
      return false;
    };
    if (sw.failed_reads.empty() && (wants(Level::sser) || opt.time_order) && untimed())
      sw = find_serial_witness(h, false);
    LocalSearch ls = find_violations_locally(h, opt, sw.failed_reads);
    if (!ls.violated.empty()) {
      CheckResult r;
      if (ls.violated.size() == opt.levels.size()) {
        r.levels = std::move(ls.violated);
        r.stats = ls.stats;
        return r;
      }
      // The levels the region did not violate: the whole graph.
      CheckOptions rest = opt;
      rest.levels.clear();
      for (Level l : opt.levels) {
        auto it = std::find_if(ls.violated.begin(), ls.violated.end(), [&](const LevelResult& x) { return x.level == l; });
        if (it == ls.violated.end()) rest.levels.push_back(l);
      }
      KnownGraphOptions ko;
      ko.for_si = wants(Level::si);
      DependencyGraph g = build_known_graph(h, ko);
      // Anomalies make every level fail: the report is the whole graph's.
      if (!g.anomalies.empty()) return check_levels(h, g, opt, std::move(chosen_engine));
      r = check_levels(h, g, rest, std::move(chosen_engine), ls.ser_violated);
      for (LevelResult& lr : ls.violated) r.levels.push_back(std::move(lr));
      std::stable_sort(r.levels.begin(), r.levels.end(), [&](const LevelResult& a, const LevelResult& b) {
        auto pos = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) - opt.levels.begin(); };
        return pos(a.level) < pos(b.level);
      });
      return r;
    }
  }
  KnownGraphOptions ko;
  ko.for_si = wants(Level::si);
  DependencyGraph g = build_known_graph(h, ko);
  return check_levels(h, g, opt, std::move(chosen_engine));
}

}  // namespace

// check() of a history whose open reads (if any) the build places or
// refuses (OpenReadUndecided); check() splits those into cases.
static CheckResult check_placed(const History& h, const CheckOptions& opt);

CheckResult check(const History& h, const CheckOptions& opt) {
  if (h.absent_choice_ops.empty()) return check_placed(h, opt);
  return check_open_reads_by_cases(h, opt, check_placed);
}

static CheckResult check_placed(const History& h, const CheckOptions& opt) {
  if (std::find(opt.levels.begin(), opt.levels.end(), Level::lin) != opt.levels.end()) {
    // Linearizability has its own linear check; the other levels, if any,
    // are decided as usual and the results kept in the order asked.
    size_t included = 0;
    LevelResult lin{Level::lin};
    if (h.absent_choice_ops.empty()) {
      lin = check_linearizable(h, opt.clock_skew, &included);
    } else {
      lin.decided = false;
      lin.reason = open_scan_read_text(h) + "; linearizability is decided only where every read names its version";
    }
    CheckOptions rest = opt;
    rest.levels.erase(std::remove(rest.levels.begin(), rest.levels.end(), Level::lin), rest.levels.end());
    CheckResult r;
    if (!rest.levels.empty()) r = check(h, rest);
    else r.stats.txns = h.txn_count(), r.stats.committed = included;
    r.levels.insert(r.levels.begin() + (std::find(opt.levels.begin(), opt.levels.end(), Level::lin) - opt.levels.begin()),
                    std::move(lin));
    return r;
  }
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  std::unique_ptr<ClosureEngine> chosen_engine = chosen_closure(opt);
  SerialWitness sw;
  // Shared by the serial witness and the SI replay; dropped before any graph.
  std::optional<ReplayInputs> replay_inputs(std::in_place, h);
  if (opt.serial_witness) {
    // A replay that succeeds proves every requested level; one that fails
    // proves nothing, and the graph engines below decide.
    // Under --time-order only the begin- and end-time orders (every
    // transaction timed) respect the write order it assumes; file order need not.
    sw = find_serial_witness(h, wants(Level::sser) || opt.time_order, &*replay_inputs);
    if (sw.found()) {
      CheckResult r;
      r.stats.txns = h.txn_count();
      r.stats.committed = sw.committed;
      r.stats.witness = sw.order;
      for (Level l : opt.levels) r.levels.push_back({l});
      return r;
    }
  }
  if (opt.si_replay && wants(Level::si)) {
    // A clean SI replay settles SI (before any local search or graph, so a
    // write skew does not make SI cost a graph of the whole history); the
    // other levels are decided as usual. A failed replay proves nothing.
    SiReplay sr = find_si_replay(h, opt.time_order, opt.clock_skew, true, &*replay_inputs);
    replay_inputs.reset();
    if (sr.found()) {
      CheckOptions rest = opt;
      rest.levels.erase(std::find(rest.levels.begin(), rest.levels.end(), Level::si));
      CheckResult r;
      r.stats.txns = h.txn_count();
      r.stats.committed = sr.committed;
      if (!rest.levels.empty()) r = check_without_witness(h, rest, sw, std::move(chosen_engine));
      r.stats.si_replay = true;
      r.stats.si_replay_order = sr.order == SiTies::begin_order ? 1 : sr.order == SiTies::end_order ? 2 : 0;
      const auto at = std::find(opt.levels.begin(), opt.levels.end(), Level::si) - opt.levels.begin();
      r.levels.insert(r.levels.begin() + at, LevelResult{Level::si});
      return r;
    }
  }
  replay_inputs.reset();
  return check_without_witness(h, opt, sw, std::move(chosen_engine));
}

CheckResult check_graph(const History& h, DependencyGraph& g, const CheckOptions& opt) {
  return check_levels(h, g, opt, chosen_closure(opt));
}

namespace {

// ser_violated: a cycle already shows SER violated (SI alone then need not
// try SER first).
CheckResult check_levels(const History& h, DependencyGraph& g, const CheckOptions& opt,
                         std::unique_ptr<ClosureEngine> chosen_engine, bool ser_violated) {
  CheckResult r;
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  // An anomaly is reported when it violates some requested level: prefix
  // consistency allows a lost update, read committed a non-repeatable read.
  int strongest = 0;
  for (Level l : opt.levels) strongest = std::max(strongest, lattice_rank(l));
  for (const Anomaly& a : g.anomalies)
    if (lattice_rank(weakest_level_violated(a.kind)) <= strongest) r.anomalies.push_back(a);
  r.stats.txns = h.txn_count();
  r.stats.committed = static_cast<size_t>(std::count(g.included.begin(), g.included.end(), 1));
  r.stats.edges = g.edges.size();
  r.stats.unordered_write_pairs = g.unordered_write_pairs;
  for (Level l : opt.levels) r.levels.push_back({l});
  auto result_of = [&](Level l) -> LevelResult& {
    return *std::find_if(r.levels.begin(), r.levels.end(), [&](const LevelResult& x) { return x.level == l; });
  };
  auto set = [&](Level l, const Outcome& o) {
    if (!wants(l)) return;
    LevelResult& lr = result_of(l);
    lr.holds = o.holds, lr.decided = o.decided, lr.reason = o.reason, lr.witness = o.witness;
  };
  const bool strong = wants(Level::ser) || wants(Level::si) || wants(Level::sser);
  if (strong && !g.anomalies.empty()) {
    for (auto& lr : r.levels)
      if (!is_weak(lr.level)) lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows";
  } else if (strong) {
    // SER or SSER alone is decided once, so its general engine may take the
    // graph's edges instead of copying them (the largest array at that point).
    // (SI alone tries SER first and then needs them again; PC may need them.)
    EdgeList* donate = opt.levels.size() == 1 && opt.levels[0] != Level::si ? &g.edges : nullptr;
    // SSER ⊇ SER ⊇ SI in what they forbid: a valid stronger level settles the
    // weaker ones, and a cycle for a weaker level is a cycle for the stronger.
    std::optional<Outcome> ser, si, sser;
    if (wants(Level::sser)) {
      sser = decide(Level::sser, g, h, opt, r.stats, chosen_engine.get(), donate);
      if (sser->decided && sser->holds) ser = si = Outcome{};
    }
    if (!ser && (wants(Level::ser) || (wants(Level::si) && !ser_violated))) {
      ser = decide(Level::ser, g, h, opt, r.stats, chosen_engine.get(), donate);
      if (ser->decided && ser->holds) si = Outcome{};
      if (sser && !sser->decided && ser->decided && !ser->holds) sser = ser;
    }
    if (!si && wants(Level::si)) si = decide(Level::si, g, h, opt, r.stats, chosen_engine.get(), donate);
    if (sser) set(Level::sser, *sser);
    if (ser) set(Level::ser, *ser);
    if (si) set(Level::si, *si);
  }
  decide_weak_levels(h, g, opt, r);
  return r;
}

}  // namespace

}  // namespace isocheck

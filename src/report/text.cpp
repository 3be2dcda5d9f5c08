// The text report: a verdict per level, the witness explained edge by edge.
#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/text_escape.h"
#include "report/shared.h"

namespace isocheck {
using namespace report_detail;

// The unknown orders of a general-engine refutation shown before "and N more".
constexpr size_t kCoreShown = 20;

void write_text(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  out << printable(ctx.file) << ": " << r.stats.txns << " transactions (" << r.stats.committed
      << " committed or observed)\n";
  // The note has one line per reason (ImportStats::describe).
  for (size_t a = 0, b; a < ctx.import_note.size(); a = b + 1) {
    b = std::min(ctx.import_note.find('\n', a), ctx.import_note.size());
    if (b > a) out << "import: " << one_line(std::string_view(ctx.import_note).substr(a, b - a)) << "\n";
  }
  if (LatticeSummary ls = lattice_summary(r); ls.shown) {
    std::vector<const LevelResult*> by_rank;
    for (auto& lr : r.levels) by_rank.push_back(&lr);
    std::sort(by_rank.begin(), by_rank.end(),
              [](auto* a, auto* b) { return lattice_rank(a->level) < lattice_rank(b->level); });
    out << "lattice:";
    for (auto* lr : by_rank)
      out << " " << level_short(lr->level) << "=" << (!lr->decided ? "undecided" : lr->holds ? "holds" : "VIOLATED");
    out << "\n  strongest that holds: "
        << (ls.strongest_holding ? std::string(level_short(ls.strongest_holding->level)) + " (" +
                                       to_string(ls.strongest_holding->level) + ")"
                                 : std::string("none of those checked"));
    out << "\n  weakest violated: ";
    if (!ls.weakest_violated) {
      out << "none of those checked\n";
    } else {
      const LevelResult& w = *ls.weakest_violated;
      out << level_short(w.level) << " (" << to_string(w.level) << "): "
          << failure_name(w, r) << "\n";
    }
  }
  if (r.stats.witness != WitnessOrder::none)
    out << "serial witness: replaying the committed transactions in " << to_string(r.stats.witness)
        << ", every read returns the latest write to its key (no dependency graph needed)\n";
  if (r.stats.si_replay && r.stats.si_replay_order == 0)
    out << "SI replay: begin and commit events in time order, every read answered from the snapshot at its "
           "begin, no concurrent writers of a key (si decided with no dependency graph)\n";
  else if (r.stats.si_replay)
    out << "SI replay: commits in " << (r.stats.si_replay_order == 1 ? "begin" : "end")
        << "-time order, each snapshot the latest one that answers its reads, no concurrent writers of a key (si "
           "decided with no dependency graph)\n";
  if (r.stats.constraints > 0 || r.stats.ordered_by_time > 0 || r.stats.decided_at_build > 0)
    out << "general engine: " << r.stats.unordered_write_pairs << " unordered write pairs; chain pairs: "
        << r.stats.ordered_by_time << " ordered by real time, " << r.stats.decided_at_build
        << " forced while building, " << r.stats.constraints << " constraints, " << r.stats.pruned
        << " decided by pruning, " << r.stats.to_solver << " to the SAT solver in " << r.stats.subproblems
        << " sub-problems\n";
  if (r.stats.open_read_checks > 0)
    out << "open reads decided by cases: " << r.stats.open_read_checks
        << " checks (a range scan that did not return a key saw one of the key's versions it excludes, or an insert "
           "one of its absent versions, and the history does not say which: each such version was tried; "
           "--open-read-cases bounds them)\n";
  if (r.stats.blocks_unchecked > 0)
    out << "not checked: " << r.stats.blocks_unchecked << " of the history's " << r.stats.blocks
        << " blocks, past the first violation of every level (anomalies in them are not listed; --all-violations "
           "checks every block)\n";
  if (!r.anomalies.empty()) {
    out << "anomalies (none of SER, SI, SSER allows these): " << r.anomalies.size() << "\n";
    size_t shown = 0;
    for (auto& a : r.anomalies) {
      if (shown++ == 20) { out << "  ... and " << r.anomalies.size() - 20 << " more (--json lists all)\n"; break; }
      out << "  " << to_string(a.kind) << ": " << explain_anomaly(h, a) << " [rules out "
          << rules_out_text(weakest_ruled_out(a.kind)) << "]\n";
    }
    out << "  rules out: " << rules_out_line(weakest_of_anomalies(r)) << "\n";
  }
  const Witness* prev = nullptr;
  const Anomaly* prev_anomaly = nullptr;
  for (auto& lr : r.levels) {
    out << to_string(lr.level) << ": ";
    if (!lr.decided) { out << "UNDECIDED: " << one_line(lr.reason) << "\n"; continue; }
    if (lr.holds) { out << "holds\n"; continue; }
    if (!lr.witness) {
      // Failed by per-transaction anomalies: named by the first the level
      // forbids (the one a weak level's reason names), explained once.
      const LevelAnomalies f = anomalies_failing(r, lr);
      if (!f.first) { out << "VIOLATED (" << one_line(lr.reason) << ")\n"; continue; }
      out << "VIOLATED: " << to_string(f.first->kind) << "\n";
      if (!lr.reason.empty()) out << "  " << one_line(lr.reason) << "\n";
      out << "  rules out: " << rules_out_line(weakest_ruled_out(f.first->kind)) << "\n";
      if (f.first == prev_anomaly) {
        out << "  (the same anomaly as above)\n";
      } else {
        out << "  " << explain_anomaly(h, *f.first);
        if (f.count > 1) out << " (the first of " << f.count << " anomalies listed above that " << level_short(lr.level) << " does not allow)";
        out << "\n";
      }
      prev_anomaly = f.first;
      continue;
    }
    out << "VIOLATED: " << lr.witness->anomaly;
    if (!lr.witness->cycle_anomaly.empty())
      out << " (what was observed forces the write orders the cycle below takes; by its own edges it is "
          << lr.witness->cycle_anomaly << ")";
    out << "\n";
    if (!lr.reason.empty()) out << "  " << one_line(lr.reason) << "\n";  // e.g. linearizability's summary
    out << "  rules out: " << rules_out_line(weakest_ruled_out(h, lr, r)) << "\n";
    if (same_cycle(prev, &*lr.witness)) {
      out << "  (the same cycle as above)\n";
      continue;
    }
    const EdgeList& c = lr.witness->cycle;
    for (size_t i = 0; i < c.size(); ++i) {
      out << "  " << txn_name(h, c.src[i]) << " -" << to_string(c.kind[i]) << "-> " << txn_name(h, c.dst[i]) << ": "
          << witness_edge_text(h, *lr.witness, i) << "\n";
      for (const ForcedOrder& f : lr.witness->forced) {
        if (f.edge != i) continue;
        // (A scan's open absence has places, not orders: graph/known_graph.h AbsentChoice.)
        const bool place = is_absence_edge(h, c, i);
        out << "    forced: the other "
            << (place ? std::string("place of the ") + absence_reader_word(h, c, i) : std::string("order"))
            << " would be a cycle of what was observed, "
            << f.anomaly << ":\n";
        for (size_t e = 0; e < f.other_cycle.size(); ++e)
          out << "      " << txn_name(h, f.other_cycle.src[e]) << " -" << to_string(f.other_cycle.kind[e]) << "-> "
              << txn_name(h, f.other_cycle.dst[e]) << ": " << (e == 0 ? (place ? "(the other place) " : "(the other order) ") : "")
              << explain_edge(h, f.other_cycle, e) << "\n";
      }
    }
    const auto& core = lr.witness->core;
    if (!core.empty()) {
      out << "  unsatisfiable core: " << core.size() << " unknown write order" << (core.size() == 1 ? "" : "s")
          << (lr.witness->core_minimal ? " (minimal: dropping any one leaves an order that works)"
                                       : " (not shown to be minimal)")
          << "; every way to settle " << (core.size() == 1 ? "it" : "them")
          << " closes a cycle with the certain edges; the cycle above is one of them:\n";
      for (size_t i = 0; i < core.size() && i < kCoreShown; ++i) out << "    - " << explain_constraint(h, core[i]) << "\n";
      if (core.size() > kCoreShown) out << "    ... and " << core.size() - kCoreShown << " more (--json lists all)\n";
    }
    prev = &*lr.witness;
  }
}

}  // namespace isocheck

#include "solver/check.h"

#include <algorithm>

#include "graph/known_graph.h"
#include "graph/level_graphs.h"
#include "solver/acyclic.h"
#include "solver/witness.h"

namespace isocheck {

const char* to_string(Level l) {
  switch (l) {
    case Level::ser: return "serializable";
    case Level::si: return "snapshot-isolation";
    case Level::sser: return "strict-serializable";
  }
  return "?";
}

const char* to_string(AnomalyKind k) {
  switch (k) {
    case AnomalyKind::aborted_read: return "G1a (aborted read)";
    case AnomalyKind::intermediate_read: return "G1b (intermediate read)";
    case AnomalyKind::thin_air_read: return "thin-air read";
    case AnomalyKind::internal_read: return "internal inconsistency";
    case AnomalyKind::nonrepeatable_read: return "non-repeatable read";
    case AnomalyKind::duplicate_write: return "duplicate write";
    case AnomalyKind::lost_update: return "lost update";
    case AnomalyKind::incompatible_order: return "incompatible order";
  }
  return "?";
}

const char* to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::so: return "so";
    case EdgeKind::wr: return "wr";
    case EdgeKind::ww: return "ww";
    case EdgeKind::rt: return "rt";
    case EdgeKind::rw: return "rw";
    case EdgeKind::aux: return "aux";
  }
  return "?";
}

bool CheckResult::all_hold() const {
  return std::all_of(levels.begin(), levels.end(), [](const LevelResult& r) { return r.holds && r.decided; });
}

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

CheckResult check(const History& h, const CheckOptions& opt) {
  CheckResult r;
  auto wants = [&](Level l) { return std::find(opt.levels.begin(), opt.levels.end(), l) != opt.levels.end(); };
  KnownGraphOptions ko;
  ko.for_si = wants(Level::si);
  DependencyGraph g = build_known_graph(h, ko);
  r.anomalies = g.anomalies;
  r.stats.txns = h.txn_count();
  r.stats.committed = static_cast<size_t>(std::count(g.included.begin(), g.included.end(), 1));
  r.stats.edges = g.edges.size();
  r.stats.unordered_write_pairs = g.unordered_write_pairs;
  for (Level l : opt.levels) r.levels.push_back({l});
  auto result_of = [&](Level l) -> LevelResult& {
    return *std::find_if(r.levels.begin(), r.levels.end(), [&](const LevelResult& x) { return x.level == l; });
  };

  if (!g.anomalies.empty()) {
    for (auto& lr : r.levels) lr.holds = false, lr.reason = "the history contains anomalies no isolation level allows";
    return r;
  }
  size_t full_unknown = 0;
  for (auto& uk : g.unordered) full_unknown += !uk.si_only;
  std::string unknown_reason = std::to_string(g.unordered_write_pairs) + " unordered write pairs on " +
                               std::to_string(g.unordered.size()) + " keys (blind writes): the version order is unknown";
  if (full_unknown > 0) {
    // Blind writes leave some version order unknown; never guess it.
    for (auto& lr : r.levels) lr.decided = false, lr.reason = unknown_reason;
    return r;
  }
  // Some orders matter only to SI (unread blind writes): SER and SSER decide
  // as usual, and a serializable history is snapshot isolated.
  const bool si_needs_order = !g.unordered.empty();

  // SSER ⊇ SER ⊇ SI in edges: a valid stronger level settles the weaker ones,
  // and a cycle for a weaker level is a cycle for the stronger one.
  std::optional<Witness> ser_w, sser_w, si_w;
  bool ser_known = false, sser_known = false;
  if (wants(Level::sser)) {
    LevelGraph lg = sser_graph(g, h, opt.clock_skew);
    sser_w = cycle_witness(lg, g, h);
    sser_known = true;
    if (!sser_w) ser_known = true;  // and SER holds
  }
  if (!ser_known && (wants(Level::ser) || wants(Level::si))) {
    LevelGraph lg = ser_graph(g);
    ser_w = cycle_witness(lg, g, h);
    ser_known = true;
  }
  if (wants(Level::sser) && !sser_known) sser_w = ser_w;
  if (wants(Level::sser)) {
    auto& lr = result_of(Level::sser);
    lr.holds = !sser_w, lr.witness = sser_w;
  }
  if (wants(Level::ser)) {
    auto& lr = result_of(Level::ser);
    lr.holds = !ser_w, lr.witness = ser_w;
  }
  if (wants(Level::si)) {
    auto& lr = result_of(Level::si);
    if (ser_known && !ser_w) {
      lr.holds = true;
    } else if (si_needs_order) {
      lr.decided = false, lr.reason = unknown_reason;
    } else {
      LevelGraph lg = si_graph(g);
      si_w = cycle_witness(lg, g, h);
      lr.holds = !si_w, lr.witness = si_w;
    }
  }
  return r;
}

}  // namespace isocheck

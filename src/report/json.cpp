// The JSON report (schema in docs/report.md).
#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/text_escape.h"
#include "report/shared.h"

namespace isocheck {
using namespace report_detail;

namespace {

// "[" item(0) "," item(1) ... "]": each item writes itself.
template <class Item> void json_list(std::ostream& out, size_t n, Item item) {
  out << "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) out << ",";
    item(i);
  }
  out << "]";
}

void json_rules_out(std::ostream& out, Model weakest) {
  const int w = static_cast<int>(weakest);
  json_list(out, w < kModelCount ? kModelCount - w : 0,
            [&](size_t i) { out << '"' << model_name(static_cast<Model>(w + i)) << '"'; });
}

// A cycle's edges, each with its explanation(i).
template <class Explain>
void json_cycle(std::ostream& out, const History& h, const EdgeList& c, Explain explanation) {
  json_list(out, c.size(), [&](size_t i) {
    out << "{\"from\":" << h.txn_id[c.src[i]] << ",\"to\":" << h.txn_id[c.dst[i]] << ",\"kind\":\""
        << to_string(c.kind[i]) << "\",\"explanation\":";
    json_string(out, explanation(i));
    out << "}";
  });
}

void json_witness(std::ostream& out, const History& h, const Witness& w) {
  out << ",\"cycle\":";
  json_cycle(out, h, w.cycle, [&](size_t i) { return witness_edge_text(h, w, i); });
  if (!w.cycle_anomaly.empty()) {
    out << ",\"cycle_anomaly\":";
    json_string(out, w.cycle_anomaly);
  }
  if (!w.forced.empty()) {
    // Per inferred order: the cycle of observed edges its other order
    // would close (its first edge is that other order).
    out << ",\"forced\":";
    json_list(out, w.forced.size(), [&](size_t fi) {
      const ForcedOrder& f = w.forced[fi];
      out << "{\"edge\":" << f.edge << ",\"anomaly\":";
      json_string(out, f.anomaly);
      out << ",\"other_cycle\":";
      json_cycle(out, h, f.other_cycle, [&](size_t e) { return explain_edge(h, f.other_cycle, e); });
      out << "}";
    });
  }
  if (!w.core.empty()) {
    out << ",\"core_minimal\":" << (w.core_minimal ? "true" : "false") << ",\"core\":";
    json_list(out, w.core.size(), [&](size_t i) {
      const ConstraintRef& k = w.core[i];
      out << "{\"key\":";
      json_string(out, h.keys.text(k.key));
      out << ",\"first_head\":" << h.txn_id[k.first_head] << ",\"second_head\":" << h.txn_id[k.second_head];
      if (k.absence) out << ",\"scan_absence\":true";
      out << ",\"explanation\":";
      json_string(out, explain_constraint(h, k));
      out << "}";
    });
  }
}

void json_anomaly(std::ostream& out, const History& h, const Anomaly& a);

void json_level(std::ostream& out, const History& h, const LevelResult& lr, const CheckResult& r) {
  out << "{\"level\":";
  json_string(out, to_string(lr.level));
  out << ",\"decided\":" << (lr.decided ? "true" : "false") << ",\"holds\":" << (lr.decided && lr.holds ? "true" : "false");
  out << ",\"reason\":";
  json_string(out, lr.reason);
  if (lr.witness) {
    out << ",\"anomaly\":";
    json_string(out, lr.witness->anomaly);
    out << ",\"rules_out\":";
    json_rules_out(out, weakest_ruled_out(h, lr, r));
    json_witness(out, h, *lr.witness);
  } else if (LevelAnomalies f = anomalies_failing(r, lr); f.first) {
    // Failed by per-transaction anomalies, not by a cycle: named by the first
    // of them that the level forbids (the one a weak level's reason names).
    out << ",\"anomaly\":";
    json_string(out, to_string(f.first->kind));
    out << ",\"rules_out\":";
    json_rules_out(out, weakest_ruled_out(f.first->kind));
    out << ",\"first_anomaly\":";
    json_anomaly(out, h, *f.first);
    out << ",\"anomaly_count\":" << f.count;
  }
  out << "}";
}

void json_anomaly(std::ostream& out, const History& h, const Anomaly& a) {
  out << "{\"kind\":";
  json_string(out, to_string(a.kind));
  out << ",\"txn\":" << h.txn_id[a.txn] << ",\"other\":" << h.txn_id[a.other] << ",\"key\":";
  json_string(out, h.keys.text(a.key));
  out << ",\"rules_out\":";
  json_rules_out(out, weakest_ruled_out(a.kind));
  out << ",\"explanation\":";
  json_string(out, explain_anomaly(h, a));
  out << "}";
}

}  // namespace

void write_json(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  out << "{\"file\":";
  json_string(out, ctx.file);
  out << ",\"transactions\":" << r.stats.txns << ",\"committed\":" << r.stats.committed
      << ",\"holds\":" << (exit_code(r) == 0 ? "true" : "false") << ",\"exit_code\":" << exit_code(r);
  out << ",\"import\":";
  json_string(out, ctx.import_note);
  if (LatticeSummary ls = lattice_summary(r); ls.shown) {
    out << ",\"lattice\":{\"strongest_holding\":";
    if (ls.strongest_holding) json_string(out, to_string(ls.strongest_holding->level));
    else out << "null";
    out << ",\"weakest_violated\":";
    if (!ls.weakest_violated) {
      out << "null";
    } else {
      out << "{\"level\":";
      json_string(out, to_string(ls.weakest_violated->level));
      out << ",\"anomaly\":";
      const LevelResult& w = *ls.weakest_violated;
      const Anomaly* first = anomalies_failing(r, w).first;
      json_string(out, w.witness ? w.witness->anomaly : first ? std::string(to_string(first->kind)) : w.reason);
      out << "}";
    }
    out << "}";
  }
  out << ",\"levels\":";
  json_list(out, r.levels.size(), [&](size_t i) { json_level(out, h, r.levels[i], r); });
  out << ",\"anomalies\":";
  json_list(out, r.anomalies.size(), [&](size_t i) { json_anomaly(out, h, r.anomalies[i]); });
  out << ",\"stats\":{\"edges\":" << r.stats.edges << ",\"constraints\":" << r.stats.constraints
      << ",\"ordered_by_time\":" << r.stats.ordered_by_time << ",\"decided_at_build\":" << r.stats.decided_at_build << ",\"subproblems\":" << r.stats.subproblems
      << ",\"pruned\":" << r.stats.pruned << ",\"to_solver\":" << r.stats.to_solver
      << ",\"unordered_write_pairs\":" << r.stats.unordered_write_pairs << ",\"serial_witness\":";
  if (r.stats.witness == WitnessOrder::none) out << "null";
  else json_string(out, to_string(r.stats.witness));
  out << ",\"si_replay\":" << (r.stats.si_replay ? "true" : "false");
  if (r.stats.blocks_unchecked > 0)  // (ranks only: see the text report)
    out << ",\"blocks\":" << r.stats.blocks << ",\"blocks_unchecked\":" << r.stats.blocks_unchecked;
  if (r.stats.open_read_checks > 0) out << ",\"open_read_checks\":" << r.stats.open_read_checks;
  out << ",\"seconds\":" << ctx.seconds << "}}\n";
}

}  // namespace isocheck

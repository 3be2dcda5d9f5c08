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

void json_rules_out(std::ostream& out, Model weakest) {
  out << "[";
  for (int m = static_cast<int>(weakest); m < kModelCount; ++m)
    out << (m == static_cast<int>(weakest) ? "" : ",") << '"' << model_name(static_cast<Model>(m)) << '"';
  out << "]";
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
      json_string(out, ls.weakest_violated->witness ? ls.weakest_violated->witness->anomaly : ls.weakest_violated->reason);
      out << "}";
    }
    out << "}";
  }
  out << ",\"levels\":[";
  for (size_t li = 0; li < r.levels.size(); ++li) {
    auto& lr = r.levels[li];
    out << (li ? "," : "") << "{\"level\":";
    json_string(out, to_string(lr.level));
    out << ",\"decided\":" << (lr.decided ? "true" : "false") << ",\"holds\":" << (lr.decided && lr.holds ? "true" : "false");
    out << ",\"reason\":";
    json_string(out, lr.reason);
    if (lr.witness) {
      out << ",\"anomaly\":";
      json_string(out, lr.witness->anomaly);
      out << ",\"rules_out\":";
      json_rules_out(out, weakest_ruled_out(h, lr, r));
      out << ",\"cycle\":[";
      const EdgeList& c = lr.witness->cycle;
      for (size_t i = 0; i < c.size(); ++i) {
        out << (i ? "," : "") << "{\"from\":" << h.txn_id[c.src[i]] << ",\"to\":" << h.txn_id[c.dst[i]]
            << ",\"kind\":\"" << to_string(c.kind[i]) << "\",\"explanation\":";
        json_string(out, witness_edge_text(h, *lr.witness, i));
        out << "}";
      }
      out << "]";
      if (!lr.witness->cycle_anomaly.empty()) {
        out << ",\"cycle_anomaly\":";
        json_string(out, lr.witness->cycle_anomaly);
      }
      if (!lr.witness->forced.empty()) {
        // Per inferred order: the cycle of observed edges its other order
        // would close (its first edge is that other order).
        out << ",\"forced\":[";
        for (size_t fi = 0; fi < lr.witness->forced.size(); ++fi) {
          const ForcedOrder& f = lr.witness->forced[fi];
          out << (fi ? "," : "") << "{\"edge\":" << f.edge << ",\"anomaly\":";
          json_string(out, f.anomaly);
          out << ",\"other_cycle\":[";
          for (size_t e = 0; e < f.other_cycle.size(); ++e) {
            out << (e ? "," : "") << "{\"from\":" << h.txn_id[f.other_cycle.src[e]] << ",\"to\":"
                << h.txn_id[f.other_cycle.dst[e]] << ",\"kind\":\"" << to_string(f.other_cycle.kind[e])
                << "\",\"explanation\":";
            json_string(out, explain_edge(h, f.other_cycle, e));
            out << "}";
          }
          out << "]}";
        }
        out << "]";
      }
      if (!lr.witness->core.empty()) {
        out << ",\"core_minimal\":" << (lr.witness->core_minimal ? "true" : "false") << ",\"core\":[";
        for (size_t i = 0; i < lr.witness->core.size(); ++i) {
          const ConstraintRef& k = lr.witness->core[i];
          out << (i ? "," : "") << "{\"key\":";
          json_string(out, h.keys.text(k.key));
          out << ",\"first_head\":" << h.txn_id[k.first_head] << ",\"second_head\":" << h.txn_id[k.second_head]
              << ",\"explanation\":";
          json_string(out, explain_constraint(h, k));
          out << "}";
        }
        out << "]";
      }
    }
    out << "}";
  }
  out << "],\"anomalies\":[";
  for (size_t i = 0; i < r.anomalies.size(); ++i) {
    auto& a = r.anomalies[i];
    out << (i ? "," : "") << "{\"kind\":";
    json_string(out, to_string(a.kind));
    out << ",\"txn\":" << h.txn_id[a.txn] << ",\"other\":" << h.txn_id[a.other] << ",\"key\":";
    json_string(out, h.keys.text(a.key));
    out << ",\"rules_out\":";
    json_rules_out(out, weakest_ruled_out(a.kind));
    out << ",\"explanation\":";
    json_string(out, explain_anomaly(h, a));
    out << "}";
  }
  out << "],\"stats\":{\"edges\":" << r.stats.edges << ",\"constraints\":" << r.stats.constraints
      << ",\"ordered_by_time\":" << r.stats.ordered_by_time << ",\"decided_at_build\":" << r.stats.decided_at_build << ",\"subproblems\":" << r.stats.subproblems
      << ",\"pruned\":" << r.stats.pruned << ",\"to_solver\":" << r.stats.to_solver
      << ",\"unordered_write_pairs\":" << r.stats.unordered_write_pairs << ",\"serial_witness\":";
  if (r.stats.witness == WitnessOrder::none) out << "null";
  else json_string(out, to_string(r.stats.witness));
  out << ",\"si_replay\":" << (r.stats.si_replay ? "true" : "false");
  out << ",\"seconds\":" << ctx.seconds << "}}\n";
}

}  // namespace isocheck

// Helpers the report's writers share (report/shared.h).
#include "report/shared.h"

#include <algorithm>

#include "core/text_escape.h"
#include "report/report.h"

namespace isocheck {
namespace report_detail {

// An edge's explanation; in a general-engine refutation, ww/rw edges on a key
// of the core rest on one of the orders being refuted, and say so.
std::string witness_edge_text(const History& h, const Witness& w, size_t i) {
  std::string s = explain_edge(h, w.cycle, i);
  const EdgeList& c = w.cycle;
  if (w.core.empty() || (c.kind[i] != EdgeKind::ww && c.kind[i] != EdgeKind::rw)) return s;
  TxnIdx t = c.kind[i] == EdgeKind::ww ? c.dst[i] : c.src[i];
  OpIdx o = h.op_begin(t) + why_pos(c.why[i]);
  if (o >= h.op_end(t)) return s;
  for (const ConstraintRef& k : w.core)
    if (k.key == h.op_key[o]) return s + " [one of the unknown orders below]";
  return s;
}

// "SER, SSER (not RU, RC, ...; this evidence alone ...)" for people.
std::string rules_out_line(Model weakest) {
  std::string s = rules_out_text(weakest);
  if (weakest != Model::read_uncommitted) {
    s += " (not ";
    for (int m = 0; m < static_cast<int>(weakest); ++m) s += std::string(m ? ", " : "") + model_short(static_cast<Model>(m));
    s += "; this evidence alone does not rule them out)";
  }
  return s;
}


bool same_cycle(const Witness* a, const Witness* b) {
  return a && b && a->cycle.src == b->cycle.src && a->cycle.kind == b->cycle.kind;
}

LatticeSummary lattice_summary(const CheckResult& r) {
  LatticeSummary s;
  for (const LevelResult& lr : r.levels) {
    s.shown |= is_weak(lr.level);
    if (!lr.decided || lr.level == Level::lin) continue;
    const int rank = lattice_rank(lr.level);
    if (lr.holds && (!s.strongest_holding || rank > lattice_rank(s.strongest_holding->level))) s.strongest_holding = &lr;
    if (!lr.holds && (!s.weakest_violated || rank < lattice_rank(s.weakest_violated->level))) s.weakest_violated = &lr;
  }
  return s;
}

std::vector<const LevelResult*> levels_by_rank(const CheckResult& r) {
  std::vector<const LevelResult*> v;
  for (const LevelResult& lr : r.levels)
    if (lr.level != Level::lin) v.push_back(&lr);
  std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return lattice_rank(a->level) < lattice_rank(b->level); });
  return v;
}

const char* verdict_word(const LevelResult& lr) { return !lr.decided ? "undecided" : lr.holds ? "holds" : "violated"; }

std::string failure_name(const LevelResult& lr, const CheckResult& r) {
  if (lr.decided && lr.holds) return "";
  if (lr.witness) return lr.witness->anomaly;
  if (const Anomaly* a = anomalies_failing(r, lr).first) return to_string(a->kind);
  return one_line(lr.reason);
}

Model weakest_of_anomalies(const CheckResult& r) {
  Model w = Model::strict_serializable;
  for (auto& a : r.anomalies) w = std::min(w, weakest_ruled_out(a.kind));
  return w;
}


}  // namespace report_detail

namespace report_detail {

// One colour per edge kind, shared by DOT and HTML.
const char* kind_colour(EdgeKind k) {
  switch (k) {
    case EdgeKind::ww: return "#c0392b";
    case EdgeKind::wr: return "#2471a3";
    case EdgeKind::rw: return "#d68910";
    case EdgeKind::so: return "#229954";
    case EdgeKind::rt: return "#7d3c98";
    case EdgeKind::aux: break;
  }
  return "#555555";
}

// The key an edge is about ("" for so/rt).
std::string edge_key(const History& h, const EdgeList& c, size_t i) {
  TxnIdx t;
  switch (c.kind[i]) {
    case EdgeKind::wr: case EdgeKind::ww: t = c.dst[i]; break;
    case EdgeKind::rw: t = c.src[i]; break;
    default: return "";
  }
  OpIdx o = h.op_begin(t) + why_pos(c.why[i]);
  return o < h.op_end(t) ? key_text(h, h.op_key[o]) : "";
}

}  // namespace report_detail

}  // namespace isocheck

// The witness as a Graphviz graph.
#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/text_escape.h"
#include "report/shared.h"

namespace isocheck {
using namespace report_detail;

void write_dot(std::ostream& out, const History& h, const CheckResult& r) {
  out << "digraph witness {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"monospace\"];\n"
      << "  edge [fontname=\"sans-serif\", fontsize=10];\n";
  if (LatticeSummary ls = lattice_summary(r); ls.shown) {
    // A legend node: the lattice, weakest level first, each failure with its
    // witness's name; then the strongest level that holds and the weakest violated.
    std::string lab = "lattice (weakest first)";
    for (const LevelResult* x : levels_by_rank(r)) {
      lab += std::string("\n") + level_short(x->level) + ": " + verdict_word(*x);
      if (std::string f = failure_name(*x, r); !f.empty()) lab += " (" + f + ")";
    }
    auto name = [](const LevelResult* x) { return x ? std::string(level_short(x->level)) : std::string("none of those checked"); };
    lab += "\nstrongest that holds: " + name(ls.strongest_holding) + "\nweakest violated: " + name(ls.weakest_violated);
    out << "  lattice [shape=note, fontname=\"sans-serif\", label=";
    json_string(out, lab);
    out << "];\n";
  }
  const LevelResult* lr = nullptr;
  for (auto& x : r.levels) if (x.witness) { lr = &x; break; }
  if (lr) {
    const Witness* w = &*lr->witness;
    out << "  labelloc=t;\n  label=";
    json_string(out, std::string(to_string(lr->level)) + " violated: " + w->anomaly + "; rules out " +
                         rules_out_text(weakest_ruled_out(h, *lr, r)));
    out << ";\n";
    const EdgeList& c = w->cycle;
    std::vector<TxnIdx> seen;
    for (size_t i = 0; i < c.size(); ++i) {
      if (std::find(seen.begin(), seen.end(), c.src[i]) != seen.end()) continue;
      seen.push_back(c.src[i]);
      std::string t = txn_name(h, c.src[i]);
      std::string lab = t + "\\nsession " + std::to_string(h.session_name[h.txn_session[c.src[i]]]);
      out << "  " << t << " [label=\"" << lab << "\"];\n";
    }
    for (size_t i = 0; i < c.size(); ++i) {
      std::string k = edge_key(h, c, i);
      std::ostringstream lab, tip;
      json_string(lab, std::string(to_string(c.kind[i])) + (k.empty() ? "" : " " + k));
      json_string(tip, explain_edge(h, c, i));
      out << "  " << txn_name(h, c.src[i]) << " -> " << txn_name(h, c.dst[i]) << " [label=" << lab.str()
          << ", tooltip=" << tip.str() << ", color=\"" << kind_colour(c.kind[i]) << "\", fontcolor=\""
          << kind_colour(c.kind[i]) << "\"" << (c.kind[i] == EdgeKind::rw ? ", style=dashed" : "") << "];\n";
    }
    for (size_t i = 0; i < c.size(); ++i) {
      out << "  // " << txn_name(h, c.src[i]) << " -" << to_string(c.kind[i]) << "-> " << txn_name(h, c.dst[i])
          << ": " << one_line(explain_edge(h, c, i)) << "\n";
    }
  } else {
    for (auto& a : r.anomalies) {
      std::ostringstream lab;
      json_string(lab, std::string(to_string(a.kind)) + ": " + explain_anomaly(h, a));
      out << "  " << txn_name(h, a.other) << " -> " << txn_name(h, a.txn) << " [label=" << lab.str() << ", color=red];\n";
    }
  }
  out << "}\n";
}


}  // namespace isocheck

// A self-contained HTML report: the witness drawn as inline SVG, the
// transactions involved tabulated.
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

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string op_text(const History& h, OpIdx o) {
  std::string k = key_text(h, h.op_key[o]);
  switch (h.op_kind[o]) {
    case OpKind::read: return "r " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::write: return "w " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::append: return "append " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::read_list: return "r " + k + " " + list_text(h, o);
  }
  return "?";
}

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", x);
  return b;
}

// The cycle's transactions on a circle, edges as curved labelled arrows.
void svg_cycle(std::ostream& out, const History& h, const EdgeList& c) {
  std::vector<TxnIdx> nodes;
  for (size_t i = 0; i < c.size(); ++i)
    if (std::find(nodes.begin(), nodes.end(), c.src[i]) == nodes.end()) nodes.push_back(c.src[i]);
  const size_t n = nodes.size();
  const double node_r = 24, R = std::max(90.0, 34.0 * static_cast<double>(n) / 3.14159);
  const double pad = 70, W = 2 * (R + pad), cx = W / 2, cy = W / 2;
  auto pos = [&](TxnIdx t, double& x, double& y) {
    size_t i = static_cast<size_t>(std::find(nodes.begin(), nodes.end(), t) - nodes.begin());
    double a = -3.14159265358979 / 2 + 2 * 3.14159265358979 * static_cast<double>(i) / static_cast<double>(n);
    x = cx + R * std::cos(a), y = cy + R * std::sin(a);
  };
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(W)
      << "\" viewBox=\"0 0 " << num(W) << " " << num(W) << "\" role=\"img\">\n<defs>";
  for (EdgeKind k : {EdgeKind::so, EdgeKind::wr, EdgeKind::ww, EdgeKind::rt, EdgeKind::rw})
    out << "<marker id=\"ah-" << to_string(k) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
        << "markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" << kind_colour(k)
        << "\"/></marker>";
  out << "</defs>\n";
  for (size_t i = 0; i < c.size(); ++i) {
    double x1, y1, x2, y2;
    pos(c.src[i], x1, y1), pos(c.dst[i], x2, y2);
    double dx = x2 - x1, dy = y2 - y1, len = std::sqrt(dx * dx + dy * dy);
    if (len < 1) len = 1;
    // Control point: the chord's midpoint pushed sideways (to the left of the
    // direction of travel), so opposite edges between two nodes stay apart.
    double bend = std::min(60.0, 0.25 * len + 18);
    double qx = (x1 + x2) / 2 + bend * dy / len, qy = (y1 + y2) / 2 - bend * dx / len;
    auto trim = [&](double px, double py, double tx, double ty, double& ox, double& oy) {
      double ex = tx - px, ey = ty - py, l = std::sqrt(ex * ex + ey * ey);
      if (l < 1) l = 1;
      ox = px + ex / l * (node_r + 2), oy = py + ey / l * (node_r + 2);
    };
    double sx, sy, ex, ey;
    trim(x1, y1, qx, qy, sx, sy), trim(x2, y2, qx, qy, ex, ey);
    double lx = 0.25 * sx + 0.5 * qx + 0.25 * ex, ly = 0.25 * sy + 0.5 * qy + 0.25 * ey;
    const char* col = kind_colour(c.kind[i]);
    std::string key = edge_key(h, c, i);
    out << "<g><title>" << html_escape(explain_edge(h, c, i)) << "</title><path d=\"M" << num(sx) << "," << num(sy)
        << " Q" << num(qx) << "," << num(qy) << " " << num(ex) << "," << num(ey) << "\" fill=\"none\" stroke=\"" << col
        << "\" stroke-width=\"2\"" << (c.kind[i] == EdgeKind::rw ? " stroke-dasharray=\"6,4\"" : "")
        << " marker-end=\"url(#ah-" << to_string(c.kind[i]) << ")\"/>"
        << "<text x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" fill=\"" << col
        << "\" font-size=\"12\" text-anchor=\"middle\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">"
        << (i + 1) << ". " << to_string(c.kind[i]) << (key.empty() ? "" : " " + html_escape(key)) << "</text></g>\n";
  }
  for (TxnIdx t : nodes) {
    double x, y;
    pos(t, x, y);
    out << "<g><title>" << html_escape(txn_name(h, t)) << ", session " << h.session_name[h.txn_session[t]]
        << "</title><circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << node_r
        << "\" fill=\"#fdfefe\" stroke=\"#34495e\" stroke-width=\"2\"/><text x=\"" << num(x) << "\" y=\"" << num(y + 4)
        << "\" font-size=\"12\" font-family=\"monospace\" text-anchor=\"middle\">" << html_escape(txn_name(h, t))
        << "</text></g>\n";
  }
  out << "</svg>\n";
}

void html_txn_table(std::ostream& out, const History& h, const std::vector<TxnIdx>& txns) {
  out << "<table><tr><th>txn</th><th>session</th><th>status</th><th>begin</th><th>end</th><th>operations</th></tr>\n";
  constexpr uint64_t kOpsShown = 64;
  for (TxnIdx t : txns) {
    out << "<tr><td id=\"t" << h.txn_id[t] << "\">" << html_escape(txn_name(h, t)) << "</td><td>"
        << h.session_name[h.txn_session[t]] << "</td><td>" << to_string(h.txn_status[t]) << "</td><td>"
        << (h.has_times(t) ? std::to_string(h.txn_begin[t]) : "") << "</td><td>"
        << (h.has_times(t) ? std::to_string(h.txn_end[t]) : "") << "</td><td class=\"ops\">";
    uint64_t shown = 0;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (shown++ == kOpsShown) { out << " … " << (h.op_end(t) - o) << " more"; break; }
      out << (o == h.op_begin(t) ? "" : "; ") << html_escape(op_text(h, o));
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

void write_html(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  const int code = exit_code(r);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>isocheck: "
      << html_escape(ctx.file) << "</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:2em;max-width:80em;color:#222}"
      << "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:.25em .5em;"
      << "text-align:left;vertical-align:top}th{background:#eee}.ops{font-family:monospace}"
      << ".holds{color:#1e8449;font-weight:bold}.violated{color:#c0392b;font-weight:bold}"
      << ".undecided{color:#b9770e;font-weight:bold}code{background:#f4f4f4;padding:0 .2em}"
      << ".legend span{margin-right:1.2em}svg{border:1px solid #ddd;background:#fff}\n"
      << "</style></head><body>\n<h1>isocheck report</h1>\n<p>File <code>" << html_escape(ctx.file) << "</code>: "
      << r.stats.txns << " transactions (" << r.stats.committed << " committed or observed). Result: <span class=\""
      << (code == 0 ? "holds\">every requested level holds" : code == 1 ? "violated\">violation" : "undecided\">undecided")
      << "</span> (exit code " << code << ").</p>\n";
  if (!ctx.import_note.empty()) out << "<p>Import: " << html_escape(ctx.import_note) << "</p>\n";
  if (r.stats.blocks_unchecked > 0)
    out << "<p>Not checked: " << r.stats.blocks_unchecked << " of the history's " << r.stats.blocks
        << " blocks, past the first violation of every level (anomalies in them are not listed; --all-violations "
           "checks every block).</p>\n";
  if (r.stats.constraints > 0)
    out << "<p>General engine: " << r.stats.constraints << " constraints, " << r.stats.pruned
        << " decided by pruning, " << r.stats.to_solver << " to the SAT solver in " << r.stats.subproblems
        << " sub-problems.</p>\n";
  if (LatticeSummary ls = lattice_summary(r); ls.shown) {
    // The lattice first, weakest level first, each failure with its witness's name.
    auto name = [](const LevelResult* lr) {
      return lr ? std::string(level_short(lr->level)) + " (" + to_string(lr->level) + ")" : std::string("none of those checked");
    };
    out << "<h2>Lattice</h2>\n<p>Strongest that holds: <strong>" << name(ls.strongest_holding)
        << "</strong>. Weakest violated: <strong>" << name(ls.weakest_violated) << "</strong>"
        << (ls.weakest_violated ? ": " + html_escape(failure_name(*ls.weakest_violated, r)) : std::string()) << ".</p>\n"
        << "<table class=\"lattice\"><tr><th>level</th><th>verdict</th><th>witness</th></tr>\n";
    for (const LevelResult* lr : levels_by_rank(r))
      out << "<tr><td>" << level_short(lr->level) << " (" << to_string(lr->level) << ")</td><td><span class=\""
          << verdict_word(*lr) << "\">" << verdict_word(*lr) << "</span></td><td>" << html_escape(failure_name(*lr, r))
          << "</td></tr>\n";
    out << "</table>\n";
  }
  out << "<h2>Verdicts</h2>\n<table><tr><th>level</th><th>verdict</th><th>anomaly</th><th>rules out</th></tr>\n";
  for (auto& lr : r.levels) {
    out << "<tr><td>" << to_string(lr.level) << "</td><td>";
    if (!lr.decided) out << "<span class=\"undecided\">undecided</span>: " << html_escape(lr.reason);
    else if (lr.holds) out << "<span class=\"holds\">holds</span>";
    else out << "<span class=\"violated\">violated</span>" << (lr.witness ? "" : ": " + html_escape(lr.reason));
    const Anomaly* first = anomalies_failing(r, lr).first;  // a level failed by a per-transaction anomaly
    out << "</td><td>" << (lr.witness ? html_escape(lr.witness->anomaly) : first ? html_escape(to_string(first->kind)) : "")
        << "</td><td>"
        << (lr.witness ? html_escape(rules_out_line(weakest_ruled_out(h, lr, r)))
            : first    ? html_escape(rules_out_line(weakest_ruled_out(first->kind)))
                       : "")
        << "</td></tr>\n";
  }
  out << "</table>\n";
  std::vector<TxnIdx> involved;
  auto involve = [&](TxnIdx t) {
    if (std::find(involved.begin(), involved.end(), t) == involved.end()) involved.push_back(t);
  };
  constexpr size_t kAnomaliesShown = 200;
  if (!r.anomalies.empty()) {
    out << "<h2>Anomalies (" << r.anomalies.size() << ")</h2>\n<p>None of SER, SI, SSER allows these; together they "
        << "rule out " << html_escape(rules_out_line(weakest_of_anomalies(r))) << ".</p>\n"
        << "<table><tr><th>kind</th><th>explanation</th><th>rules out</th></tr>\n";
    for (size_t i = 0; i < r.anomalies.size() && i < kAnomaliesShown; ++i) {
      auto& a = r.anomalies[i];
      involve(a.other), involve(a.txn);
      out << "<tr><td>" << html_escape(to_string(a.kind)) << "</td><td>" << html_escape(explain_anomaly(h, a))
          << "</td><td>" << rules_out_text(weakest_ruled_out(a.kind)) << "</td></tr>\n";
    }
    out << "</table>\n";
    if (r.anomalies.size() > kAnomaliesShown)
      out << "<p>… and " << r.anomalies.size() - kAnomaliesShown << " more (<code>--json</code> lists all).</p>\n";
  }
  const Witness* prev = nullptr;
  for (auto& lr : r.levels) {
    if (!lr.witness) continue;
    const Witness& w = *lr.witness;
    out << "<h2>" << to_string(lr.level) << ": " << html_escape(w.anomaly) << "</h2>\n";
    out << "<p>Rules out " << html_escape(rules_out_line(weakest_ruled_out(h, lr, r))) << ".</p>\n";
    if (same_cycle(prev, &w)) { out << "<p>The same cycle as above.</p>\n"; continue; }
    prev = &w;
    const EdgeList& c = w.cycle;
    out << "<p class=\"legend\">";
    for (EdgeKind k : {EdgeKind::ww, EdgeKind::wr, EdgeKind::rw, EdgeKind::so, EdgeKind::rt}) {
      const char* what = k == EdgeKind::ww ? "write-write (version order)" : k == EdgeKind::wr ? "write-read (read from)"
                         : k == EdgeKind::rw ? "read-write (anti-dependency)" : k == EdgeKind::so ? "session order"
                                                                                                  : "real time";
      out << "<span style=\"color:" << kind_colour(k) << "\">&#9632; " << to_string(k) << ": " << what << "</span>";
    }
    out << "</p>\n";
    svg_cycle(out, h, c);
    out << "<ol>\n";
    for (size_t i = 0; i < c.size(); ++i) {
      involve(c.src[i]);
      out << "<li><code>" << html_escape(txn_name(h, c.src[i])) << " -" << to_string(c.kind[i]) << "-&gt; "
          << html_escape(txn_name(h, c.dst[i])) << "</code>: " << html_escape(witness_edge_text(h, w, i)) << "</li>\n";
    }
    out << "</ol>\n";
    if (!w.core.empty()) {
      out << "<p>Unsatisfiable core: " << w.core.size() << " unknown write order" << (w.core.size() == 1 ? "" : "s")
          << (w.core_minimal ? " (minimal)" : " (not shown to be minimal)")
          << ". Every way to settle them closes a cycle with the certain edges; the cycle above is one.</p>\n<ul>\n";
      for (size_t i = 0; i < w.core.size() && i < 200; ++i) {
        out << "<li>" << html_escape(explain_constraint(h, w.core[i])) << "</li>\n";
        involve(w.core[i].first_head), involve(w.core[i].second_head);
      }
      out << "</ul>\n";
    }
  }
  if (!involved.empty()) {
    out << "<h2>Transactions involved</h2>\n";
    html_txn_table(out, h, involved);
  }
  out << "</body></html>\n";
}


}  // namespace isocheck

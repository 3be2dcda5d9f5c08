// What the user sees: verdicts, witnesses explained edge by edge in words a
// database engineer can act on, as text, JSON or Graphviz DOT.
#pragma once
#include <ostream>
#include <string>

#include "core/history.h"
#include "core/verdict.h"

namespace isocheck {

struct ReportContext {
  std::string file;
  double seconds = 0;
  std::string import_note;  // what an importer skipped, and why ("" = nothing)
};

// "T12 read x=5 written by T7" — one line per witness edge.
std::string explain_edge(const History& h, const EdgeList& e, size_t i);
// Does edge i stand for where a scan's open absence falls (graph/known_graph.h AbsentChoice)?
bool is_absence_edge(const History& h, const EdgeList& e, size_t i);
// "insert" when that edge's open read is an insert's, else "scan".
const char* absence_reader_word(const History& h, const EdgeList& e, size_t i);
std::string explain_anomaly(const History& h, const Anomaly& a);
// "T<id>" for a transaction index.
std::string txn_name(const History& h, TxnIdx t);

void write_text(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx);
void write_json(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx);
// The first violated level's witness (or the anomalies) as a Graphviz graph.
void write_dot(std::ostream& out, const History& h, const CheckResult& r);
// A self-contained HTML page (no scripts, no external files): verdicts, each
// distinct witness drawn as inline SVG (its transactions on a circle, edges as
// labelled arrows), every edge explained, the SAT core, and a table of the
// involved transactions (id, session, status, begin/end, operations).
void write_html(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx);

// "the order of writes to x between the chain starting at T7 and the chain
// starting at T9" — one constraint of a general-engine refutation core.
std::string explain_constraint(const History& h, const ConstraintRef& c);
// The weakest level a violated level's witness rules out (every stronger one
// is ruled out too), from weakest_ruled_out(cycle), limited to what the
// evidence supports:
//  - a refutation with a SAT core rests on a choice of version order: only
//    the level checked and the stronger ones;
//  - an SSER witness when some write order is unknown may use write orders
//    taken from real time: SSER only;
//  - below SI, every ww/rw edge must rest on a read (the later writer read
//    the earlier version, or the write was observed in a list read, or the
//    reader read the initial state): unread blind writes are placed after the
//    versions read only because SER and SI may assume so.
Model weakest_ruled_out(const History& h, const LevelResult& lr, const CheckResult& r);
// "PC, SI, SER, SSER" — the levels from `weakest` up.
std::string rules_out_text(Model weakest);

// 0 all requested levels hold, 1 a violation, 3 some level undecided.
int exit_code(const CheckResult& r);

}  // namespace isocheck

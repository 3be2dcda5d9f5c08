// What the user sees: verdicts, witnesses explained edge by edge in words a
// database engineer can act on, as text, JSON or Graphviz DOT.
#pragma once
#include <ostream>
#include <string>

#include "io/history.h"
#include "solver/check.h"

namespace isocheck {

struct ReportContext {
  std::string file;
  double seconds = 0;
  std::string import_note;  // what an importer skipped, and why ("" = nothing)
};

// "T12 read x=5 written by T7" — one line per witness edge.
std::string explain_edge(const History& h, const EdgeList& e, size_t i);
std::string explain_anomaly(const History& h, const Anomaly& a);
// "T<id>" for a transaction index.
std::string txn_name(const History& h, TxnIdx t);

void write_text(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx);
void write_json(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx);
// The first violated level's witness (or the anomalies) as a Graphviz graph.
void write_dot(std::ostream& out, const History& h, const CheckResult& r);

// 0 all requested levels hold, 1 a violation, 3 some level undecided.
int exit_code(const CheckResult& r);

}  // namespace isocheck

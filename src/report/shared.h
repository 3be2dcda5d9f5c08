// What the report's writers (text, JSON, DOT, HTML) and its explanations
// share; internal to report/.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "core/edges.h"
#include "core/history.h"
#include "core/text_escape.h"
#include "core/verdict.h"

namespace isocheck::report_detail {

// A string as a JSON string literal (also DOT's quoted labels).
inline void json_string(std::ostream& out, const std::string& s) { out << json_quoted(s); }
// "key 61" for an integer key, the escaped name otherwise.
std::string key_text(const History& h, Sym k);
// "[1 2 3]": the values of a list read.
std::string list_text(const History& h, OpIdx o);
// An edge's explanation; in a general-engine refutation, ww/rw edges on a key
// of the core say that they rest on one of the orders being refuted.
std::string witness_edge_text(const History& h, const Witness& w, size_t i);
// "SER, SSER (not RU, RC, …; this evidence alone does not rule them out)":
// the rules-out line for people.
std::string rules_out_line(Model weakest);
// Two witnesses with the same cycle (the report says "the same cycle as above").
bool same_cycle(const Witness* a, const Witness* b);
// The weakest level the per-transaction anomalies rule out.
Model weakest_of_anomalies(const CheckResult& r);
// One colour per edge kind, shared by DOT and HTML.
const char* kind_colour(EdgeKind k);
// The lattice of the levels checked (RU < RC < RA < CC < PC < SI < SER <
// SSER): the strongest that holds and the weakest violated (null if none).
// Reports lead with it when a weak level was requested.
struct LatticeSummary {
  bool shown = false;  // some weak level was requested
  const LevelResult* strongest_holding = nullptr;
  const LevelResult* weakest_violated = nullptr;
};
LatticeSummary lattice_summary(const CheckResult& r);
// The levels checked, weakest first (lin, outside the lattice, left out).
std::vector<const LevelResult*> levels_by_rank(const CheckResult& r);
// "holds", "violated" or "undecided".
const char* verdict_word(const LevelResult& lr);
// A failure's name: its witness's anomaly, else the per-transaction anomaly
// that fails it (anomalies_failing), else the reason on one line ("" if the
// level holds).
std::string failure_name(const LevelResult& lr, const CheckResult& r);
// The key an edge is about ("" for so/rt).
std::string edge_key(const History& h, const EdgeList& c, size_t i);

}  // namespace isocheck::report_detail

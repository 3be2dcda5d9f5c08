// The per-log audit report (text and JSON).
#include <cstdio>
#include <ostream>
#include <type_traits>
#include <unordered_map>

#include "audit/audit.h"
#include "core/text_escape.h"

namespace isocheck {

namespace {

std::string json_str(const std::string& s) { return json_quoted(s); }

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  return buf;
}

// JSON values of the statistics tables' types (audit/audit.h).
template <class T>
  requires std::is_arithmetic_v<T>
void json_value(std::ostream& out, T v) {
  out << v;
}
void json_value(std::ostream& out, bool v) { out << (v ? "true" : "false"); }
void json_value(std::ostream& out, const std::string& s) { out << json_str(s); }
void json_value(std::ostream& out, ForgetRule v) { out << json_str(to_string(v)); }
void json_value(std::ostream& out, const std::vector<std::string>& v) {
  out << "[";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << json_str(v[i]);
  out << "]";
}
// Levels: an object by level name; the decision's round, anomaly and
// explanation only when a level does not hold.
void json_value(std::ostream& out, const std::vector<AuditLevel>& levels) {
  out << "{";
  for (size_t i = 0; i < levels.size(); ++i) {
    auto& l = levels[i];
    out << (i ? "," : "") << json_str(to_string(l.level)) << ":{\"verdict\":" << json_str(l.verdict);
    if (l.verdict != "holds") {
      out << ",\"round\":" << l.round << ",\"anomaly\":" << json_str(l.anomaly) << ",\"explanation\":";
      json_value(out, l.explanation);
    }
    out << "}";
  }
  out << "}";
}
void json_value(std::ostream& out, const std::vector<RoundStat>& stats) {
  out << "[";
  for (size_t i = 0; i < stats.size(); ++i) {
    auto& s = stats[i];
    const char* sep = "";
    out << (i ? "," : "") << "{";
#define ISOCHECK_STAT_JSON(type, member, key, init) \
  out << sep << "\"" key "\":";                    \
  json_value(out, s.member);                       \
  sep = ",";
    ISOCHECK_ROUND_STAT_FIELDS(ISOCHECK_STAT_JSON)
#undef ISOCHECK_STAT_JSON
    out << "}";
  }
  out << "]";
}

}  // namespace

// Prose: the statistics appear inside sentences, so the text report names
// its fields itself (the JSON report and the checkpoint follow the tables).
void write_audit_text(std::ostream& out, const AuditResult& r) {
  out << "audit of " << r.log << "\n";
  out << "  transactions: " << r.txns << " in " << r.rounds << " round(s)";
  if (r.resumptions) out << ", resumed " << r.resumptions << " time(s) from checkpoints";
  out << "\n  forgetting rule: " << to_string(r.rule) << " — " << r.rule_reason << "\n";
  out << "  kept: at most " << r.max_kept << " transactions between rounds (" << r.final_kept
      << " at the end), at most " << r.max_checked << " in one round's check; forgotten: " << r.forgotten << "\n";
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.2f s, %.0f txn/s", r.seconds, r.seconds > 0 ? r.txns / r.seconds : 0.0);
  out << "  time: " << rate << "; peak memory: " << mib(r.peak_rss) << "\n";
  if (r.duplicate_check)
    out << "  duplicate writes across rounds: " << r.fingerprints << " written (key, value) fingerprints, "
        << mib(r.fingerprint_bytes) << (r.duplicate_rereads ? ", " + std::to_string(r.duplicate_rereads) +
                                                                   " re-read(s) of the log to confirm a match"
                                                             : std::string())
        << "\n";
  else if (r.rule != ForgetRule::none)
    out << "  duplicate writes across rounds: not checked (--no-duplicate-check)\n";
  if (r.later_reads)
    out << "  later reads (ambiguous frontiers): " << r.later_read_pairs << " read (key, value) pairs, "
        << mib(r.later_read_bytes) << "; " << r.settled_frontiers << " frontier(s) settled"
        << (r.unsettled_checks ? ", " + std::to_string(r.unsettled_checks) + " check(s) kept the writers" : std::string())
        << "\n";
  if (r.spilled)
    out << "  soundness state on disk (the fingerprints' hits and the later-reads index): " << mib(r.scratch_bytes)
        << " of files, at most " << r.spill_memory_records << " records in memory while sorting them\n";
  for (auto& w : r.warnings) out << "  warning: " << w << "\n";
  if (!r.complete) out << "  INCOMPLETE: stopped with a checkpoint; rerun with --requeue\n";
  for (auto& l : r.levels) {
    out << to_string(l.level) << ": " << (l.verdict == "holds" ? "HOLDS" : l.verdict == "violated" ? "VIOLATED" : "UNDECIDED");
    if (l.verdict != "holds") {
      out << " (round " << l.round;
      if (!l.anomaly.empty()) out << ", " << l.anomaly;
      out << ")";
    }
    out << "\n";
    for (auto& e : l.explanation) out << "    " << e << "\n";
  }
  if (r.anomalies) out << "anomalies no level allows: " << r.anomalies << "\n";
}

void write_audit_json(std::ostream& out, const AuditResult& r) {
  const char* sep = "";
#define ISOCHECK_STAT_JSON(type, member, key, init) \
  out << sep << "\"" key "\":";                    \
  json_value(out, r.member);                       \
  sep = ",";
#define ISOCHECK_STAT_JSON_DERIVED(key, expr) \
  out << sep << "\"" key "\":";              \
  json_value(out, expr);                     \
  sep = ",";
  out << "{";
  ISOCHECK_AUDIT_RESULT_FIELDS(ISOCHECK_STAT_JSON, ISOCHECK_STAT_JSON_DERIVED)
#undef ISOCHECK_STAT_JSON
#undef ISOCHECK_STAT_JSON_DERIVED
  out << "}\n";
}

}  // namespace isocheck

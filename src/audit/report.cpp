// The per-log audit report (text and JSON).
#include <cstdio>
#include <ostream>
#include <unordered_map>

#include "audit/audit.h"
#include "util/text_escape.h"

namespace isocheck {

namespace {

std::string json_str(const std::string& s) { return json_quoted(s); }

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  return buf;
}

}  // namespace

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
  out << "{\"log\":" << json_str(r.log) << ",\"transactions\":" << r.txns << ",\"rounds\":" << r.rounds
      << ",\"resumptions\":" << r.resumptions << ",\"complete\":" << (r.complete ? "true" : "false")
      << ",\"rule\":" << json_str(to_string(r.rule)) << ",\"rule_reason\":" << json_str(r.rule_reason)
      << ",\"max_kept\":" << r.max_kept << ",\"final_kept\":" << r.final_kept << ",\"max_checked\":" << r.max_checked
      << ",\"forgotten\":" << r.forgotten << ",\"anomalies\":" << r.anomalies << ",\"seconds\":" << r.seconds
      << ",\"txn_per_s\":" << (r.seconds > 0 ? r.txns / r.seconds : 0.0) << ",\"peak_rss\":" << r.peak_rss
      << ",\"duplicate_check\":" << (r.duplicate_check ? "true" : "false") << ",\"fingerprints\":" << r.fingerprints
      << ",\"fingerprint_bytes\":" << r.fingerprint_bytes << ",\"duplicate_rereads\":" << r.duplicate_rereads
      << ",\"later_reads\":" << (r.later_reads ? "true" : "false") << ",\"later_read_pairs\":" << r.later_read_pairs
      << ",\"later_read_bytes\":" << r.later_read_bytes << ",\"settled_frontiers\":" << r.settled_frontiers
      << ",\"unsettled_checks\":" << r.unsettled_checks
      << ",\"exit_code\":" << r.exit_code() << ",\"warnings\":[";
  for (size_t i = 0; i < r.warnings.size(); ++i) out << (i ? "," : "") << json_str(r.warnings[i]);
  out << "],\"levels\":{";
  for (size_t i = 0; i < r.levels.size(); ++i) {
    auto& l = r.levels[i];
    out << (i ? "," : "") << json_str(to_string(l.level)) << ":{\"verdict\":" << json_str(l.verdict);
    if (l.verdict != "holds") {
      out << ",\"round\":" << l.round << ",\"anomaly\":" << json_str(l.anomaly) << ",\"explanation\":[";
      for (size_t j = 0; j < l.explanation.size(); ++j) out << (j ? "," : "") << json_str(l.explanation[j]);
      out << "]";
    }
    out << "}";
  }
  out << "},\"round_stats\":[";
  for (size_t i = 0; i < r.round_stats.size(); ++i) {
    auto& s = r.round_stats[i];
    out << (i ? "," : "") << "{\"round\":" << s.round << ",\"first_txn\":" << s.first_txn << ",\"txns\":" << s.txns
        << ",\"checked\":" << s.checked << ",\"kept\":" << s.kept << ",\"forgotten\":" << s.forgotten
        << ",\"pending\":" << s.pending << ",\"frontier\":" << s.frontier << ",\"peak_rss\":" << s.peak_rss
        << ",\"seconds\":" << s.seconds << ",\"run\":" << s.run << ",\"deferred\":" << (s.deferred ? "true" : "false")
        << "}";
  }
  out << "]}\n";
}

}  // namespace isocheck

// The audit tests' verdicts as strings, "holds" / "violated" / "undecided"
// per level: check()'s on a whole history and run_audit()'s on a file, and
// the small random histories most of their comparisons use.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "oracle/random_history.h"
#include "solver/check.h"

namespace isocheck::testkit {

// check()'s verdict on each of `levels`, in that order: "violated" where it
// found an anomaly or the level fails, else "holds" where it decided.
inline std::vector<std::string> level_verdicts(const CheckResult& r, const std::vector<Level>& levels) {
  std::vector<std::string> out;
  for (Level l : levels)
    for (auto& lr : r.levels)
      if (lr.level == l)
        // (Each level's result already counts the anomalies it forbids: a
        // lost update fails SI and above, not read committed.)
        out.push_back(lr.decided && !lr.holds ? "violated" : lr.decided ? "holds" : "undecided");
  return out;
}

// run_audit()'s verdicts on `file` in rounds of `round` transactions; `res`
// gets the whole result. defer_min: AuditOptions::defer_min_txns (0: checks
// deferred whenever a round forgets little, as on a large blind-write log).
inline std::vector<std::string> audited(const std::string& file, const std::vector<Level>& levels, uint64_t round,
                                        const std::string& rule, AuditResult* res = nullptr,
                                        uint64_t fingerprint_mask = ~0ULL,
                                        uint64_t defer_min = AuditOptions{}.defer_min_txns, int64_t clock_skew = 0,
                                        bool time_order = false) {
  AuditOptions o;
  o.fingerprint_mask = fingerprint_mask;
  o.defer_min_txns = defer_min;
  o.check.levels = levels;
  o.check.clock_skew = clock_skew;
  o.check.time_order = time_order;
  o.round_txns = round;
  o.rule = rule;
  AuditResult r = run_audit(file, o);
  std::vector<std::string> out;
  for (auto& l : r.levels) out.push_back(l.verdict);
  if (res) *res = r;
  return out;
}

// The random histories most audit comparisons fence: 8-24 transactions,
// up to 3 sessions and 4 keys, every third one with blind writes.
inline RandomHistoryOptions small_fenced_options(int i) {
  RandomHistoryOptions o;
  o.mode = i % 3 == 2 ? RandomMode::blind_writes : RandomMode::known_order;
  o.min_txns = 8;
  o.max_txns = 24;
  o.max_sessions = 3;
  o.max_keys = 4;
  return o;
}

}  // namespace isocheck::testkit

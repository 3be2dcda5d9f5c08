// The exhaustive test oracle: decides SER, SI and SSER for tiny histories
// (at most kOracleMaxTxns included transactions) by enumerating orders. It
// shares nothing with src/ but the History model, and favours being obviously
// correct over being fast. See oracle.cpp for the exact semantics.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/history.h"

namespace isocheck {

inline constexpr size_t kOracleMaxTxns = 8;

struct OracleVerdict {
  bool anomaly = false;             // a per-transaction anomaly: every level fails
  std::string anomaly_kind;         // first one found, named like AnomalyKind
                                    // (aborted_read, intermediate_read, thin_air_read,
                                    // internal_read, nonrepeatable_read, duplicate_write)
  std::vector<std::string> anomalies;  // all kinds found, sorted, no repeats
  bool ser = false, si = false, sser = false;  // each already includes "no anomaly"
  size_t included = 0;              // transactions taking part (committed + read unknown)

  std::string describe() const;     // "ser=1 si=1 sser=0 anomaly=-"
};

// Throws std::invalid_argument when more than kOracleMaxTxns transactions are included.
// `time_order` (verify --time-order): two transactions writing a common key,
// both with times, with end(T1) + clock_skew < begin(T2), write it in that
// order — T1's version of the key precedes T2's at every level.
OracleVerdict oracle_check(const History& h, int64_t clock_skew = 0, bool time_order = false);

// The levels as Biswas–Enea define them, by axioms over every commit order
// (oracle_weak.cpp states the semantics): read-uncommitted (no G0), read
// committed, read atomic, causal, prefix, and — for cross-checking the
// definitions against oracle_check — their snapshot isolation and
// serializability. Each already includes the per-transaction anomalies the
// level forbids. Throws std::invalid_argument like oracle_check.
struct WeakOracleVerdict {
  bool ru = false, rc = false, ra = false, cc = false, pc = false, si = false, ser = false;
  std::string describe() const;  // "ru=1 rc=1 ra=0 cc=0 pc=0 si=0 ser=0"
};
WeakOracleVerdict oracle_weak_check(const History& h);

// Both oracles on h (default options); false, leaving them untouched, when h
// has too many included transactions for them.
bool oracle_every_level(const History& h, OracleVerdict& ov, WeakOracleVerdict& wv);

}  // namespace isocheck

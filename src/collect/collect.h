// `isocheck collect`: runs a workload against a live PostgreSQL server with
// libpq (one connection and one thread per session) and records the history:
// every value written is unique (session << 32 | counter), client times are
// CLOCK_MONOTONIC nanoseconds taken just before BEGIN is sent and just after
// COMMIT/ROLLBACK returns, serialization failures and deadlocks are recorded
// as aborted transactions with the operations they did, and a transaction
// whose COMMIT lost its connection is recorded as `unknown`. See docs/collect.md.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include "core/history.h"

namespace isocheck::collect {

enum class Workload : uint8_t { mt, rmw, blindw_rw, blindw_rm, append, bank, scan, lwt, rows, oncall };
// The SQL-shaped workloads: scans of a group of rows, the on-call updates and
// inserts; `rows` also deletes rows a scan returned; `oncall` asks for the
// doctors on call with a value predicate (`WHERE v < 0`: on call is a
// negative value) and updates one after a point read of it.
inline bool scan_shaped(Workload w) { return w == Workload::scan || w == Workload::rows || w == Workload::oncall; }

// The scan workload's table: groups of kScanGroupKeys consecutive keys; in
// each, the first kScanDoctors rows are updated (the on-call shape), the
// rest inserted, each at most once (and, in `rows`, deleted at most once,
// after a scan returned it).
inline constexpr int64_t kScanGroupKeys = 256;
inline constexpr int64_t kScanDoctors = 4;
enum class Isolation : uint8_t { serializable, repeatable_read, read_committed };
enum class KeyDist : uint8_t { uniform, zipf };

const char* to_string(Workload w);
const char* to_string(Isolation i);
const char* to_string(KeyDist d);
// Throw UsageError on an unknown name.
Workload parse_workload(const std::string& s);
Isolation parse_isolation(const std::string& s);
KeyDist parse_dist(const std::string& s);

struct Options {
  std::string dsn;                 // libpq connection string
  Workload workload = Workload::mt;
  Isolation isolation = Isolation::serializable;
  uint32_t sessions = 4;
  uint64_t txns = 1000;            // transactions attempted, all sessions together
  uint64_t keys = 100;
  KeyDist dist = KeyDist::uniform;
  double zipf_theta = 0.99;        // exponent of the zipf distribution
  uint64_t seed = 1;
  uint32_t ops = 0;                // operations per transaction; 0 = workload default
  double read_only = -1;           // share of read-only txns; < 0 = workload default
  uint32_t retries = 0;            // re-run an aborted txn's keys up to this many times
  std::string table = "isocheck";  // tables <table>_kv and <table>_list (recreated)
  std::string out;                 // output file (.jsonl; .h5 once the HDF5 sink exists)
  bool progress = true;            // progress line on stderr
  // After the workload, session 1 reads every key in one statement (one more
  // transaction): it fixes the order of appends no other read observed.
  // -1: only for append (a mini-transaction history stays one); 0: no; 1: yes.
  int final_read = -1;
  bool wants_final_read() const {
    return final_read > 0 || (final_read < 0 && workload == Workload::append);
  }
};

struct Stats {
  uint64_t txns = 0, committed = 0, aborted = 0, unknown = 0;
  uint64_t serialization_failures = 0, deadlocks = 0, connection_losses = 0;
  uint64_t ops = 0;
  uint64_t bank_reads = 0, bank_bad_totals = 0;  // read-all txns whose total was off
  uint64_t scans = 0, inserts = 0, deletes = 0;   // scan and rows workloads: committed or not
  double seconds = 0;                             // wall time of the workload
  double txns_per_second() const { return seconds > 0 ? txns / seconds : 0; }
  double abort_rate() const { return txns ? double(aborted) / txns : 0; }
};

// The database failed in a way the workload does not expect (cannot connect,
// schema error, an SQL error other than a serialization failure or deadlock).
struct DatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs the workload (plus the final read, not counted in `stats`) and returns
// the recorded history (sessions named 1..N,
// transaction ids in file order, ordered by begin time, time_unit "ns").
// `log` gets the progress line and the summary. Throws UsageError for bad
// options and DatabaseError for database failures.
History run(const Options& opt, Stats& stats, std::ostream& log);

// run() + writes the history to opt.out. Returns the stats.
Stats collect(const Options& opt, std::ostream& log);

// Summary line: "2000 txns in 1.23 s (1626 txn/s): 1900 committed, 100 aborted (5.0%: ...)".
std::string summary(const Stats& s);

}  // namespace isocheck::collect

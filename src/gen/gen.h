// History generators behind `isocheck generate`. A generator simulates a
// SERIAL execution of a workload and records it, so that every generated
// history is serializable, snapshot isolated and strictly serializable by
// construction, unless anomalies are planted (see src/gen/PLANTS.md). With
// isolation "si" it simulates a snapshot-isolation database instead: every
// history is snapshot isolated by construction; with "rc" a read-committed
// one (reads see what is committed when they run, every writer commits).
// Workloads and their key-value modelling: src/gen/README.md.
//
// Output streams to a HistorySink in chunks of `chunk_txns` transactions;
// memory is bounded independently of `txns` except for the per-key state
// (8 bytes per register key, 8 bytes per list key).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"
#include "io/sink.h"

namespace isocheck {

struct GenOptions {
  std::string workload = "rmw";  // see workload_names()
  // ser: a serial execution (every level holds). si: a simulated
  // snapshot-isolation database (SI holds; write skews make SER fail at a
  // rate set by contention); rc: a simulated read-committed database (RC
  // holds; RA and SI fail under contention). rmw, mt and blindw-* only. README.md.
  std::string isolation = "ser";
  uint64_t txns = 10000;         // workload transactions (plants and append's final reads add more)
  uint32_t sessions = 8;         // >= 1; >= 4 when anything is planted
  uint64_t keys = 0;             // 0: the workload's default (docs/cli.md); tpcc: warehouses, twitter: users
  std::string dist = "uniform";  // uniform | zipf
  double zipf_s = 0.99;          // zipf exponent, > 0
  uint32_t ops = 0;              // 0: workload default. rmw: keys per txn (2); append: max
                                 // micro-ops per txn (4); blindw-*: ops per txn (8)
  uint32_t extra_reads = 0;      // rmw only: pure reads of other keys per txn
  uint32_t max_list_len = 16;    // append only: a list key retires after this many appends
  std::vector<std::string> plant;  // plant_names() (aliases read-skew, g2-item accepted)
  // Range scans (rmw and mt under ser; README.md): this percentage of the
  // workload's transactions also scans a key range of width in
  // [scan_width_lo, scan_width_hi] (clamped to --keys), seeing exactly the
  // rows present at its serial point. Scan choices come from a random stream
  // of their own: the point operations are those of scans = 0.
  uint32_t scans = 0;
  uint64_t scan_width_lo = 10, scan_width_hi = 100;
  // scan: written as JSONL scan operations (needs a ScanSink); reads: as the
  // point reads of every key in the range (its value, or null when absent),
  // inserts as `r k null, w k v` and deletes as `w k tombstone`.
  std::string scans_as = "scan";
  uint64_t seed = 1;
  uint64_t chunk_txns = 65536;   // transactions per chunk handed to the sink
  // This percentage of the scans (--scans) has a value predicate `v > c` (the rows
  // written lately: c a value written a random number of writes, up to twice
  // the keys, ago), returning only the present rows that satisfy it.
  uint32_t scan_predicates = 0;
  // (Last: callers initialise the fields above by position.)
};

// Times are integers in this unit (pass it to open_sink).
inline constexpr const char* kGenTimeUnit = "us";
// Plants use keys from here on; workloads never do (every workload key < 10^15).
inline constexpr int64_t kPlantKeyBase = 9'000'000'000'000'000LL;

// Violated levels of a planted anomaly (the table in PLANTS.md): the strong
// levels, then the weak ones (read uncommitted .. prefix consistency).
struct PlantLevels {
  bool ser, si, sser;
  bool ru, rc, ra, cc, pc;
  // Whether the plant violates level l (false for levels the table has no
  // column for).
  bool operator[](Level l) const {
    switch (l) {
      case Level::ser: return ser;
      case Level::si: return si;
      case Level::sser: return sser;
      case Level::ru: return ru;
      case Level::rc: return rc;
      case Level::ra: return ra;
      case Level::cc: return cc;
      case Level::pc: return pc;
      default: return false;
    }
  }
};

struct PlantRecord {
  std::string name;               // canonical name
  std::vector<int64_t> txn_ids;   // ids of the transactions the plant added, in file order
  std::vector<int64_t> keys;      // the fresh keys it uses
  PlantLevels violates;
};

struct GenSummary {
  uint64_t txns = 0;  // transactions emitted: workload + plants + final reads
  uint64_t ops = 0;   // operations emitted
  uint64_t chunks = 0;
  uint64_t final_read_txns = 0;  // append: read-only txns at the end observing every list
  uint64_t aborted = 0;          // --isolation si: attempts aborted by first committer wins (retried)
  uint64_t scans = 0;            // range scans (each also counted once in ops; none with scans_as reads)
  uint64_t inserts = 0, deletes = 0;  // the same for inserts and deletes
  std::vector<PlantRecord> plants;  // in file order
};

std::vector<std::string> workload_names();
std::vector<std::string> plant_names();
// One-line description, for help text; "" when unknown.
std::string workload_help(const std::string& name);
std::string plant_help(const std::string& name);
// Throws UsageError for an unknown name (aliases accepted).
PlantLevels plant_violations(const std::string& name);

// A range scan, insert or delete of a generated chunk (core/predicates.h):
// in its transaction `txn` (chunk index), stated before the transaction's
// point operation `before` (its count: after the last). A scan is over the
// integer keys [lo, hi] and returns `rows` (key, value), ordered by key; the
// keys in range not among them are absent. An insert makes key `lo` (= hi)
// present with `value`; a delete makes it absent, `value` naming the tombstone.
struct GenScan {
  enum Kind : uint8_t { scan, insert, del };
  uint32_t txn = 0, before = 0;
  int64_t lo = 0, hi = 0;
  std::vector<std::pair<int64_t, uint64_t>> rows;
  Kind kind = scan;
  uint64_t value = 0;  // insert: the value; delete: the tombstone
  // scan: a value predicate `v > above` when has_above (rows are those
  // present that satisfy it).
  bool has_above = false;
  uint64_t above = 0;
};

// A sink that takes range scans besides the point operations (JSONL: HDF5
// keeps only the point reads a scan expands to, so it takes none).
class ScanSink : public HistorySink {
 public:
  // The chunk's scans, ordered by (txn, before).
  virtual void append_with_scans(const History& chunk, const std::vector<GenScan>& scans) = 0;
  void append(const History& chunk) override { append_with_scans(chunk, {}); }
};

// Whether generate(opt, ...) states range scans, inserts or deletes
// (scans_as "scan" and --scans, workload rows, or a plant with a scan): it
// then needs a ScanSink.
bool writes_scans(const GenOptions& opt);

// JSONL with scans: the lines of write_jsonl plus ["scan", lo, hi, rows]
// operations, written to a temporary file renamed onto `path` by finish()
// (io/output_file.h); header time unit kGenTimeUnit. Integer histories only.
std::unique_ptr<ScanSink> open_scan_jsonl_sink(const std::string& path);
// The lines of a chunk (no header), appended to `out`.
void render_scan_jsonl(const History& chunk, const std::vector<GenScan>& scans, std::string& out);

// The whole file's text in memory (header line first): tests.
class JsonlTextSink : public ScanSink {
 public:
  JsonlTextSink();
  void append_with_scans(const History& chunk, const std::vector<GenScan>& scans) override {
    render_scan_jsonl(chunk, scans, text);
  }
  void finish() override {}
  std::string text;
};

// Throws UsageError on invalid options (before anything is written to `out`),
// and when writes_scans(opt) and `out` is no ScanSink.
// Calls out.append() (or append_with_scans()) per chunk and out.finish() once at the end.
GenSummary generate(const GenOptions& opt, HistorySink& out);

// Tests and small tools: a sink that concatenates the chunks into one History
// (sessions mapped by session_name, in order of first appearance). A scan
// becomes the point reads of its range, in place: a row's value, null for a
// key it saw absent (what the checker expands it to, core/predicates.h, plus
// null reads of keys nobody writes). An insert becomes `r k null, w k v`, a
// delete `w k tombstone` (the expansion's; generated histories never insert
// a key their transaction deleted, nor scan one absent after deleting it).
class CollectSink : public ScanSink {
 public:
  void append_with_scans(const History& chunk, const std::vector<GenScan>& scans) override;
  void finish() override { finished = true; }
  History history;
  size_t chunks = 0;
  bool finished = false;

 private:
  std::unordered_map<int64_t, uint32_t> session_index_;
};

// generate() into memory.
History generate_history(const GenOptions& opt, GenSummary* summary = nullptr);

}  // namespace isocheck

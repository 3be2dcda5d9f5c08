#include "collect/collect.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "collect/pg.h"
#include "collect/workload.h"
#include "core/enum_names.h"
#include "core/errors.h"
#include "core/predicates.h"
#include "io/jsonl_stream.h"
#include "io/output_file.h"
#include "io/sink.h"

namespace isocheck::collect {

namespace {

constexpr EnumName<Workload> kWorkloads[] = {{Workload::mt, "mt"},
                                             {Workload::rmw, "rmw"},
                                             {Workload::blindw_rw, "blindw-rw"},
                                             {Workload::blindw_rm, "blindw-rm"},
                                             {Workload::append, "append"},
                                             {Workload::bank, "bank"},
                                             {Workload::scan, "scan"},
                                             {Workload::lwt, "lwt"},
                                             {Workload::rows, "rows"},
                                             {Workload::oncall, "oncall"}};
static_assert(indexed_by_value(kWorkloads));

struct IsolationRow {
  Isolation value;
  const char* name;
  const char* begin_sql;  // what starts a transaction at this level
};
constexpr IsolationRow kIsolations[] = {
    {Isolation::serializable, "serializable", "BEGIN ISOLATION LEVEL SERIALIZABLE"},
    {Isolation::repeatable_read, "repeatable-read", "BEGIN ISOLATION LEVEL REPEATABLE READ"},
    {Isolation::read_committed, "read-committed", "BEGIN ISOLATION LEVEL READ COMMITTED"}};
static_assert(indexed_by_value(kIsolations));

constexpr EnumName<KeyDist> kKeyDists[] = {{KeyDist::uniform, "uniform"}, {KeyDist::zipf, "zipf"}};
static_assert(indexed_by_value(kKeyDists));

// The enumerator named s; else a usage error that lists the names.
template <class Row, size_t N>
auto parse_named(const Row (&table)[N], const std::string& s, const char* what) {
  if (auto v = value_named(table, s)) return *v;
  throw UsageError(std::string("unknown ") + what + " '" + s + "' (" + names_listed(table) + ")");
}

}  // namespace

const char* to_string(Workload w) { return name_in(kWorkloads, w); }
const char* to_string(Isolation i) { return name_in(kIsolations, i); }
const char* to_string(KeyDist d) { return name_in(kKeyDists, d); }

Workload parse_workload(const std::string& s) { return parse_named(kWorkloads, s, "workload"); }
Isolation parse_isolation(const std::string& s) { return parse_named(kIsolations, s, "isolation"); }
KeyDist parse_dist(const std::string& s) { return parse_named(kKeyDists, s, "distribution"); }

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

const char* begin_sql(Isolation i) {
  const IsolationRow* r = row_of(kIsolations, i);
  return r ? r->begin_sql : "BEGIN";
}

bool uses_list(Workload w) { return w == Workload::append; }

// What one session recorded, compactly; merged into a History at the end.
struct SessionLog {
  struct Txn {
    int64_t begin, end;
    TxnStatus status;
    uint64_t op_begin, op_end;
  };
  enum class Stated : uint8_t { point, scan, insert, del };
  struct Op {
    OpKind kind;
    int64_t key;                // scan: the range's low key
    Sym value;                  // kNullValue for a read of an absent row; scan: the range's high key
    uint64_t list_begin = 0, list_end = 0;  // list read: its elements; scan: its rows, (key, value) flat
    Stated stated = Stated::point;
    bool on_call_only = false;  // scan: WHERE v < 0 (oncall workload)
  };
  std::vector<Txn> txns;
  std::vector<Op> ops;
  std::vector<int64_t> lists;
};

struct Counters {
  std::atomic<uint64_t> txns{0}, committed{0}, aborted{0}, unknown{0};
  std::atomic<uint64_t> serialization{0}, deadlock{0}, connection{0}, ops{0};
  std::atomic<uint64_t> bank_reads{0}, bank_bad{0};
  std::atomic<uint64_t> scans{0}, inserts{0}, deletes{0};
};

struct Shared {
  const Options& opt;
  const KeySampler& keys;
  Counters& c;
  std::atomic<bool>& stop;
  std::string kv, list;  // table names
  // scan workload: per group, the next key offset to insert (each key is
  // inserted at most once, so its absence before the insert is the initial one).
  std::atomic<int64_t>* next_insert = nullptr;
};

class Session {
 public:
  Session(Shared& sh, uint32_t id, uint64_t txns)
      : sh_(sh), id_(id), txns_(txns), gen_(sh.opt, sh.keys, id), conn_(sh.opt.dsn) {
    std::string kv = sh.kv, list = sh.list;
    if (uses_list(sh.opt.workload)) {
      conn_.prepare("a", ("INSERT INTO " + list + " AS t (k, v) VALUES ($1, ARRAY[$2::bigint]) "
                          "ON CONFLICT (k) DO UPDATE SET v = t.v || EXCLUDED.v").c_str(), 2);
      conn_.prepare("rl", ("SELECT v FROM " + list + " WHERE k = $1").c_str(), 1);
      conn_.prepare("ral", ("SELECT k, v FROM " + list).c_str(), 0);
    } else {
      conn_.prepare("r", ("SELECT v, bal FROM " + kv + " WHERE k = $1").c_str(), 1);
      conn_.prepare("w", ("INSERT INTO " + kv + " (k, v) VALUES ($1, $2) "
                          "ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v").c_str(), 2);
      conn_.prepare("t", ("INSERT INTO " + kv + " (k, v, bal) VALUES ($1, $2, $3) "
                          "ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, bal = EXCLUDED.bal").c_str(), 3);
      conn_.prepare("ra", ("SELECT k, v, bal FROM " + kv).c_str(), 0);
      if (sh.opt.workload == Workload::lwt) {
        // One statement each, its outcome in what it returns: the value now
        // present (unique values: the new one iff it succeeded). A failed
        // compare-and-set or insert leaves the row as it was.
        conn_.prepare("cas", ("UPDATE " + kv + " SET v = CASE WHEN v = $2 THEN $3 ELSE v END WHERE k = $1 RETURNING v").c_str(), 3);
        conn_.prepare("ins", ("INSERT INTO " + kv + " AS t (k, v) VALUES ($1, $2) "
                              "ON CONFLICT (k) DO UPDATE SET v = t.v RETURNING v").c_str(), 2);
      }
      if (scan_shaped(sh.opt.workload)) {
        conn_.prepare("s", ("SELECT k, v FROM " + kv + " WHERE k BETWEEN $1 AND $2 ORDER BY k").c_str(), 2);
        conn_.prepare("i", ("INSERT INTO " + kv + " (k, v) VALUES ($1, $2)").c_str(), 2);
        conn_.prepare("d", ("DELETE FROM " + kv + " WHERE k = $1 RETURNING v").c_str(), 1);
        conn_.prepare("sv", ("SELECT k, v FROM " + kv + " WHERE k BETWEEN $1 AND $2 AND v < 0 ORDER BY k").c_str(), 2);
      }
    }
  }

  SessionLog& log() { return log_; }
  uint64_t setup_losses() const { return conn_.setup_losses(); }

  // One statement reading every key (list); retried if it aborts.
  void final_read() {
    Plan p;
    p.steps.push_back({uses_list(sh_.opt.workload) ? PlanOp::read_all_lists : PlanOp::read_all, 0});
    for (int attempt = 0; attempt < 5; ++attempt)
      if (execute(p) == TxnStatus::committed) return;
    throw DatabaseError("the final read did not commit in 5 tries");
  }

  void run() {
    Plan plan;
    uint32_t retried = 0;
    bool have_plan = false;
    for (uint64_t i = 0; i < txns_ && !sh_.stop.load(std::memory_order_relaxed); ++i) {
      if (!have_plan) {
        plan = gen_.next();
        retried = 0;
      }
      TxnStatus st = execute(plan);
      have_plan = st == TxnStatus::aborted && retried < sh_.opt.retries;
      if (have_plan) ++retried;
    }
  }

 private:
  Sym next_value() { return (Sym(id_) << 32) | ++counter_; }
  // scan workload: unique too, its low bit the doctor's state (1: on call).
  Sym next_value(bool odd) { return (Sym(id_) << 32) | (2 * ++counter_ + (odd ? 1 : 0)); }

  // Counts an abort or a lost connection by cause.
  void count_failure(Outcome o) {
    if (o == Outcome::serialization) sh_.c.serialization.fetch_add(1, std::memory_order_relaxed);
    if (o == Outcome::deadlock) sh_.c.deadlock.fetch_add(1, std::memory_order_relaxed);
    if (o == Outcome::connection) sh_.c.connection.fetch_add(1, std::memory_order_relaxed);
  }

  [[noreturn]] void fatal(const std::string& what, const Result& r) {
    throw DatabaseError("session " + std::to_string(id_) + ": " + what + ": " + r.message());
  }

  // A failed statement: an abort (returned) or a fatal error (thrown).
  Outcome fail(const char* what, const Result& r) {
    if (r.outcome() == Outcome::error) fatal(what, r);
    return r.outcome();
  }

  void add_op(OpKind k, int64_t key, Sym value) { log_.ops.push_back({k, key, value}); }

  // Records a read of list `key` that returned the elements in scratch_.
  void add_list_read(int64_t key) {
    SessionLog::Op op{OpKind::read_list, key, 0};
    op.list_begin = log_.lists.size();
    log_.lists.insert(log_.lists.end(), scratch_.begin(), scratch_.end());
    op.list_end = log_.lists.size();
    log_.ops.push_back(op);
  }

  // The outcome of statement r, which wrote value v to key: when it
  // succeeded, recorded as an operation of kind k.
  Outcome wrote(const Result& r, const char* what, OpKind k, int64_t key, Sym v) {
    if (!r.ok()) return fail(what, r);
    add_op(k, key, v);
    return Outcome::ok;
  }

  // Runs scan statement `stmt` over [lo, hi] and records it as a stated scan
  // (on_call_only: its WHERE v < 0); its rows become the last scan's.
  Outcome scanned(const char* stmt, const char* what, int64_t lo, int64_t hi, bool on_call_only) {
    Result r = conn_.exec_prepared(stmt, {lo, hi});
    if (!r.ok()) return fail(what, r);
    SessionLog::Op op{OpKind::read, lo, Sym(hi)};
    op.stated = SessionLog::Stated::scan;
    op.on_call_only = on_call_only;
    op.list_begin = log_.lists.size();
    for (int i = 0; i < r.rows(); ++i) log_.lists.push_back(r.int64(i, 0)), log_.lists.push_back(r.int64(i, 1));
    op.list_end = log_.lists.size();
    log_.ops.push_back(op);
    last_scan_.assign(log_.lists.begin() + op.list_begin, log_.lists.end());
    sh_.c.scans.fetch_add(1, std::memory_order_relaxed);
    return Outcome::ok;
  }

  // Runs one step; returns the failed outcome or Outcome::ok.
  Outcome step(const PlanStep& s) {
    switch (s.op) {
      case PlanOp::read: {
        Result r = conn_.exec_prepared("r", {s.key});
        if (!r.ok()) return fail("read", r);
        if (r.rows() == 0) {
          add_op(OpKind::read, s.key, kNullValue);
          balances_[s.key] = kBankInitialBalance;
        } else {
          add_op(OpKind::read, s.key, Sym(r.int64(0, 0)));
          balances_[s.key] = r.int64(0, 1);
        }
        return Outcome::ok;
      }
      case PlanOp::write: {
        Sym v = next_value();
        return wrote(conn_.exec_prepared("w", {s.key, int64_t(v)}), "write", OpKind::write, s.key, v);
      }
      case PlanOp::transfer: {
        Sym v = next_value();
        auto it = balances_.find(s.key);
        int64_t bal = (it == balances_.end() ? kBankInitialBalance : it->second) + s.arg;
        return wrote(conn_.exec_prepared("t", {s.key, int64_t(v), bal}), "transfer", OpKind::write, s.key, v);
      }
      case PlanOp::append: {
        Sym v = next_value();
        return wrote(conn_.exec_prepared("a", {s.key, int64_t(v)}), "append", OpKind::append, s.key, v);
      }
      case PlanOp::read_list: {
        Result r = conn_.exec_prepared("rl", {s.key});
        if (!r.ok()) return fail("list read", r);
        if (r.rows() > 0) parse_int_array(r.text(0, 0), scratch_);
        else scratch_.clear();
        add_list_read(s.key);
        return Outcome::ok;
      }
      case PlanOp::read_all: {
        Result r = conn_.exec_prepared("ra", {});
        if (!r.ok()) return fail("read all", r);
        int64_t K = int64_t(sh_.keys.keys());
        std::vector<std::pair<Sym, int64_t>> seen(K, {kNullValue, kBankInitialBalance});
        for (int i = 0; i < r.rows(); ++i) {
          int64_t k = r.int64(i, 0);
          if (k >= 0 && k < K) seen[k] = {Sym(r.int64(i, 1)), r.int64(i, 2)};
        }
        int64_t total = 0;
        for (int64_t k = 0; k < K; ++k) {
          add_op(OpKind::read, k, seen[k].first);
          total += seen[k].second;
        }
        last_total_ = total;
        return Outcome::ok;
      }
      case PlanOp::scan: {
        const int64_t lo = s.key * kScanGroupKeys;
        return scanned("s", "scan", lo, lo + kScanGroupKeys - 1, false);
      }
      case PlanOp::oncall_scan: {
        const int64_t lo = s.key * kScanGroupKeys;
        return scanned("sv", "on-call scan", lo, lo + kScanDoctors - 1, true);
      }
      case PlanOp::oncall_update: {
        // The last on-call scan returned the doctors on call: with two, one
        // goes off (a positive value), else any doctor goes on (negative). A
        // point read of the doctor first: its version is then known (the
        // scan's silence about an off-call doctor does not say which).
        const int64_t first = s.key * kScanGroupKeys;
        const bool off = last_scan_.size() >= 4;
        const int64_t doctor = off ? last_scan_[2 * (pick_() % (last_scan_.size() / 2))]
                                   : first + static_cast<int64_t>(pick_() % kScanDoctors);
        if (Outcome o = step({PlanOp::read, doctor}); o != Outcome::ok) return o;
        const int64_t mag = static_cast<int64_t>(next_value());
        const Sym v = Sym(off ? mag : -mag);
        return wrote(conn_.exec_prepared("w", {doctor, int64_t(v)}), "on-call update", OpKind::write, doctor, v);
      }
      case PlanOp::on_call: {
        // The doctors the last scan saw on call (odd values).
        const int64_t first = s.key * kScanGroupKeys;
        std::vector<int64_t> on;
        for (size_t i = 0; i + 1 < last_scan_.size(); i += 2)
          if (last_scan_[i] < first + kScanDoctors && (last_scan_[i + 1] & 1)) on.push_back(last_scan_[i]);
        const bool off = on.size() >= 2;
        const int64_t doctor =
            off ? on[pick_() % on.size()] : first + static_cast<int64_t>(pick_() % kScanDoctors);
        Sym v = next_value(!off);
        return wrote(conn_.exec_prepared("w", {doctor, int64_t(v)}), "on-call update", OpKind::write, doctor, v);
      }
      case PlanOp::insert: {
        const int64_t offset = sh_.next_insert[s.key].fetch_add(1, std::memory_order_relaxed);
        if (offset >= kScanGroupKeys) return Outcome::ok;  // the group is full: the scan alone
        const int64_t k = s.key * kScanGroupKeys + offset;
        Sym v = next_value(false);
        Result r = conn_.exec_prepared("i", {k, int64_t(v)});
        if (!r.ok()) return fail("insert", r);
        SessionLog::Op op{OpKind::write, k, v};
        op.stated = SessionLog::Stated::insert;
        log_.ops.push_back(op);
        sh_.c.inserts.fetch_add(1, std::memory_order_relaxed);
        return Outcome::ok;
      }
      case PlanOp::remove: {
        // One of the inserted rows the last scan returned (never a doctor).
        const int64_t first = s.key * kScanGroupKeys;
        std::vector<int64_t> rows;
        for (size_t i = 0; i + 1 < last_scan_.size(); i += 2)
          if (last_scan_[i] >= first + kScanDoctors) rows.push_back(last_scan_[i]);
        if (rows.empty()) return Outcome::ok;  // nothing to delete: the scan alone
        const int64_t k = rows[pick_() % rows.size()];
        Result r = conn_.exec_prepared("d", {k});
        if (!r.ok()) return fail("delete", r);
        // No row: another transaction deleted it first (READ COMMITTED
        // re-reads it); this one changed nothing.
        if (r.rows() == 0) return Outcome::ok;
        SessionLog::Op op{OpKind::write, k, next_value(false)};  // its tombstone: unique like a value
        op.stated = SessionLog::Stated::del;
        log_.ops.push_back(op);
        sh_.c.deletes.fetch_add(1, std::memory_order_relaxed);
        return Outcome::ok;
      }
      case PlanOp::cas:
      case PlanOp::insert_if_absent: {
        auto seen = last_seen_.find(s.key);
        const bool cas = s.op == PlanOp::cas && seen != last_seen_.end();
        const Sym v = next_value();
        Result r = cas ? conn_.exec_prepared("cas", {s.key, int64_t(seen->second), int64_t(v)})
                       : conn_.exec_prepared("ins", {s.key, int64_t(v)});
        if (!r.ok()) return fail(cas ? "compare-and-set" : "insert-if-absent", r);
        const Sym now = r.rows() == 0 ? kNullValue : Sym(r.int64(0, 0));  // (no row: a CAS of an absent key)
        if (now == v) {  // it took effect: the read it made, then its write
          add_op(OpKind::read, s.key, cas ? seen->second : kNullValue);
          add_op(OpKind::write, s.key, v);
        } else {  // it failed: a read of what made it fail
          add_op(OpKind::read, s.key, now);
        }
        if (now == kNullValue) last_seen_.erase(s.key);
        else last_seen_[s.key] = now;
        return Outcome::ok;
      }
      case PlanOp::read_all_lists: {
        Result r = conn_.exec_prepared("ral", {});
        if (!r.ok()) return fail("read all lists", r);
        int64_t K = int64_t(sh_.keys.keys());
        std::vector<std::string> seen(K);
        for (int i = 0; i < r.rows(); ++i) {
          int64_t k = r.int64(i, 0);
          if (k >= 0 && k < K) seen[k] = r.text(i, 1);
        }
        for (int64_t k = 0; k < K; ++k) {
          if (seen[k].empty()) scratch_.clear();
          else parse_int_array(seen[k].c_str(), scratch_);
          add_list_read(k);
        }
        return Outcome::ok;
      }
    }
    return Outcome::ok;
  }

  TxnStatus execute(const Plan& plan) {
    SessionLog::Txn t{};
    t.op_begin = log_.ops.size();
    balances_.clear();
    last_total_ = INT64_MIN;
    t.begin = now_ns();
    Outcome failed = Outcome::ok;
    {
      Result r = conn_.exec(begin_sql(sh_.opt.isolation));
      if (!r.ok()) {
        if (r.outcome() == Outcome::error) fatal("BEGIN", r);
        failed = r.outcome();
      }
    }
    for (size_t i = 0; failed == Outcome::ok && i < plan.steps.size(); ++i) failed = step(plan.steps[i]);
    if (failed == Outcome::ok) {
      Result r = conn_.exec("COMMIT");
      if (r.ok()) {
        // COMMIT of a transaction the server already rolled back reports ROLLBACK.
        t.status = std::string_view(r.command_status()) == "COMMIT" ? TxnStatus::committed
                                                                    : TxnStatus::aborted;
      } else if (r.outcome() == Outcome::connection) {
        t.status = TxnStatus::unknown;  // it may or may not have committed
        count_failure(Outcome::connection);
      } else if (r.outcome() == Outcome::error) {
        fatal("COMMIT", r);
      } else {
        t.status = TxnStatus::aborted;
        count_failure(r.outcome());
      }
    } else {
      t.status = TxnStatus::aborted;
      count_failure(failed);
      if (failed != Outcome::connection) {
        Result r = conn_.exec("ROLLBACK");
        if (!r.ok() && r.outcome() != Outcome::connection) fatal("ROLLBACK", r);
      }
    }
    t.end = now_ns();
    t.op_end = log_.ops.size();
    log_.txns.push_back(t);

    auto& c = sh_.c;
    c.txns.fetch_add(1, std::memory_order_relaxed);
    c.ops.fetch_add(t.op_end - t.op_begin, std::memory_order_relaxed);
    if (t.status == TxnStatus::committed) {
      c.committed.fetch_add(1, std::memory_order_relaxed);
      if (last_total_ != INT64_MIN) {
        c.bank_reads.fetch_add(1, std::memory_order_relaxed);
        if (last_total_ != kBankInitialBalance * int64_t(sh_.keys.keys()))
          c.bank_bad.fetch_add(1, std::memory_order_relaxed);
      }
    } else if (t.status == TxnStatus::aborted) {
      c.aborted.fetch_add(1, std::memory_order_relaxed);
    } else {
      c.unknown.fetch_add(1, std::memory_order_relaxed);
    }
    if (!conn_.ok() && !conn_.reconnect())
      throw DatabaseError("session " + std::to_string(id_) + ": connection lost and not re-established");
    return t.status;
  }

  Shared& sh_;
  uint32_t id_;
  uint64_t txns_;
  uint64_t counter_ = 0;
  WorkloadGen gen_;
  Connection conn_;
  SessionLog log_;
  std::unordered_map<int64_t, int64_t> balances_;  // bank: balances read in this txn
  int64_t last_total_ = INT64_MIN;
  std::vector<int64_t> scratch_;
  std::vector<int64_t> last_scan_;  // scan workload: the last scan's rows, (key, value) flat
  std::unordered_map<int64_t, Sym> last_seen_;  // lwt: the value this session last saw per key
  std::mt19937_64 pick_{sh_.opt.seed * 0x9E3779B97F4A7C15ULL + id_};  // scan workload: which doctor
};

void check_identifier(const std::string& s) {
  bool ok = !s.empty() && s.size() <= 40 && (std::islower((unsigned char)s[0]) || s[0] == '_');
  for (char ch : s) ok = ok && (std::islower((unsigned char)ch) || std::isdigit((unsigned char)ch) || ch == '_');
  if (!ok) throw UsageError("--table must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, <= 40 chars)");
}

void create_schema(const Options& opt, const std::string& kv, const std::string& list) {
  Connection c(opt.dsn, "isocheck collect schema");
  auto run = [&](const std::string& sql) {
    Result r = c.exec(sql.c_str());
    if (!r.ok()) throw DatabaseError("schema: " + sql + ": " + r.message());
  };
  run("DROP TABLE IF EXISTS " + kv + ", " + list);
  if (uses_list(opt.workload))
    run("CREATE TABLE " + list + " (k bigint PRIMARY KEY, v bigint[] NOT NULL)");
  else
    run("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, v bigint NOT NULL, bal bigint NOT NULL DEFAULT " +
        std::to_string(kBankInitialBalance) + ")");
}

std::string progress_line(const Counters& c, double secs, uint64_t total) {
  uint64_t n = c.txns.load(), ab = c.aborted.load();
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "collect: %llu/%llu txns, %.0f txn/s, aborts %llu (%.1f%%: %llu serialization, "
                "%llu deadlock), unknown %llu",
                (unsigned long long)n, (unsigned long long)total, secs > 0 ? n / secs : 0.0,
                (unsigned long long)ab, n ? 100.0 * ab / n : 0.0,
                (unsigned long long)c.serialization.load(), (unsigned long long)c.deadlock.load(),
                (unsigned long long)c.unknown.load());
  return buf;
}

}  // namespace

std::string summary(const Stats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%llu txns in %.3f s (%.0f txn/s): %llu committed, %llu aborted (%.1f%%: %llu "
                "serialization, %llu deadlock), %llu unknown, %llu connection losses",
                (unsigned long long)s.txns, s.seconds, s.txns_per_second(),
                (unsigned long long)s.committed, (unsigned long long)s.aborted,
                100.0 * s.abort_rate(), (unsigned long long)s.serialization_failures,
                (unsigned long long)s.deadlocks, (unsigned long long)s.unknown,
                (unsigned long long)s.connection_losses);
  std::string out = buf;
  if (s.scans) {
    std::snprintf(buf, sizeof buf, "; %llu range scans, %llu inserts", (unsigned long long)s.scans,
                  (unsigned long long)s.inserts);
    out += buf;
    if (s.deletes) std::snprintf(buf, sizeof buf, ", %llu deletes", (unsigned long long)s.deletes);
    else buf[0] = 0;
    out += buf;
  }
  if (s.bank_reads) {
    std::snprintf(buf, sizeof buf, "; bank: %llu of %llu committed balance reads saw a wrong total",
                  (unsigned long long)s.bank_bad_totals, (unsigned long long)s.bank_reads);
    out += buf;
  }
  return out;
}

namespace {

// The history as the sessions stated it: scans and inserts kept as such
// (core/predicates.h), the other operations in `base`.
PredicateHistory run_stated(const Options& opt, Stats& stats, std::ostream& log) {
  if (opt.dsn.empty()) throw UsageError("--dsn is required");
  if (opt.sessions == 0 || opt.sessions > 1000) throw UsageError("--sessions must be in [1, 1000]");
  if (opt.workload == Workload::bank && opt.keys > 100000)
    throw UsageError("bank reads every account: use at most 100000 --keys");
  if (opt.wants_final_read() && opt.keys > 1000000)
    throw UsageError("the final read covers every key: use --no-final-read above 10^6 --keys");
  check_identifier(opt.table);
  KeySampler keys(opt.keys, opt.dist, opt.zipf_theta);
  { WorkloadGen probe(opt, keys, 0); (void)probe; }  // validates --ops / --read-only
  std::string kv = opt.table + "_kv", list = opt.table + "_list";
  create_schema(opt, kv, list);

  Counters counters;
  std::atomic<bool> stop{false};
  Shared sh{opt, keys, counters, stop, kv, list};
  const size_t groups = std::max<uint64_t>(1, opt.keys / kScanGroupKeys);
  std::unique_ptr<std::atomic<int64_t>[]> next_insert(new std::atomic<int64_t>[groups]);
  for (size_t g = 0; g < groups; ++g) next_insert[g] = kScanDoctors;
  sh.next_insert = next_insert.get();

  // Connect every session before the clock starts.
  std::vector<std::unique_ptr<Session>> sessions;
  for (uint32_t s = 0; s < opt.sessions; ++s) {
    uint64_t n = opt.txns / opt.sessions + (s < opt.txns % opt.sessions ? 1 : 0);
    sessions.push_back(std::make_unique<Session>(sh, s + 1, n));
  }

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::vector<std::exception_ptr> errors(opt.sessions);
  int64_t t0 = now_ns();
  std::vector<std::thread> threads;
  for (uint32_t s = 0; s < opt.sessions; ++s)
    threads.emplace_back([&, s] {
      try {
        sessions[s]->run();
      } catch (...) {
        errors[s] = std::current_exception();
        stop = true;
      }
    });

  bool tty = isatty(STDERR_FILENO);
  std::thread progress;
  if (opt.progress)
    progress = std::thread([&] {
      std::unique_lock lk(mu);
      while (!cv.wait_for(lk, std::chrono::seconds(tty ? 1 : 2), [&] { return done; }))
        log << (tty ? "\r" : "") << progress_line(counters, (now_ns() - t0) / 1e9, opt.txns)
            << (tty ? "" : "\n") << std::flush;
    });
  for (auto& t : threads) t.join();
  int64_t t1 = now_ns();
  {
    std::lock_guard lk(mu);
    done = true;
  }
  cv.notify_all();
  if (progress.joinable()) progress.join();
  if (opt.progress && tty) log << "\r\033[K" << std::flush;
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  stats.txns = counters.txns;
  stats.committed = counters.committed;
  stats.aborted = counters.aborted;
  stats.unknown = counters.unknown;
  stats.serialization_failures = counters.serialization;
  stats.deadlocks = counters.deadlock;
  stats.connection_losses = counters.connection;
  for (auto& s : sessions) stats.connection_losses += s->setup_losses();  // outside transactions
  stats.ops = counters.ops;
  stats.bank_reads = counters.bank_reads;
  stats.bank_bad_totals = counters.bank_bad;
  stats.scans = counters.scans;
  stats.inserts = counters.inserts;
  stats.deletes = counters.deletes;
  stats.seconds = (t1 - t0) / 1e9;
  if (opt.wants_final_read()) sessions[0]->final_read();

  // Merge the sessions by begin time (each session's begins are increasing,
  // so session order is kept); times become nanoseconds since the start.
  struct Ref { int64_t begin; uint32_t s; uint32_t i; };
  std::vector<Ref> order;
  order.reserve(stats.txns);
  for (uint32_t s = 0; s < opt.sessions; ++s) {
    const auto& L = sessions[s]->log();
    for (uint32_t i = 0; i < L.txns.size(); ++i) order.push_back({L.txns[i].begin, s, i});
  }
  std::stable_sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.s < b.s;
  });
  PredicateHistory ph;
  History& h = ph.base;
  h.time_unit = "ns";
  for (uint32_t s = 0; s < opt.sessions; ++s) h.session_name.push_back(s + 1);
  std::vector<Sym> list_buf;
  int64_t id = 0;
  for (const Ref& r : order) {
    const auto& L = sessions[r.s]->log();
    const auto& t = L.txns[r.i];
    const TxnIdx txn = static_cast<TxnIdx>(h.txn_count());
    h.begin_txn(id++, r.s, t.status, t.begin - t0, t.end - t0);
    for (uint64_t o = t.op_begin; o < t.op_end; ++o) {
      const auto& op = L.ops[o];
      if (op.stated != SessionLog::Stated::point) {
        PredicateOp p{op.stated == SessionLog::Stated::scan     ? PredicateOp::scan
                      : op.stated == SessionLog::Stated::insert ? PredicateOp::insert
                                                                : PredicateOp::del,
                      txn, static_cast<uint32_t>(o - t.op_begin)};
        p.key = Sym(op.key);
        if (p.kind == PredicateOp::scan) {
          p.hi = op.value;
          if (op.on_call_only) p.has_where = true, p.where = {ValuePredicate::lt, Sym(0)};
          for (uint64_t i = op.list_begin; i + 1 < op.list_end; i += 2)
            p.rows.push_back({Sym(L.lists[i]), Sym(L.lists[i + 1])});
        } else {
          p.value = op.value;
        }
        ph.ops.push_back(std::move(p));
      } else if (op.kind == OpKind::read_list) {
        list_buf.assign(L.lists.begin() + op.list_begin, L.lists.begin() + op.list_end);
        h.add_list_read(Sym(op.key), list_buf);
      } else {
        h.add_op(op.kind, Sym(op.key), op.value);
      }
    }
    h.end_txn();
  }
  return ph;
}

// JSONL with the scans and inserts as stated (docs/formats.md).
void write_stated_jsonl(const PredicateHistory& ph, AtomicOutput& file) {
  const History& h = ph.base;
  std::string out = "{\"isocheck\":1,\"time_unit\":\"ns\"}\n";
  auto put_int = [&](int64_t v) { out += std::to_string(v); };
  size_t next = 0;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    put_jsonl_txn_head(out, h, t);
    OpIdx o = h.op_begin(t);
    for (uint32_t pos = 0;; ++pos) {
      const bool stated = next < ph.ops.size() && ph.ops[next].txn == t && ph.ops[next].pos == pos;
      if (!stated && o == h.op_end(t)) break;
      if (pos) out.push_back(',');
      if (!stated) {
        put_jsonl_op(out, h, o++);
        continue;
      }
      const PredicateOp& p = ph.ops[next++];
      if (p.kind == PredicateOp::scan) {
        out += "[\"scan\",";
        put_int(static_cast<int64_t>(p.key));
        out.push_back(',');
        put_int(static_cast<int64_t>(p.hi));
        out += ",[";
        for (size_t i = 0; i < p.rows.size(); ++i) {
          out += i ? ",[" : "[";
          put_int(static_cast<int64_t>(p.rows[i].first));
          out.push_back(',');
          put_int(static_cast<int64_t>(p.rows[i].second));
          out.push_back(']');
        }
        out += p.has_where ? "],[\"<\",0]]" : "]]";  // (the one predicate collect writes: v < 0)
      } else {
        out += p.kind == PredicateOp::del ? "[\"delete\"," : "[\"insert\",";
        put_int(static_cast<int64_t>(p.key));
        out.push_back(',');
        put_int(static_cast<int64_t>(p.value));
        out.push_back(']');
      }
    }
    out += "]}\n";
    if (out.size() > (1 << 20)) file.write(out), out.clear();
  }
  file.write(out);
}

}  // namespace

History run(const Options& opt, Stats& stats, std::ostream& log) {
  PredicateHistory ph = run_stated(opt, stats, log);
  if (ph.ops.empty()) return std::move(ph.base);
  ExpandOptions eo;
  eo.absent_choices = true;  // (verify places a scan's absence of a deleted row)
  return expand_predicates(ph, opt.out.empty() ? "collect" : opt.out, eo);
}

Stats collect(const Options& opt, std::ostream& log) {
  if (opt.out.empty()) throw UsageError("--out is required");
  Format f = format_from_extension(opt.out);
  if (f != Format::jsonl && f != Format::hdf5)
    throw UsageError("--out must end in .jsonl (or .json) or .h5 (or .hdf5): " + opt.out);
  Stats stats;
  if (scan_shaped(opt.workload)) {
    // The scans, inserts and deletes as stated: JSONL (HDF5 keeps only the
    // point operations they stand for).
    if (f != Format::jsonl)
      throw UsageError(std::string("--workload ") + to_string(opt.workload) +
                       " writes JSONL (its scans, inserts and deletes): --out must end in .jsonl");
    AtomicOutput file(opt.out, "--out");  // fails now, not after the run
    PredicateHistory ph = run_stated(opt, stats, log);
    write_stated_jsonl(ph, file);
    file.commit();
  } else {
    auto sink = open_sink(opt.out, f, "ns");  // fails now, not after the run
    History h = run(opt, stats, log);
    sink->append(h);
    sink->finish();
  }
  log << "collect: " << to_string(opt.workload) << " at " << to_string(opt.isolation) << ", "
      << opt.sessions << " sessions, " << opt.keys << " keys: " << summary(stats) << " -> "
      << opt.out << "\n";
  return stats;
}

}  // namespace isocheck::collect

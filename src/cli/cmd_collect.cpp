// `isocheck collect`: run a workload against PostgreSQL and record the history.
#include <CLI/CLI.hpp>

#include <iostream>

#include "collect/collect.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "core/errors.h"

namespace {

struct CollectArgs {
  isocheck::collect::Options opt;
  std::string workload = "mt", isolation = "serializable", dist = "uniform";
  bool quiet = false;
  isocheck::LimitArgs limits;
};

// libpq's messages run over several lines ("...failed: ...\n\tIs the server
// running...?\n"): one line, the parts joined by "; ".
std::string one_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n') {
      out += s[i];
      continue;
    }
    while (i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t' || s[i + 1] == '\n')) ++i;
    if (i + 1 < s.size()) out += "; ";
  }
  return out;
}

}  // namespace

namespace isocheck {
void add_collect_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CollectArgs>();
  auto& o = args->opt;
  CLI::App* cmd = app.add_subcommand(
      "collect", "Run a workload against PostgreSQL (libpq) and record the history");
  cmd->add_option("--dsn", o.dsn, "libpq connection string, e.g. 'host=127.0.0.1 port=5432 dbname=postgres'")
      ->required();
  cmd->add_option("--workload", args->workload, "mt | rmw | blindw-rw | blindw-rm | append | bank | scan (range SELECTs, INSERTs and on-call UPDATEs over groups of 256 keys) | rows (scan with DELETEs of rows a scan returned) | oncall (doctors on call through a value predicate, SELECT ... WHERE v < 0, and their updates) | lwt (one compare-and-set or insert-if-absent per transaction)")
      ->capture_default_str();
  cmd->add_option("--isolation", args->isolation, "serializable | repeatable-read | read-committed")
      ->capture_default_str();
  cmd->add_option("--sessions", o.sessions, "client sessions (one connection and thread each)")
      ->capture_default_str();
  cmd->add_option("--txns", o.txns, "transactions attempted, all sessions together")
      ->capture_default_str();
  cmd->add_option("--keys", o.keys, "number of keys (accounts, lists)")->capture_default_str();
  cmd->add_option("--dist", args->dist, "key distribution: uniform | zipf")->capture_default_str();
  cmd->add_option("--zipf-theta", o.zipf_theta, "zipf exponent")->capture_default_str();
  cmd->add_option("--seed", o.seed, "workload seed")->capture_default_str();
  cmd->add_option("--ops", o.ops, "operations per transaction (default: mt 4, rmw 8, blindw 8, append 4)");
  cmd->add_option("--read-only", o.read_only,
                  "share of read-only transactions (default: mt/rmw 0.25, blindw-rw 0.5, "
                  "blindw-rm 0.9, bank 0.2, scan 0.3: the scan-twice transactions)");
  cmd->add_option("--retries", o.retries,
                  "re-run an aborted transaction's keys up to N times (each try is its own txn)")
      ->capture_default_str();
  cmd->add_option("--table", o.table, "table name prefix (<table>_kv, <table>_list; dropped and recreated)")
      ->capture_default_str();
  cmd->add_option("--out", o.out, "output history (.jsonl)")->required();
  cmd->add_flag_callback("--final-read", [args] { args->opt.final_read = 1; },
                         "end with one transaction reading every key (default for append: it "
                         "orders the appends no other read saw)");
  cmd->add_flag_callback("--no-final-read", [args] { args->opt.final_read = 0; },
                         "no final read, also for append");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line");
  add_limit_options(cmd, args->limits);
  cmd->callback([args, &exit_code] {
    namespace c = isocheck::collect;
    apply_limits(args->limits, "collect");
    try {
      args->opt.workload = c::parse_workload(args->workload);
      args->opt.isolation = c::parse_isolation(args->isolation);
      args->opt.dist = c::parse_dist(args->dist);
      args->opt.progress = !args->quiet;
      c::collect(args->opt, std::cerr);
      exit_code = 0;
    } catch (const isocheck::ResourceError&) {
      throw;  // exit 3 (main)
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const isocheck::UsageError& e) {
      std::cerr << "isocheck collect: " << e.what() << "\n";
      exit_code = 2;
    } catch (const c::DatabaseError& e) {
      std::cerr << "isocheck collect: " << one_line(e.what()) << "\n";
      exit_code = 2;
    } catch (const std::exception& e) {
      std::cerr << "isocheck collect: " << one_line(e.what()) << "\n";
      exit_code = 2;
    }
  });
}
}  // namespace isocheck

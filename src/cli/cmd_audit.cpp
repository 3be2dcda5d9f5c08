// isocheck audit LOG: a long log checked in rounds with bounded memory
// (src/audit, docs/audit.md).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "audit/audit.h"
#include "audit/parallel.h"
#include "cli/commands.h"
#include "io/errors.h"
#include "io/load.h"
#include "io/sink.h"
#include "util/limits.h"

namespace isocheck {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

// Exit status of a run stopped by SIGTERM/SIGINT after writing its checkpoint.
constexpr int kInterrupted = 75;

struct AuditArgs {
  std::string log, format = "auto", rule = "auto", checkpoint_dir, out_dir, engine = "auto", solver = "own",
                   fence_key = "__fence", write_fenced, memory_limit;
  std::vector<std::string> levels;
  uint64_t round = 100000, fence_every = 20, stop_after = 0;
  int64_t clock_skew = 0;
  int threads = 0;  // 0: the hardware threads
  bool requeue = false, json = false, quiet = false, time_order = false, no_dup_check = false;
};

Level audit_level(const std::string& s) {
  if (s == "ser" || s == "serializable") return Level::ser;
  if (s == "si" || s == "snapshot-isolation") return Level::si;
  if (s == "sser" || s == "strict-serializable") return Level::sser;
  throw UsageError("--level: unknown level \"" + s + "\" (expected ser, si or sser)");
}

int run_audit_command(const AuditArgs& a) {
  if (!a.memory_limit.empty()) apply_memory_limit(parse_bytes(a.memory_limit, "--memory-limit"));
  if (!a.write_fenced.empty()) {
    // Streamed: read and written a million transactions at a time.
    const FencedCounts n = write_fenced(a.log, a.write_fenced, a.fence_every, a.fence_key);
    if (!a.quiet)
      std::fprintf(stderr, "isocheck: wrote %s: %llu transactions (%llu fences)\n", a.write_fenced.c_str(),
                   static_cast<unsigned long long>(n.txns), static_cast<unsigned long long>(n.fences));
    return 0;
  }
  AuditOptions opt;
  opt.check.levels.clear();
  for (auto& l : a.levels) {
    Level lv = audit_level(l);
    if (std::find(opt.check.levels.begin(), opt.check.levels.end(), lv) == opt.check.levels.end())
      opt.check.levels.push_back(lv);
  }
  if (opt.check.levels.empty()) opt.check.levels.push_back(Level::ser);
  if (a.clock_skew < 0) throw UsageError("--clock-skew must not be negative");
  opt.check.clock_skew = a.clock_skew;
  if (a.engine != "auto" && a.engine != "linear") throw UsageError("--engine: expected auto or linear");
  opt.check.linear_only = a.engine == "linear";
  if (a.solver != "own" && a.solver != "cadical") throw UsageError("--solver: expected own or cadical");
  opt.check.cadical = a.solver == "cadical";
  if (a.threads < 0) throw UsageError("--threads must be at least 1 (or 0 for the hardware threads)");
  opt.threads = a.threads > 0 ? static_cast<unsigned>(a.threads) : hardware_threads();
  opt.check.threads = static_cast<int>(opt.threads);
  opt.check.time_order = a.time_order;
  opt.round_txns = a.round;
  opt.rule = a.rule;
  opt.format = a.format;
  opt.fence_key = a.fence_key;
  opt.checkpoint_dir = a.checkpoint_dir;
  opt.resume = a.requeue;
  opt.stop_after_rounds = a.stop_after;
  opt.duplicate_check = !a.no_dup_check;
  opt.stop = &g_stop;
  if (!a.quiet) opt.log = [](const std::string& s) { std::fprintf(stderr, "isocheck audit: %s\n", s.c_str()); };
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  opt.stage = set_stage;
  set_stage("audit (opening the log)");
  // Input errors name their file (the log or a checkpoint) and line already.
  AuditResult r = run_audit(a.log, opt);
  if (!a.out_dir.empty()) {
    std::filesystem::create_directories(a.out_dir);
    std::string base = (std::filesystem::path(a.out_dir) / std::filesystem::path(a.log).filename()).string();
    std::ofstream t(base + ".audit.txt"), j(base + ".audit.json");
    if (!t || !j) throw UsageError("--out: cannot write reports in " + a.out_dir);
    write_audit_text(t, r);
    write_audit_json(j, r);
  }
  if (a.json) write_audit_json(std::cout, r);
  else write_audit_text(std::cout, r);
  if (!r.complete) return kInterrupted;
  return r.exit_code();
}

}  // namespace

void add_audit_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<AuditArgs>();
  CLI::App* c = app.add_subcommand("audit", "Check a long log in rounds with bounded memory (docs/audit.md)");
  c->add_option("log", a->log, "Log file (JSONL, streamed; or HDF5, read by ranges)")->required();
  c->add_option("--round", a->round, "Transactions read and checked per round (default 100000)");
  c->add_option("-l,--level", a->levels, "Levels: ser, si, sser (comma-separated; default ser)")->delimiter(',');
  c->add_option("--rule", a->rule,
                "Forgetting rule: auto (default), fence, time (sser only, begin/end on every txn), none");
  c->add_option("--checkpoint-dir", a->checkpoint_dir, "Write a checkpoint after every round here");
  c->add_flag("--requeue,--resume", a->requeue, "Resume from the checkpoint in --checkpoint-dir when it matches");
  c->add_option("--out", a->out_dir, "Write LOG.audit.txt and LOG.audit.json here");
  c->add_option("--format", a->format, "Input format: auto, jsonl, hdf5");
  c->add_option("--fence-key", a->fence_key, "The reserved key of fence transactions (default __fence)");
  c->add_option("--clock-skew", a->clock_skew, "Real-time margin δ for sser (file's time unit)");
  c->add_option("--engine", a->engine, "auto or linear (as for verify)");
  c->add_option("--solver", a->solver, "own or cadical (as for verify)");
  c->add_option("--threads", a->threads,
                "Threads for pass 1, forget's split steps and each round's check (default: the hardware threads)");
  c->add_flag("--time-order", a->time_order, "As for verify");
  c->add_flag("--no-duplicate-check", a->no_dup_check,
              "Do not keep a fingerprint of every written (key, value) (about 11 bytes per write); a value written "
              "twice is then missed when its first writer was already forgotten");
  c->add_flag("--json", a->json, "Print the report as JSON");
  c->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  c->add_option("--memory-limit", a->memory_limit, "Give up (exit 3) past this much memory, e.g. 8G");
  c->add_option("--write-fenced", a->write_fenced,
                "Instead of auditing: write LOG with fence transactions added to this file (.jsonl or .h5)");
  c->add_option("--fence-every", a->fence_every, "With --write-fenced: a fence after every N txns of a session (20)");
  c->add_option("--stop-after-rounds", a->stop_after, "Testing: stop as if SIGTERM came after N rounds")
      ->group("");
  c->callback([a, &exit_code] { exit_code = run_audit_command(*a); });
}

}  // namespace isocheck

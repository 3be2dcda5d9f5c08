// isocheck audit LOG: a long log checked in rounds with bounded memory
// (src/audit, docs/audit.md).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "audit/audit.h"
#include "audit/parallel.h"
#include "cli/check_options.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "core/errors.h"
#include "io/load.h"
#include "io/output_file.h"
#include "io/sink.h"
#include "core/limits.h"

namespace isocheck {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

// Exit status of a run stopped by SIGTERM/SIGINT after writing its checkpoint.
constexpr int kInterrupted = 75;

struct AuditArgs {
  std::string log, out_dir, write_fenced;
  // The options that pass as they are (round, rule, format, fence key,
  // folders, resume, testing and profiling knobs) are parsed straight into
  // it, with its defaults; run_audit_command sets the rest.
  AuditOptions opt;
  LimitArgs limits;
  CheckArgs check = [] {  // shared with verify (cli/check_options.h)
    CheckArgs c;
    c.threads = 0;  // the hardware threads
    return c;
  }();
  uint64_t fence_every = 20;
  bool json = false, quiet = false, no_dup_check = false;
};

int run_audit_command(const AuditArgs& a) {
  apply_limits(a.limits, "audit");
  if (!a.write_fenced.empty()) {
    check_output_file(a.write_fenced, "--write-fenced", {a.log});
    // Streamed: read and written a million transactions at a time.
    const FencedCounts n = write_fenced(a.log, a.write_fenced, a.fence_every, a.opt.fence_key);
    if (!a.quiet)
      std::fprintf(stderr, "isocheck: wrote %s: %llu transactions (%llu fences)\n", a.write_fenced.c_str(),
                   static_cast<unsigned long long>(n.txns), static_cast<unsigned long long>(n.fences));
    return 0;
  }
  AuditOptions opt = a.opt;
  opt.check = check_options(a.check);
  for (Level l : opt.check.levels)
    if (l == Level::lin) throw UsageError("audit does not check --level lin: use verify --level lin");
  opt.threads = static_cast<unsigned>(opt.check.threads);
  opt.duplicate_check = !a.no_dup_check;
  opt.stop = &g_stop;
  if (!a.quiet) opt.log = [](const std::string& s) { std::fprintf(stderr, "isocheck audit: %s\n", s.c_str()); };
  // Every output path is checked before the run (io/output_file.h).
  std::string report_base;
  if (!opt.checkpoint_dir.empty()) check_output_dir(opt.checkpoint_dir, "--checkpoint-dir");
  if (!a.out_dir.empty()) {
    check_output_dir(a.out_dir, "--out");
    report_base = (std::filesystem::path(a.out_dir) / std::filesystem::path(a.log).filename()).string();
    check_output_file(report_base + ".audit.txt", "--out", {a.log});
    check_output_file(report_base + ".audit.json", "--out", {a.log});
  }
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  opt.stage = set_stage;
  set_stage("audit (opening the log)");
  // Input errors name their file (the log or a checkpoint) and line already.
  AuditResult r = run_audit(a.log, opt);
  // The report files before the verdict: a late write failure (a full disk)
  // exits 2 or 3 without a verdict printed (as verify).
  if (!a.out_dir.empty()) {
    std::ostringstream t, j;
    write_audit_text(t, r);
    write_audit_json(j, r);
    write_file_atomically(report_base + ".audit.txt", "--out", t.str());
    write_file_atomically(report_base + ".audit.json", "--out", j.str());
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
  c->add_option("--round", a->opt.round_txns, "Transactions read and checked per round (default 100000)");
  add_check_options(c, a->check, "pass 1, the forgetting step and each round's check (default 0)", false);
  c->add_option("--rule", a->opt.rule,
                "Forgetting rule: auto (default), fence, time (sser only, begin/end on every txn), none")
      ->check(CLI::IsMember({"auto", "fence", "time", "none"}));
  c->add_option("--checkpoint-dir", a->opt.checkpoint_dir, "Write a checkpoint after every round here");
  c->add_option("--scratch-dir", a->opt.scratch_dir,
                "Where the duplicate-write fingerprints and the later-reads index go as sorted files once they "
                "would take over 256 MiB of memory (default: the --checkpoint-dir, else a temporary folder)");
  c->add_flag("--requeue,--resume", a->opt.resume, "Resume from the checkpoint in --checkpoint-dir when it matches");
  c->add_option("--out", a->out_dir, "Write LOG.audit.txt and LOG.audit.json here");
  c->add_option("--format", a->opt.format, "Input format: auto (extension, then content) or one of: " + format_names());
  c->add_option("--fence-key", a->opt.fence_key, "The reserved key of fence transactions (default __fence)");
  c->add_flag("--no-duplicate-check", a->no_dup_check,
              "Do not keep a fingerprint of every written (key, value) (about 11 bytes per write); a value written "
              "twice is then missed when its first writer was already forgotten");
  c->add_flag("--json", a->json, "Print the report as JSON");
  c->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  add_limit_options(c, a->limits);
  c->add_option("--write-fenced", a->write_fenced,
                "Instead of auditing: write LOG with fence transactions added to this file (.jsonl or .h5)");
  c->add_option("--fence-every", a->fence_every, "With --write-fenced: a fence after every N txns of a session (20)");
  c->add_option("--stop-after-rounds", a->opt.stop_after_rounds, "Testing: stop as if SIGTERM came after N rounds")
      ->group("");
  c->add_option("--spill-above", a->opt.spill_above,
                "Testing: put the soundness state on disk when it would take at least this many bytes (0: always)")
      ->group("");
  c->add_flag("--debug-timing", a->opt.debug_timing,
              "Profiling: print each round's stage times, forget's phases, pass 1's and the later-reads index's "
              "times on stderr")
      ->group("");
  c->callback([a, &exit_code] { exit_code = run_audit_command(*a); });
}

}  // namespace isocheck

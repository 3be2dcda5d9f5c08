#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/check_options.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "cli/progress.h"
#include "mpi/driver.h"
#include "mpi/mpi_env.h"
#include "core/errors.h"
#include "io/load.h"
#include "io/output_file.h"
#include "report/report.h"
#include "solver/check.h"
#include "core/limits.h"
#include "core/timer.h"

namespace isocheck {
namespace {

struct VerifyArgs {
  std::string file, format = "auto", dot, html;
  CheckArgs check;  // shared with audit (cli/check_options.h)
  bool no_serial_witness = false;
  bool no_si_replay = false;
  bool no_local_search = false;
  bool json = false, quiet = false;
  // Distributed driver (docs/dist.md).
  bool dist = false, all_violations = false, key_shards = false;
  std::string checkpoint_dir, history_budget, stage_times;
  LimitArgs limits;
};

// The report files are written (each whole, through a temporary file) before
// the verdict is printed: a write that fails then (a full disk; the paths
// were checked before the run) exits 2 or 3 with its message and no verdict,
// so a printed verdict always comes with its own exit code.
int write_reports(const VerifyArgs& a, const History& h, const CheckResult& r, const ImportStats& import_stats,
                  const Timer& timer) {
  ReportContext ctx{a.file, timer.seconds()};
  if (import_stats.skipped_total() > 0) ctx.import_note = import_stats.describe();
  if (!a.dot.empty()) {
    std::ostringstream out;
    write_dot(out, h, r);
    write_file_atomically(a.dot, "--dot", out.str());
  }
  if (!a.html.empty()) {
    std::ostringstream out;
    write_html(out, h, r, ctx);
    write_file_atomically(a.html, "--html", out.str());
  }
  if (a.json) write_json(std::cout, h, r, ctx);
  else write_text(std::cout, h, r, ctx);
  return exit_code(r);
}

// Every output path is checked before the run: a run must not end, after
// all its work, on a file it cannot write, nor overwrite its input.
void check_outputs(const VerifyArgs& a) {
  const std::vector<std::string> inputs{a.file};
  if (!a.dot.empty()) check_output_file(a.dot, "--dot", inputs);
  if (!a.html.empty()) check_output_file(a.html, "--html", inputs);
  if (!a.stage_times.empty()) check_output_file(a.stage_times, "--stage-times", inputs);
  if (!a.checkpoint_dir.empty()) check_output_dir(a.checkpoint_dir, "--checkpoint-dir");
}

// The same job on every rank (mpiexec/srun, or one process with --dist or
// --checkpoint-dir); rank 0 prints the report, every rank returns its code.
int run_verify_distributed(const VerifyArgs& a, const CheckOptions& opt, Format f, const Timer& timer) {
  dist::DistOptions d;
  d.checkpoint_dir = a.checkpoint_dir;
  d.all_violations = a.all_violations;
  d.stage_times = a.stage_times;
  d.quiet = a.quiet;
  d.key_shards = a.key_shards;
  // The key shards' engines decide SER, SI and SSER; the blocks decide the
  // weak levels as they do those (Biswas–Enea Thm 5.2, docs/dist.md), so a
  // run asking for a weak level is decided there instead of refused.
  if (const std::string weak = weak_levels_asked(opt); a.key_shards && !weak.empty()) {
    d.key_shards = false;
    d.key_shards_unused = "they decide ser, si and sser only, and " + weak + (weak.find(',') == std::string::npos ? " was" : " were") + " asked";
  }
  if (!a.history_budget.empty()) d.history_budget = parse_bytes(a.history_budget, "--history-budget");
  d.options_text = check_options_text(a.check) + " all-violations=" + std::to_string(a.all_violations) +
                   " format=" + a.format +
                   " key-shards=" + std::to_string(d.key_shards);
  dist::DistRun run = dist::run_distributed(a.file, f, opt, d);
  if (run.interrupted || !run.root) return run.exit_code;
  if (run.import.skipped_total() > 0 && !a.quiet) std::fprintf(stderr, "isocheck: %s\n", run.import.describe().c_str());
  if (run.compact_report) write_reports(a, run.report_h, run.report_r, run.import, timer);
  else write_reports(a, run.h, run.r, run.import, timer);
  return run.exit_code;
}

int run_verify(const VerifyArgs& a) {
  // The distributed driver checks the limits on every rank together, once MPI runs.
  const bool distributed = a.dist || a.key_shards || !a.checkpoint_dir.empty() || dist::launched_by_mpi();
  apply_limits(a.limits, "start", !distributed);
  CheckOptions opt = check_options(a.check);
  opt.serial_witness = !a.no_serial_witness;
  opt.si_replay = !a.no_si_replay;
  opt.localise = !a.no_local_search;
  Format f = input_format(a.format);
  check_outputs(a);
  Timer timer;
  if (distributed && std::find(opt.levels.begin(), opt.levels.end(), Level::lin) != opt.levels.end())
    throw UsageError("--level lin runs on one process only (it is linear per key): drop the distributed options");
  if (distributed) {
    return run_verify_distributed(a, opt, f, timer);
  }
  Progress progress(a.quiet);
  progress.stage("read", 0);
  ImportStats import_stats;
  History h = load_history(a.file, f, &import_stats, true);
  // Nothing a user gave us is dropped silently: say what the importer skipped.
  if (import_stats.skipped_total() > 0 && !a.quiet) std::fprintf(stderr, "isocheck: %s\n", import_stats.describe().c_str());
  progress.set_items(h.txn_count());
  progress.stage("check", h.txn_count());
  CheckResult r;
  try {
    r = check(h, opt);
  } catch (const InputError& e) {
    throw InputError(a.file, e.what());
  }
  progress.finish();
  return write_reports(a, h, r, import_stats, timer);
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* c = app.add_subcommand("verify", "Check a history against isolation levels");
  c->add_option("file", a->file, "History file (JSONL or HDF5)")->required();
  add_check_options(c, a->check, "independent sub-problems and closure chunks (default 1)", true);
  c->add_option("--format", a->format, "Input format: auto (extension, then content) or one of: " + format_names())
      ->check(input_format_check());
  // (Not the audit's: its rounds refuse open reads, docs/audit.md.)
  c->add_option("--open-read-cases", a->check.open_read_cases,
                "The most checks run to decide range scans' open reads (which version of a key a scan that did not "
                "return it saw) by cases, one per version; past it they are not decided (exit 3)");
  c->add_flag("--no-serial-witness", a->no_serial_witness,
              "Skip the serial-witness replay and always build the dependency graph (for comparing engines)");
  c->add_flag("--no-si-replay", a->no_si_replay,
              "Skip the snapshot-isolation replay and decide si on the dependency graph (for comparing engines)");
  c->add_flag("--no-local-search", a->no_local_search,
              "When the replay fails, skip the search for the violation around the failed read: the whole graph decides");
  c->add_flag("--json", a->json, "Print the report as JSON (schema in docs/report.md)");
  c->add_option("--dot", a->dot, "Write the witness as a Graphviz graph to this file");
  c->add_option("--html", a->html, "Write a self-contained HTML report (witness drawn as SVG) to this file");
  c->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  add_limit_options(c, a->limits);
  c->add_flag("--dist", a->dist,
              "Use the distributed driver even on one process (implied under mpiexec/srun and by --checkpoint-dir)");
  c->add_option("--checkpoint-dir", a->checkpoint_dir,
                "Write a checkpoint after each stage here; on SIGTERM finish it and exit 75; rerunning resumes");
  c->add_flag("--all-violations", a->all_violations,
              "Distributed: check every piece even after a violation (report every anomaly)");
  c->add_option("--history-budget", a->history_budget,
                "Distributed: exit 3 when the history a rank holds exceeds this (e.g. 4G)");
  c->add_flag("--key-shards", a->key_shards,
              "Distributed: decide the whole history on key shards (hash(key) % ranks; implies --dist); "
              "histories with blind writes fall back to the usual path with a note");
  c->add_option("--stage-times", a->stage_times, "Distributed: write per-stage seconds, peak memory and the most operations held, per rank (JSON)");
  c->callback([a, &exit_code] { exit_code = run_verify(*a); });
}

}  // namespace isocheck

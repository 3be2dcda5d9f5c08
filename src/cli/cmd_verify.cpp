#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/progress.h"
#include "io/errors.h"
#include "io/load.h"
#include "report/report.h"
#include "solver/check.h"
#include "util/limits.h"
#include "util/timer.h"

namespace isocheck {
namespace {

struct VerifyArgs {
  std::string file, format = "auto", dot, html, memory_limit, time_limit, engine = "auto", solver = "own", closure = "auto";
  int threads = 1;
  bool time_order = false;
  std::vector<std::string> levels;
  int64_t clock_skew = 0;
  bool json = false, quiet = false;
};

Level parse_level(const std::string& s) {
  if (s == "ser" || s == "serializable") return Level::ser;
  if (s == "si" || s == "snapshot-isolation") return Level::si;
  if (s == "sser" || s == "strict-serializable") return Level::sser;
  throw UsageError("--level: unknown level \"" + s + "\" (expected ser, si or sser)");
}

int run_verify(const VerifyArgs& a) {
  if (!a.memory_limit.empty()) apply_memory_limit(parse_bytes(a.memory_limit, "--memory-limit"));
  if (!a.time_limit.empty()) apply_time_limit(parse_seconds(a.time_limit, "--time-limit"));
  CheckOptions opt;
  opt.levels.clear();
  for (auto& l : a.levels) {
    Level lv = parse_level(l);
    if (std::find(opt.levels.begin(), opt.levels.end(), lv) == opt.levels.end()) opt.levels.push_back(lv);
  }
  if (opt.levels.empty()) opt.levels.push_back(Level::ser);
  if (a.clock_skew < 0) throw UsageError("--clock-skew must not be negative");
  opt.clock_skew = a.clock_skew;
  if (a.engine != "auto" && a.engine != "linear") throw UsageError("--engine: expected auto or linear, got \"" + a.engine + "\"");
  opt.linear_only = a.engine == "linear";
  if (a.solver != "own" && a.solver != "cadical") throw UsageError("--solver: expected own or cadical, got \"" + a.solver + "\"");
  opt.cadical = a.solver == "cadical";
  if (a.closure != "auto" && a.closure != "cpu" && a.closure != "gpu")
    throw UsageError("--closure: expected auto, cpu or gpu, got \"" + a.closure + "\"");
  opt.closure = a.closure;
  if (a.threads < 1) throw UsageError("--threads must be at least 1");
  opt.threads = a.threads;
  opt.time_order = a.time_order;
  Format f = Format::unknown;
  if (a.format != "auto") {
    f = parse_format_name(a.format);
    if (f == Format::unknown) throw UsageError("--format: unknown format \"" + a.format + "\"");
  }
  Timer timer;
  Progress progress(a.quiet);
  progress.stage("read", 0);
  ImportStats import_stats;
  History h = load_history(a.file, f, &import_stats);
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
  ReportContext ctx{a.file, timer.seconds()};
  if (import_stats.skipped_total() > 0) ctx.import_note = import_stats.describe();
  if (a.json) write_json(std::cout, h, r, ctx);
  else write_text(std::cout, h, r, ctx);
  if (!a.dot.empty()) {
    std::ofstream out(a.dot);
    if (!out) throw UsageError("--dot: cannot write " + a.dot);
    write_dot(out, h, r);
  }
  if (!a.html.empty()) {
    std::ofstream out(a.html);
    if (!out) throw UsageError("--html: cannot write " + a.html);
    write_html(out, h, r, ctx);
  }
  return exit_code(r);
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* c = app.add_subcommand("verify", "Check a history against isolation levels");
  c->add_option("file", a->file, "History file (JSONL or HDF5)")->required();
  c->add_option("-l,--level", a->levels, "Level to check: ser, si, sser (repeatable or comma-separated; default ser)")
      ->delimiter(',');
  c->add_option("--clock-skew", a->clock_skew,
                "Real-time margin δ for sser: T1 precedes T2 only when end(T1) + δ < begin(T2) (file's time unit)");
  c->add_option("--format", a->format, "Input format: auto (extension, then content) or one of: " + format_names());
  c->add_option("--engine", a->engine,
                 "auto: linear engine when the version order is known, general engine otherwise; "
                 "linear: never the general engine (exit 3 when blind writes leave the order unknown)");
  c->add_option("--solver", a->solver, "SAT backend of the general engine: own (CDCL modulo acyclicity) or cadical");
  c->add_option("--closure", a->closure,
                "Reachability engine for pruning: auto (GPU when present and the problem is large), cpu, gpu");
  c->add_option("--threads", a->threads, "Threads for independent sub-problems and closure chunks");
  c->add_flag("--time-order", a->time_order,
              "Assume the database orders conflicting writes by real time (valid only for such databases): "
              "writes whose [begin, end] intervals do not overlap are ordered directly, even for ser and si");
  c->add_flag("--json", a->json, "Print the report as JSON (schema in the README)");
  c->add_option("--dot", a->dot, "Write the witness as a Graphviz graph to this file");
  c->add_option("--html", a->html, "Write a self-contained HTML report (witness drawn as SVG) to this file");
  c->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  c->add_option("--memory-limit", a->memory_limit, "Give up (exit 3) past this much memory, e.g. 8G");
  c->add_option("--time-limit", a->time_limit, "Give up (exit 3) after this long, e.g. 90s, 5m");
  c->callback([a, &exit_code] { exit_code = run_verify(*a); });
}

}  // namespace isocheck

#include "cli/check_options.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "core/errors.h"
#include "io/load.h"

namespace isocheck {
namespace {

// `--level all`: every level, weakest first (expanded by check_options()).
constexpr Level kAllLevelsChoice = static_cast<Level>(255);

// A CLI11 validator that maps names to an enum (CLI11 then reads the number):
// an unknown name is refused with the names the option takes.
template <class E>
CLI::Validator choice(std::vector<std::pair<std::string, E>> names, const std::string& what) {
  std::string expected;
  for (auto& [n, v] : names) expected += (expected.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, what, expected](std::string& s) -> std::string {
        for (auto& [n, v] : names)
          if (n == s) {
            s = std::to_string(static_cast<int>(v));
            return "";
          }
        return "unknown " + what + " \"" + s + "\" (expected " + expected + ")";
      },
      "{" + expected + "}", what);
}

}  // namespace

CLI::Validator input_format_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s == "auto" || parse_format_name(s) != Format::unknown) return "";
        return "unknown format \"" + s + "\" (expected auto, " + format_names() + ")";
      },
      "FORMAT", "input format");
}

Format input_format(const std::string& name) { return name == "auto" ? Format::unknown : parse_format_name(name); }

const char* to_string(EngineChoice e) { return e == EngineChoice::linear ? "linear" : "auto"; }
const char* to_string(SolverChoice s) { return s == SolverChoice::cadical ? "cadical" : "own"; }

void add_check_options(CLI::App* c, CheckArgs& a, const std::string& threads_help, bool with_closure) {
  c->add_option("-l,--level", a.levels,
                 "Level to check: ru, rc, ra, cc, pc, si, ser, sser, or all; lin (linearizability of lightweight "
                 "transactions) (repeatable or comma-separated; default ser)")
      ->delimiter(',')
      // One value per --level (commas for several): otherwise the option
      // swallows the history file that follows it ("--level ser h.jsonl --json
      // out.json": unknown level "h.jsonl").
      ->allow_extra_args(false)
      ->type_name("LEVEL")
      ->transform(choice<Level>({{"ser", Level::ser},
                                 {"si", Level::si},
                                 {"sser", Level::sser},
                                 {"serializable", Level::ser},
                                 {"snapshot-isolation", Level::si},
                                 {"strict-serializable", Level::sser},
                                 {"lin", Level::lin},
                                 {"linearizable", Level::lin},
                                 {"ru", Level::ru},
                                 {"rc", Level::rc},
                                 {"ra", Level::ra},
                                 {"cc", Level::cc},
                                 {"pc", Level::pc},
                                 {"read-uncommitted", Level::ru},
                                 {"read-committed", Level::rc},
                                 {"read-atomic", Level::ra},
                                 {"causal", Level::cc},
                                 {"prefix", Level::pc},
                                 {"all", kAllLevelsChoice}},
                                "level"));
  c->add_option("--clock-skew", a.clock_skew,
                "Real-time margin δ for sser: T1 precedes T2 only when end(T1) + δ < begin(T2) (file's time unit)");
  c->add_option("--engine", a.engine,
                "auto: linear engine when the version order is known, general engine otherwise; "
                "linear: never the general engine (exit 3 when blind writes leave the order unknown)")
      ->type_name("ENGINE")
      ->transform(choice<EngineChoice>({{"auto", EngineChoice::automatic}, {"linear", EngineChoice::linear}}, "engine"));
  c->add_option("--solver", a.solver, "SAT backend of the general engine: own (CDCL modulo acyclicity) or cadical")
      ->type_name("SOLVER")
      ->transform(choice<SolverChoice>({{"own", SolverChoice::own}, {"cadical", SolverChoice::cadical}}, "solver"));
  if (with_closure)
    c->add_option("--closure", a.closure,
                  "Reachability engine for pruning: auto (GPU when present and the problem is large), cpu, gpu")
        ->type_name("CLOSURE")
        ->transform(choice<ClosureChoice>(
            {{"auto", ClosureChoice::automatic}, {"cpu", ClosureChoice::cpu}, {"gpu", ClosureChoice::gpu}},
            "closure engine"));
  c->add_option("--threads", a.threads, "Worker threads of this process (0: one per hardware thread): " + threads_help)
      ->check(CLI::NonNegativeNumber);
  c->add_flag("--time-order", a.time_order,
              "Assume the database orders conflicting writes by real time (valid only for such databases): "
              "writes whose [begin, end] intervals do not overlap are ordered directly, even for ser and si");
}

CheckOptions check_options(const CheckArgs& a) {
  CheckOptions opt;
  opt.levels.clear();
  auto add = [&](Level l) {
    if (std::find(opt.levels.begin(), opt.levels.end(), l) == opt.levels.end()) opt.levels.push_back(l);
  };
  for (Level l : a.levels) {
    if (l != kAllLevelsChoice) add(l);
    else for (Level x : kAllLevels) add(x);
  }
  if (opt.levels.empty()) opt.levels.push_back(Level::ser);
  if (a.clock_skew < 0) throw UsageError("--clock-skew must not be negative");
  opt.clock_skew = a.clock_skew;
  opt.linear_only = a.engine == EngineChoice::linear;
  opt.cadical = a.solver == SolverChoice::cadical;
  opt.closure = a.closure;
  opt.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  opt.time_order = a.time_order;
  if (a.open_read_cases < 1) throw UsageError("--open-read-cases must be at least 1");
  opt.open_read_cases = static_cast<uint64_t>(a.open_read_cases);
  return opt;
}

std::string weak_levels_asked(const CheckOptions& opt) {
  std::string weak;
  for (Level l : opt.levels)
    if (is_weak(l)) weak += std::string(weak.empty() ? "" : ", ") + level_short(l);
  return weak;
}

std::string check_options_text(const CheckArgs& a) {
  const CheckOptions opt = check_options(a);
  std::string levels;
  for (Level l : opt.levels) levels += std::string(levels.empty() ? "" : ",") + to_string(l);
  return "levels=" + levels + " clock-skew=" + std::to_string(opt.clock_skew) + " engine=" + to_string(a.engine) +
         " solver=" + to_string(a.solver) + " time-order=" + std::to_string(opt.time_order);
}

}  // namespace isocheck

// The options `verify` and `audit` share, declared once: which levels, the
// real-time margin, the engine, the SAT backend, the closure engine, threads
// and the time order. Values are parsed by CLI11 into enums (a wrong name is a
// usage error naming the option and the names it takes).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "io/sink.h"
#include "solver/check.h"

namespace isocheck {

enum class EngineChoice : uint8_t { automatic, linear };
enum class SolverChoice : uint8_t { own, cadical };

struct CheckArgs {
  std::vector<Level> levels;  // empty: ser
  int64_t clock_skew = 0;
  EngineChoice engine = EngineChoice::automatic;
  SolverChoice solver = SolverChoice::own;
  ClosureChoice closure = ClosureChoice::automatic;
  // Worker threads of this process; 0: one per hardware thread. The default
  // differs by command (verify 1, one rank per core under MPI; audit 0).
  int threads = 1;
  bool time_order = false;
  // CheckOptions::open_read_cases (verify's --open-read-cases); signed, so
  // that "-1" is refused rather than read as 2^64 - 1.
  int64_t open_read_cases = 1024;
};

// Registers the shared options on `c`. `threads_help` says what the command
// runs on its threads and what its default is; `with_closure`: --closure.
// --format of verify, info and convert: "auto" or a name of format_names(); a
// wrong name is refused while parsing (exit 2) with the names it takes.
CLI::Validator input_format_check();
// The format a checked --format value names (Format::unknown for "auto": detect).
Format input_format(const std::string& name);

void add_check_options(CLI::App* c, CheckArgs& a, const std::string& threads_help, bool with_closure);
// The solver's options from the parsed arguments (UsageError for values the
// parser cannot refuse on its own, such as a negative clock skew).
CheckOptions check_options(const CheckArgs& a);
// "levels=... clock-skew=... engine=... solver=... time-order=...": the
// verdict-deciding options as text, for a checkpoint to be matched against.
std::string check_options_text(const CheckArgs& a);

// The weak levels (ru, rc, ra, cc, pc) `opt` asks for, by short name ("RU,
// RC"); empty when none.
std::string weak_levels_asked(const CheckOptions& opt);

const char* to_string(EngineChoice e);  // "auto", "linear"
const char* to_string(SolverChoice s);  // "own", "cadical"

}  // namespace isocheck

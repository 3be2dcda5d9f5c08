// --memory-limit and --time-limit on every command (core/limits.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace isocheck {

struct LimitArgs {
  std::string memory, time;
};
void add_limit_options(CLI::App* c, LimitArgs& l);
// Parses and sets both limits (UsageError for a bad value) and enters
// `stage`; check_now: check them at once (exit 3 when already past), which
// arms the watchdog. The distributed driver checks on every rank instead.
void apply_limits(const LimitArgs& l, const char* stage, bool check_now = true);

}  // namespace isocheck

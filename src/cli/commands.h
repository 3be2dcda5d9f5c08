// One file per subcommand; each registers itself on the app and sets the
// process exit code when it runs.
#pragma once
#include <CLI/CLI.hpp>

namespace isocheck {
void add_verify_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_info_command(CLI::App& app, int& exit_code);
void add_generate_command(CLI::App& app, int& exit_code);
void add_collect_command(CLI::App& app, int& exit_code);
void add_audit_command(CLI::App& app, int& exit_code);
}  // namespace isocheck

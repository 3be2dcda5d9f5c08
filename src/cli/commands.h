// One file per subcommand; each registers itself on the app and sets the
// process exit code when it runs.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdio>
#include <sstream>
#include <string>

#include "io/import.h"

namespace isocheck {
void add_verify_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_info_command(CLI::App& app, int& exit_code);
void add_generate_command(CLI::App& app, int& exit_code);
void add_collect_command(CLI::App& app, int& exit_code);
void add_audit_command(CLI::App& app, int& exit_code);

// What an importer skipped or read under an interpretation, one stderr line
// each: never dropped silently.
inline void print_import_notes(const ImportStats& st) {
  std::istringstream lines(st.describe());
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) std::fprintf(stderr, "isocheck: %s\n", l.c_str());
}
}  // namespace isocheck

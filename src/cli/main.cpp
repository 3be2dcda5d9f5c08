// TEMPORARY driver on the collect branch until the lead's main.cpp lands;
// replaced by main's version at merge.
#include <CLI/CLI.hpp>

void add_collect_command(CLI::App& app, int& exit_code);

int main(int argc, char** argv) {
  CLI::App app{"isocheck"};
  app.require_subcommand(1);
  int exit_code = 0;
  add_collect_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}

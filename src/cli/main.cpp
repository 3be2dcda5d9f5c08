// isocheck: a black-box checker of transactional isolation.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "cli/commands.h"
#include "core/allocator.h"
#include "core/version.h"
#include "mpi/mpi_env.h"
#include "core/errors.h"
#include "core/limits.h"

namespace {
int run(int argc, char** argv);
}

// Under mpiexec/srun MPI is initialised before anything else; a plain run
// never touches MPI unless `verify --dist/--checkpoint-dir` asks for it.
int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--mpi-start-probe") return isocheck::dist::start_probe();
  if (isocheck::dist::launched_by_mpi()) isocheck::dist::init();
  int rc = run(argc, argv);
  // The report goes to standard output: a write that failed there (a full
  // disk, a closed descriptor) lost it, and the run must not end as if it had
  // been delivered — exit 3 with a message, whatever the verdict was.
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    const int e = errno;
    std::fprintf(stderr, "isocheck: cannot write the output to standard output%s%s; exit 3 instead of %d\n",
                 e ? ": " : "", e ? std::strerror(e) : "", rc);
    rc = 3;
  }
  isocheck::dist::finalize();
  return rc;
}

namespace {
// One line per failure: in a job of several ranks an error every rank met
// alike (the driver's collective steps, or a command line every rank parsed)
// is said by rank 0 alone; one that a single rank met is said by that rank.
bool quiet_rank(bool alike_everywhere) {
  using namespace isocheck::dist;
  return initialized() && size() > 1 && rank() != 0 && (alike_everywhere || g_error_agreed);
}
void say(const std::string& line, bool alike_everywhere = false) {
  if (!quiet_rank(alike_everywhere)) std::fprintf(stderr, "isocheck: %s\n", line.c_str());
}

// Options read into unsigned integers (CLI11 names their type UINT) refuse
// a negative value, which CLI11 would read as 2^64 - 1 ("--round -1", a
// round of every transaction there is): one check for every command.
void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_name().rfind("UINT", 0) != 0) continue;
    // (CLI11 leaves the name out of a hidden option's messages: say it.)
    const std::string name = o->get_lnames().empty() ? "" : "--" + o->get_lnames().front() + " ";
    const std::string what = (o->get_group().empty() ? name : "") + "must not be negative";
    o->check(CLI::Validator([what](std::string& v) { return !v.empty() && v[0] == '-' ? what : std::string(); }, "", ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_negative_unsigned(*sub);
}

int run(int argc, char** argv) {
  using namespace isocheck;
  CLI::App app{"isocheck: is this database history serializable / snapshot isolated / strictly serializable?"};
  app.require_subcommand(1);
  // The allocator's line helps read a bug report's memory and timing figures.
  app.set_version_flag("--version", std::string(kVersionText) + "\nallocator: " + allocator_text());
  int code = 0;
  add_verify_command(app, code);
  add_convert_command(app, code);
  add_info_command(app, code);
  add_generate_command(app, code);
  add_collect_command(app, code);
  add_audit_command(app, code);
  refuse_negative_unsigned(app);
  try {
    // (Tests: an internal check that fails, as a bug would make one fail; the
    // value "piece" makes it fail inside a piece on the ranks instead.)
    if (const char* t = std::getenv("ISOCHECK_TEST_INTERNAL_ERROR"); t && std::string_view(t) != "piece")
      throw std::logic_error("a check inside isocheck failed (test)");
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (quiet_rank(true)) return e.get_exit_code() == 0 ? 0 : 2;
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const InputError& e) {
    say(std::string("input error: ") + e.what());
    return 2;
  } catch (const UsageError& e) {
    say(e.what(), true);
    return 2;
  } catch (const ResourceError& e) {
    say(e.what());
    return 3;
  } catch (const std::filesystem::filesystem_error& e) {  // a file operation not checked beforehand
    say(e.what());
    return e.code() == std::errc::no_space_on_device ? 3 : 2;
  } catch (const std::bad_alloc&) {
    // An allocation the system refused (the limit itself is on resident memory).
    // The peak, not what is resident now: the stage's memory is freed by the time we get here.
    say(std::string("out of memory during stage \"") + current_stage() + "\" (peak " +
        format_mib(peak_resident_bytes()) + " resident); run on a machine with more memory" +
        (dist::initialized() ? " or on more nodes" : ""));
    return 3;
  } catch (const std::system_error& e) {
    // No thread, file descriptor or mapping to be had: a resource ran out.
    say(std::string("out of system resources during stage \"") + current_stage() + "\": " + e.what());
    return 3;
  } catch (const std::exception& e) {
    // An internal check failed (std::logic_error; on the ranks, a collective
    // step rethrows it as std::runtime_error): a bug, not a verdict. Exit 3
    // with the message, never 1 and never std::terminate's abort.
    say(std::string("internal error during stage \"") + current_stage() + "\": " + e.what() +
        " (a bug in isocheck; no verdict is given: please report it with the command line)");
    return 3;
  }
  return code;
}
}  // namespace

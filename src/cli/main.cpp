// isocheck: a black-box checker of transactional isolation.
#include <cstdio>
#include <new>

#include "cli/commands.h"
#include "mpi/mpi_env.h"
#include "io/errors.h"
#include "util/limits.h"

namespace {
int run(int argc, char** argv);
}

// Under mpiexec/srun MPI is initialised before anything else; a plain run
// never touches MPI unless `verify --dist/--checkpoint-dir` asks for it.
int main(int argc, char** argv) {
  if (isocheck::dist::launched_by_mpi()) isocheck::dist::init();
  int rc = run(argc, argv);
  std::fflush(stdout);
  isocheck::dist::finalize();
  return rc;
}

namespace {
int run(int argc, char** argv) {
  using namespace isocheck;
  CLI::App app{"isocheck: is this database history serializable / snapshot isolated / strictly serializable?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "isocheck 0.1.0");
  int code = 0;
  add_verify_command(app, code);
  add_convert_command(app, code);
  add_info_command(app, code);
  add_generate_command(app, code);
  add_collect_command(app, code);
  add_audit_command(app, code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const InputError& e) {
    std::fprintf(stderr, "isocheck: input error: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "isocheck: %s\n", e.what());
    return 2;
  } catch (const ResourceError& e) {
    std::fprintf(stderr, "isocheck: %s\n", e.what());
    return 3;
  } catch (const std::bad_alloc&) {
    if (memory_limit())
      std::fprintf(stderr, "isocheck: memory limit of %llu MiB reached during stage \"%s\"; raise --memory-limit\n",
                   memory_limit() >> 20, current_stage());
    else
      std::fprintf(stderr, "isocheck: out of memory during stage \"%s\"; run on a machine with more memory\n",
                   current_stage());
    return 3;
  }
  return code;
}
}  // namespace

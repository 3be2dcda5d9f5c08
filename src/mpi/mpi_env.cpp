#include "mpi/mpi_env.h"

#include <fcntl.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "core/limits.h"

namespace isocheck::dist {

volatile std::sig_atomic_t g_terminate = 0;
bool g_error_agreed = false;
namespace {
bool g_init = false;
void on_term(int) { g_terminate = 1; }

// Runs `isocheck --mpi-start-probe` and throws ResourceError, with the first
// line of Open MPI's report that names a failure, when it does not exit 0.
void check_singleton_start() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw ResourceError("MPI start-up: no pipe for the start-up trial");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    throw ResourceError("MPI start-up: cannot fork the start-up trial");
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO), dup2(fds[1], STDERR_FILENO);
    execl("/proc/self/exe", "isocheck", "--mpi-start-probe", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;)
    if (n > 0) out.append(buf, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
  std::string why;
  for (size_t p = 0; p < out.size();) {
    size_t e = out.find('\n', p);
    if (e == std::string::npos) e = out.size();
    std::string line = out.substr(p, e - p);
    p = e + 1;
    const size_t b = line.find_first_not_of(" \t*");
    if (b != std::string::npos && line.size() >= 6 && line.compare(line.size() - 6, 6, "failed") == 0) {
      why = line.substr(b);
      break;
    }
  }
  throw ResourceError("MPI could not start in this process" + (why.empty() ? std::string() : " (" + why + ")") +
                      "; run under mpiexec or srun, fix the MPI installation, or run without --dist, "
                      "--checkpoint-dir and --key-shards");
}
}  // namespace

int start_probe() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  MPI_Finalize();
  return 0;
}

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return std::getenv("SLURM_STEP_ID") && std::getenv("SLURM_NTASKS") && std::getenv("SLURM_PROCID") &&
         std::getenv("SLURM_STEP_NUM_TASKS");
}

void init() {
  if (g_init) return;
  int done = 0;
  MPI_Initialized(&done);
  if (!done) {
    if (!launched_by_mpi()) check_singleton_start();
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  g_init = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  set_limit_rank(rank(), size());  // a limit's message names the rank
}

void finalize() {
  if (!g_init) return;
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
  g_init = false;
}

bool initialized() { return g_init; }

int rank() {
  if (!g_init) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  if (!g_init) return 1;
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void install_term_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

}  // namespace isocheck::dist

#include "mpi/mpi_env.h"

#include <mpi.h>

#include <cstdlib>

namespace isocheck::dist {

volatile std::sig_atomic_t g_terminate = 0;
namespace {
bool g_init = false;
void on_term(int) { g_terminate = 1; }
}  // namespace

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
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  g_init = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
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

// dist/: the MPI runtime. One binary: `isocheck …` on one process never
// touches MPI unless asked; under mpiexec/srun (detected from the launcher's
// environment) main() initialises MPI before parsing, and the distributed
// driver initialises it on demand (Open MPI singleton) for `--dist` or
// `--checkpoint-dir` without a launcher.
#pragma once
#include <csignal>
#include <string>

namespace isocheck::dist {

// True when a launcher started this process (OMPI_COMM_WORLD_SIZE,
// PMI_SIZE, PMIX_RANK, SLURM_STEP_ID with SLURM_NTASKS).
bool launched_by_mpi();
// MPI_Init_thread(FUNNELED) once; safe to call again. Without a launcher the
// singleton start is tried in a child first (`isocheck --mpi-start-probe`):
// Open MPI ends a process whose start fails with exit 1, the violation code;
// here a failed start is a ResourceError (exit 3).
void init();
// The child's side of that trial: 0 when MPI starts and finalizes.
int start_probe();
// MPI_Finalize when init() ran.
void finalize();
bool initialized();
int rank();
int size();

// SIGTERM/SIGINT set this flag (the driver polls it between pieces).
extern volatile std::sig_atomic_t g_terminate;
// Set when every rank has agreed on the error being thrown (rank 0 says it).
extern bool g_error_agreed;
void install_term_handler();

}  // namespace isocheck::dist

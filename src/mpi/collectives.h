// Collectives of the MPI runtime: typed bulk arrays and strings over MPI (in
// chunks: MPI counts are int), errors agreed by every rank, and the history
// exchanges of the read stage (broadcast, per-range joins, scatter).
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/limits.h"
#include "core/history.h"
#include "mpi/accounting.h"
#include "mpi/mpi_env.h"

namespace isocheck::dist {

// The running stage, for out-of-memory messages (cli/limits.cpp is not a library).
extern const char* g_stage;
inline constexpr uint64_t kChunk = uint64_t{1} << 28;  // elements per MPI call (counts are int)

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return x;
}

// ---- typed bulk arrays -------------------------------------------------------

template <class T> MPI_Datatype mpi_type();
template <> inline MPI_Datatype mpi_type<int64_t>() { return MPI_INT64_T; }
template <> inline MPI_Datatype mpi_type<uint64_t>() { return MPI_UINT64_T; }
template <> inline MPI_Datatype mpi_type<uint32_t>() { return MPI_UINT32_T; }
template <> inline MPI_Datatype mpi_type<char>() { return MPI_CHAR; }
template <> inline MPI_Datatype mpi_type<TxnStatus>() { return MPI_UINT8_T; }
template <> inline MPI_Datatype mpi_type<OpKind>() { return MPI_UINT8_T; }

template <class T> void bcast_vec(std::vector<T>& v, int root) {
  uint64_t n = v.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  v.resize(n);
  for (uint64_t s = 0; s < n; s += kChunk)
    MPI_Bcast(v.data() + s, static_cast<int>(std::min(kChunk, n - s)), mpi_type<T>(), root, MPI_COMM_WORLD);
}

// A set of operations held as runs (History::scan_ops): its bounds travel.
inline void bcast_runs(OpRuns& runs, int root) {
  std::vector<OpRuns::Op> bounds = runs.bounds();
  bcast_vec(bounds, root);
  runs = OpRuns::from_bounds(bounds);
}

void bcast_string(std::string& s, int root);
void send_string(const std::string& s, int dest, int tag);

// Waits for a message without spinning a core at 100% (ranks share cores).
MPI_Status wait_probe(int source, int tag);
// Receives the string message `st` announced (after wait_probe).
std::string recv_string(MPI_Status st);

// Test hook (tests/dist/held_job.sh): when the variable `env` is 1, every rank
// holds here until a signal arrives, so that a test stops the job at a known
// point without sleeping; rank 0 first says "held" into the FIFO named by
// ISOCHECK_TEST_READY_FIFO, which the test is blocked reading. Every test hook
// is listed in docs/testing.md, "Test hooks".
void test_hold(const char* env);

// ---- errors agreed by every rank --------------------------------------------

// Runs fn on every rank; if any rank threw, every rank throws the error of
// the lowest failing rank.
template <class F> void collective(F&& fn) {
  int code = 0;
  std::string msg;
  try {
    check_limits(g_stage);
    fn();
    check_limits(g_stage);
  } catch (const InputError& e) {
    code = 1, msg = e.what();
  } catch (const UsageError& e) {
    code = 2, msg = e.what();
  } catch (const ResourceError& e) {
    code = 3, msg = e.what();
  } catch (const std::bad_alloc&) {
    code = 3, msg = std::string("out of memory during stage \"") + g_stage + "\"; run on more nodes or on machines with more memory";
  } catch (const std::exception& e) {
    code = 4, msg = e.what();
  }
  int me = code ? rank() : size(), first = 0;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size()) return;
  // An error is on its way: no watchdog reports a limit besides it (two
  // lines for one error, one of them from a rank that was winding down).
  disarm_limits();
  MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
  bcast_string(msg, first);
  g_error_agreed = true;
  if (code == 1) throw InputError(msg.substr(0, msg.find(": ")), msg.find(": ") == std::string::npos ? msg : msg.substr(msg.find(": ") + 2));
  if (code == 2) throw UsageError(msg);
  if (code == 3) throw ResourceError(msg);
  throw std::runtime_error(msg);
}

// ---- history exchange --------------------------------------------------------

// The root's whole history to every rank (columns, symbol tables).
void bcast_history(History& h, int root);
// Every rank read transactions [first_r, last_r) (read_hdf5_range); afterwards
// every rank holds the whole history, in file order, sessions numbered by
// first appearance as read_hdf5 numbers them. Symbol tables are global in the
// file (every range reads them whole), so symbols need no remapping.
History allgather_ranges(History&& mine);
// The root's history (registers only) cut into P consecutive transaction
// ranges, rank r getting [n*r/P, n*(r+1)/P).
History scatter_ranges(const History& h, int root);
// The same with list reads' values.
History scatter_ranges_with_lists(const History& h, int root);

}  // namespace isocheck::dist

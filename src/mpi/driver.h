// The distributed verify driver (docs/dist.md): the same job on any number of
// ranks, with the same verdicts and witnesses for every rank count.
//
//  read       every rank its own range of transactions (HDF5 hyperslabs,
//             JSONL line-aligned byte ranges; other formats read on rank 0
//             and scattered), read chunk by chunk (mpi/owned.h); with
//             --key-shards, as key_shards.h says.
//  partition  a first pass: sessions numbered as one process numbers them,
//             (key, session, ops) rows to hash(key) % P (MPI_Alltoallv);
//             each rank builds its keys' part of the communication graph;
//             the parts are gathered everywhere and every rank computes the
//             same blocks (partition/).
//  distribute pieces (piece 0 = the whole history when SSER is asked — real
//             time crosses blocks —, then one piece per block for SER/SI,
//             the largest first) assigned largest-first; a second pass sends
//             each piece's operations once to the rank solving it.
//  solve      every rank its own pieces (check(), with its own split into
//             sub-problems on --threads); an idle rank steals a piece nobody
//             started, its data sent by the rank holding it.
//  report     rank 0 merges the results; tie-break in docs/dist.md.
#pragma once
#include <cstdint>
#include <string>

#include "core/history.h"
#include "io/import.h"
#include "io/sink.h"
#include "solver/check.h"

namespace isocheck::dist {

// Exit code of a job stopped by SIGTERM/SIGINT after writing its checkpoint.
inline constexpr int kExitInterrupted = 75;  // EX_TEMPFAIL, as `audit`: slurm/ requeues on it

struct DistOptions {
  std::string checkpoint_dir;    // "" = no checkpoints
  bool all_violations = false;   // run every piece even after a violation
  uint64_t history_budget = 0;   // bytes of history a rank may hold (0 = no limit)
  std::string stage_times;       // write per-stage times / peak memory (JSON) here
  // Key shards (mpi/key_shards.h): decide the whole history on key shards
  // (--key-shards; never chosen automatically: docs/dist.md says why).
  bool key_shards = false;
  // Why --key-shards was asked but not used (it decides SER, SI and SSER
  // only): rank 0 says so, and the blocks decide every level.
  std::string key_shards_unused;
  std::string options_text;      // the options that decide the result (checkpoint fingerprint)
  bool quiet = false;
};

struct DistRun {
  bool root = false;             // rank 0: h and r are filled, print the report
  History h;
  CheckResult r;
  ImportStats import;
  int exit_code = 0;             // the same on every rank
  bool interrupted = false;      // stopped by a signal; checkpoint written
  bool resumed = false;
  bool key_sharded = false;      // decided on key shards (not refused)
  // Rank 0, owned data: the report's history holds only the transactions
  // the report names (report_h), and report_r is r renumbered into it.
  bool compact_report = false;
  History report_h;
  CheckResult report_r;
};

// Collective: every rank calls it. Throws InputError / UsageError /
// ResourceError on every rank when any rank hit one (the lowest rank's
// message).
DistRun run_distributed(const std::string& file, Format f, const CheckOptions& opt, const DistOptions& d);

}  // namespace isocheck::dist

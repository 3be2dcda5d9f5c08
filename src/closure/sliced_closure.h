// Closure slices across MPI ranks (docs/gpu.md). Every rank holds the same
// graph and input; the endpoint columns are cut into slices, one per rank:
// ranks that own a GPU (one per device, chosen by node-local rank) compute
// theirs with the CUDA backend and all-gather them over one NCCL communicator
// (bootstrapped over MPI); the other ranks compute CPU slices, which meet the
// others over MPI. Every call is collective over the communicator.
// Compiled only when MPI is found (library isocheck_sliced).
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "closure/closure.h"
#include "closure/gpu_closure.h"

namespace isocheck {

struct SlicedOptions {
  bool use_gpu = true;                 // false: every rank takes a CPU slice
  double gpu_share = 16.0;             // columns of a GPU slice per column of a CPU slice
  uint64_t cpu_memory_budget = uint64_t{1} << 30;
  GpuClosureOptions gpu;               // .device is set from the node-local rank
};

class SlicedClosure final : public ClosureEngine {
 public:
  SlicedClosure(MPI_Comm comm, SlicedOptions o = {});  // collective
  ~SlicedClosure() override;                          // collective
  const char* name() const override { return "sliced"; }
  ReachMatrix reach_matrix(const Csr& g, std::span<const uint32_t> keys) override;
  std::vector<uint8_t> reach_queries(const Csr& g, std::span<const ReachQuery> q) override;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool has_gpu() const { return gpu_; }
  int gpu_ranks() const { return gpu_ranks_; }
  bool nccl() const;
  std::string describe() const;  // "rank 2/4 on node rank 1: GPU 1 (NCCL rank 1 of 2)"

  // Slice i (in slice order: GPU ranks first) of `units` units: [begin, end)
  // and, for GPU slices, the padded length every GPU slice has.
  struct Slice { uint64_t begin, end; };
  Slice slice_of(int slot, uint64_t units) const;
  uint64_t gpu_slice_units(uint64_t units) const;

 private:
  struct Nccl;
  // Gathers every rank's slot: slot_bytes[s] is slot s's size (GPU slots,
  // the first gpu_ranks_, all equal: NCCL all-gathers equal parts); `mine`
  // is this rank's slot. The result holds all slots in slot order. elem is
  // 1 (bytes) or 8 (words): the MPI element size.
  std::vector<uint8_t> allgather(const std::vector<uint8_t>& mine, const std::vector<uint64_t>& slot_bytes, int elem);

  MPI_Comm comm_ = MPI_COMM_NULL, gpu_comm_ = MPI_COMM_NULL, bridge_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, slot_ = 0, gpu_ranks_ = 0;
  bool gpu_ = false;
  SlicedOptions opt_;
  std::unique_ptr<SliceBackend> backend_;
  std::unique_ptr<Nccl> nccl_;
  std::vector<int> slot_rank_;  // slot -> world rank
};

}  // namespace isocheck

// The GPU closure engine (docs/gpu.md). The engine logic is plain C++ over a
// SliceBackend (gpu_plan.h); the CUDA backend lives in gpu_closure.cu and is
// compiled only when CMake finds CUDA (ISOCHECK_HAVE_CUDA=1). Without it every
// function here still links: gpu_devices() is empty, make_gpu_closure()
// returns nullptr.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "closure/closure.h"
#include "closure/gpu_config.h"
#include "closure/gpu_plan.h"

namespace isocheck {

struct GpuDeviceInfo {
  int index = 0;
  std::string name;
  uint64_t total_memory = 0, free_memory = 0;
  int multiprocessors = 0, cc_major = 0, cc_minor = 0;
};

bool gpu_built();  // compiled with CUDA
// The devices this process sees; *error (if given) says why there are none
// (not built with CUDA, no driver, ...).
std::vector<GpuDeviceInfo> gpu_devices(std::string* error = nullptr);

struct GpuClosureOptions {
  int device = 0;
  // Device bytes the engine may use; 0: what the device has free, less 5%
  // and 256 MiB of headroom (its own earlier buffers count as free).
  uint64_t memory_limit = 0;
  uint32_t max_chunk_words = 0;  // 0: as many 64-column words as memory allows
  int threads = 1;               // host plan threads (--threads, as the CPU engine)
};

// The CUDA propagation; nullptr when not built with CUDA or `device` is absent.
std::unique_ptr<SliceBackend> make_gpu_slice_backend(const GpuClosureOptions& o = {});

struct PlannedClosureStats {
  uint64_t calls = 0;
  uint64_t scc_reused = 0;  // calls that skipped Tarjan (incremental rounds)
};

// reach_matrix / reach_queries over a SliceBackend: the host plans (SCC,
// relevant components, levels), the backend propagates all columns. Keeps the
// previous call's SCC decomposition and reuses it while every edge still goes
// down its topological numbering (pruning only adds such edges).
class PlannedClosure : public ClosureEngine {
 public:
  // plan_threads: threads of the host plan (same plan for any count).
  PlannedClosure(std::unique_ptr<SliceBackend> b, const char* name, int plan_threads = 1)
      : b_(std::move(b)), name_(name), threads_(plan_threads) {}
  const char* name() const override { return name_; }
  ReachMatrix reach_matrix(const Csr& g, std::span<const uint32_t> keys) override;
  std::vector<uint8_t> reach_queries(const Csr& g, std::span<const ReachQuery> q) override;
  const PlannedClosureStats& stats() const { return st_; }
  SliceBackend& backend() { return *b_; }
  // The SCC decomposition of g, reusing the previous one when still valid.
  Scc condense(const Csr& g);

 private:
  std::unique_ptr<SliceBackend> b_;
  const char* name_;
  int threads_;
  Scc prev_;
  PlannedClosureStats st_;
};

// The "gpu" engine: PlannedClosure over the CUDA backend; nullptr when there
// is none (make_closure_engine("gpu") calls this).
std::unique_ptr<PlannedClosure> make_gpu_closure(const GpuClosureOptions& o = {});

}  // namespace isocheck

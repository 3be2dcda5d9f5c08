#include "closure/sliced_closure.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "closure/gpu_config.h"
#include "core/errors.h"

#if ISOCHECK_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace isocheck {

namespace {
void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}
#define MPICK(x) mpi_check((x), #x)
}  // namespace

struct SlicedClosure::Nccl {
#if ISOCHECK_HAVE_NCCL
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int device = 0;
  ~Nccl() {
    cudaSetDevice(device);
    if (comm) ncclCommDestroy(comm);
    if (stream) cudaStreamDestroy(stream);
  }
#endif
};

bool SlicedClosure::nccl() const { return nccl_ != nullptr; }

SlicedClosure::SlicedClosure(MPI_Comm comm, SlicedOptions o) : opt_(o) {
  MPICK(MPI_Comm_dup(comm, &comm_));
  MPICK(MPI_Comm_rank(comm_, &rank_));
  MPICK(MPI_Comm_size(comm_, &size_));
  // Node-local rank picks the device: one rank per device joins NCCL.
  MPI_Comm node;
  MPICK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  MPICK(MPI_Comm_rank(node, &local_rank_));
  MPI_Comm_free(&node);
  if (opt_.use_gpu) {
    const auto devs = gpu_devices();
    if (local_rank_ < static_cast<int>(devs.size())) {
      GpuClosureOptions go = opt_.gpu;
      go.device = local_rank_;
      backend_ = make_gpu_slice_backend(go);
      gpu_ = backend_ != nullptr;
    }
  }
  if (!gpu_) backend_ = std::make_unique<HostSliceBackend>(opt_.cpu_memory_budget);
  // Slot order: GPU ranks first, then CPU ranks, each by world rank.
  std::vector<int> flags(size_);
  int mine = gpu_ ? 1 : 0;
  MPICK(MPI_Allgather(&mine, 1, MPI_INT, flags.data(), 1, MPI_INT, comm_));
  for (int r = 0; r < size_; ++r)
    if (flags[r]) slot_rank_.push_back(r);
  gpu_ranks_ = static_cast<int>(slot_rank_.size());
  for (int r = 0; r < size_; ++r)
    if (!flags[r]) slot_rank_.push_back(r);
  slot_ = static_cast<int>(std::find(slot_rank_.begin(), slot_rank_.end(), rank_) - slot_rank_.begin());
  MPICK(MPI_Comm_split(comm_, gpu_ ? 0 : 1, rank_, &gpu_comm_));
  // Bridge: the first GPU rank and every CPU rank (the GPU part reaches the
  // CPU ranks through it).
  const bool in_bridge = gpu_ranks_ > 0 && (slot_ == 0 || !gpu_);
  MPICK(MPI_Comm_split(comm_, in_bridge ? 0 : MPI_UNDEFINED, slot_, &bridge_));
#if ISOCHECK_HAVE_NCCL
  if (gpu_) {
    nccl_ = std::make_unique<Nccl>();
    nccl_->device = local_rank_;
    if (cudaSetDevice(local_rank_) != cudaSuccess) throw std::runtime_error("cudaSetDevice failed");
    ncclUniqueId id;
    int grank = 0;
    MPI_Comm_rank(gpu_comm_, &grank);
    if (grank == 0 && ncclGetUniqueId(&id) != ncclSuccess) throw std::runtime_error("ncclGetUniqueId failed");
    MPICK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, gpu_comm_));
    const ncclResult_t r = ncclCommInitRank(&nccl_->comm, gpu_ranks_, id, grank);
    if (r != ncclSuccess)
      throw std::runtime_error(std::string("ncclCommInitRank: ") + ncclGetErrorString(r) +
                               " (one rank per GPU: two ranks on one device fail with \"invalid usage\")");
    if (cudaStreamCreateWithFlags(&nccl_->stream, cudaStreamNonBlocking) != cudaSuccess)
      throw std::runtime_error("cudaStreamCreate failed");
  }
#endif
}

SlicedClosure::~SlicedClosure() {
  nccl_.reset();
  backend_.reset();
  if (bridge_ != MPI_COMM_NULL) MPI_Comm_free(&bridge_);
  if (gpu_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string SlicedClosure::describe() const {
  std::string s = "rank " + std::to_string(rank_) + "/" + std::to_string(size_) + " (node rank " +
                  std::to_string(local_rank_) + "): ";
  if (gpu_) s += "GPU " + std::to_string(local_rank_) + (nccl() ? " in NCCL" : " over MPI");
  else s += "CPU slice";
  return s + "; " + std::to_string(gpu_ranks_) + " GPU slices, " + std::to_string(size_ - gpu_ranks_) + " CPU slices";
}

uint64_t SlicedClosure::gpu_slice_units(uint64_t units) const {
  const int g = gpu_ranks_, c = size_ - gpu_ranks_;
  if (g == 0) return 0;
  const double share = c == 0 ? 1.0 : opt_.gpu_share;
  return static_cast<uint64_t>(std::ceil(units * share / (g * share + c)));
}

SlicedClosure::Slice SlicedClosure::slice_of(int s, uint64_t units) const {
  const int g = gpu_ranks_, c = size_ - gpu_ranks_;
  const uint64_t gu = gpu_slice_units(units);
  if (s < g) return {std::min(units, s * gu), std::min(units, (s + 1) * gu)};
  const uint64_t rest = units - std::min(units, g * gu);
  const uint64_t base = std::min(units, g * gu), k = s - g;
  return {base + rest * k / c, base + rest * (k + 1) / c};
}

std::vector<uint8_t> SlicedClosure::allgather(const std::vector<uint8_t>& mine, const std::vector<uint64_t>& slot_bytes,
                                              int elem) {
  const int g = gpu_ranks_;
  std::vector<uint64_t> off(size_ + 1, 0);
  for (int s = 0; s < size_; ++s) off[s + 1] = off[s] + slot_bytes[s];
  const uint64_t gu = g ? slot_bytes[0] / elem : 0;  // GPU slots are equal
  std::vector<uint8_t> all(off[size_]);
  MPI_Datatype t = elem == 8 ? MPI_UINT64_T : MPI_UINT8_T;
  auto count = [&](uint64_t bytes) {
    if (bytes / elem > static_cast<uint64_t>(INT_MAX)) throw ResourceError("sliced closure: a slice exceeds MPI's count limit");
    return static_cast<int>(bytes / elem);
  };
  bool gpu_part_done = false;
#if ISOCHECK_HAVE_NCCL
  if (nccl_ && g > 0) {  // the GPU slices, over NCCL (staged through the device)
    const uint64_t bytes = gu * elem;
    if (cudaSetDevice(nccl_->device) != cudaSuccess) throw std::runtime_error("cudaSetDevice failed");
    void *send = nullptr, *recv = nullptr;
    if (cudaMalloc(&send, std::max<uint64_t>(1, bytes)) != cudaSuccess ||
        cudaMalloc(&recv, std::max<uint64_t>(1, bytes * g)) != cudaSuccess) {
      if (send) cudaFree(send);
      throw ResourceError("sliced closure: no device memory for the all-gather (" + gib(bytes * (g + 1)) + ")");
    }
    cudaMemcpy(send, mine.data(), bytes, cudaMemcpyHostToDevice);
    const ncclResult_t r = ncclAllGather(send, recv, bytes, ncclUint8, nccl_->comm, nccl_->stream);
    cudaStreamSynchronize(nccl_->stream);
    const cudaError_t e = cudaMemcpy(all.data(), recv, bytes * g, cudaMemcpyDeviceToHost);
    cudaFree(send), cudaFree(recv);
    if (r != ncclSuccess) throw std::runtime_error(std::string("ncclAllGather: ") + ncclGetErrorString(r));
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMemcpy: ") + cudaGetErrorString(e));
    gpu_part_done = true;
  }
#endif
  if (g > 0) {
    if (!gpu_part_done && gpu_) {  // GPU ranks without NCCL: MPI among them
      MPICK(MPI_Allgather(mine.data(), count(gu * elem), t, all.data(), count(gu * elem), t, gpu_comm_));
    }
    if (bridge_ != MPI_COMM_NULL)  // GPU part to the CPU ranks
      MPICK(MPI_Bcast(all.data(), count(off[g]), t, 0, bridge_));
  }
  if (size_ > g) {  // CPU slices to everyone, over MPI
    std::vector<int> counts(size_), displs(size_);
    for (int r = 0; r < size_; ++r) counts[r] = 0, displs[r] = count(off[g]);
    for (int s = g; s < size_; ++s) counts[slot_rank_[s]] = count(off[s + 1] - off[s]), displs[slot_rank_[s]] = count(off[s]);
    const int n_mine = gpu_ ? 0 : count(mine.size());
    MPICK(MPI_Allgatherv(mine.data(), n_mine, t, all.data(), counts.data(), displs.data(), t, comm_));
  }
  return all;
}

ReachMatrix SlicedClosure::reach_matrix(const Csr& g, std::span<const uint32_t> keys) {
  ReachMatrix m;
  m.reset(static_cast<uint32_t>(keys.size()));
  if (keys.empty()) return m;
  const MatrixPlan mp = make_matrix_plan(g, keys, plan_components(g, opt_.gpu.threads), opt_.gpu.threads);
  const uint64_t units = m.words;  // slices of 64-column words
  const Slice mine = slice_of(slot_, units);
  const uint64_t len = slot_ < gpu_ranks_ ? gpu_slice_units(units) : mine.end - mine.begin;
  std::vector<uint8_t> buf(keys.size() * len * 8, 0);
  const uint64_t real = mine.end - mine.begin;
  if (real) {
    std::vector<uint64_t> part(keys.size() * real);
    const uint32_t c0 = static_cast<uint32_t>(mine.begin * 64);
    const uint32_t c1 = static_cast<uint32_t>(std::min<uint64_t>(m.n, mine.end * 64));
    backend_->rows(mp.plan, mp.row, c0, c1, part.data());
    for (size_t i = 0; i < keys.size(); ++i) std::memcpy(buf.data() + (i * len) * 8, part.data() + i * real, real * 8);
  }
  std::vector<uint64_t> slot_bytes(size_);
  for (int s = 0; s < size_; ++s) {
    const Slice sl = slice_of(s, units);
    slot_bytes[s] = keys.size() * (s < gpu_ranks_ ? gpu_slice_units(units) : sl.end - sl.begin) * 8;
  }
  const std::vector<uint8_t> all = allgather(buf, slot_bytes, 8);
  // Slot s holds rows x (its length) words, row-major: scatter into the matrix.
  uint64_t at = 0;
  for (int s = 0; s < size_; ++s) {
    const Slice sl = slice_of(s, units);
    const uint64_t l = s < gpu_ranks_ ? gpu_slice_units(units) : sl.end - sl.begin;
    const uint64_t used = sl.end - sl.begin;
    for (size_t i = 0; i < keys.size() && used; ++i)
      std::memcpy(m.bits.data() + i * m.words + sl.begin, all.data() + at + (i * l) * 8, used * 8);
    at += keys.size() * l * 8;
  }
  clear_irreflexive(mp, keys, m, 0, m.words);
  return m;
}

std::vector<uint8_t> SlicedClosure::reach_queries(const Csr& g, std::span<const ReachQuery> q) {
  if (q.empty()) return {};
  QueryPlan qp = make_query_plan(g, q, plan_components(g, opt_.gpu.threads), opt_.gpu.threads);
  // Slices of 64-column words; a slice's queries are a contiguous run of the
  // column-sorted order, so its answers are one contiguous byte range.
  const uint64_t units = (uint64_t{qp.plan.columns} + 63) / 64;
  auto qrange = [&](const Slice& sl) {
    const uint64_t lo = std::lower_bound(qp.col.begin(), qp.col.end(), sl.begin * 64) - qp.col.begin();
    const uint64_t hi = std::lower_bound(qp.col.begin(), qp.col.end(), sl.end * 64) - qp.col.begin();
    return std::pair<uint64_t, uint64_t>{lo, hi};
  };
  // Slot lengths in queries: GPU slots padded to the longest GPU slot.
  std::vector<uint64_t> qlen(size_);
  uint64_t gmax = 0;
  for (int s = 0; s < size_; ++s) {
    auto [lo, hi] = qrange(slice_of(s, units));
    qlen[s] = hi - lo;
    if (s < gpu_ranks_) gmax = std::max(gmax, qlen[s]);
  }
  std::vector<uint8_t> bits(qp.order.size(), 0);
  const Slice mine = slice_of(slot_, units);
  auto [lo, hi] = qrange(mine);
  if (hi > lo)
    backend_->queries(qp.plan, qp.row, qp.col, static_cast<uint32_t>(mine.begin * 64),
                      static_cast<uint32_t>(std::min<uint64_t>(qp.plan.columns, mine.end * 64)), bits.data());
  // Exchange: every rank sends its answer range as one slot.
  std::vector<uint8_t> my(slot_ < gpu_ranks_ ? gmax : qlen[slot_], 0);
  std::copy(bits.begin() + lo, bits.begin() + hi, my.begin());
  std::vector<uint64_t> slot_bytes(size_);
  for (int s = 0; s < size_; ++s) slot_bytes[s] = s < gpu_ranks_ ? gmax : qlen[s];
  const std::vector<uint8_t> all = allgather(my, slot_bytes, 1);
  uint64_t at = 0;
  for (int s = 0; s < size_; ++s) {
    auto [a, b] = qrange(slice_of(s, units));
    std::copy(all.begin() + at, all.begin() + at + (b - a), bits.begin() + a);
    at += s < gpu_ranks_ ? gmax : qlen[s];
  }
  for (size_t k = 0; k < qp.order.size(); ++k) qp.ans[qp.order[k]] = bits[k];
  return std::move(qp.ans);
}

}  // namespace isocheck

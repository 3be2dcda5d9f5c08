// The CUDA slice backend of the GPU closure (docs/gpu.md): device memory
// computed before any allocation (plan_gpu_memory), buffers kept between
// calls and only grown, the kernels of gpu_closure.cu launched per chunk.
// Compiled into builds with CUDA only.
#include "closure/gpu_config.h"
#if ISOCHECK_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "closure/gpu_closure.h"
#include "closure/gpu_kernels.h"
#include "core/errors.h"

namespace isocheck {

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string msg = std::string("CUDA ") + what + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) throw ResourceError("GPU closure: " + msg);
  throw std::runtime_error(msg);
}
#define CK(x) check((x), #x)

using u64 = uint64_t;

struct DevBuf {
  void* p = nullptr;
  uint64_t cap = 0;
  ~DevBuf() { if (p) cudaFree(p); }
  void* get(uint64_t bytes) {
    if (bytes > cap) {
      if (p) CK(cudaFree(p));
      p = nullptr, cap = 0;
      CK(cudaMalloc(&p, std::max<uint64_t>(bytes, 256)));
      cap = std::max<uint64_t>(bytes, 256);
    }
    return p;
  }
  template <class T> T* as(uint64_t count) { return static_cast<T*>(get(count * sizeof(T))); }
  template <class T> T* upload(const std::vector<T>& v, cudaStream_t s) {
    T* d = as<T>(v.size());
    if (!v.empty()) CK(cudaMemcpyAsync(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    return d;
  }
  template <class T> T* upload(std::span<const T> v, cudaStream_t s) {
    T* d = as<T>(v.size());
    if (!v.empty()) CK(cudaMemcpyAsync(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    return d;
  }
};

class CudaSliceBackend final : public SliceBackend {
 public:
  explicit CudaSliceBackend(const GpuClosureOptions& o) : opt_(o) {
    CK(cudaSetDevice(o.device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, o.device));
    sms_ = prop.multiProcessorCount;
    CK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
  }
  ~CudaSliceBackend() override {
    cudaSetDevice(opt_.device);
    if (s_) cudaStreamDestroy(s_);
  }

  void rows(const LevelPlan& p, std::span<const uint32_t> rows, uint32_t c0, uint32_t c1, uint64_t* out) override {
    const uint64_t total = (uint64_t{c1 > c0 ? c1 - c0 : 0} + 63) / 64;
    std::memset(out, 0, rows.size() * total * 8);
    if (c1 <= c0 || p.relevant == 0 || rows.empty()) return;
    CK(cudaSetDevice(opt_.device));
    const GpuMemoryPlan mp = memory(p, rows.size(), 0, c0, c1);
    upload_plan(p);
    uint32_t* d_rows = rows_.upload(rows, s_);
    for (uint64_t k = 0; k < total; k += mp.words) {
      const uint32_t W = static_cast<uint32_t>(std::min<uint64_t>(mp.words, total - k));
      const uint32_t a = static_cast<uint32_t>(c0 + 64 * k);
      const uint32_t b = static_cast<uint32_t>(std::min<uint64_t>(c1, uint64_t{a} + 64ull * W));
      u64* buf = propagate(p, a, b, W);
      u64* g = gathered_.as<u64>(rows.size() * W);
      CK(gpuk::gather(d_rows, rows.size(), W, b - a, buf, g, grid(rows.size() * W), s_));
      CK(cudaMemcpy2DAsync(out + k, total * 8, g, W * 8ull, W * 8ull, rows.size(), cudaMemcpyDeviceToHost, s_));
    }
    CK(cudaStreamSynchronize(s_));
  }

  void queries(const LevelPlan& p, std::span<const uint32_t> row, std::span<const uint32_t> col, uint32_t c0,
               uint32_t c1, uint8_t* out) override {
    if (c1 <= c0 || p.relevant == 0) return;
    const uint64_t lo = std::lower_bound(col.begin(), col.end(), c0) - col.begin();
    const uint64_t hi = std::lower_bound(col.begin(), col.end(), c1) - col.begin();
    if (lo == hi) return;
    CK(cudaSetDevice(opt_.device));
    const uint64_t total = (uint64_t{c1 - c0} + 63) / 64;
    const GpuMemoryPlan mp = memory(p, 0, hi - lo, c0, c1);
    upload_plan(p);
    uint32_t* d_row = qrow_.upload(row.subspan(lo, hi - lo), s_);
    uint32_t* d_col = qcol_.upload(col.subspan(lo, hi - lo), s_);
    uint8_t* d_out = qout_.as<uint8_t>(hi - lo);
    uint64_t q = 0;  // queries [0, hi - lo) relative
    for (uint64_t k = 0; k < total; k += mp.words) {
      const uint32_t W = static_cast<uint32_t>(std::min<uint64_t>(mp.words, total - k));
      const uint32_t a = static_cast<uint32_t>(c0 + 64 * k);
      const uint32_t b = static_cast<uint32_t>(std::min<uint64_t>(c1, uint64_t{a} + 64ull * W));
      const uint64_t qe = std::lower_bound(col.begin() + lo + q, col.begin() + hi, b) - (col.begin() + lo);
      if (qe == q) continue;  // no query in this chunk
      u64* buf = propagate(p, a, b, W);
      CK(gpuk::query(d_row, d_col, q, qe, a, W, buf, d_out, grid(qe - q), s_));
      q = qe;
    }
    CK(cudaMemcpyAsync(out + lo, d_out, hi - lo, cudaMemcpyDeviceToHost, s_));
    CK(cudaStreamSynchronize(s_));
  }

 private:
  unsigned grid(uint64_t work) const {
    return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((work + 255) / 256, static_cast<uint64_t>(sms_) * 16)));
  }

  GpuMemoryPlan memory(const LevelPlan& p, uint64_t rows_out, uint64_t queries, uint32_t c0, uint32_t c1) {
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    const uint64_t held = chunk_.cap + gathered_.cap + soff_.cap + succ_.cap + cd_.cap + ci_.cap + lev_.cap +
                          rows_.cap + qrow_.cap + qcol_.cap + qout_.cap;
    uint64_t avail = free_b + held;
    const uint64_t headroom = total_b / 20 + (256ull << 20);
    avail = avail > headroom ? avail - headroom : 0;
    if (opt_.memory_limit) avail = std::min<uint64_t>(avail, opt_.memory_limit);
    GpuMemoryPlan mp = plan_gpu_memory(p, rows_out, queries, c0, c1, avail, total_b);
    if (opt_.max_chunk_words && mp.words > opt_.max_chunk_words) mp.words = opt_.max_chunk_words;
    // Free what the new sizes make useless before allocating, so that held
    // buffers never add to the peak.
    const uint64_t chunk_bytes = uint64_t{p.relevant} * mp.words * 8;
    if (chunk_.cap < chunk_bytes && chunk_.p) CK(cudaFree(chunk_.p)), chunk_.p = nullptr, chunk_.cap = 0;
    const uint64_t gather_bytes = rows_out * mp.words * 8;
    if (gathered_.cap < gather_bytes && gathered_.p) CK(cudaFree(gathered_.p)), gathered_.p = nullptr, gathered_.cap = 0;
    last_ = mp;
    return mp;
  }

  void upload_plan(const LevelPlan& p) {
    d_soff_ = soff_.upload(p.succ_off, s_);
    d_succ_ = succ_.upload(p.succ, s_);
    d_cd_ = cd_.upload(p.col_dense, s_);
    d_ci_ = ci_.upload(p.col_index, s_);
    d_lev_ = lev_.upload(p.level_off, s_);
  }

  u64* propagate(const LevelPlan& p, uint32_t a, uint32_t b, uint32_t W) {
    u64* buf = chunk_.as<u64>(uint64_t{p.relevant} * W);
    CK(cudaMemsetAsync(buf, 0, uint64_t{p.relevant} * W * 8, s_));
    const uint64_t lo = p.col_lower(a), hi = p.col_lower(b);
    if (hi > lo) {
      CK(gpuk::set_cols(d_cd_, d_ci_, lo, hi, a, W, buf, grid(hi - lo), s_));
    }
    constexpr uint64_t kNarrow = 4096;  // (rows x words) of a level run in one block
    const uint32_t L = p.levels();
    for (uint32_t l = 1; l < L;) {  // level 0 (sinks) has no successors
      const uint64_t work = uint64_t{p.level_off[l + 1] - p.level_off[l]} * W;
      if (work > kNarrow) {
        CK(gpuk::level(d_soff_, d_succ_, p.level_off[l], p.level_off[l + 1], W, buf, grid(work), s_));
        ++l;
        continue;
      }
      uint32_t e = l;
      while (e < L && uint64_t{p.level_off[e + 1] - p.level_off[e]} * W <= kNarrow) ++e;
      CK(gpuk::levels_block(d_lev_, l, e, d_soff_, d_succ_, W, buf, s_));
      l = e;
    }
    return buf;
  }

  GpuClosureOptions opt_;
  int sms_ = 1;
  cudaStream_t s_ = nullptr;
  DevBuf chunk_, gathered_, soff_, succ_, cd_, ci_, lev_, rows_, qrow_, qcol_, qout_;
  uint64_t* d_soff_ = nullptr;
  uint32_t *d_succ_ = nullptr, *d_cd_ = nullptr, *d_ci_ = nullptr, *d_lev_ = nullptr;
  GpuMemoryPlan last_;
};

}  // namespace

bool gpu_built() { return true; }

std::vector<GpuDeviceInfo> gpu_devices(std::string* error) {
  std::vector<GpuDeviceInfo> out;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (error) *error = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return out;
  }
  if (n == 0 && error) *error = "no CUDA device";
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    GpuDeviceInfo d;
    d.index = i, d.name = p.name, d.total_memory = p.totalGlobalMem;
    d.multiprocessors = p.multiProcessorCount, d.cc_major = p.major, d.cc_minor = p.minor;
    size_t fr = 0, tot = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess) d.free_memory = fr;
    out.push_back(d);
  }
  return out;
}

std::unique_ptr<SliceBackend> make_gpu_slice_backend(const GpuClosureOptions& o) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || o.device < 0 || o.device >= n) {
    cudaGetLastError();
    return nullptr;
  }
  return std::make_unique<CudaSliceBackend>(o);
}

}  // namespace isocheck
#endif  // ISOCHECK_HAVE_CUDA

// The CUDA kernels of the GPU closure (docs/gpu.md), with plain launchers so
// that the host code (gpu_cuda.cpp, C++20) needs no nvcc. One chunk of W
// 64-bit words per row:
//   1. zero the chunk, set each target column's bit in its component's row;
//   2. level by level (sinks first): row[d] |= row[s] for every successor s —
//      a boolean sparse x dense-bits product, one thread per (row, word);
//      consecutive narrow levels run in one single-block launch with a
//      __syncthreads() between levels, so long chains cost no launch each;
//   3. gather the requested rows (reach_matrix) or read one bit per query.
#include <cuda_runtime.h>

#include <cstdint>

#include "closure/gpu_kernels.h"

namespace isocheck::gpuk {

namespace {

using u64 = unsigned long long;
__global__ void k_set_cols(const uint32_t* __restrict__ cd, const uint32_t* __restrict__ ci, uint64_t lo,
                           uint64_t hi, uint32_t c0, uint32_t W, u64* buf) {
  for (uint64_t i = lo + blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < hi; i += uint64_t{gridDim.x} * blockDim.x) {
    const uint32_t j = ci[i] - c0;
    atomicOr(buf + uint64_t{cd[i]} * W + j / 64, u64{1} << (j % 64));
  }
}

__device__ __forceinline__ void or_row_word(const uint64_t* __restrict__ soff, const uint32_t* __restrict__ succ,
                                            uint32_t d, uint32_t w, uint32_t W, u64* buf) {
  u64 acc = buf[uint64_t{d} * W + w];
  const uint64_t e = soff[d + 1];
  for (uint64_t i = soff[d]; i < e; ++i) acc |= buf[uint64_t{succ[i]} * W + w];
  buf[uint64_t{d} * W + w] = acc;
}

// One wide level [a, b): a thread per (row, word).
__global__ void k_level(const uint64_t* __restrict__ soff, const uint32_t* __restrict__ succ, uint32_t a, uint32_t b,
                        uint32_t W, u64* buf) {
  const uint64_t total = uint64_t{b - a} * W;
  for (uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; t < total; t += uint64_t{gridDim.x} * blockDim.x)
    or_row_word(soff, succ, a + static_cast<uint32_t>(t / W), static_cast<uint32_t>(t % W), W, buf);
}

// Narrow levels [la, lb) in one block, a barrier between levels.
__global__ void k_levels_block(const uint32_t* __restrict__ level_off, uint32_t la, uint32_t lb,
                               const uint64_t* __restrict__ soff, const uint32_t* __restrict__ succ, uint32_t W,
                               u64* buf) {
  for (uint32_t l = la; l < lb; ++l) {
    const uint32_t a = level_off[l], b = level_off[l + 1];
    const uint64_t total = uint64_t{b - a} * W;
    for (uint64_t t = threadIdx.x; t < total; t += blockDim.x)
      or_row_word(soff, succ, a + static_cast<uint32_t>(t / W), static_cast<uint32_t>(t % W), W, buf);
    __syncthreads();
  }
}

__global__ void k_gather(const uint32_t* __restrict__ rows, uint64_t nrows, uint32_t W, uint32_t valid_bits,
                         const u64* __restrict__ buf, u64* out) {
  const uint64_t total = nrows * W;
  for (uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; t < total; t += uint64_t{gridDim.x} * blockDim.x) {
    const uint64_t r = t / W;
    const uint32_t w = static_cast<uint32_t>(t % W), d = rows[r];
    u64 x = d == 0xffffffffu ? 0 : buf[uint64_t{d} * W + w];
    if (w == W - 1 && valid_bits % 64) x &= (u64{1} << (valid_bits % 64)) - 1;
    out[t] = x;
  }
}

__global__ void k_query(const uint32_t* __restrict__ row, const uint32_t* __restrict__ col, uint64_t lo, uint64_t hi,
                        uint32_t c0, uint32_t W, const u64* __restrict__ buf, uint8_t* out) {
  for (uint64_t i = lo + blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < hi; i += uint64_t{gridDim.x} * blockDim.x) {
    const uint32_t j = col[i] - c0;
    out[i] = (buf[uint64_t{row[i]} * W + j / 64] >> (j % 64)) & 1;
  }
}


}  // namespace

cudaError_t set_cols(const uint32_t* cd, const uint32_t* ci, uint64_t lo, uint64_t hi, uint32_t c0, uint32_t W,
                     uint64_t* buf, unsigned grid, cudaStream_t s) {
  k_set_cols<<<grid, 256, 0, s>>>(cd, ci, lo, hi, c0, W, reinterpret_cast<u64*>(buf));
  return cudaGetLastError();
}
cudaError_t level(const uint64_t* soff, const uint32_t* succ, uint32_t a, uint32_t b, uint32_t W, uint64_t* buf,
                  unsigned grid, cudaStream_t s) {
  k_level<<<grid, 256, 0, s>>>(soff, succ, a, b, W, reinterpret_cast<u64*>(buf));
  return cudaGetLastError();
}
cudaError_t levels_block(const uint32_t* level_off, uint32_t la, uint32_t lb, const uint64_t* soff,
                         const uint32_t* succ, uint32_t W, uint64_t* buf, cudaStream_t s) {
  k_levels_block<<<1, 1024, 0, s>>>(level_off, la, lb, soff, succ, W, reinterpret_cast<u64*>(buf));
  return cudaGetLastError();
}
cudaError_t gather(const uint32_t* rows, uint64_t nrows, uint32_t W, uint32_t valid_bits, const uint64_t* buf,
                   uint64_t* out, unsigned grid, cudaStream_t s) {
  k_gather<<<grid, 256, 0, s>>>(rows, nrows, W, valid_bits, reinterpret_cast<const u64*>(buf),
                                reinterpret_cast<u64*>(out));
  return cudaGetLastError();
}
cudaError_t query(const uint32_t* row, const uint32_t* col, uint64_t lo, uint64_t hi, uint32_t c0, uint32_t W,
                  const uint64_t* buf, uint8_t* out, unsigned grid, cudaStream_t s) {
  k_query<<<grid, 256, 0, s>>>(row, col, lo, hi, c0, W, reinterpret_cast<const u64*>(buf), out);
  return cudaGetLastError();
}

}  // namespace isocheck::gpuk

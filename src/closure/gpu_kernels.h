// Launchers of the GPU closure's kernels (gpu_closure.cu). Plain types only:
// included by nvcc (C++17) and by the C++20 host code.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace isocheck::gpuk {

cudaError_t set_cols(const uint32_t* cd, const uint32_t* ci, uint64_t lo, uint64_t hi, uint32_t c0, uint32_t W,
                     uint64_t* buf, unsigned grid, cudaStream_t s);
cudaError_t level(const uint64_t* soff, const uint32_t* succ, uint32_t a, uint32_t b, uint32_t W, uint64_t* buf,
                  unsigned grid, cudaStream_t s);
cudaError_t levels_block(const uint32_t* level_off, uint32_t la, uint32_t lb, const uint64_t* soff,
                         const uint32_t* succ, uint32_t W, uint64_t* buf, cudaStream_t s);
cudaError_t gather(const uint32_t* rows, uint64_t nrows, uint32_t W, uint32_t valid_bits, const uint64_t* buf,
                   uint64_t* out, unsigned grid, cudaStream_t s);
cudaError_t query(const uint32_t* row, const uint32_t* col, uint64_t lo, uint64_t hi, uint32_t c0, uint32_t W,
                  const uint64_t* buf, uint8_t* out, unsigned grid, cudaStream_t s);

}  // namespace isocheck::gpuk

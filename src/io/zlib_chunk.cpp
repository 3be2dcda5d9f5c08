#include "io/zlib_chunk.h"

#include <libdeflate.h>

namespace isocheck {

struct ZlibChunkDecoder::State {
  libdeflate_decompressor* d = nullptr;
};

ZlibChunkDecoder::ZlibChunkDecoder() : s_(std::make_unique<State>()) { s_->d = libdeflate_alloc_decompressor(); }

ZlibChunkDecoder::~ZlibChunkDecoder() {
  if (s_->d) libdeflate_free_decompressor(s_->d);
}

bool ZlibChunkDecoder::decode(const uint8_t* src, size_t n, uint8_t* dst, size_t expected) {
  if (!s_->d || n < 6) return false;
  const unsigned cmf = src[0], flg = src[1];
  // Method 8 (deflate), window ≤ 32 KiB, header check, no preset dictionary
  // (libdeflate checks these too; said here so the rule is in one place).
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20)) return false;
  size_t used = 0;
  // A null actual-output pointer: anything but exactly `expected` bytes fails.
  return libdeflate_zlib_decompress_ex(s_->d, src, n, dst, expected, &used, nullptr) == LIBDEFLATE_SUCCESS && used == n;
}

}  // namespace isocheck

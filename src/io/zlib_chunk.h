// Decoding of HDF5 deflate chunks (zlib streams: 2-byte header, raw deflate,
// big-endian Adler-32 of the output). zlib's own inflate checks the Adler-32
// with a scalar loop that costs a third of the inflate time on big histories;
// here the raw stream is inflated and the checksum verified with SSE2, so
// corruption is still always detected.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace isocheck {

// Adler-32 of p[0, n) continuing from `adler` (1 for a fresh checksum);
// equal to zlib's adler32().
uint32_t adler32_sse(uint32_t adler, const uint8_t* p, size_t n);

class ZlibChunkDecoder {
 public:
  ZlibChunkDecoder();
  ~ZlibChunkDecoder();
  ZlibChunkDecoder(const ZlibChunkDecoder&) = delete;
  ZlibChunkDecoder& operator=(const ZlibChunkDecoder&) = delete;
  // Decodes src[0, n) into exactly `expected` bytes at dst; false when the
  // stream is corrupt, has a preset dictionary, is shorter or longer than
  // expected, or its checksum does not match.
  bool decode(const uint8_t* src, size_t n, uint8_t* dst, size_t expected);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace isocheck

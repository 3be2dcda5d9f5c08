// Decoding of HDF5 deflate chunks (zlib streams: 2-byte header, raw deflate,
// big-endian Adler-32 of the output) with libdeflate: every chunk has a known
// size and is decoded whole, where libdeflate's decoder runs about twice as
// fast as zlib's streaming inflate and checks the Adler-32 itself, so
// corruption is always detected.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace isocheck {

class ZlibChunkDecoder {
 public:
  ZlibChunkDecoder();
  ~ZlibChunkDecoder();
  ZlibChunkDecoder(const ZlibChunkDecoder&) = delete;
  ZlibChunkDecoder& operator=(const ZlibChunkDecoder&) = delete;
  // Decodes src[0, n) into exactly `expected` bytes at dst; false when the
  // stream is corrupt, has a preset dictionary, is shorter or longer than
  // expected, is followed by other bytes, or its checksum does not match.
  bool decode(const uint8_t* src, size_t n, uint8_t* dst, size_t expected);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace isocheck

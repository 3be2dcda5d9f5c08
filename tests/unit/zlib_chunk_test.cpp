// The HDF5 chunk decoder: its SSE2 Adler-32 equals zlib's on every length and
// alignment, and a chunk it accepts is exactly what zlib decompresses, while a
// damaged one (header, payload, checksum, length) is refused.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

#include "io/zlib_chunk.h"

using namespace isocheck;

TEST(ZlibChunk, Adler32EqualsZlibOnEveryLengthAndOffset) {
  std::mt19937_64 rng(7);
  std::vector<uint8_t> buf(40000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < 2000; i += 37) buf[i] = 255;  // runs of the largest byte stress the sums
  for (size_t len : {0, 1, 15, 16, 17, 31, 5551, 5552, 5553, 11104, 16000, 39990}) {
    for (size_t off : {0, 1, 7}) {
      uint32_t want = static_cast<uint32_t>(adler32(1, buf.data() + off, static_cast<uInt>(len)));
      EXPECT_EQ(adler32_sse(1, buf.data() + off, len), want) << "len " << len << " off " << off;
    }
  }
  std::vector<uint8_t> ones(100000, 255);
  EXPECT_EQ(adler32_sse(1, ones.data(), ones.size()), static_cast<uint32_t>(adler32(1, ones.data(), ones.size())));
  // Continuing from a previous checksum, as zlib does.
  uint32_t part = adler32_sse(1, buf.data(), 1000);
  EXPECT_EQ(adler32_sse(part, buf.data() + 1000, 9000), static_cast<uint32_t>(adler32(1, buf.data(), 10000)));
}

TEST(ZlibChunk, DecodesWhatZlibCompressedAndRefusesDamage) {
  std::mt19937_64 rng(11);
  std::vector<uint8_t> plain(1 << 18);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<uint8_t>(rng() % 7 == 0 ? rng() : i / 64);
  uLongf cap = compressBound(plain.size());
  std::vector<uint8_t> packed(cap);
  ASSERT_EQ(compress2(packed.data(), &cap, plain.data(), plain.size(), 4), Z_OK);
  packed.resize(cap);
  ZlibChunkDecoder dec;
  std::vector<uint8_t> out(plain.size());
  for (int round = 0; round < 2; ++round) {  // the decoder is reused across chunks
    ASSERT_TRUE(dec.decode(packed.data(), packed.size(), out.data(), out.size()));
    EXPECT_EQ(out, plain);
  }
  EXPECT_FALSE(dec.decode(packed.data(), packed.size(), out.data(), out.size() - 1));  // longer than expected
  std::vector<uint8_t> bigger(plain.size() + 1);
  EXPECT_FALSE(dec.decode(packed.data(), packed.size(), bigger.data(), bigger.size()));  // shorter
  auto damaged = [&](size_t pos) {
    std::vector<uint8_t> d = packed;
    d[pos] ^= 0x10;
    return dec.decode(d.data(), d.size(), out.data(), out.size());
  };
  EXPECT_FALSE(damaged(0));                  // header
  EXPECT_FALSE(damaged(packed.size() - 1));  // checksum
  EXPECT_FALSE(damaged(packed.size() - 3));
  // A flipped payload bit is refused, or (where the bit carries no data, e.g.
  // padding) decodes to the very same bytes: never to different data.
  int refused = 0, wrong = 0;
  for (size_t pos = 2; pos + 4 < packed.size(); pos += packed.size() / 50) {
    if (!damaged(pos)) ++refused;
    else wrong += out != plain;
  }
  EXPECT_EQ(wrong, 0) << "a damaged payload decoded to different data";
  EXPECT_GE(refused, 40);
  EXPECT_TRUE(dec.decode(packed.data(), packed.size(), out.data(), out.size()));  // still usable
}

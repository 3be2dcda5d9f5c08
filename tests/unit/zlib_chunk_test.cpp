// The HDF5 chunk decoder (libdeflate): a chunk it accepts is exactly what
// zlib compressed, at every level and for data of every shape, while a
// damaged one (header, payload, checksum, length, trailing bytes, a preset
// dictionary) is refused.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

#include "io/zlib_chunk.h"

using namespace isocheck;

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
  std::vector<uint8_t> trailing = packed;
  trailing.push_back(0);
  EXPECT_FALSE(dec.decode(trailing.data(), trailing.size(), out.data(), out.size()));
  // A preset dictionary (FDICT): the header's bit 5, check bits adjusted.
  std::vector<uint8_t> dict = packed;
  dict[1] = static_cast<uint8_t>((dict[1] | 0x20) & 0xe0);
  dict[1] = static_cast<uint8_t>(dict[1] + (31 - (dict[0] * 256 + dict[1]) % 31) % 31);
  EXPECT_FALSE(dec.decode(dict.data(), dict.size(), out.data(), out.size()));
}

TEST(ZlibChunk, EveryLevelAndShapeDecodesToTheSameBytes) {
  std::mt19937_64 rng(3);
  ZlibChunkDecoder dec;
  for (int level : {0, 1, 6, 9})
    for (int shape = 0; shape < 4; ++shape)
      for (size_t n : {size_t{1}, size_t{4096}, size_t{1} << 21}) {
        std::vector<uint8_t> plain(n);
        for (size_t i = 0; i < n; ++i)
          plain[i] = static_cast<uint8_t>(shape == 0 ? 0 : shape == 1 ? rng() : shape == 2 ? i / 8 : (rng() % 50 ? 3 : rng()));
        uLongf cap = compressBound(n);
        std::vector<uint8_t> packed(cap);
        ASSERT_EQ(compress2(packed.data(), &cap, plain.data(), n, level), Z_OK);
        std::vector<uint8_t> out(n, 0xaa);
        ASSERT_TRUE(dec.decode(packed.data(), cap, out.data(), n)) << "level " << level << " shape " << shape << " n " << n;
        ASSERT_EQ(out, plain) << "level " << level << " shape " << shape << " n " << n;
      }
}

#include "io/zlib_chunk.h"

#include <zlib.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace isocheck {

namespace {
constexpr uint32_t kBase = 65521;  // largest prime below 2^16
constexpr size_t kNmax = 5552;     // most bytes before the 32-bit sums can overflow
}  // namespace

uint32_t adler32_sse(uint32_t adler, const uint8_t* p, size_t n) {
  uint32_t a = adler & 0xffff, b = adler >> 16;
  while (n > 0) {
    size_t len = n < kNmax ? n : kNmax;
    n -= len;
#ifdef __SSE2__
    // 16 bytes x_0..x_15 at a time: a += Σ x_i, b += 16·a_before + Σ (16 − i)·x_i.
    // Vector sums: byte totals (psadbw), weighted totals (pmaddwd), and the
    // running total of a_before over the blocks (prefix).
    size_t blocks = len / 16;
    if (blocks > 0) {
      const __m128i zero = _mm_setzero_si128();
      const __m128i w_lo = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
      const __m128i w_hi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
      __m128i sum = zero, prefix = zero, weighted = zero;
      for (size_t k = 0; k < blocks; ++k, p += 16) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        prefix = _mm_add_epi32(prefix, sum);
        sum = _mm_add_epi32(sum, _mm_sad_epu8(x, zero));
        weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), w_lo));
        weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), w_hi));
      }
      alignas(16) uint32_t s[4], pr[4], w[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(s), sum);
      _mm_store_si128(reinterpret_cast<__m128i*>(pr), prefix);
      _mm_store_si128(reinterpret_cast<__m128i*>(w), weighted);
      // psadbw leaves its sums in 32-bit lanes 0 and 2.
      uint64_t total = uint64_t{s[0]} + s[2];
      uint64_t pre = uint64_t{pr[0]} + pr[2];
      uint64_t wsum = uint64_t{w[0]} + w[1] + w[2] + w[3];
      uint64_t bb = b + uint64_t{a} * 16 * blocks + 16 * pre + wsum;
      a = static_cast<uint32_t>((a + total) % kBase);
      b = static_cast<uint32_t>(bb % kBase);
      len -= blocks * 16;
    }
#endif
    for (; len > 0; --len) {
      a += *p++;
      b += a;
    }
    a %= kBase;
    b %= kBase;
  }
  return (b << 16) | a;
}

struct ZlibChunkDecoder::State {
  z_stream z{};
  bool ok = false;
};

ZlibChunkDecoder::ZlibChunkDecoder() : s_(std::make_unique<State>()) {
  s_->ok = inflateInit2(&s_->z, -15) == Z_OK;  // raw deflate: header and checksum are ours
}

ZlibChunkDecoder::~ZlibChunkDecoder() {
  if (s_->ok) inflateEnd(&s_->z);
}

bool ZlibChunkDecoder::decode(const uint8_t* src, size_t n, uint8_t* dst, size_t expected) {
  if (!s_->ok || n < 6) return false;
  const unsigned cmf = src[0], flg = src[1];
  // Method 8 (deflate), window ≤ 32 KiB, header check, no preset dictionary.
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20)) return false;
  z_stream& z = s_->z;
  if (inflateReset(&z) != Z_OK) return false;
  z.next_in = const_cast<Bytef*>(src + 2);
  z.avail_in = static_cast<uInt>(n - 6);
  z.next_out = dst;
  z.avail_out = static_cast<uInt>(expected);
  int rc = inflate(&z, Z_FINISH);
  if (rc != Z_STREAM_END || z.total_out != expected || z.avail_in != 0) return false;
  const uint8_t* t = src + n - 4;
  uint32_t stored = uint32_t{t[0]} << 24 | uint32_t{t[1]} << 16 | uint32_t{t[2]} << 8 | t[3];
  return adler32_sse(1, dst, expected) == stored;
}

}  // namespace isocheck

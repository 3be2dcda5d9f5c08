// Deterministic random numbers for the generators: the same seed gives the
// same history on every platform (no std:: distributions, whose output is
// implementation-defined).
#pragma once
#include <cmath>
#include <cstdint>

namespace isocheck::gen {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256**.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& v : s_) v = splitmix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n >= 1 (Lemire's unbiased multiply-shift).
  uint64_t below(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    uint64_t lo = static_cast<uint64_t>(m);
    if (lo < n) {
      const uint64_t threshold = (0 - n) % n;
      while (lo < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        lo = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [lo, hi].
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // True with probability percent/100.
  bool percent(uint32_t p) { return below(100) < p; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Zipf over ranks 1..n with P(k) proportional to k^-s (s > 0), sampled by
// rejection-inversion (Hörmann & Derflinger 1996): O(1) memory and expected
// O(1) time for any n. Returns rank-1 in [0, n).
class ZipfSampler {
 public:
  ZipfSampler(uint64_t n, double s) : n_(static_cast<double>(n)), s_(s) {
    h_lo_ = hint(1.5) - 1.0;            // left end of the hat area (h(1) = 1)
    h_hi_ = hint(n_ + 0.5);             // right end
    squeeze_ = 2.0 - hint_inv(hint(2.5) - h(2.0));
  }
  uint64_t operator()(Rng& rng) const {
    for (;;) {
      const double u = h_hi_ + rng.uniform01() * (h_lo_ - h_hi_);
      const double x = hint_inv(u);
      double k = std::floor(x + 0.5);
      if (k < 1.0) k = 1.0;
      if (k > n_) k = n_;
      if (k - x <= squeeze_ || u >= hint(k + 0.5) - h(k)) return static_cast<uint64_t>(k) - 1;
    }
  }

 private:
  double h(double x) const { return std::exp(-s_ * std::log(x)); }
  // Integral of h from 1 to x: (x^(1-s) - 1) / (1 - s), or log x when s = 1.
  double hint(double x) const {
    const double lx = std::log(x);
    return expm1_over((1.0 - s_) * lx) * lx;
  }
  double hint_inv(double y) const {
    double t = y * (1.0 - s_);
    if (t < -1.0) t = -1.0;  // rounding guard
    return std::exp(log1p_over(t) * y);
  }
  static double expm1_over(double x) {  // expm1(x)/x, continuous at 0
    return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
  }
  static double log1p_over(double x) {  // log1p(x)/x, continuous at 0
    return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
  }
  double n_, s_, h_lo_, h_hi_, squeeze_;
};

}  // namespace isocheck::gen

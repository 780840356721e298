// Floating-point helpers shared by references, tests, golden files and validate: IEEE half
// conversion (round to nearest even, as WGSL's f16() and GLSL's float16_t() do) and ULP distance.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace wgslvk {

inline bool is_finite_bits(float x) {  // WGSL has no isFinite; this is the ports' test (R15)
  return (std::bit_cast<uint32_t>(x) & 0x7f800000u) != 0x7f800000u;
}

// f32 -> f16 bits, round to nearest even; overflow to inf, NaN kept quiet.
inline uint16_t f32_to_f16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = int(exp) - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half (or zero)
    if (e < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: ok
  return uint16_t(half);
}

inline float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

// Spacing of f32 values at magnitude |m|: 2^(floor(log2 |m|) - 23) in the normal range, 2^-149
// (the smallest subnormal) below it, infinite for an infinite magnitude. A NaN magnitude gets the
// tightest spacing, 2^-149, so a bound measured against it can never accept a wrong value.
inline double f32_ulp_of(double m) {
  m = std::abs(m);
  if (!(m >= 0x1p-126)) return 0x1p-149;
  if (std::isinf(m)) return std::numeric_limits<double>::infinity();
  int e;
  std::frexp(m, &e);  // m = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 1 - 23);
}

// Distance in units in the last place between two floats of the same type, on the ordered
// integer line (so -0 and +0 are 0 apart, and the distance across zero counts every step).
// NaN against anything but NaN is the maximum distance.
inline uint64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : UINT64_MAX;
  auto key = [](float f) -> int64_t {
    int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
  };
  int64_t d = key(a) - key(b);
  return uint64_t(d < 0 ? -d : d);
}
inline uint64_t ulp_distance_f16(uint16_t a, uint16_t b) {
  auto nan = [](uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); };
  if (nan(a) || nan(b)) return (nan(a) && nan(b)) ? 0 : UINT64_MAX;
  auto key = [](uint16_t h) -> int64_t {
    return (h & 0x8000u) ? -int64_t(h & 0x7fffu) : int64_t(h);
  };
  int64_t d = key(a) - key(b);
  return uint64_t(d < 0 ? -d : d);
}

// Expected f32 outputs of a reference with a per-element bound in ULPs of a named magnitude:
// element i may differ from value[i] by bound[i] ULPs of max(|value[i]|, magnitude[i]).
// Non-finite expected values must be met exactly (NaN by any NaN).
struct UlpExpected {
  std::vector<float> value;
  std::vector<double> magnitude;
  std::vector<double> bound;
  bool within(size_t i, float got) const {
    const float v = value[i];
    if (std::isnan(v)) return std::isnan(got);
    if (std::isinf(v)) return got == v;
    if (!std::isfinite(got)) return false;
    return std::fabs(double(got) - double(v)) <=
           bound[i] * f32_ulp_of(std::max(std::fabs(double(v)), magnitude[i]));
  }
  // |got - value| in ULPs of max(|value|, magnitude).
  double ulps(size_t i, float got) const {
    return std::fabs(double(got) - double(value[i])) /
           f32_ulp_of(std::max(std::fabs(double(value[i])), magnitude[i]));
  }
};

}  // namespace wgslvk

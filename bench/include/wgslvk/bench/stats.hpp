// Robust statistics of repeated timings, and deterministic never-zero inputs for the sweeps (the
// same hash in the JS peers, Math.imul, so inputs can be regenerated there).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace wgslvk::bench {

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0;
  size_t n = 0;
};

inline Stats stats_of(std::vector<double> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {
    return v[std::min(v.size() - 1, size_t(f * double(v.size() - 1) + 0.5))];
  };
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.p10 = q(0.1);
  s.p90 = q(0.9);
  s.min = v.front();
  return s;
}

// A 32-bit integer hash (lowbias32); the same in the JS peers (Math.imul) so inputs can be
// regenerated there when a dump is not used.
inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
// Uniform in [-1, 1), never exactly 0 (zeros hide unwritten outputs and skip work in some kernels).
inline float rand_sym(uint32_t seed, uint64_t i) {
  uint32_t h = hash32(uint32_t(i) * 0x9e3779b9u + seed * 0x85ebca6bu + uint32_t(i >> 32));
  float f = float(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
  return f == 0.0f ? 0.5f : f;
}

// n values uniform in [lo, hi) (24-bit steps) from a splitmix64 stream started at `seed`: the
// sweeps' inputs, fast at tens of millions of elements.
inline std::vector<float> fast_uniform(uint64_t seed, uint64_t n, float lo, float hi) {
  std::vector<float> v(n);
  uint64_t z = seed;
  for (auto& x : v) {
    z += 0x9e3779b97f4a7c15ull;
    uint64_t r = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
    x = lo + (hi - lo) * float((r >> 40) * 0x1p-24);
  }
  return v;
}

}  // namespace wgslvk::bench

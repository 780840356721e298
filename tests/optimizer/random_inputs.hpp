// Test-only inputs of the optimizer suites: random floats over a wide range of magnitudes,
// sprinkled non-finite values, the poison check. Buffers, uniforms and dispatches come from
// wgslvk/utils.hpp (the one runtime helper header), not from here.
#pragma once

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "optimizer/reference.hpp"
#include "support/test_device.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::optimizer::testing {

using namespace wgslvk::testing;

// Normal values with a random scale per element in [2^-8, 2^4]: no zeros, no subnormals.
inline std::vector<float> random_floats(std::mt19937_64& r, size_t n, double spread = 1.0) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_real_distribution<double> ex(-8.0, 4.0);
  std::vector<float> v(n);
  for (auto& x : v) {
    double y = nd(r) * std::exp2(ex(r) * spread);
    if (y == 0.0) y = 1.0;
    x = float(y);
  }
  return v;
}

// A few non-finite values sprinkled in (NaN, +Inf, -Inf), at least one of each when n >= 3.
inline void sprinkle_nonfinite(std::mt19937_64& r, std::vector<float>& v, double frac = 0.01) {
  std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
  size_t k = std::max<size_t>(3, size_t(v.size() * frac));
  const float bad[3] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY};
  for (size_t i = 0; i < k && !v.empty(); ++i) v[pick(r)] = bad[i % 3];
}

inline bool is_poison(float f) { return std::bit_cast<uint32_t>(f) == kPoisonBits; }

}  // namespace wgslvk::optimizer::testing

// Helpers to run one optimizer kernel directly on the test device and to make random inputs.
#pragma once

#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "optimizer/reference.hpp"
#include "support/test_device.hpp"

namespace wgslvk::optimizer::testing {

using namespace wgslvk::testing;

// Runs `name` once with the given entries (group 0) on `grid`, waits.
inline void run_kernel(Device& d, const std::string& name, std::vector<BindGroupEntry> entries,
                       Grid grid) {
  ComputePipeline p = d.create_compute_pipeline({"", &kernel(name), {}, false});
  BindGroup bg = d.create_bind_group({name, p.get_bind_group_layout(0), std::move(entries)});
  CommandEncoder enc = d.create_command_encoder(name);
  ComputePass pass = enc.begin_compute_pass();
  pass.set_pipeline(p);
  pass.set_bind_group(0, bg);
  pass.dispatch_workgroups(grid.x, grid.y);
  pass.end();
  d.submit(enc.finish());
  d.wait_idle();
}

inline Buffer uniform(Device& d, const void* data, size_t bytes, const std::string& label) {
  Buffer b = d.create_buffer({label, align_up(std::max<size_t>(bytes, 16), 16), kUsageUniform | kUsageCopyDst});
  std::vector<uint8_t> tmp(b.size(), 0);
  std::memcpy(tmp.data(), data, bytes);
  d.write_buffer(b, 0, tmp.data(), tmp.size());
  return b;
}

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

// Small helpers for the runtime suite: poisoned buffers, the (n, 0, 0, 0) uniform the util
// kernels take, one-dispatch runs, and an error matcher for ValidationError.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/test_device.hpp"

namespace wgslvk::testing {

inline const KernelInfo& util(const char* name) {
  return kernel(std::string("wgslvk_util/") + name);
}

// A buffer of `words` u32 filled with the poison pattern.
inline Buffer poisoned(Device& d, uint64_t words, const std::string& label, uint32_t extra_usage = 0) {
  return upload(d, std::vector<uint32_t>(words, kPoisonBits), label, extra_usage);
}

inline Buffer params(Device& d, uint32_t n, const std::string& label = "params") {
  Buffer b = d.create_buffer({label, 16, kUsageUniform | kUsageCopyDst});
  uint32_t v[4] = {n, 0, 0, 0};
  d.write_buffer(b, 0, v, sizeof v);
  return b;
}

inline BindGroup group(Device& d, const ComputePipeline& p, std::vector<BindGroupEntry> entries,
                       const std::string& label = "group", uint32_t index = 0) {
  return d.create_bind_group({label, p.get_bind_group_layout(index), std::move(entries)});
}

// Records one pass with one dispatch per grid, submits, and waits.
inline void run(Device& d, const ComputePipeline& p, const std::vector<BindGroup>& groups, Grid grid,
                const std::string& label = "pass") {
  CommandEncoder enc = d.create_command_encoder(label);
  ComputePass pass = enc.begin_compute_pass({label});
  pass.set_pipeline(p);
  for (uint32_t i = 0; i < groups.size(); ++i) pass.set_bind_group(i, groups[i]);
  pass.dispatch_workgroups(grid.x, grid.y);
  pass.end();
  d.submit(enc.finish());
  d.wait_idle();
}

// Runs `f`, expects a ValidationError with `rule` whose message holds every fragment.
inline void expect_validation_error(const std::function<void()>& f, const std::string& rule,
                                    std::initializer_list<std::string> fragments) {
  try {
    f();
  } catch (const ValidationError& e) {
    EXPECT_EQ(e.rule(), rule) << e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(std::string(e.what()).find(frag), std::string::npos)
          << "message lacks \"" << frag << "\": " << e.what();
    return;
  }
  ADD_FAILURE() << "expected ValidationError " << rule << ", nothing was thrown";
}

}  // namespace wgslvk::testing

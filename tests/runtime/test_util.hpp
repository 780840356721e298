// Test-only helpers of the runtime suite: the util kernels by name, poisoned buffers and an error
// matcher for ValidationError. Buffers, uniforms, bind groups and dispatches come from
// wgslvk/utils.hpp (the one runtime helper header), not from here.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/test_device.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::testing {

using utils::make_bind_group;
using utils::run_dispatch;

// A helper kernel by name. The runtime suites bind by name and binding number on purpose: they
// test the runtime's own API beneath the typed headers (explicit bind group layouts, the
// R1-R13 refusals of a wrong binding, kind or size), which the generated slots exist to prevent.
inline const KernelInfo& util(const char* name) {
  return kernel(std::string("wgslvk_util/") + name);
}

// A buffer of `words` u32 filled with the poison pattern.
inline Buffer poisoned(Device& d, uint64_t words, const std::string& label,
                       BufferUsage extra_usage = BufferUsage::None) {
  return upload(d, std::vector<uint32_t>(words, kPoisonBits), label, extra_usage);
}

// The (n, 0, 0, 0) uniform the util kernels take.
inline Buffer params(Device& d, uint32_t n, const std::string& label = "params") {
  return utils::make_uniform(d, label, n);
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

// What the generated kernel headers (wgslvk/kernels/<file>/<entry>.hpp, translator/README.md)
// are made of: a typed binding slot, and the workgroup count of a flat_id grid. Nothing here
// needs the runtime; wgslvk/bind.hpp turns a slot and a buffer into a BindGroupEntry.
#pragma once

#include <cstdint>
#include <string_view>

#include "wgslvk/kernel.hpp"

namespace wgslvk {

// @group(group) @binding(binding) of kernel `Kernel` (the generated header's tag type). T is
// what one element of the binding is on the host: the uniform struct (or scalar) of a uniform,
// the element of a storage buffer's runtime array (float, uint32_t, int32_t, uint16_t for f16,
// std::array<float, 4> for vec4<f32>, ...), void for anything else. Binding a slot of one kernel
// into another kernel's bind group, or a uniform value of another type, does not compile.
template <class Kernel, class T>
struct BindingSlot {
  using kernel_type = Kernel;
  using value_type = T;
  uint32_t group = 0;
  uint32_t binding = 0;
  BindingType type = BindingType::Storage;
  std::string_view name;  // the WGSL variable
};

// Workgroups of `workgroup_threads` invocations covering `invocations` (at least one).
constexpr uint64_t flat_workgroups(uint64_t invocations, uint64_t workgroup_threads) {
  return invocations == 0 ? 1 : (invocations + workgroup_threads - 1) / workgroup_threads;
}

}  // namespace wgslvk

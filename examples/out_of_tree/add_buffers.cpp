// The README's first C++ example: a kernel the package embeds (elementwise/residual_add: out = a +
// b over vec4<f32>) run on buffers of our own through its generated header, which names its
// bindings and their types (a slot of another kernel or a misspelt name does not compile), and
// checked against the family's CPU reference.
#include <cstdio>

#include "elementwise/reference.hpp"  // wgslvk::elementwise_ref: ref::residual_add_f32
#include "wgslvk/bind.hpp"            // wgslvk::runtime: bind, make_uniform, run_dispatch
#include "wgslvk/kernels/elementwise/residual_add.hpp"  // wgslvk::kernels

int main() {
  using namespace wgslvk;
  namespace ra = kernels::elementwise::residual_add;
  Device device = Instance::create().select_adapter().request_device({});
  std::vector<float> a{1, 2, 3, 4, 5, 6, 7, 8}, b{0.5f, 0.25f, -1, 0.125f, 2, 2, 2, 2};
  const uint32_t n4 = uint32_t(a.size() / 4);  // one invocation per vec4
  Buffer out = utils::make_buffer(device, "out", a.size() * sizeof(float));
  run_dispatch(
      device, ra::Kernel{},
      {bind(ra::binding::ra_a, utils::make_buffer_from(device, "a", a)),
       bind(ra::binding::ra_b, utils::make_buffer_from(device, "b", b)),
       bind(ra::binding::ra_out, out),
       bind(ra::binding::ra_dims, make_uniform(device, ra::binding::ra_dims, {n4, 0, 0, 0}))},
      ra::Kernel::grid(n4, device.limits()));
  std::vector<float> got = read<float>(device, out);
  for (float v : got) std::printf("%g ", v);
  const bool same = got == elementwise::ref::residual_add_f32(a, b);
  std::printf("\n%s\n",
              same ? "residual_add: same as the CPU reference" : "residual_add: MISMATCH");
  return same ? 0 : 1;
}

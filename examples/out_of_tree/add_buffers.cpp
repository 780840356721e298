// The README's first C++ example: a kernel the package embeds (elementwise/residual_add: out = a +
// b over vec4<f32>) run on buffers of our own, checked against the family's CPU reference.
#include <cstdio>

#include "elementwise/reference.hpp"  // wgslvk::elementwise_ref: workgroups_for, ref::residual_add_f32
#include "wgslvk/utils.hpp"           // wgslvk::runtime (+ wgslvk::kernels for kernel(name))

int main() {
  using namespace wgslvk;
  Device device = Instance::create().select_adapter().request_device({});
  std::vector<float> a{1, 2, 3, 4, 5, 6, 7, 8}, b{0.5f, 0.25f, -1, 0.125f, 2, 2, 2, 2};
  Buffer out = utils::make_buffer(device, "out", a.size() * sizeof(float));
  Buffer dims =
      utils::make_uniform(device, "dims", std::array<uint32_t, 4>{uint32_t(a.size() / 4)});
  utils::run_dispatch(device, kernel("elementwise/residual_add"),
                      {{0, utils::make_buffer_from(device, "a", a)},
                       {1, utils::make_buffer_from(device, "b", b)},
                       {2, out},
                       {3, dims}},
                      grid_for_workgroups(elementwise::workgroups_for(a.size()), device.limits()));
  std::vector<float> got = read<float>(device, out);
  for (float v : got) std::printf("%g ", v);
  const bool same = got == elementwise::ref::residual_add_f32(a, b);
  std::printf("\n%s\n",
              same ? "residual_add: same as the CPU reference" : "residual_add: MISMATCH");
  return same ? 0 : 1;
}

// wgslvk::runtime alone, without the kernels, the translator or the validator (issue 25: it used
// to need wgslvk_kernels to link): the WebGPU object model on the default adapter. No kernel is
// registered, since none is linked.
#include <cstdio>

#include "wgslvk/runtime.hpp"

int main() {
  wgslvk::Device device = wgslvk::Instance::create().select_adapter().request_device({});
  wgslvk::Buffer b = device.create_buffer(
      {"b", 16,
       wgslvk::BufferUsage::Storage | wgslvk::BufferUsage::CopyDst | wgslvk::BufferUsage::CopySrc});
  const uint32_t v[4] = {1, 2, 3, 4};
  device.queue().write_buffer(b, 0, v, sizeof v);
  const std::vector<uint32_t> back = wgslvk::read<uint32_t>(device, b);
  std::printf("runtime alone: %zu kernels registered, read back %u %u %u %u\n",
              wgslvk::all_kernels().size(), back[0], back[1], back[2], back[3]);
  return wgslvk::all_kernels().empty() && back == std::vector<uint32_t>{1, 2, 3, 4} ? 0 : 1;
}

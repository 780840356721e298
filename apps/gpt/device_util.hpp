// The trainer's device: the adapter's best limits (the 110M preset's mega-buffers exceed WebGPU's
// default 256 MiB maxBufferSize) and every feature it has (embed_lookup's module enables f16).
#pragma once

#include <optional>
#include <string>

#include "wgslvk/cli_device.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::gpt {

inline OpenedDevice open_training_device(const std::optional<std::string>& selector,
                                         std::FILE* out = stdout) {
  Instance inst = Instance::create();
  Adapter ad = inst.select_adapter(selector);
  DeviceDescriptor desc;
  desc.label = "gpt";
  desc.required_features = ad.features();
  desc.required_limits = ad.limits();
  return open_device(selector, &desc, out);
}

}  // namespace wgslvk::gpt

// The trainer's device: the adapter's best limits (the 110M preset's mega-buffers exceed WebGPU's
// default 256 MiB maxBufferSize) and every feature it has (embed_lookup's module enables f16).
#pragma once

#include <optional>
#include <string>

#include "cli_device.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::gpt {

// trace_dir: record the device's WebGPU calls there (DeviceDescriptor::trace_dir) for a replay
// on Dawn (bench/peers/dawn_trace.mjs); empty: env WGSLVK_TRACE or none.
inline OpenedDevice open_training_device(const std::optional<std::string>& selector,
                                         std::FILE* out = stdout,
                                         const std::string& trace_dir = {}) {
  Instance inst = Instance::create();
  Adapter ad = inst.select_adapter(selector);
  DeviceDescriptor desc;
  desc.label = "gpt";
  desc.required_features = ad.features();
  desc.required_limits = ad.limits();
  desc.trace_dir = trace_dir;
  return open_device(selector, &desc, out);
}

}  // namespace wgslvk::gpt

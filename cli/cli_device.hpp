// The device choice every wgslvk command shares: `--device <index|name substring>` (else
// WGSLVK_DEVICE, else a discrete GPU, else lavapipe), and the "device: ..." line it prints.
// Command-line matters, so it lives in cli/ (library wgslvk_cli_device, which the apps' commands
// link too), not in the runtime.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "wgslvk/runtime.hpp"

namespace wgslvk {

// Removes `--device X` or `--device=X` from args and returns X (nullopt when absent). Throws
// std::invalid_argument when --device has no value.
std::optional<std::string> take_device_flag(std::vector<std::string>& args);

struct OpenedDevice {
  Instance instance;
  Adapter adapter;
  Device device;
};

// Creates the instance (validation per WGSLVK_VALIDATION), selects the adapter and requests a
// device: `desc` when given, else WebGPU default limits with every feature the adapter has.
// Prints "device: <name> (<type>, <driver>, Vulkan x.y.z)" to `out` unless it is null.
OpenedDevice open_device(const std::optional<std::string>& selector,
                         const DeviceDescriptor* desc = nullptr, std::FILE* out = stdout);

// "llvmpipe (LLVM 15.0.6, 256 bits) (CPU, llvmpipe Mesa 22.3.6, Vulkan 1.3.230)"
std::string describe_adapter(const Adapter& adapter);
std::string vulkan_version_string(uint32_t version);

// Usage text for the flag, for commands' --help.
inline constexpr const char* kDeviceFlagHelp =
    "  --device <sel>   adapter index or case-insensitive name substring (default: WGSLVK_DEVICE,\n"
    "                   else the first discrete GPU, else lavapipe); see `wgslvk devices`\n";

}  // namespace wgslvk

// wgslvk devices: every Vulkan adapter with the WebGPU limits and features the runtime sees.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "cli_device.hpp"

namespace wgslvk::cli {
namespace {

constexpr const char* kUsage =
    "usage: wgslvk devices [--json]\n"
    "\n"
    "Lists every Vulkan adapter (index, name, type, driver, Vulkan version), its WebGPU limits\n"
    "and features as the runtime sees them (the best a device may request; a device gets\n"
    "WebGPU's defaults unless it asks for more), and marks the one commands use by default.\n"
    "Select another with --device <index|name> on a command or WGSLVK_DEVICE=<index|name>.\n"
    "\n"
    "  --json   machine-readable output\n"
    "  --help   this text\n";

using LimitRow = std::pair<const char*, uint64_t>;
std::vector<LimitRow> limit_rows(const Limits& l) {
  return {{"minStorageBufferOffsetAlignment", l.min_storage_buffer_offset_alignment},
          {"minUniformBufferOffsetAlignment", l.min_uniform_buffer_offset_alignment},
          {"maxStorageBufferBindingSize", l.max_storage_buffer_binding_size},
          {"maxUniformBufferBindingSize", l.max_uniform_buffer_binding_size},
          {"maxBufferSize", l.max_buffer_size},
          {"maxComputeWorkgroupsPerDimension", l.max_compute_workgroups_per_dimension},
          {"maxComputeInvocationsPerWorkgroup", l.max_compute_invocations_per_workgroup},
          {"maxComputeWorkgroupSizeX", l.max_compute_workgroup_size_x},
          {"maxComputeWorkgroupSizeY", l.max_compute_workgroup_size_y},
          {"maxComputeWorkgroupSizeZ", l.max_compute_workgroup_size_z},
          {"maxComputeWorkgroupStorageSize", l.max_compute_workgroup_storage_size},
          {"maxStorageBuffersPerShaderStage", l.max_storage_buffers_per_shader_stage},
          {"maxUniformBuffersPerShaderStage", l.max_uniform_buffers_per_shader_stage},
          {"maxBindGroups", l.max_bind_groups},
          {"maxBindingsPerBindGroup", l.max_bindings_per_bind_group}};
}

int run_devices(const std::vector<std::string>& args);
const Command kDevices{"devices", "list Vulkan adapters with their WebGPU limits and features",
                       kUsage, run_devices};

int run_devices(const std::vector<std::string>& args) {
  if (wants_help(args, kDevices)) return 0;
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr, "wgslvk devices: unknown option '%s'\n\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  Instance inst = Instance::create();
  auto adapters = inst.adapters();
  std::optional<uint32_t> def;
  std::string default_error;
  try {
    def = inst.select_adapter().info().index;
  } catch (const std::exception& e) {
    default_error = e.what();  // e.g. WGSLVK_DEVICE names nothing: still list what there is
  }
  Limits webgpu_defaults;
  if (json) {
    nlohmann::ordered_json out;
    out["adapters"] = nlohmann::json::array();
    for (const Adapter& a : adapters) {
      const AdapterInfo& i = a.info();
      nlohmann::ordered_json j;
      j["index"] = i.index;
      j["name"] = i.name;
      j["type"] = std::string(adapter_type_name(i.type));
      j["driver"] = i.driver;
      j["vendor_id"] = i.vendor_id;
      j["device_id"] = i.device_id;
      j["vulkan_api_version"] = vulkan_version_string(i.vulkan_api_version);
      j["default"] = def && *def == i.index;
      nlohmann::ordered_json lim;
      for (auto& [name, v] : limit_rows(a.limits())) lim[name] = v;
      j["limits"] = lim;
      j["features"] = nlohmann::json::array();
      for (Feature f : a.features()) j["features"].push_back(std::string(feature_name(f)));
      out["adapters"].push_back(j);
    }
    if (def)
      out["default"] = *def;
    else
      out["default"] = nullptr;
    if (!default_error.empty()) out["default_error"] = default_error;
    std::printf("%s\n", out.dump(2).c_str());
    return def ? 0 : 1;
  }
  if (adapters.empty()) std::printf("no Vulkan 1.1 adapters\n");
  auto defaults = limit_rows(webgpu_defaults);
  for (const Adapter& a : adapters) {
    const AdapterInfo& i = a.info();
    bool is_default = def && *def == i.index;
    std::printf("%u: %s%s\n", i.index, i.name.c_str(), is_default ? "   [default]" : "");
    std::printf("   type %s, driver %s, Vulkan %s, vendor 0x%04x device 0x%04x\n",
                std::string(adapter_type_name(i.type)).c_str(), i.driver.c_str(),
                vulkan_version_string(i.vulkan_api_version).c_str(), i.vendor_id, i.device_id);
    std::string feats;
    for (Feature f : a.features())
      feats += (feats.empty() ? "" : ", ") + std::string(feature_name(f));
    std::printf("   features: %s\n", feats.empty() ? "(none)" : feats.c_str());
    std::printf("   limits (adapter best; WebGPU default in brackets):\n");
    auto rows = limit_rows(a.limits());
    for (size_t r = 0; r < rows.size(); ++r)
      std::printf("     %-34s %12llu  [%llu]\n", rows[r].first, (unsigned long long)rows[r].second,
                  (unsigned long long)defaults[r].second);
  }
  if (!default_error.empty()) {
    std::fprintf(stderr, "wgslvk devices: no default adapter: %s\n", default_error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace wgslvk::cli

#include "cli_device.hpp"

#include <vulkan/vulkan.h>

#include <stdexcept>

namespace wgslvk {

std::optional<std::string> take_device_flag(std::vector<std::string>& args) {
  std::optional<std::string> sel;
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--device") {
      if (i + 1 >= args.size())
        throw std::invalid_argument("--device needs a value (an index or a name)");
      sel = args[i + 1];
      args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
    } else if (args[i].rfind("--device=", 0) == 0) {
      sel = args[i].substr(9);
      args.erase(args.begin() + long(i));
    } else {
      ++i;
    }
  }
  return sel;
}

std::string vulkan_version_string(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
         "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string describe_adapter(const Adapter& a) {
  const AdapterInfo& i = a.info();
  return i.name + " (" + std::string(adapter_type_name(i.type)) + ", " + i.driver + ", Vulkan " +
         vulkan_version_string(i.vulkan_api_version) + ")";
}

OpenedDevice open_device(const std::optional<std::string>& selector, const DeviceDescriptor* desc,
                         std::FILE* out) {
  OpenedDevice o;
  o.instance = Instance::create();
  o.adapter = o.instance.select_adapter(selector);
  if (desc) {
    o.device = o.adapter.request_device(*desc);
  } else {
    DeviceDescriptor d;
    d.label = "wgslvk";
    d.required_features = o.adapter.features();
    o.device = o.adapter.request_device(d);
  }
  if (out) {
    std::fprintf(out, "device: %s\n", describe_adapter(o.adapter).c_str());
    std::fflush(out);
  }
  return o;
}

}  // namespace wgslvk

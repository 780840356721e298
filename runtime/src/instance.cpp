// Instance, adapters (WebGPU limits and features from Vulkan properties) and requestDevice.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "internal.hpp"

namespace wgslvk {

ValidationError::ValidationError(std::string rule, const std::string& message)
    : std::runtime_error(rule + ": " + message), rule_(std::move(rule)) {}

void check_vk(VkResult r, const char* what) {
  if (r != VK_SUCCESS)
    throw VulkanError(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

std::string quoted(const std::string& kind, const std::string& label) {
  return "[" + kind + " \"" + label + "\"]";
}

std::string_view feature_name(Feature f) {
  switch (f) {
    case Feature::ShaderF16:
      return "shader-f16";
    case Feature::TimestampQuery:
      return "timestamp-query";
    case Feature::Float32AtomicAdd:
      return "float32-atomic-add";
    case Feature::SubgroupMatrix:
      return "chromium-experimental-subgroup-matrix";
  }
  return "?";
}

std::string_view adapter_type_name(AdapterType t) {
  switch (t) {
    case AdapterType::DiscreteGPU:
      return "discrete GPU";
    case AdapterType::IntegratedGPU:
      return "integrated GPU";
    case AdapterType::VirtualGPU:
      return "virtual GPU";
    case AdapterType::CPU:
      return "CPU";
    case AdapterType::Other:
      return "other";
  }
  return "?";
}

// ---- instance -----------------------------------------------------------------------------------

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  auto* inst = static_cast<InstanceCore*>(user);
  std::string text =
      severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error: " : "warning: ";
  if (data && data->pMessage) text += data->pMessage;
  std::lock_guard lock(inst->messages_mutex);
  inst->messages.push_back(std::move(text));
  return VK_FALSE;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0";
}

bool layer_available(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool instance_extension_available(const char* name, const char* layer = nullptr) {
  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(layer, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateInstanceExtensionProperties(layer, &n, ext.data());
  for (auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// VK_KHR_cooperative_matrix (Vulkan headers 1.3.255+; Debian 12 has 1.3.239): the structures and
// the query as the registry defines them.
constexpr const char* kCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
constexpr auto kStypeCooperativeMatrixFeatures = VkStructureType(1000506000);
constexpr auto kStypeCooperativeMatrixProperties = VkStructureType(1000506001);
struct CooperativeMatrixFeatures {
  VkStructureType sType = kStypeCooperativeMatrixFeatures;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct CooperativeMatrixProperties {
  VkStructureType sType = kStypeCooperativeMatrixProperties;
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;  // VkScopeKHR
};
using GetCooperativeMatrixProperties = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*,
                                                            CooperativeMatrixProperties*);
constexpr uint32_t kComponentFloat16 = 0, kComponentFloat32 = 1, kScopeSubgroup = 3;

bool device_extension_available(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, ext.data());
  for (auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::shared_ptr<AdapterImpl> make_adapter(std::shared_ptr<InstanceCore> inst, VkPhysicalDevice pd,
                                          uint32_t index) {
  auto a = std::make_shared<AdapterImpl>();
  a->instance = inst;
  a->physical = pd;

  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maint3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &maint3;
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(pd, &basic);
  a->api_version = std::min(basic.apiVersion, inst->api_version);
  bool has_driver_props = a->api_version >= VK_API_VERSION_1_2 ||
                          device_extension_available(pd, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (has_driver_props) maint3.pNext = &driver;
  vkGetPhysicalDeviceProperties2(pd, &props);
  const VkPhysicalDeviceLimits& vl = props.properties.limits;

  AdapterInfo& info = a->info;
  info.name = props.properties.deviceName;
  if (has_driver_props) {
    info.driver = driver.driverName;
    if (driver.driverInfo[0]) info.driver += std::string(" ") + driver.driverInfo;
  } else {
    info.driver = "driver version " + std::to_string(props.properties.driverVersion);
  }
  switch (props.properties.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      info.type = AdapterType::DiscreteGPU;
      break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      info.type = AdapterType::IntegratedGPU;
      break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      info.type = AdapterType::VirtualGPU;
      break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      info.type = AdapterType::CPU;
      break;
    default:
      info.type = AdapterType::Other;
  }
  info.vendor_id = props.properties.vendorID;
  info.device_id = props.properties.deviceID;
  info.vulkan_api_version = props.properties.apiVersion;
  info.index = index;

  // Queue: the first family with compute (a compute-capable family exists on every Vulkan GPU).
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> families(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, families.data());
  bool found = false;
  for (uint32_t i = 0; i < nq && !found; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      a->queue_family = i;
      a->timestamp_valid_bits = families[i].timestampValidBits;
      found = true;
    }
  if (!found) return nullptr;
  a->timestamp_period = vl.timestampPeriod;
  a->vk_storage_alignment = uint32_t(std::max<VkDeviceSize>(vl.minStorageBufferOffsetAlignment, 4));
  a->vk_uniform_alignment = uint32_t(std::max<VkDeviceSize>(vl.minUniformBufferOffsetAlignment, 4));

  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  uint64_t biggest_local_heap = 0;
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      biggest_local_heap = std::max<uint64_t>(biggest_local_heap, mem.memoryHeaps[i].size);

  // WebGPU limits as this adapter could grant them. One VkDeviceMemory per buffer, so a buffer
  // is bounded by maxMemoryAllocationSize as well as the heap.
  Limits& l = a->limits;
  l.min_storage_buffer_offset_alignment = a->vk_storage_alignment;
  l.min_uniform_buffer_offset_alignment = a->vk_uniform_alignment;
  l.max_storage_buffer_binding_size = uint64_t(vl.maxStorageBufferRange) & ~uint64_t(3);
  l.max_uniform_buffer_binding_size = uint64_t(vl.maxUniformBufferRange) & ~uint64_t(3);
  uint64_t max_buffer = maint3.maxMemoryAllocationSize;
  if (biggest_local_heap) max_buffer = std::min(max_buffer, biggest_local_heap);
  l.max_buffer_size = max_buffer & ~uint64_t(3);
  l.max_compute_workgroups_per_dimension =
      std::min({vl.maxComputeWorkGroupCount[0], vl.maxComputeWorkGroupCount[1],
                vl.maxComputeWorkGroupCount[2]});
  l.max_compute_invocations_per_workgroup = vl.maxComputeWorkGroupInvocations;
  l.max_compute_workgroup_size_x = vl.maxComputeWorkGroupSize[0];
  l.max_compute_workgroup_size_y = vl.maxComputeWorkGroupSize[1];
  l.max_compute_workgroup_size_z = vl.maxComputeWorkGroupSize[2];
  l.max_compute_workgroup_storage_size = vl.maxComputeSharedMemorySize;
  l.max_storage_buffers_per_shader_stage =
      std::min(vl.maxPerStageDescriptorStorageBuffers, vl.maxDescriptorSetStorageBuffers);
  l.max_uniform_buffers_per_shader_stage =
      std::min(vl.maxPerStageDescriptorUniformBuffers, vl.maxDescriptorSetUniformBuffers);
  l.max_bind_groups = vl.maxBoundDescriptorSets;
  l.max_bindings_per_bind_group = 65535;  // no Vulkan counterpart; Dawn's value

  // Features.
  VkPhysicalDevice16BitStorageFeatures s16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT fat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  a->has_f16_ext = a->api_version >= VK_API_VERSION_1_2 ||
                   device_extension_available(pd, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  bool fat_ext = device_extension_available(pd, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exe{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  bool exe_ext =
      device_extension_available(pd, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  feats.pNext = &s16;
  void** tail = &s16.pNext;
  if (a->has_f16_ext) {
    *tail = &f16;
    tail = &f16.pNext;
  }
  if (fat_ext) {
    *tail = &fat;
    tail = &fat.pNext;
  }
  if (exe_ext) {
    *tail = &exe;
    tail = &exe.pNext;
  }
  vkGetPhysicalDeviceFeatures2(pd, &feats);
  a->has_executable_properties = exe_ext && exe.pipelineExecutableInfo;
  a->has_f16 = a->has_f16_ext && f16.shaderFloat16;
  a->has_16bit_storage = s16.storageBuffer16BitAccess;
  a->has_16bit_uniform = s16.uniformAndStorageBuffer16BitAccess;
  a->has_int16 = feats.features.shaderInt16;
  a->has_float_atomics = fat_ext && fat.shaderBufferFloat32AtomicAdd;
  if (a->has_f16 && a->has_16bit_storage) a->features.push_back(Feature::ShaderF16);
  if (a->timestamp_valid_bits > 0 && a->timestamp_period > 0)
    a->features.push_back(Feature::TimestampQuery);
  if (a->has_float_atomics) a->features.push_back(Feature::Float32AtomicAdd);

  // "chromium-experimental-subgroup-matrix": what wgsl_ports/subgroup_matrix's kernels use, a
  // subgroup-scope 16x16x16 configuration of f16 inputs and an f32 accumulator, with the Vulkan
  // memory model (which cooperative-matrix SPIR-V requires) and f16 storage.
  VkPhysicalDeviceSubgroupProperties sgp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sgp;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  a->subgroup_size = sgp.subgroupSize;
  const bool mm_ext = a->api_version >= VK_API_VERSION_1_2 ||
                      device_extension_available(pd, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  if (device_extension_available(pd, kCooperativeMatrixExtension) && mm_ext && a->has_f16 &&
      a->has_16bit_storage) {
    CooperativeMatrixFeatures cm;
    VkPhysicalDeviceVulkanMemoryModelFeatures mm{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    mm.pNext = &cm;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &mm;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    auto get = reinterpret_cast<GetCooperativeMatrixProperties>(vkGetInstanceProcAddr(
        a->instance->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
    bool config = false;
    if (get && cm.cooperativeMatrix && mm.vulkanMemoryModel) {
      uint32_t n = 0;
      get(pd, &n, nullptr);
      std::vector<CooperativeMatrixProperties> props(n);
      if (n && get(pd, &n, props.data()) >= 0)
        for (uint32_t i = 0; i < n; ++i) {
          const auto& c = props[i];
          config |= c.MSize == 16 && c.NSize == 16 && c.KSize == 16 &&
                    c.AType == kComponentFloat16 && c.BType == kComponentFloat16 &&
                    c.CType == kComponentFloat32 && c.ResultType == kComponentFloat32 &&
                    c.scope == kScopeSubgroup;
        }
    }
    a->has_subgroup_matrix = config;
    if (config) a->features.push_back(Feature::SubgroupMatrix);
  }
  return a;
}

}  // namespace

InstanceCore::~InstanceCore() {
  if (messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance, messenger, nullptr);
  }
  if (instance) vkDestroyInstance(instance, nullptr);
  // What the layer said after the last take_validation_messages() (e.g. at device teardown)
  // would otherwise vanish silently.
  for (const auto& m : messages)
    std::fprintf(stderr, "wgslvk: Vulkan validation layer: %s\n", m.c_str());
}

Instance Instance::create(const InstanceOptions& options) {
  auto impl = std::make_shared<InstanceImpl>();
  impl->core = std::make_shared<InstanceCore>();
  InstanceCore& core = *impl->core;
  bool want_validation = options.validation.value_or(env_flag("WGSLVK_VALIDATION"));
  const char* kLayer = "VK_LAYER_KHRONOS_validation";
  if (want_validation && !layer_available(kLayer))
    throw VulkanError("validation requested (WGSLVK_VALIDATION=1 or InstanceOptions) but " +
                      std::string(kLayer) + " is not installed (Debian: vulkan-validationlayers)");
  core.validation = want_validation;

  uint32_t loader_version = VK_API_VERSION_1_0;
  vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_1)
    throw VulkanError("the Vulkan loader is 1.0; wgslvk needs Vulkan 1.1 or newer");
  core.api_version = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);

  std::vector<const char*> layers, extensions;
  if (want_validation) layers.push_back(kLayer);
  core.debug_utils =
      instance_extension_available(VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
      (want_validation && instance_extension_available(VK_EXT_DEBUG_UTILS_EXTENSION_NAME, kLayer));
  if (core.debug_utils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "wgslvk";
  app.pEngineName = "wgslvk";
  app.apiVersion = core.api_version;

  VkDebugUtilsMessengerCreateInfoEXT msg{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  msg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  msg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  msg.pfnUserCallback = on_debug_message;
  msg.pUserData = &core;

  // Opt-in synchronization validation (slow): catches a missing barrier between dispatches.
  VkValidationFeatureEnableEXT sync_enable =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT vfeatures{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  vfeatures.enabledValidationFeatureCount = 1;
  vfeatures.pEnabledValidationFeatures = &sync_enable;

  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = uint32_t(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = uint32_t(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  // Chained so instance creation/destruction messages are caught too.
  if (want_validation && core.debug_utils) {
    ci.pNext = &msg;
    if (env_flag("WGSLVK_SYNC_VALIDATION")) msg.pNext = &vfeatures;
  }
  check_vk(vkCreateInstance(&ci, nullptr, &core.instance), "vkCreateInstance");

  if (want_validation && core.debug_utils) {
    msg.pNext = nullptr;
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(core.instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create)
      check_vk(create(core.instance, &msg, nullptr, &core.messenger),
               "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t n = 0;
  check_vk(vkEnumeratePhysicalDevices(core.instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> pds(n);
  check_vk(vkEnumeratePhysicalDevices(core.instance, &n, pds.data()), "vkEnumeratePhysicalDevices");
  for (VkPhysicalDevice pd : pds) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (p.apiVersion < VK_API_VERSION_1_1) continue;  // we need 1.1 (16-bit storage, props2)
    if (auto a = make_adapter(impl->core, pd, uint32_t(impl->adapters.size())))
      impl->adapters.push_back(std::move(a));
  }
  Instance inst;
  impl_of(inst) = impl;
  return inst;
}

std::vector<Adapter> Instance::adapters() const {
  require_live(impl_, "Instance::adapters");
  std::vector<Adapter> out;
  for (auto& a : impl_->adapters) out.push_back(wrap<Adapter>(a));
  return out;
}

Adapter Instance::select_adapter(std::optional<std::string> selector) const {
  require_live(impl_, "Instance::select_adapter");
  auto& all = impl_->adapters;
  if (all.empty())
    throw VulkanError("no Vulkan 1.1 device found (is mesa-vulkan-drivers installed?)");
  if (!selector) {
    if (const char* env = std::getenv("WGSLVK_DEVICE"); env && *env) selector = env;
  }
  if (selector) {
    const std::string& s = *selector;
    bool numeric = !s.empty() &&
                   std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(uint8_t(c)); });
    if (numeric) {
      size_t i = std::stoul(s);
      if (i < all.size()) return wrap<Adapter>(all[i]);
    } else {
      auto lower = [](std::string v) {
        for (auto& c : v) c = char(std::tolower(uint8_t(c)));
        return v;
      };
      for (auto& a : all)
        if (lower(a->info.name).find(lower(s)) != std::string::npos) return wrap<Adapter>(a);
    }
    std::string names;
    for (auto& a : all) names += "\n  " + std::to_string(a->info.index) + ": " + a->info.name;
    throw std::invalid_argument("no adapter matches '" + s +
                                "' (an index or a name substring); adapters:" + names);
  }
  for (AdapterType t : {AdapterType::DiscreteGPU, AdapterType::CPU})
    for (auto& a : all)
      if (a->info.type == t) return wrap<Adapter>(a);
  return wrap<Adapter>(all.front());
}

bool Instance::validation_enabled() const {
  require_live(impl_, "Instance::validation_enabled");
  return impl_->core->validation;
}

std::vector<std::string> Instance::take_validation_messages() const {
  require_live(impl_, "Instance::take_validation_messages");
  std::lock_guard lock(impl_->core->messages_mutex);
  return std::exchange(impl_->core->messages, {});
}

// ---- adapter ------------------------------------------------------------------------------------

const AdapterInfo& Adapter::info() const {
  require_live(impl_, "Adapter::info");
  return impl_->info;
}
const Limits& Adapter::limits() const {
  require_live(impl_, "Adapter::limits");
  return impl_->limits;
}
std::vector<Feature> Adapter::features() const {
  require_live(impl_, "Adapter::features");
  return impl_->features;
}
bool Adapter::has_feature(Feature f) const {
  require_live(impl_, "Adapter::has_feature");
  return std::find(impl_->features.begin(), impl_->features.end(), f) != impl_->features.end();
}

namespace {

// Grants the requested limits: the default unless a better value is asked for; better than the
// adapter is an error. Where the adapter falls short of a WebGPU default, the adapter's value
// is granted (we can only validate against what the hardware honours).
Limits grant_limits(const Limits& req, const Limits& adapter, const std::string& adapter_name) {
  Limits def, out;
  auto too_much = [&](const char* name, uint64_t asked, uint64_t best, bool alignment) {
    return ValidationError(
        "limits", "requested " + std::string(name) + " (" + std::to_string(asked) + ") is " +
                      (alignment ? "below" : "above") + " what adapter \"" + adapter_name +
                      "\" supports (" + std::to_string(best) + ")");
  };
  auto maxlim = [&](const char* name, auto Limits::*f) {
    auto asked = req.*f, best = adapter.*f, d = def.*f;
    if (asked > best && asked > d) throw too_much(name, asked, best, false);
    out.*f = std::min(std::max(asked, d), best);
  };
  auto alignlim = [&](const char* name, uint32_t Limits::*f) {
    uint32_t asked = req.*f, best = adapter.*f, d = def.*f;
    if (asked == 0 || (asked & (asked - 1)))
      throw ValidationError("limits", "requested " + std::string(name) + " (" +
                                          std::to_string(asked) + ") is not a power of two");
    if (asked < best) throw too_much(name, asked, best, true);
    out.*f = std::max(std::min(asked, d), best);
  };
  alignlim("minStorageBufferOffsetAlignment", &Limits::min_storage_buffer_offset_alignment);
  alignlim("minUniformBufferOffsetAlignment", &Limits::min_uniform_buffer_offset_alignment);
  maxlim("maxStorageBufferBindingSize", &Limits::max_storage_buffer_binding_size);
  maxlim("maxUniformBufferBindingSize", &Limits::max_uniform_buffer_binding_size);
  maxlim("maxBufferSize", &Limits::max_buffer_size);
  maxlim("maxComputeWorkgroupsPerDimension", &Limits::max_compute_workgroups_per_dimension);
  maxlim("maxComputeInvocationsPerWorkgroup", &Limits::max_compute_invocations_per_workgroup);
  maxlim("maxComputeWorkgroupSizeX", &Limits::max_compute_workgroup_size_x);
  maxlim("maxComputeWorkgroupSizeY", &Limits::max_compute_workgroup_size_y);
  maxlim("maxComputeWorkgroupSizeZ", &Limits::max_compute_workgroup_size_z);
  maxlim("maxComputeWorkgroupStorageSize", &Limits::max_compute_workgroup_storage_size);
  maxlim("maxStorageBuffersPerShaderStage", &Limits::max_storage_buffers_per_shader_stage);
  maxlim("maxUniformBuffersPerShaderStage", &Limits::max_uniform_buffers_per_shader_stage);
  maxlim("maxBindGroups", &Limits::max_bind_groups);
  maxlim("maxBindingsPerBindGroup", &Limits::max_bindings_per_bind_group);
  return out;
}

}  // namespace

Device Adapter::request_device(const DeviceDescriptor& desc) const {
  require_live(impl_, "Adapter::request_device");
  const AdapterImpl& a = *impl_;
  for (Feature f : desc.required_features)
    if (!has_feature(f))
      throw ValidationError("feature", "feature \"" + std::string(feature_name(f)) +
                                           "\" requested for " + quoted("Device", desc.label) +
                                           " is not supported by adapter \"" + a.info.name + "\"");
  ExecutableCapture capture =
      plan_executable_capture(desc, a.info.name, a.has_executable_properties);
  auto core = std::make_shared<DeviceCore>();
  core->adapter = impl_;
  core->capture = capture;
  core->label = desc.label;
  core->limits = grant_limits(desc.required_limits, a.limits, a.info.name);
  for (Feature f : desc.required_features)
    if (std::find(core->features.begin(), core->features.end(), f) == core->features.end())
      core->features.push_back(f);
  core->storage_alignment =
      std::max(core->limits.min_storage_buffer_offset_alignment, a.vk_storage_alignment);
  core->uniform_alignment =
      std::max(core->limits.min_uniform_buffer_offset_alignment, a.vk_uniform_alignment);

  // Enable features only when requested, so a kernel that needs one fails on a device without it
  // exactly as in WebGPU (and the validation layer catches a port that uses more than declared).
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  // WebGPU requires an out-of-bounds access to stay inside its binding (a read returns a value
  // of the binding or zero, a write lands inside it or nowhere). The WGSL front end's emitter
  // clamps its indices itself; the hand-written GLSL ports and run-time ports do not, so every
  // device gets robustBufferAccess, which gives exactly that guarantee (a Vulkan 1.0 feature
  // every implementation supports; Dawn enables it too).
  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(a.physical, &supported);
  feats.features.robustBufferAccess = supported.robustBufferAccess;
  VkPhysicalDevice16BitStorageFeatures s16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT fat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  std::vector<const char*> extensions;
  void** tail = &feats.pNext;
  if (core->has(Feature::ShaderF16)) {
    f16.shaderFloat16 = VK_TRUE;
    s16.storageBuffer16BitAccess = VK_TRUE;
    s16.uniformAndStorageBuffer16BitAccess = a.has_16bit_uniform;
    feats.features.shaderInt16 = a.has_int16;  // ports may move f16 data as u16
    *tail = &s16;
    tail = &s16.pNext;
    *tail = &f16;
    tail = &f16.pNext;
    if (a.api_version < VK_API_VERSION_1_2)
      extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  if (core->has(Feature::Float32AtomicAdd)) {
    fat.shaderBufferFloat32AtomicAdd = VK_TRUE;
    *tail = &fat;
    tail = &fat.pNext;
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  CooperativeMatrixFeatures cm;
  VkPhysicalDeviceVulkanMemoryModelFeatures mm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  if (core->has(Feature::SubgroupMatrix)) {
    cm.cooperativeMatrix = VK_TRUE;
    mm.vulkanMemoryModel = VK_TRUE;  // cooperative-matrix SPIR-V uses the Vulkan memory model
    *tail = &cm;
    tail = &cm.pNext;
    *tail = &mm;
    tail = &mm.pNext;
    extensions.push_back(kCooperativeMatrixExtension);
    if (a.api_version < VK_API_VERSION_1_2)
      extensions.push_back(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exe{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (capture.any()) {
    exe.pipelineExecutableInfo = VK_TRUE;
    *tail = &exe;
    tail = &exe.pNext;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueFamilyIndex = a.queue_family;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &feats;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &q;
  ci.enabledExtensionCount = uint32_t(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  check_vk(vkCreateDevice(a.physical, &ci, nullptr, &core->device), "vkCreateDevice");

  vkGetPhysicalDeviceMemoryProperties(a.physical, &core->memory);
  for (uint32_t i = 0; i < core->memory.memoryTypeCount; ++i) {
    auto f = core->memory.memoryTypes[i].propertyFlags;
    if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) core->device_local_types |= 1u << i;
    constexpr auto hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((f & hv) == hv) {
      core->host_visible_types |= 1u << i;
      if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) core->host_cached_types |= 1u << i;
    }
  }
  if (capture.any()) {
    // Extension entry points: the loader exports core functions only.
    core->get_executable_properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(core->device, "vkGetPipelineExecutablePropertiesKHR"));
    core->get_executable_statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(core->device, "vkGetPipelineExecutableStatisticsKHR"));
    core->get_internal_representations =
        reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
            vkGetDeviceProcAddr(core->device, "vkGetPipelineExecutableInternalRepresentationsKHR"));
    if (!core->get_executable_properties || !core->get_executable_statistics ||
        !core->get_internal_representations)
      throw VulkanError("adapter \"" + a.info.name + "\" offers " +
                        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME +
                        " but its entry points are missing");
  }
  if (a.instance->debug_utils)
    core->set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
        vkGetDeviceProcAddr(core->device, "vkSetDebugUtilsObjectNameEXT"));

  auto impl = std::make_shared<DeviceImpl>();
  impl->core = core;
  vkGetDeviceQueue(core->device, a.queue_family, 0, &impl->queue);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags =
      VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = a.queue_family;
  check_vk(vkCreateCommandPool(core->device, &pci, nullptr, &impl->pool), "vkCreateCommandPool");
  core->trace = Trace::open_for(desc, *core);
  Device d;
  impl_of(d) = impl;
  return d;
}

// ---- dispatch geometry --------------------------------------------------------------------------

Grid grid_for_workgroups(uint64_t workgroups, const Limits& limits) {
  // Checked arithmetic throughout: any 64-bit count (case files are untrusted input) gives a grid
  // or a ValidationError, never a wrapped value or a division by zero (2^64-1 once made
  // div_ceil wrap to 0 and the loop divide by it).
  const uint64_t max = std::min<uint64_t>(limits.max_compute_workgroups_per_dimension, UINT32_MAX);
  if (workgroups == 0) return Grid{0, 1};
  if (max == 0)
    throw ValidationError("R12",
                          "maxComputeWorkgroupsPerDimension is 0: no workgroup can be dispatched");
  if (workgroups <= max) return Grid{uint32_t(workgroups), 1};
  auto ceil_div = [](uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); };  // b > 0
  uint64_t y0 = ceil_div(workgroups, max);
  if (y0 > max)
    throw ValidationError("R12", std::to_string(workgroups) +
                                     " workgroups cannot be expressed as a 2-D grid with each "
                                     "dimension <= maxComputeWorkgroupsPerDimension (" +
                                     std::to_string(max) + "); at most " +
                                     std::to_string(max * max));  // max < 2^32: no overflow
  Grid best{0, 0};
  uint64_t best_surplus = UINT64_MAX;
  // y >= y0 keeps x <= max, so x * y <= max^2 < 2^64. At most 65536 candidates: every y of a
  // 65535 limit, a bounded search on devices with larger limits.
  for (uint64_t y = y0; y <= max && y - y0 < 65536; ++y) {
    uint64_t x = ceil_div(workgroups, y);
    uint64_t surplus = x * y - workgroups;
    if (surplus < best_surplus) {
      best = Grid{uint32_t(x), uint32_t(y)};
      best_surplus = surplus;
      if (surplus == 0) break;
    }
  }
  return best;
}

}  // namespace wgslvk

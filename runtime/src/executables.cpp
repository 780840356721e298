// ComputePipeline::executable_statistics and the pieces of VK_KHR_pipeline_executable_properties
// that need no driver (executables.hpp).
#include "executables.hpp"

#include <cstring>

#include "internal.hpp"

namespace wgslvk {

namespace {
std::string bounded(const char* s) { return std::string(s, strnlen(s, VK_MAX_DESCRIPTION_SIZE)); }

// VK_INCOMPLETE only when our count is short, which the two-call pattern rules out unless the
// driver changes its mind; the part we got is still valid.
void check_query(VkResult r, const char* what) {
  if (r != VK_INCOMPLETE) check_vk(r, what);
}

// Vulkan's two-call enumeration: query(&n, nullptr) for the count, then query(&n, items) into
// structs of type `type`; the list as the second call left it.
template <class T, class Query>
std::vector<T> enumerate(VkStructureType type, const char* what, Query query) {
  uint32_t n = 0;
  check_query(query(&n, static_cast<T*>(nullptr)), what);
  T blank{};
  blank.sType = type;
  std::vector<T> items(n, blank);
  check_query(query(&n, items.data()), what);
  items.resize(n);
  return items;
}
}  // namespace

ExecutableCapture plan_executable_capture(const DeviceDescriptor& desc,
                                          const std::string& adapter_name, bool adapter_offers) {
  ExecutableCapture c;
  c.internal_representations = desc.capture_internal_representations;
  c.statistics = desc.capture_executable_statistics || c.internal_representations;
  if (c.any() && !adapter_offers)
    throw ValidationError("feature",
                          std::string(c.internal_representations ? "internal representations"
                                                                 : "executable statistics") +
                              " requested for " + quoted("Device", desc.label) +
                              " need " VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME
                              " (pipelineExecutableInfo), which adapter \"" +
                              adapter_name + "\" does not offer");
  return c;
}

VkPipelineCreateFlags executable_capture_flags(ExecutableCapture c) {
  VkPipelineCreateFlags f = 0;
  if (c.statistics) f |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (c.internal_representations) f |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  return f;
}

PipelineStatistic to_statistic(const VkPipelineExecutableStatisticKHR& s) {
  PipelineStatistic o{bounded(s.name), bounded(s.description), {}};
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      o.value = s.value.b32 != VK_FALSE;
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      o.value = s.value.i64;
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      o.value = s.value.u64;
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      o.value = s.value.f64;
      break;
    default:  // a format newer than our headers: keep the bits rather than drop the statistic
      o.value = s.value.u64;
      o.description += " (unknown format " + std::to_string(int(s.format)) + ", raw bits)";
  }
  return o;
}

std::vector<PipelineExecutable> ComputePipeline::executable_statistics() const {
  require_live(impl_, "ComputePipeline::executable_statistics");
  const DeviceCore& core = *impl_->core;
  if (!core.capture.any())
    throw ValidationError("state", quoted("ComputePipeline", impl_->label) +
                                       ": executable statistics need a device created with "
                                       "capture_executable_statistics; " +
                                       quoted("Device", core.label) + " was not");
  VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pi.pipeline = impl_->pipeline;
  auto props = enumerate<VkPipelineExecutablePropertiesKHR>(
      VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR, "vkGetPipelineExecutablePropertiesKHR",
      [&](uint32_t* n, VkPipelineExecutablePropertiesKHR* items) {
        return core.get_executable_properties(core.device, &pi, n, items);
      });

  std::vector<PipelineExecutable> out;
  for (uint32_t i = 0; i < uint32_t(props.size()); ++i) {
    PipelineExecutable e;
    e.name = bounded(props[i].name);
    e.description = bounded(props[i].description);
    e.subgroup_size = props[i].subgroupSize;
    VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = impl_->pipeline;
    ei.executableIndex = i;
    for (const auto& st : enumerate<VkPipelineExecutableStatisticKHR>(
             VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR,
             "vkGetPipelineExecutableStatisticsKHR",
             [&](uint32_t*n, VkPipelineExecutableStatisticKHR*items) {
               return core.get_executable_statistics(core.device, &ei, n, items);
             }))
      e.statistics.push_back(to_statistic(st));

    if (core.capture.internal_representations) {
      // Three calls: the count, each one's size, then the bytes.
      auto get = [&](uint32_t* n, VkPipelineExecutableInternalRepresentationKHR* items) {
        return core.get_internal_representations(core.device, &ei, n, items);
      };
      auto reps = enumerate<VkPipelineExecutableInternalRepresentationKHR>(
          VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR,
          "vkGetPipelineExecutableInternalRepresentationsKHR", get);
      uint32_t nr = uint32_t(reps.size());
      std::vector<std::string> data(nr);
      for (uint32_t r = 0; r < nr; ++r) {
        data[r].resize(reps[r].dataSize);
        reps[r].pData = data[r].data();
      }
      check_query(get(&nr, reps.data()), "vkGetPipelineExecutableInternalRepresentationsKHR");
      for (uint32_t r = 0; r < nr; ++r) {
        if (!reps[r].isText) continue;
        std::string text(data[r].c_str(), strnlen(data[r].data(), reps[r].dataSize));
        e.internal_representations.push_back(
            {bounded(reps[r].name), bounded(reps[r].description), std::move(text)});
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

bool Adapter::supports_executable_statistics() const {
  require_live(impl_, "Adapter::supports_executable_statistics");
  return impl_->has_executable_properties;
}

}  // namespace wgslvk

// What the driver's compiler made of a pipeline (VK_KHR_pipeline_executable_properties): the
// decisions and conversions that need no driver, apart so tests/runtime can check them on
// lavapipe (Mesa 22 has no such extension).
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "wgslvk/runtime.hpp"

namespace wgslvk {

// What a device captures per pipeline.
struct ExecutableCapture {
  bool statistics = false;
  bool internal_representations = false;
  bool any() const { return statistics || internal_representations; }
};

// From the descriptor and what the adapter offers (the extension with pipelineExecutableInfo).
// Internal representations imply statistics. Asking on an adapter without the extension is a
// ValidationError("feature") naming the device, the adapter and the extension.
ExecutableCapture plan_executable_capture(const DeviceDescriptor& desc,
                                          const std::string& adapter_name, bool adapter_offers);

// The VkPipelineCreateFlags of every pipeline of a device that captures `c` (0 when nothing).
VkPipelineCreateFlags executable_capture_flags(ExecutableCapture c);

// One VkPipelineExecutableStatisticKHR in the API's terms (name and description bounded by
// VK_MAX_DESCRIPTION_SIZE even when a driver forgets the terminator).
PipelineStatistic to_statistic(const VkPipelineExecutableStatisticKHR& s);

}  // namespace wgslvk

// Native extensions for a loop that submits the same work again and again (a training step):
// WebGPU encodes and submits every command buffer once. Kept out of runtime.hpp, which mirrors
// WebGPU's API.
#pragma once

#include <string>

#include "wgslvk/runtime.hpp"

namespace wgslvk {

// An encoder whose finished CommandBuffer may be submitted any number of times. Its Vulkan
// command buffer is recorded at the first submission and resubmitted as it is, so work that does
// not change costs no encoding after the first time; new inputs arrive by Queue::write_buffer,
// which the GPU takes before the next submission's commands. Such a buffer is submitted alone
// (a ValidationError otherwise). Refused on a traced device (a WebGPU replay could not submit it
// twice): ask is_traced() first and encode per submission there.
CommandEncoder create_reusable_command_encoder(Device& device, const std::string& label);

// Whether `device` records a trace (DeviceDescriptor::trace_dir or WGSLVK_TRACE).
bool is_traced(const Device& device);

}  // namespace wgslvk

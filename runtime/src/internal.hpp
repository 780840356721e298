// Private state behind the handles of runtime.hpp. Ownership runs one way so nothing cycles:
//   InstanceCore <- Adapter <- DeviceCore <- (buffers, layouts, groups, pipelines, query sets)
//   Instance handle -> InstanceImpl -> (InstanceCore, adapters).
//   DeviceImpl (queue, in-flight work) -> DeviceCore; in-flight work retains the objects it uses.
// DeviceImpl is what a user's Device handle owns; dropping the last handle waits for the queue.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "executables.hpp"
#include "trace.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk {

// The runtime's own access to the state behind a handle, for code that is no member of a handle
// class (free functions, the trace). Handles keep `impl_` private; see runtime.hpp.
struct detail::Access {
  template <class H>
  static auto& impl(H& h) {
    return h.impl_;
  }
  template <class H, class I>
  static H make(std::shared_ptr<I> impl) {
    H h;
    h.impl_ = std::move(impl);
    return h;
  }
};
// impl_of(buffer): the BufferImpl pointer behind a handle (const for a const handle).
template <class H>
auto& impl_of(H& h) {
  return detail::Access::impl(h);
}
// wrap<Buffer>(impl): a handle to `impl`.
template <class H, class I>
H wrap(std::shared_ptr<I> impl) {
  return detail::Access::make<H>(std::move(impl));
}

void check_vk(VkResult r, const char* what);
// A default-constructed handle is a usage error with a message, not a null dereference.
template <class T>
void require_live(const std::shared_ptr<T>& impl, const char* what) {
  if (!impl)
    throw ValidationError("state",
                          std::string(what) + " called on a null handle (default-constructed)");
}
std::string quoted(const std::string& kind, const std::string& label);  // [Buffer "x"]

// The VkInstance and its messenger, owned by every adapter (and so every device) made from it.
struct InstanceCore {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  bool validation = false;
  bool debug_utils = false;
  uint32_t api_version = VK_API_VERSION_1_1;
  std::mutex messages_mutex;
  std::vector<std::string> messages;
  ~InstanceCore();
};

// What an Instance handle owns: the core plus the adapter list. Kept apart from InstanceCore so
// the list (instance -> adapters) and each adapter's owner (adapter -> core) form no cycle; a
// cycle here kept every VkInstance alive until exit and never ran vkDestroyInstance.
struct InstanceImpl {
  std::shared_ptr<InstanceCore> core;
  std::vector<std::shared_ptr<AdapterImpl>> adapters;
};

struct AdapterImpl {
  std::shared_ptr<InstanceCore> instance;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  AdapterInfo info;
  Limits limits;
  std::vector<Feature> features;
  uint32_t queue_family = 0;
  uint32_t timestamp_valid_bits = 0;
  float timestamp_period = 1.0f;
  uint32_t vk_storage_alignment = 16, vk_uniform_alignment = 16;
  uint32_t api_version = VK_API_VERSION_1_1;  // min(instance, device)
  // What the physical device offers (for enabling at request_device).
  bool has_f16 = false, has_16bit_storage = false, has_16bit_uniform = false, has_int16 = false;
  bool has_float_atomics = false, has_f16_ext = false;
  bool has_executable_properties = false;  // VK_KHR_pipeline_executable_properties + feature
  bool has_subgroup_matrix = false;        // Feature::SubgroupMatrix (instance.cpp says what)
  uint32_t subgroup_size = 0;              // VkPhysicalDeviceSubgroupProperties::subgroupSize
};

struct DeviceCore {
  std::shared_ptr<AdapterImpl> adapter;
  VkDevice device = VK_NULL_HANDLE;
  std::string label;
  Limits limits;
  std::vector<Feature> features;
  uint32_t storage_alignment = 256, uniform_alignment = 256;
  uint32_t device_local_types = 0;  // memoryTypeBits preference masks
  uint32_t host_visible_types = 0;  // HOST_VISIBLE | HOST_COHERENT
  uint32_t host_cached_types = 0;   // ... | HOST_CACHED (readback)
  VkPhysicalDeviceMemoryProperties memory{};
  PFN_vkSetDebugUtilsObjectNameEXT set_name = nullptr;
  std::shared_ptr<Trace> trace;  // DeviceDescriptor::trace_dir / WGSLVK_TRACE; null: not traced
  // DeviceDescriptor::capture_*; the entry points are loaded only when capturing.
  ExecutableCapture capture;
  PFN_vkGetPipelineExecutablePropertiesKHR get_executable_properties = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR get_executable_statistics = nullptr;
  PFN_vkGetPipelineExecutableInternalRepresentationsKHR get_internal_representations = nullptr;

  bool has(Feature f) const;
  uint32_t memory_type(uint32_t allowed, bool host, bool readback) const;
  void name_object(VkObjectType type, uint64_t handle, const std::string& name) const;
  ~DeviceCore();
};

struct BufferImpl {
  std::shared_ptr<DeviceCore> core;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // staging buffers only
  uint64_t size = 0, alloc_size = 0;
  BufferUsage usage = BufferUsage::None;
  std::string label;
  ~BufferImpl();
};

struct BindGroupLayoutImpl {
  std::shared_ptr<DeviceCore> core;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  std::string label;
  std::vector<BindGroupLayoutEntry> entries;  // sorted by binding
  const BindGroupLayoutEntry* find(uint32_t binding) const;
  bool same_as(const BindGroupLayoutImpl& o) const;
  ~BindGroupLayoutImpl();
};

struct BoundBuffer {
  uint32_t binding;
  BindingType type;
  std::shared_ptr<BufferImpl> buffer;
  uint64_t offset, size;
};

struct BindGroupImpl {
  std::shared_ptr<DeviceCore> core;
  std::shared_ptr<BindGroupLayoutImpl> layout;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  std::string label;
  std::vector<BoundBuffer> bound;
  ~BindGroupImpl();
};

struct PipelineImpl {
  std::shared_ptr<DeviceCore> core;
  const KernelInfo* kernel = nullptr;
  std::string label;
  std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups;  // index = group; gaps are empty
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  ~PipelineImpl();
};

struct QuerySetImpl {
  std::shared_ptr<DeviceCore> core;
  VkQueryPool pool = VK_NULL_HANDLE;
  uint32_t count = 0;
  QueryType type = QueryType::Timestamp;
  std::string label;
  std::vector<bool> written;  // set at submit; unwritten queries read as 0
  ~QuerySetImpl();
};

// Commands are recorded as a list and turned into a Vulkan command buffer at submit, which
// keeps validation at the call and lifetime (the list retains what it uses) simple.
struct DispatchCmd {
  std::shared_ptr<PipelineImpl> pipeline;
  std::vector<std::shared_ptr<BindGroupImpl>> groups;
  uint32_t x, y, z;
};
struct CopyCmd {
  std::shared_ptr<BufferImpl> src, dst;
  uint64_t src_offset, dst_offset, size;
};
struct ClearCmd {
  std::shared_ptr<BufferImpl> buffer;
  uint64_t offset, size;
};
struct TimestampCmd {
  std::shared_ptr<QuerySetImpl> set;
  uint32_t index;
  bool pass_begin = false;  // a pass's beginning_of_pass_write_index
};
using Command = std::variant<DispatchCmd, CopyCmd, ClearCmd, TimestampCmd>;

struct EncoderImpl {
  std::shared_ptr<DeviceCore> core;
  std::string label;
  bool reusable = false;
  std::vector<Command> commands;
  bool finished = false;
  // The open compute pass, if any.
  bool pass_open = false;
  std::string pass_label;
  std::optional<PassTimestampWrites> pass_timestamps;
  std::shared_ptr<PipelineImpl> pipeline;
  std::vector<std::shared_ptr<BindGroupImpl>> groups;
  std::string pass_name() const;
};

struct CommandBufferImpl {
  const DeviceCore* core = nullptr;  // identity only: which device may submit it
  std::string label;
  std::vector<Command> commands;
  bool submitted = false;
  // create_reusable_command_encoder: `commands` stay; `recorded` (from its own pool, freed
  // with it) is made at the first submission and resubmitted after.
  bool reusable = false;
  std::shared_ptr<DeviceCore> owner;  // reusable only: the device `pool` belongs to
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer recorded = VK_NULL_HANDLE;
  ~CommandBufferImpl();
};

struct InFlight {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<Command> retained;
  std::shared_ptr<CommandBufferImpl> reused;  // submitted after `cmd` in the same submission
};

struct DeviceImpl {
  std::shared_ptr<DeviceCore> core;
  std::mutex mutex;  // queue, pool, staging and in-flight list
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::vector<InFlight> in_flight;
  std::vector<std::shared_ptr<BufferImpl>> pending_zero;  // new buffers read as zero (WebGPU)
  std::shared_ptr<BufferImpl> staging_up, staging_down;
  // Queue writes not on the GPU yet: copies out of an upload arena, recorded at the start of the
  // next submission (WebGPU orders a write after every earlier submit and before every later
  // one), so a write costs a memcpy and the host never waits for the GPU to take it.
  std::vector<CopyCmd> pending_writes;
  std::shared_ptr<BufferImpl> upload_arena;  // the arena being filled; nullptr: none yet
  uint64_t upload_used = 0;
  // Every arena made; one is free again once nothing else holds it (no pending write, no
  // submission in flight).
  std::vector<std::shared_ptr<BufferImpl>> upload_arenas;
  ~DeviceImpl();

  // Records `record` after pending zero fills, pending writes and full barriers, submits, and
  // retains `retained` until done. With wait, blocks until the GPU finished. Caller holds
  // `mutex`.
  void submit_locked(const std::function<void(VkCommandBuffer)>& record,
                     std::vector<Command> retained, bool wait,
                     std::shared_ptr<CommandBufferImpl> reused = nullptr);
  void reclaim_locked(bool wait_all);
  std::shared_ptr<BufferImpl> staging_locked(bool upload, uint64_t size);
  // Room for `size` bytes in an upload arena: the arena and the byte offset.
  std::pair<std::shared_ptr<BufferImpl>, uint64_t> upload_locked(uint64_t size);
};

// The WebGPU rule: every earlier command's writes are visible to every later command.
void full_barrier(VkCommandBuffer cmd);

}  // namespace wgslvk

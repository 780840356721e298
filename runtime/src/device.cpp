// Device, buffers, queue operations (write/read through staging, submit), query sets.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "internal.hpp"
#include "wgslvk/reusable.hpp"

namespace wgslvk {

namespace {
constexpr uint64_t kStagingChunk = 64ull << 20;  // bounds staging memory for huge transfers
// Queue writes up to this size go through an upload arena without waiting (the per-step inputs
// of a training step, uniforms, parameter tensors); larger ones are staged in chunks and waited
// for, which bounds the host memory a write can pin.
constexpr uint64_t kAsyncWriteMax = 4ull << 20;
constexpr uint64_t kUploadArena = 16ull << 20;

std::string buf_name(const BufferImpl& b) { return quoted("Buffer", b.label); }

void require_same_device(const DeviceCore* core, const DeviceCore* other, const std::string& what) {
  if (core != other) throw ValidationError("state", what + " belongs to a different device");
}
}  // namespace

// ---- core ---------------------------------------------------------------------------------------

bool DeviceCore::has(Feature f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

uint32_t DeviceCore::memory_type(uint32_t allowed, bool host, bool readback) const {
  std::vector<uint32_t> prefs;
  if (host) {
    if (readback) prefs.push_back(host_cached_types);
    prefs.push_back(host_visible_types);
  } else {
    prefs.push_back(device_local_types);
    prefs.push_back(~0u);
  }
  for (uint32_t mask : prefs) {
    uint32_t m = allowed & mask;
    if (m) return uint32_t(__builtin_ctz(m));
  }
  throw VulkanError("no suitable Vulkan memory type");
}

void DeviceCore::name_object(VkObjectType type, uint64_t handle, const std::string& name) const {
  if (!set_name || name.empty()) return;
  VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = name.c_str();
  set_name(device, &info);
}

DeviceCore::~DeviceCore() {
  if (device) vkDestroyDevice(device, nullptr);
}

BufferImpl::~BufferImpl() {
  if (buffer) vkDestroyBuffer(core->device, buffer, nullptr);
  if (memory) vkFreeMemory(core->device, memory, nullptr);
}

QuerySetImpl::~QuerySetImpl() {
  if (pool) vkDestroyQueryPool(core->device, pool, nullptr);
}

DeviceImpl::~DeviceImpl() {
  {
    std::lock_guard lock(mutex);
    if (queue) vkQueueWaitIdle(queue);
    reclaim_locked(true);
    pending_zero.clear();
    pending_writes.clear();  // nothing can read them any more
    upload_arena.reset();
    upload_arenas.clear();
    staging_up.reset();
    staging_down.reset();
  }
  if (pool) vkDestroyCommandPool(core->device, pool, nullptr);
}

namespace {
std::shared_ptr<BufferImpl> make_vk_buffer(const std::shared_ptr<DeviceCore>& core, uint64_t size,
                                           VkBufferUsageFlags vk_usage, bool host, bool readback,
                                           const std::string& label) {
  auto b = std::make_shared<BufferImpl>();
  b->core = core;
  b->size = size;
  b->alloc_size = std::max<uint64_t>(align_up(size, 4), 4);
  b->label = label;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = b->alloc_size;
  bi.usage = vk_usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check_vk(vkCreateBuffer(core->device, &bi, nullptr, &b->buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(core->device, b->buffer, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = core->memory_type(req.memoryTypeBits, host, readback);
  VkResult r = vkAllocateMemory(core->device, &ai, nullptr, &b->memory);
  if (r != VK_SUCCESS)
    throw VulkanError("allocating " + std::to_string(req.size) + " bytes for " + buf_name(*b) +
                      " failed: VkResult " + std::to_string(int(r)));
  check_vk(vkBindBufferMemory(core->device, b->buffer, b->memory, 0), "vkBindBufferMemory");
  if (host)
    check_vk(vkMapMemory(core->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped), "vkMapMemory");
  core->name_object(VK_OBJECT_TYPE_BUFFER, uint64_t(b->buffer), label);
  return b;
}
}  // namespace

// ---- device queries -----------------------------------------------------------------------------

const Limits& Device::limits() const {
  require_live(impl_, "Device::limits");
  return impl_->core->limits;
}
bool Device::has_feature(Feature f) const {
  require_live(impl_, "Device::has_feature");
  return impl_->core->has(f);
}
const std::string& Device::adapter_name() const {
  require_live(impl_, "Device::adapter_name");
  return impl_->core->adapter->info.name;
}
uint32_t Device::storage_offset_alignment() const {
  require_live(impl_, "Device::storage_offset_alignment");
  return impl_->core->storage_alignment;
}
uint32_t Device::uniform_offset_alignment() const {
  require_live(impl_, "Device::uniform_offset_alignment");
  return impl_->core->uniform_alignment;
}

uint64_t Buffer::size() const {
  require_live(impl_, "Buffer::size");
  return impl_->size;
}
BufferUsage Buffer::usage() const {
  require_live(impl_, "Buffer::usage");
  return impl_->usage;
}
const std::string& Buffer::label() const {
  require_live(impl_, "Buffer::label");
  return impl_->label;
}

// ---- buffers ------------------------------------------------------------------------------------

Buffer Device::create_buffer(const BufferDescriptor& desc) {
  require_live(impl_, "Device::create_buffer");
  auto& core = impl_->core;
  std::string name = quoted("Buffer", desc.label);
  if (desc.usage == BufferUsage::None) throw ValidationError("usage", name + " usage is 0 (none)");
  constexpr BufferUsage kKnown =
      BufferUsage::MapRead | BufferUsage::MapWrite | BufferUsage::CopySrc | BufferUsage::CopyDst |
      BufferUsage::Uniform | BufferUsage::Storage | BufferUsage::QueryResolve;
  if ((desc.usage & ~kKnown) != BufferUsage::None)
    throw ValidationError("usage", name + " usage (0x" + ([&] {
                                     char s[16];
                                     std::snprintf(s, sizeof s, "%x", uint32_t(desc.usage));
                                     return std::string(s);
                                   })() +
                                       ") has unknown bits");
  if (desc.size > core->limits.max_buffer_size)
    throw ValidationError("limits", name + " size (" + std::to_string(desc.size) +
                                        ") is larger than the device's maxBufferSize (" +
                                        std::to_string(core->limits.max_buffer_size) + ")");
  // Transfer bits always: zero-init and staging copies need them whatever the WebGPU usage.
  VkBufferUsageFlags vk = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (has(desc.usage, BufferUsage::Storage)) vk |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (has(desc.usage, BufferUsage::Uniform)) vk |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  auto b = make_vk_buffer(core, desc.size, vk, false, false, desc.label);
  b->usage = desc.usage;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->pending_zero.push_back(b);  // WebGPU buffers start zeroed
  }
  if (core->trace) core->trace->buffer(*b);
  Buffer out;
  impl_of(out) = b;
  return out;
}

// ---- queue --------------------------------------------------------------------------------------

void full_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                     VK_ACCESS_UNIFORM_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                       &mb, 0, nullptr, 0, nullptr);
}

void DeviceImpl::reclaim_locked(bool wait_all) {
  auto dev = core->device;
  // Oldest first, up to the first still running: every submission begins with a full barrier,
  // so they finish in order, and a host that runs many steps ahead polls one fence, not all.
  size_t done = 0;
  for (; done < in_flight.size(); ++done) {
    VkFence fence = in_flight[done].fence;
    VkResult r = wait_all ? vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX)
                          : vkGetFenceStatus(dev, fence);
    if (r == VK_NOT_READY || r == VK_TIMEOUT) break;
    check_vk(r, "waiting for a submission");
  }
  for (size_t i = 0; i < done; ++i) {
    vkDestroyFence(dev, in_flight[i].fence, nullptr);
    vkFreeCommandBuffers(dev, pool, 1, &in_flight[i].cmd);
  }
  in_flight.erase(in_flight.begin(), in_flight.begin() + ptrdiff_t(done));
}

void DeviceImpl::submit_locked(const std::function<void(VkCommandBuffer)>& record,
                               std::vector<Command> retained, bool wait,
                               std::shared_ptr<CommandBufferImpl> reused) {
  reclaim_locked(false);
  auto dev = core->device;
  InFlight f;
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  check_vk(vkAllocateCommandBuffers(dev, &ai, &f.cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check_vk(vkBeginCommandBuffer(f.cmd, &bi), "vkBeginCommandBuffer");
  for (auto& b : pending_zero) {
    vkCmdFillBuffer(f.cmd, b->buffer, 0, VK_WHOLE_SIZE, 0);
    retained.push_back(ClearCmd{b, 0, b->alloc_size});
  }
  pending_zero.clear();
  full_barrier(f.cmd);  // orders this submission after everything submitted before it
  if (!pending_writes.empty()) {
    // In call order; a write over bytes an earlier pending write wrote waits for it.
    size_t since_barrier = 0;
    for (size_t i = 0; i < pending_writes.size(); ++i) {
      const CopyCmd& w = pending_writes[i];
      for (size_t j = since_barrier; j < i; ++j) {
        const CopyCmd& p = pending_writes[j];
        if (p.dst == w.dst && p.dst_offset < w.dst_offset + w.size &&
            w.dst_offset < p.dst_offset + p.size) {
          full_barrier(f.cmd);
          since_barrier = i;
          break;
        }
      }
      VkBufferCopy region{w.src_offset, w.dst_offset, w.size};
      vkCmdCopyBuffer(f.cmd, w.src->buffer, w.dst->buffer, 1, &region);
      retained.push_back(w);
    }
    pending_writes.clear();
    full_barrier(f.cmd);
  }
  record(f.cmd);
  check_vk(vkEndCommandBuffer(f.cmd), "vkEndCommandBuffer");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check_vk(vkCreateFence(dev, &fi, nullptr, &f.fence), "vkCreateFence");
  // A reused buffer runs after this one's barriers and writes (one queue: submission order).
  const VkCommandBuffer cmds[2] = {f.cmd, reused ? reused->recorded : VK_NULL_HANDLE};
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = reused ? 2 : 1;
  si.pCommandBuffers = cmds;
  VkResult r = vkQueueSubmit(queue, 1, &si, f.fence);
  if (r != VK_SUCCESS) {
    vkDestroyFence(dev, f.fence, nullptr);
    vkFreeCommandBuffers(dev, pool, 1, &f.cmd);
    check_vk(r, "vkQueueSubmit");
  }
  f.retained = std::move(retained);
  f.reused = std::move(reused);
  VkFence fence = f.fence;
  in_flight.push_back(std::move(f));
  if (wait) {
    check_vk(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    reclaim_locked(false);
  }
}

std::shared_ptr<BufferImpl> DeviceImpl::staging_locked(bool upload, uint64_t size) {
  auto& slot = upload ? staging_up : staging_down;
  if (!slot || slot->alloc_size < size) {
    slot.reset();
    uint64_t want = std::max<uint64_t>(size, 1 << 20);
    slot = make_vk_buffer(
        core, want, upload ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        true, !upload, upload ? "wgslvk staging (upload)" : "wgslvk staging (readback)");
  }
  return slot;
}

std::pair<std::shared_ptr<BufferImpl>, uint64_t> DeviceImpl::upload_locked(uint64_t size) {
  const uint64_t at = align_up(upload_used, 16);
  if (upload_arena && at + size <= upload_arena->alloc_size) {
    upload_used = at + size;
    return {upload_arena, at};
  }
  upload_arena.reset();
  reclaim_locked(false);  // finished submissions release the arenas they read
  for (const auto& a : upload_arenas)
    if (a.use_count() == 1 && a->alloc_size >= size) {
      upload_arena = a;
      break;
    }
  if (!upload_arena) {
    upload_arena =
        make_vk_buffer(core, std::max(size, kUploadArena), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true,
                       false, "wgslvk upload arena");
    upload_arenas.push_back(upload_arena);
  }
  upload_used = size;
  return {upload_arena, 0};
}

namespace {
void check_range(const BufferImpl& b, uint64_t offset, uint64_t size, const char* op) {
  if (offset % 4 || size % 4)
    throw ValidationError("alignment", std::string(op) + " on " + buf_name(b) + ": offset (" +
                                           std::to_string(offset) + ") and size (" +
                                           std::to_string(size) + ") must be multiples of 4");
  if (offset > b.size || size > b.size - offset)
    throw ValidationError(
        "range", std::string(op) + " on " + buf_name(b) + ": range [" + std::to_string(offset) +
                     ", " + std::to_string(offset + size) + ") does not fit the buffer's size (" +
                     std::to_string(b.size) + ")");
}
}  // namespace

bool is_traced(const Device& device) {
  require_live(impl_of(device), "is_traced");
  return impl_of(device)->core->trace != nullptr;
}

Queue Device::queue() const {
  require_live(impl_, "Device::queue");
  Queue q;
  impl_of(q) = impl_;
  return q;
}

void Queue::write_buffer(const Buffer& buffer, uint64_t offset, const void* data, uint64_t size) {
  require_live(impl_, "Queue::write_buffer");
  if (!buffer) throw ValidationError("state", "write_buffer: null buffer");
  auto& b = *impl_of(buffer);
  require_same_device(impl_->core.get(), b.core.get(), buf_name(b));
  if (!has(b.usage, BufferUsage::CopyDst))
    throw ValidationError("usage", "write_buffer: " + buf_name(b) + " lacks CopyDst usage");
  check_range(b, offset, size, "write_buffer");
  if (impl_->core->trace) impl_->core->trace->write_buffer(b, offset, data, size);
  std::lock_guard lock(impl_->mutex);
  const auto* src = static_cast<const uint8_t*>(data);
  if (size == 0) return;
  if (size <= kAsyncWriteMax) {
    auto [arena, at] = impl_->upload_locked(size);
    std::memcpy(static_cast<uint8_t*>(arena->mapped) + at, src, size);
    impl_->pending_writes.push_back(CopyCmd{arena, impl_of(buffer), at, offset, size});
    return;
  }
  // Staged in chunks, each waited for (submit_locked puts the pending writes first).
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min(size - done, kStagingChunk);
    auto staging = impl_->staging_locked(true, n);
    std::memcpy(staging->mapped, src + done, n);
    VkBufferCopy region{0, offset + done, n};
    impl_->submit_locked(
        [&](VkCommandBuffer cmd) { vkCmdCopyBuffer(cmd, staging->buffer, b.buffer, 1, &region); },
        {CopyCmd{staging, impl_of(buffer), 0, offset + done, n}}, true);
    done += n;
  }
}

std::vector<uint8_t> Device::read_buffer(const Buffer& buffer, uint64_t offset,
                                         std::optional<uint64_t> size_opt) {
  require_live(impl_, "Device::read_buffer");
  if (!buffer) throw ValidationError("state", "read_buffer: null buffer");
  auto& b = *impl_of(buffer);
  require_same_device(impl_->core.get(), b.core.get(), buf_name(b));
  if (!has(b.usage, BufferUsage::CopySrc))
    throw ValidationError("usage", "read_buffer: " + buf_name(b) + " lacks CopySrc usage");
  if (offset > b.size)
    throw ValidationError("range", "read_buffer on " + buf_name(b) + ": offset (" +
                                       std::to_string(offset) + ") is past the buffer's size (" +
                                       std::to_string(b.size) + ")");
  uint64_t size = size_opt.value_or(b.size - offset);
  check_range(b, offset, size, "read_buffer");
  std::vector<uint8_t> out(size);
  std::lock_guard lock(impl_->mutex);
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min(size - done, kStagingChunk);
    auto staging = impl_->staging_locked(false, n);
    VkBufferCopy region{offset + done, 0, n};
    impl_->submit_locked(
        [&](VkCommandBuffer cmd) {
          vkCmdCopyBuffer(cmd, b.buffer, staging->buffer, 1, &region);
          VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                               1, &mb, 0, nullptr, 0, nullptr);
        },
        {CopyCmd{impl_of(buffer), staging, offset + done, 0, n}}, true);
    std::memcpy(out.data() + done, staging->mapped, n);
    done += n;
  }
  if (impl_->core->trace) impl_->core->trace->read_buffer(b, offset, out.data(), size);
  return out;
}

void Queue::on_submitted_work_done() {
  require_live(impl_, "Queue::on_submitted_work_done");
  std::lock_guard lock(impl_->mutex);
  // Writes count as submitted work: afterwards they are on the GPU, as before this returned.
  if (!impl_->pending_writes.empty()) impl_->submit_locked([](VkCommandBuffer) {}, {}, false);
  impl_->reclaim_locked(true);
}

void Device::wait_idle() {
  require_live(impl_, "Device::wait_idle");
  queue().on_submitted_work_done();
}

// ---- query sets ---------------------------------------------------------------------------------

uint32_t QuerySet::count() const {
  require_live(impl_, "QuerySet::count");
  return impl_->count;
}
QueryType QuerySet::type() const {
  require_live(impl_, "QuerySet::type");
  return impl_->type;
}
const std::string& QuerySet::label() const {
  require_live(impl_, "QuerySet::label");
  return impl_->label;
}

QuerySet Device::create_query_set(const QuerySetDescriptor& desc) {
  require_live(impl_, "Device::create_query_set");
  auto& core = impl_->core;
  const std::string& label = desc.label;
  const uint32_t count = desc.count;
  if (desc.type != QueryType::Timestamp)
    throw ValidationError("state", quoted("QuerySet", label) + " type (" +
                                       std::to_string(uint32_t(desc.type)) +
                                       ") is not a GPUQueryType wgslvk knows");
  if (!core->has(Feature::TimestampQuery))
    throw ValidationError("feature", quoted("QuerySet", label) +
                                         " needs the \"timestamp-query\" feature, which " +
                                         quoted("Device", core->label) + " was not created with");
  if (count == 0 || count > 4096)
    throw ValidationError("limits", quoted("QuerySet", label) + " count (" + std::to_string(count) +
                                        ") must be in [1, 4096]");
  auto q = std::make_shared<QuerySetImpl>();
  q->core = core;
  q->count = count;
  q->type = desc.type;
  q->label = label;
  q->written.assign(count, false);
  VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  ci.queryCount = count;
  check_vk(vkCreateQueryPool(core->device, &ci, nullptr, &q->pool), "vkCreateQueryPool");
  core->name_object(VK_OBJECT_TYPE_QUERY_POOL, uint64_t(q->pool), label);
  QuerySet out;
  impl_of(out) = q;
  return out;
}

std::vector<uint64_t> Device::read_timestamps(const QuerySet& set) {
  require_live(impl_, "Device::read_timestamps");
  if (!set) throw ValidationError("state", "read_timestamps: null query set");
  auto& q = *impl_of(set);
  require_same_device(impl_->core.get(), q.core.get(), quoted("QuerySet", q.label));
  wait_idle();
  const auto& a = *impl_->core->adapter;
  uint64_t mask = a.timestamp_valid_bits >= 64 ? ~0ull : ((1ull << a.timestamp_valid_bits) - 1);
  std::vector<uint64_t> out(q.count, 0);
  for (uint32_t i = 0; i < q.count; ++i) {
    if (!q.written[i]) continue;
    uint64_t ticks = 0;
    check_vk(vkGetQueryPoolResults(impl_->core->device, q.pool, i, 1, sizeof ticks, &ticks,
                                   sizeof ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    out[i] = uint64_t(double(ticks & mask) * double(a.timestamp_period));
  }
  return out;
}

}  // namespace wgslvk

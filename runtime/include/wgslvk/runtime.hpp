// A small WebGPU object model on Vulkan 1.1+. Names follow the WebGPU spec (GPUDevice,
// GPUBindGroup, ...) in C++ spelling. The host-side WebGPU validation rules of wgsl_ports/RULES.md
// (R1-R13, and R22: f16 needs "shader-f16") are enforced here and raise ValidationError at the
// call that breaks them; R14-R21 and R23 are rules for writing ports (the kernels keep them).
//
// Decision: WebGPU reports validation errors asynchronously through error scopes; we throw at the
// offending call instead, so a test or a CLI run stops at the first bad call with its context.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "wgslvk/kernel.hpp"

namespace wgslvk {

// ---- errors -------------------------------------------------------------------------------------

// A broken WebGPU rule. `rule` is the id from wgsl_ports/RULES.md ("R2", ..., "R22" for an f16
// kernel on a device without "shader-f16") or a short name for rules outside that list
// ("feature", "limits", "usage", "state", "range" for an offset/size outside a buffer or query
// set, "alignment" for a copy/write offset or size not a multiple of 4). what() is
// "<rule>: <message>" and reads like Dawn's messages: the object (with its label), the binding,
// and the values on both sides.
class ValidationError : public std::runtime_error {
 public:
  ValidationError(std::string rule, const std::string& message);
  const std::string& rule() const { return rule_; }

 private:
  std::string rule_;
};

// Vulkan failed (out of memory, device lost, no driver). Not a user error.
class VulkanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- limits and features ------------------------------------------------------------------------

// WebGPU limits (GPUSupportedLimits), each named as WebGPU names it in snake_case (maxBufferSize ->
// max_buffer_size; messages, `devices --json` and the trace keep WebGPU's own spelling).
// Default-constructed values are WebGPU's defaults; a device gets these unless larger ones are
// requested (as requestDevice does).
struct Limits {
  uint32_t min_storage_buffer_offset_alignment = 256;
  uint32_t min_uniform_buffer_offset_alignment = 256;
  uint64_t max_storage_buffer_binding_size = 134217728;  // 128 MiB
  uint64_t max_uniform_buffer_binding_size = 65536;
  uint64_t max_buffer_size = 268435456;  // 256 MiB
  uint32_t max_compute_workgroups_per_dimension = 65535;
  uint32_t max_compute_invocations_per_workgroup = 256;
  uint32_t max_compute_workgroup_size_x = 256;
  uint32_t max_compute_workgroup_size_y = 256;
  uint32_t max_compute_workgroup_size_z = 64;
  uint32_t max_compute_workgroup_storage_size = 16384;
  uint32_t max_storage_buffers_per_shader_stage = 8;
  uint32_t max_uniform_buffers_per_shader_stage = 12;
  uint32_t max_bind_groups = 4;
  uint32_t max_bindings_per_bind_group = 1000;
};

enum class Feature : uint32_t {
  ShaderF16,         // WebGPU "shader-f16": Vulkan shaderFloat16 + storageBuffer16BitAccess
  TimestampQuery,    // WebGPU "timestamp-query"
  Float32AtomicAdd,  // native only: VK_EXT_shader_atomic_float shaderBufferFloat32AtomicAdd
  // Dawn's "chromium-experimental-subgroup-matrix": VK_KHR_cooperative_matrix (cooperativeMatrix)
  // with vulkanMemoryModel, offering a subgroup-scope 16x16x16 f16 x f16 + f32 configuration
  // (wgsl_ports/subgroup_matrix/README.md). A kernel whose SPIR-V declares CooperativeMatrixKHR
  // needs it at pipeline creation.
  SubgroupMatrix,
};
std::string_view feature_name(Feature f);  // "shader-f16", "timestamp-query", "float32-atomic-add"
// True when the kernel's SPIR-V declares OpCapability CooperativeMatrixKHR.
bool kernel_uses_subgroup_matrix(const KernelInfo& k);

// ---- buffers ------------------------------------------------------------------------------------

// GPUBufferUsage: WebGPU's flag names and bit values (the trace and --json write the numbers).
// Combine with |, test with has(usage, BufferUsage::CopyDst); `&` keeps the common bits.
enum class BufferUsage : uint32_t {
  None = 0,
  MapRead = 0x0001,
  MapWrite = 0x0002,
  CopySrc = 0x0004,
  CopyDst = 0x0008,
  Uniform = 0x0040,
  Storage = 0x0080,
  QueryResolve = 0x0200,
};
constexpr BufferUsage operator|(BufferUsage a, BufferUsage b) {
  return BufferUsage(uint32_t(a) | uint32_t(b));
}
constexpr BufferUsage operator&(BufferUsage a, BufferUsage b) {
  return BufferUsage(uint32_t(a) & uint32_t(b));
}
constexpr BufferUsage operator~(BufferUsage a) { return BufferUsage(~uint32_t(a)); }
constexpr BufferUsage& operator|=(BufferUsage& a, BufferUsage b) { return a = a | b; }
constexpr BufferUsage& operator&=(BufferUsage& a, BufferUsage b) { return a = a & b; }
// True when `usage` has every bit of `bits` (and bits is not None).
constexpr bool has(BufferUsage usage, BufferUsage bits) {
  return bits != BufferUsage::None && (usage & bits) == bits;
}

struct BufferDescriptor {
  std::string label{};
  uint64_t size = 0;  // bytes; a multiple of 4, at most maxBufferSize
  BufferUsage usage = BufferUsage::None;
};

class Device;
class Queue;
struct DeviceImpl;
struct BufferImpl;
struct BindGroupLayoutImpl;
struct BindGroupImpl;
struct PipelineImpl;
struct QuerySetImpl;
struct CommandBufferImpl;
struct EncoderImpl;
struct InstanceImpl;
struct AdapterImpl;

namespace detail {
// The runtime's own access to a handle's state (defined in runtime/src/internal.hpp). Not API.
struct Access;
// For tests of object lifetime: observes the state behind a handle, which expires once nothing
// (no handle, no object that depends on it) keeps it alive.
template <class H>
std::weak_ptr<const void> weak_state(const H& h);
}  // namespace detail

// Every handle (Buffer, Device, ...) is a shared reference to private state: copies refer to the
// same object, a default-constructed one is null (`explicit operator bool`), == compares identity.
#define WGSLVK_HANDLE_STATE(Handle, ImplType)                         \
 public:                                                              \
  explicit operator bool() const { return impl_ != nullptr; }         \
  bool operator==(const Handle& o) const { return impl_ == o.impl_; } \
                                                                      \
 private:                                                             \
  friend struct detail::Access;                                       \
  template <class H>                                                  \
  friend std::weak_ptr<const void> detail::weak_state(const H& h);    \
  std::shared_ptr<ImplType> impl_

class Buffer {
 public:
  Buffer() = default;
  uint64_t size() const;
  BufferUsage usage() const;
  const std::string& label() const;
  WGSLVK_HANDLE_STATE(Buffer, BufferImpl);
};

// ---- bind groups --------------------------------------------------------------------------------

struct BindGroupLayoutEntry {
  uint32_t binding = 0;
  BindingType type = BindingType::Storage;
  uint64_t min_binding_size = 0;  // 0: checked against the shader at dispatch (R7)
};

struct BindGroupLayoutDescriptor {
  std::string label{};
  std::vector<BindGroupLayoutEntry> entries{};
};

class BindGroupLayout {
 public:
  BindGroupLayout() = default;
  const std::string& label() const;
  std::span<const BindGroupLayoutEntry> entries() const;
  WGSLVK_HANDLE_STATE(BindGroupLayout, BindGroupLayoutImpl);
};

struct BindGroupEntry {
  uint32_t binding = 0;
  Buffer buffer{};
  uint64_t offset = 0;
  std::optional<uint64_t> size{};  // default: buffer.size - offset (R3)
};

struct BindGroupDescriptor {
  std::string label{};
  BindGroupLayout layout{};
  std::vector<BindGroupEntry> entries{};
};

class BindGroup {
 public:
  BindGroup() = default;
  const std::string& label() const;
  WGSLVK_HANDLE_STATE(BindGroup, BindGroupImpl);
};

// ---- pipelines ----------------------------------------------------------------------------------

struct ComputePipelineDescriptor {
  std::string label{};  // default: the kernel's qualified name
  const KernelInfo* kernel = nullptr;
  // Explicit layouts, one per group; empty means layout "auto" (R10).
  std::vector<BindGroupLayout> layout{};
  bool optimized_spirv = false;  // use the spirv-opt output instead of glslang's
};

// What the driver's compiler made of a pipeline (native, VK_KHR_pipeline_executable_properties).
// Names, descriptions and units are the driver's own (NVIDIA: register count, shared and local
// memory, spills, ...), so they differ between drivers and versions.
struct PipelineStatistic {
  std::string name, description;
  std::variant<bool, int64_t, uint64_t, double>
      value{};  // the driver's BOOL32/INT64/UINT64/FLOAT64
};
struct PipelineInternalRepresentation {
  std::string name, description;
  std::string text;  // the driver's text (IR, assembly); binary representations are not kept
};
// One executable of a pipeline (a compute pipeline usually has one; a driver may report more).
struct PipelineExecutable {
  std::string name, description;
  uint32_t subgroup_size = 0;
  std::vector<PipelineStatistic> statistics;
  // Only with DeviceDescriptor::capture_internal_representations, and only the text ones.
  std::vector<PipelineInternalRepresentation> internal_representations;
};

class ComputePipeline {
 public:
  ComputePipeline() = default;
  const KernelInfo& kernel() const;
  const std::string& label() const;
  // WebGPU getBindGroupLayout(): the (auto or explicit) layout of `group`.
  BindGroupLayout get_bind_group_layout(uint32_t group) const;
  // Native: the driver's statistics per executable. Needs a device created with
  // DeviceDescriptor::capture_executable_statistics (else ValidationError "state").
  std::vector<PipelineExecutable> executable_statistics() const;
  WGSLVK_HANDLE_STATE(ComputePipeline, PipelineImpl);
};

// ---- queries ------------------------------------------------------------------------------------

// GPUQueryType. Only "timestamp": "occlusion" belongs to render passes, which wgslvk has not.
enum class QueryType : uint32_t { Timestamp };

// GPUQuerySetDescriptor. Needs TimestampQuery; count in [1, 4096].
struct QuerySetDescriptor {
  std::string label{};
  QueryType type = QueryType::Timestamp;
  uint32_t count = 0;
};

class QuerySet {
 public:
  QuerySet() = default;
  QueryType type() const;
  uint32_t count() const;
  const std::string& label() const;
  WGSLVK_HANDLE_STATE(QuerySet, QuerySetImpl);
};

struct PassTimestampWrites {
  QuerySet query_set{};
  std::optional<uint32_t> beginning_of_pass_write_index{};
  std::optional<uint32_t> end_of_pass_write_index{};
};

// ---- commands -----------------------------------------------------------------------------------

struct ComputePassDescriptor {
  std::string label{};
  std::optional<PassTimestampWrites> timestamp_writes{};
};

struct CommandEncoderDescriptor {
  std::string label{};
};

class CommandBuffer {
 public:
  CommandBuffer() = default;
  WGSLVK_HANDLE_STATE(CommandBuffer, CommandBufferImpl);
};

class ComputePass {
 public:
  void set_pipeline(const ComputePipeline& pipeline);
  void set_bind_group(uint32_t index, const BindGroup& group);
  // Validates at the call: pipeline and every group set, layouts compatible, R7 (bound size
  // vs shader minimum), R11 (writable aliasing), R12 (each count <= the limit).
  void dispatch_workgroups(uint32_t x, uint32_t y = 1, uint32_t z = 1);
  // Timestamp between dispatches of this pass (native extension; WebGPU only has pass
  // boundaries). Needs TimestampQuery.
  void write_timestamp(const QuerySet& set, uint32_t index);
  void end();
  WGSLVK_HANDLE_STATE(ComputePass, EncoderImpl);
};

class CommandEncoder {
 public:
  ComputePass begin_compute_pass(const ComputePassDescriptor& desc = {});
  // Offsets and size multiples of 4; src needs CopySrc, dst CopyDst.
  void copy_buffer_to_buffer(const Buffer& src, uint64_t src_offset, const Buffer& dst,
                             uint64_t dst_offset, uint64_t size);
  // Zero-fill; offset and size multiples of 4; needs CopyDst.
  void clear_buffer(const Buffer& buffer, uint64_t offset = 0,
                    std::optional<uint64_t> size = std::nullopt);
  CommandBuffer finish();
  WGSLVK_HANDLE_STATE(CommandEncoder, EncoderImpl);
};

// ---- device -------------------------------------------------------------------------------------

struct DeviceDescriptor {
  std::string label{};
  std::vector<Feature> required_features{};
  // Limits the device must have. Fields left at their WebGPU default request the default; a
  // value better than the adapter supports is a ValidationError ("limits").
  Limits required_limits{};
  // Record every WebGPU call this device makes (buffers, writes, pipelines with their WGSL, bind
  // groups, encoders, passes, dispatches, copies, submits and the bytes of every read-back) into
  // this folder, for replay by another WebGPU implementation (bench/peers/dawn_trace.mjs; format
  // in runtime/src/trace.hpp). Empty: env WGSLVK_TRACE=DIR if set, else no trace (no cost).
  std::string trace_dir{};
  // Native: keep what the driver's compiler made of every pipeline of this device, for
  // ComputePipeline::executable_statistics(): enables VK_KHR_pipeline_executable_properties and
  // creates pipelines with CAPTURE_STATISTICS. An adapter without it
  // (Adapter::supports_executable_statistics() false; lavapipe of Mesa 22) is a ValidationError
  // ("feature"). Off (the default): pipelines are created exactly as without it.
  bool capture_executable_statistics = false;
  // Also the driver's internal representations (CAPTURE_INTERNAL_REPRESENTATIONS; implies
  // capture_executable_statistics). May slow pipeline creation.
  bool capture_internal_representations = false;
};

// GPUQueue: the device's one queue (device.queue()). A handle to the device's state, so it stays
// valid as long as it is held.
class Queue {
 public:
  Queue() = default;
  // GPUQueue.writeBuffer: needs CopyDst; offset and size multiples of 4. The data is copied
  // before it returns and reaches the buffer before the next submit's commands, ordered after
  // every earlier submit (small writes go through an upload area without waiting for the GPU;
  // writes over 4 MiB wait).
  void write_buffer(const Buffer& buffer, uint64_t offset, const void* data, uint64_t size);
  template <class T>
  void write_buffer(const Buffer& buffer, uint64_t offset, std::span<const T> values) {
    write_buffer(buffer, offset, values.data(), values.size_bytes());
  }
  void submit(std::span<const CommandBuffer> buffers);
  void submit(const CommandBuffer& buffer) { submit(std::span<const CommandBuffer>(&buffer, 1)); }
  // GPUQueue.onSubmittedWorkDone, blocking.
  void on_submitted_work_done();
  WGSLVK_HANDLE_STATE(Queue, DeviceImpl);
};

class Device {
 public:
  Device() = default;
  const Limits& limits() const;  // what was granted (WebGPU defaults unless requested)
  bool has_feature(Feature f) const;
  const std::string& adapter_name() const;
  // The stricter of the WebGPU limit and the Vulkan device's own alignment.
  uint32_t storage_offset_alignment() const;
  uint32_t uniform_offset_alignment() const;

  Buffer create_buffer(const BufferDescriptor& desc);
  BindGroupLayout create_bind_group_layout(const BindGroupLayoutDescriptor& desc);
  BindGroup create_bind_group(const BindGroupDescriptor& desc);
  ComputePipeline create_compute_pipeline(const ComputePipelineDescriptor& desc);
  // Needs TimestampQuery. Each resolved value is in nanoseconds.
  QuerySet create_query_set(const QuerySetDescriptor& desc);
  CommandEncoder create_command_encoder(const CommandEncoderDescriptor& desc = {});

  // GPUDevice.queue: write_buffer and submit live there, as in WebGPU.
  Queue queue() const;

  // Native helpers (WebGPU maps a buffer instead; these stage and wait).
  void wait_idle();  // the queue's on_submitted_work_done
  // Copies [offset, offset+size) through a staging buffer and waits; needs CopySrc.
  std::vector<uint8_t> read_buffer(const Buffer& buffer, uint64_t offset = 0,
                                   std::optional<uint64_t> size = std::nullopt);
  // Timestamps of a set, in ns relative to an arbitrary origin, after the work that wrote them
  // has finished (waits). Unwritten queries read as 0.
  std::vector<uint64_t> read_timestamps(const QuerySet& set);

  WGSLVK_HANDLE_STATE(Device, DeviceImpl);
};

// Typed helpers on top of queue().write_buffer / read_buffer.
template <class T>
void write(Device& d, const Buffer& b, std::span<const T> v, uint64_t offset = 0) {
  d.queue().write_buffer(b, offset, v.data(), v.size_bytes());
}
template <class T>
std::vector<T> read(Device& d, const Buffer& b, uint64_t offset = 0, uint64_t count = 0) {
  auto bytes =
      d.read_buffer(b, offset, count ? std::optional<uint64_t>(count * sizeof(T)) : std::nullopt);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// ---- adapters and instance ----------------------------------------------------------------------

enum class AdapterType { DiscreteGPU, IntegratedGPU, VirtualGPU, CPU, Other };
std::string_view adapter_type_name(AdapterType t);

struct AdapterInfo {
  std::string name;    // VkPhysicalDeviceProperties::deviceName
  std::string driver;  // driverName + driverInfo
  AdapterType type = AdapterType::Other;
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t vulkan_api_version = 0;
  uint32_t index = 0;  // position in Instance::adapters()
};

class Adapter {
 public:
  const AdapterInfo& info() const;
  // The best limits this adapter supports, in WebGPU terms (alignment limits: the smallest it
  // allows, never below the Vulkan value).
  const Limits& limits() const;
  std::vector<Feature> features() const;
  bool has_feature(Feature f) const;
  // Native: VK_KHR_pipeline_executable_properties with pipelineExecutableInfo, which
  // DeviceDescriptor::capture_executable_statistics needs.
  bool supports_executable_statistics() const;
  // GPUAdapter.requestDevice.
  Device request_device(const DeviceDescriptor& desc = {}) const;
  WGSLVK_HANDLE_STATE(Adapter, AdapterImpl);
};

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation. Default: on when WGSLVK_VALIDATION=1.
  std::optional<bool> validation{};
};

class Instance {
 public:
  static Instance create(const InstanceOptions& options = {});
  std::vector<Adapter> adapters() const;
  // Selector: an index ("0"), or a case-insensitive substring of the name ("llvmpipe", "H100").
  // Without one: WGSLVK_DEVICE if set, else the first discrete GPU, else the first CPU
  // (lavapipe) adapter, else the first adapter. Throws if the selector matches nothing.
  Adapter select_adapter(std::optional<std::string> selector = std::nullopt) const;
  bool validation_enabled() const;
  // Messages the validation layer reported since the last call (cleared on read).
  std::vector<std::string> take_validation_messages() const;
  WGSLVK_HANDLE_STATE(Instance, InstanceImpl);
};

template <class H>
std::weak_ptr<const void> detail::weak_state(const H& h) {
  return h.impl_;
}

// ---- dispatch geometry --------------------------------------------------------------------------

// A 2-D grid for kernels indexed by flat_id(gid, nwg) = gid.y * nwg.x * WG + gid.x: x * y >=
// workgroups with x, y <= maxComputeWorkgroupsPerDimension and the fewest surplus workgroups.
// Throws ValidationError("R12") when even a square grid cannot hold `workgroups`.
struct Grid {
  uint32_t x = 1, y = 1;
  uint64_t workgroups() const { return uint64_t(x) * y; }
};
Grid grid_for_workgroups(uint64_t workgroups, const Limits& limits);
inline uint64_t div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t align_up(uint64_t v, uint64_t a) { return div_ceil(v, a) * a; }

}  // namespace wgslvk

#undef WGSLVK_HANDLE_STATE

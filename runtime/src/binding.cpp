// Bind group layouts, bind groups (R1-R8) and compute pipelines (R7, R9, R10, R13, limits).
#include <algorithm>
#include <map>
#include <set>
#include <span>

#include "internal.hpp"

namespace wgslvk {

namespace {
std::string num(uint64_t v) { return std::to_string(v); }

VkDescriptorType descriptor_type(BindingType t) {
  return t == BindingType::Uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

// Buffer bindings by Vulkan descriptor type (read-only storage counts as storage).
struct BufferCounts {
  uint32_t storage = 0, uniform = 0;
  void add(BindingType t) { (t == BindingType::Uniform ? uniform : storage)++; }
};

// maxStorageBuffersPerShaderStage / maxUniformBuffersPerShaderStage, for one layout or a
// pipeline's whole layout; `subject` starts the message ("<subject> has N storage buffer ...").
void check_per_stage(const Limits& lim, const std::string& subject, BufferCounts n) {
  if (n.storage > lim.max_storage_buffers_per_shader_stage)
    throw ValidationError(
        "limits", subject + " has " + num(n.storage) +
                      " storage buffer bindings, more than maxStorageBuffersPerShaderStage (" +
                      num(lim.max_storage_buffers_per_shader_stage) + ")");
  if (n.uniform > lim.max_uniform_buffers_per_shader_stage)
    throw ValidationError(
        "limits", subject + " has " + num(n.uniform) +
                      " uniform buffer bindings, more than maxUniformBuffersPerShaderStage (" +
                      num(lim.max_uniform_buffers_per_shader_stage) + ")");
}

std::shared_ptr<BindGroupLayoutImpl> make_layout(const std::shared_ptr<DeviceCore>& core,
                                                 const BindGroupLayoutDescriptor& desc) {
  const Limits& lim = core->limits;
  std::string name = quoted("BindGroupLayout", desc.label);
  auto l = std::make_shared<BindGroupLayoutImpl>();
  l->core = core;
  l->label = desc.label;
  l->entries = desc.entries;
  std::sort(l->entries.begin(), l->entries.end(),
            [](auto& a, auto& b) { return a.binding < b.binding; });
  BufferCounts counts;
  for (size_t i = 0; i < l->entries.size(); ++i) {
    const auto& e = l->entries[i];
    if (i && l->entries[i - 1].binding == e.binding)
      throw ValidationError("R1", name + " has binding " + num(e.binding) + " more than once");
    if (e.binding >= lim.max_bindings_per_bind_group)
      throw ValidationError("limits", name + " binding number (" + num(e.binding) +
                                          ") is not below maxBindingsPerBindGroup (" +
                                          num(lim.max_bindings_per_bind_group) + ")");
    counts.add(e.type);
  }
  check_per_stage(lim, name, counts);
  std::vector<VkDescriptorSetLayoutBinding> vb;
  for (const auto& e : l->entries) {
    VkDescriptorSetLayoutBinding b{};
    b.binding = e.binding;
    b.descriptorType = descriptor_type(e.type);
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    vb.push_back(b);
  }
  VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  ci.bindingCount = uint32_t(vb.size());
  ci.pBindings = vb.data();
  check_vk(vkCreateDescriptorSetLayout(core->device, &ci, nullptr, &l->layout),
           "vkCreateDescriptorSetLayout");
  core->name_object(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, uint64_t(l->layout), desc.label);
  return l;
}
// Function and private variables one invocation may declare: 64 KiB (WGSL allows 8 KiB of each;
// ports are not WGSL, but a driver given gigabytes crashes). Stated in the error message.
constexpr uint64_t kMaxPrivateMemoryBytes = uint64_t(64) << 10;

// The memory a module's variables declare, per invocation (Function and Private) and per
// workgroup, from its SPIR-V: sizes saturate at UINT64_MAX, so an absurd array never wraps.
// Natural sizes (no padding): the Function/Private bound is ours, not a layout rule.
struct ShaderMemory {
  uint64_t private_bytes = 0;    // Function + Private storage classes
  uint64_t workgroup_bytes = 0;  // Workgroup
};
uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
bool declares_capability(std::span<const uint32_t> code, uint32_t capability) {
  for (size_t i = 5; i < code.size();) {
    const uint32_t n = code[i] >> 16, op = code[i] & 0xffff;
    if (n == 0 || i + n > code.size()) return false;
    if (op == 17 && n >= 2 && code[i + 1] == capability) return true;  // OpCapability
    if (op != 17 && op != 10 && op != 11) return false;                // capabilities come first
    i += n;
  }
  return false;
}
ShaderMemory shader_memory(std::span<const uint32_t> code) {
  ShaderMemory m;
  if (code.size() < 5) return m;
  std::map<uint32_t, uint64_t> size, constant, pointee_size;
  std::map<uint32_t, uint32_t> pointer_class;
  auto sz = [&](uint32_t id) {
    auto it = size.find(id);
    return it == size.end() ? uint64_t(0) : it->second;
  };
  for (size_t i = 5; i < code.size();) {
    const uint32_t n = code[i] >> 16, op = code[i] & 0xffff;
    if (n == 0 || i + n > code.size()) break;  // spirv-val passed: not reached
    const uint32_t* w = &code[i];
    switch (op) {
      case 20:  // OpTypeBool
        size[w[1]] = 4;
        break;
      case 21:  // OpTypeInt
      case 22:  // OpTypeFloat
        size[w[1]] = w[2] / 8;
        break;
      case 23:  // OpTypeVector
      case 24:  // OpTypeMatrix
        size[w[1]] = sat_mul(sz(w[2]), w[3]);
        break;
      case 28: {  // OpTypeArray: the length is a constant id
        auto c = constant.find(w[3]);
        size[w[1]] = sat_mul(sz(w[2]), c == constant.end() ? 1 : c->second);
        break;
      }
      case 30: {  // OpTypeStruct
        uint64_t t = 0;
        for (uint32_t k = 2; k < n; ++k) t = sat_add(t, sz(w[k]));
        size[w[1]] = t;
        break;
      }
      case 32:  // OpTypePointer
        pointer_class[w[1]] = w[2];
        pointee_size[w[1]] = sz(w[3]);
        break;
      case 43:  // OpConstant
      case 50:  // OpSpecConstant (its default)
        if (n >= 4) constant[w[2]] = n >= 5 ? (uint64_t(w[4]) << 32 | w[3]) : w[3];
        break;
      case 59: {  // OpVariable: result type (a pointer), result, storage class
        const uint32_t cls = w[3];
        const uint64_t bytes = pointee_size.count(w[1]) ? pointee_size[w[1]] : 0;
        if (cls == 7 || cls == 6)  // Function, Private
          m.private_bytes = sat_add(m.private_bytes, bytes);
        else if (cls == 4)  // Workgroup
          m.workgroup_bytes = sat_add(m.workgroup_bytes, bytes);
        break;
      }
      default:
        break;
    }
    i += n;
  }
  return m;
}
}  // namespace

bool kernel_uses_subgroup_matrix(const KernelInfo& k) {
  return declares_capability(k.spirv, 6022);  // CooperativeMatrixKHR
}

const BindGroupLayoutEntry* BindGroupLayoutImpl::find(uint32_t binding) const {
  for (const auto& e : entries)
    if (e.binding == binding) return &e;
  return nullptr;
}

bool BindGroupLayoutImpl::same_as(const BindGroupLayoutImpl& o) const {
  if (entries.size() != o.entries.size()) return false;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].binding != o.entries[i].binding || entries[i].type != o.entries[i].type ||
        entries[i].min_binding_size != o.entries[i].min_binding_size)
      return false;
  return true;
}

BindGroupLayoutImpl::~BindGroupLayoutImpl() {
  if (layout) vkDestroyDescriptorSetLayout(core->device, layout, nullptr);
}

BindGroupImpl::~BindGroupImpl() {
  // Freed explicitly, not just with its pool: lavapipe (Mesa 22.3) leaks the debug name of a
  // set that dies with its pool (LeakSanitizer found it).
  if (set) vkFreeDescriptorSets(core->device, pool, 1, &set);
  if (pool) vkDestroyDescriptorPool(core->device, pool, nullptr);
}

PipelineImpl::~PipelineImpl() {
  if (pipeline) vkDestroyPipeline(core->device, pipeline, nullptr);
  if (layout) vkDestroyPipelineLayout(core->device, layout, nullptr);
  if (module) vkDestroyShaderModule(core->device, module, nullptr);
}

const std::string& BindGroupLayout::label() const {
  require_live(impl_, "BindGroupLayout::label");
  return impl_->label;
}
std::span<const BindGroupLayoutEntry> BindGroupLayout::entries() const {
  require_live(impl_, "BindGroupLayout::entries");
  return impl_->entries;
}
const std::string& BindGroup::label() const {
  require_live(impl_, "BindGroup::label");
  return impl_->label;
}
const KernelInfo& ComputePipeline::kernel() const {
  require_live(impl_, "ComputePipeline::kernel");
  return *impl_->kernel;
}
const std::string& ComputePipeline::label() const {
  require_live(impl_, "ComputePipeline::label");
  return impl_->label;
}

BindGroupLayout ComputePipeline::get_bind_group_layout(uint32_t group) const {
  require_live(impl_, "ComputePipeline::get_bind_group_layout");
  if (group >= impl_->groups.size())
    throw ValidationError("state", quoted("ComputePipeline", impl_->label) + " has no bind group " +
                                       num(group) + " (its layout has " +
                                       num(impl_->groups.size()) + " group(s))");
  BindGroupLayout out;
  impl_of(out) = impl_->groups[group];
  return out;
}

BindGroupLayout Device::create_bind_group_layout(const BindGroupLayoutDescriptor& desc) {
  require_live(impl_, "Device::create_bind_group_layout");
  BindGroupLayout out;
  impl_of(out) = make_layout(impl_->core, desc);
  if (impl_->core->trace) impl_->core->trace->bind_group_layout(*impl_of(out), false);
  return out;
}

// ---- bind groups (R1-R8) ------------------------------------------------------------------------

BindGroup Device::create_bind_group(const BindGroupDescriptor& desc) {
  require_live(impl_, "Device::create_bind_group");
  auto& core = impl_->core;
  const Limits& lim = core->limits;
  std::string name = quoted("BindGroup", desc.label);
  if (!desc.layout) throw ValidationError("state", name + " has no layout");
  const auto& layout = *impl_of(desc.layout);
  if (layout.core != core)
    throw ValidationError("state", quoted("BindGroupLayout", layout.label) + " of " + name +
                                       " belongs to a different device");
  std::string lname = quoted("BindGroupLayout", layout.label);
  // R1 (unknown and repeated bindings first: they name the culprit better than the count)
  std::set<uint32_t> seen;
  for (const auto& e : desc.entries) {
    if (!layout.find(e.binding))
      throw ValidationError("R1", name + " binding " + num(e.binding) + " is not in " + lname);
    if (!seen.insert(e.binding).second)
      throw ValidationError("R1", name + " binding " + num(e.binding) + " is given more than once");
  }
  if (desc.entries.size() != layout.entries.size()) {
    std::string missing;
    for (const auto& le : layout.entries)
      if (!seen.count(le.binding)) missing += (missing.empty() ? "" : ", ") + num(le.binding);
    throw ValidationError("R1", name + " has " + num(desc.entries.size()) + " entries but its " +
                                    lname + " has " + num(layout.entries.size()) +
                                    " (missing binding " + missing + ")");
  }

  auto g = std::make_shared<BindGroupImpl>();
  g->core = core;
  g->layout = impl_of(desc.layout);
  g->label = desc.label;
  for (const auto& e : desc.entries) {
    const BindGroupLayoutEntry& le = *layout.find(e.binding);
    std::string at = name + " binding " + num(e.binding);
    if (!e.buffer) throw ValidationError("state", at + " has no buffer");
    const BufferImpl& b = *impl_of(e.buffer);
    if (b.core != core)
      throw ValidationError(
          "state", at + ": " + quoted("Buffer", b.label) + " belongs to a different device");
    std::string bname = quoted("Buffer", b.label);
    bool uniform = le.type == BindingType::Uniform;
    // R6
    BufferUsage need = uniform ? BufferUsage::Uniform : BufferUsage::Storage;
    if (!has(b.usage, need))
      throw ValidationError("R6", at + " (" + std::string(binding_type_name(le.type)) +
                                      "): " + bname + " lacks " +
                                      (uniform ? "Uniform" : "Storage") + " usage");
    // R3
    if (e.offset > b.size)
      throw ValidationError("R3", at + ": offset (" + num(e.offset) + ") is past the end of " +
                                      bname + " (size " + num(b.size) + ")");
    uint64_t size = e.size.value_or(b.size - e.offset);
    if (size == 0)
      throw ValidationError("R3", at + ": binding size is zero (offset " + num(e.offset) + ", " +
                                      bname + " size " + num(b.size) + ")");
    if (size > b.size - e.offset)
      throw ValidationError("R3", at + ": range [" + num(e.offset) + ", " + num(e.offset + size) +
                                      ") does not fit " + bname + " (size " + num(b.size) + ")");
    // R2
    uint32_t align = uniform ? core->uniform_alignment : core->storage_alignment;
    if (e.offset % align)
      throw ValidationError("R2", at + ": offset (" + num(e.offset) + ") of " + bname +
                                      " is not a multiple of " +
                                      (uniform ? "minUniformBufferOffsetAlignment ("
                                               : "minStorageBufferOffsetAlignment (") +
                                      num(align) + ")");
    // R4
    if (!uniform && size % 4)
      throw ValidationError("R4", at + ": " + std::string(binding_type_name(le.type)) +
                                      " binding size (" + num(size) + ") of " + bname +
                                      " is not a multiple of 4");
    // R5
    uint64_t max =
        uniform ? lim.max_uniform_buffer_binding_size : lim.max_storage_buffer_binding_size;
    if (size > max)
      throw ValidationError(
          "R5", at + ": binding size (" + num(size) + ") of " + bname + " is larger than " +
                    (uniform ? "maxUniformBufferBindingSize (" : "maxStorageBufferBindingSize (") +
                    num(max) + ")");
    // R7 (layout minimum; the shader minimum is checked at dispatch when this is 0)
    if (size < le.min_binding_size)
      throw ValidationError("R7", at + ": binding size (" + num(size) + ") of " + bname +
                                      " is smaller than the layout's minBindingSize (" +
                                      num(le.min_binding_size) + ")");
    g->bound.push_back(BoundBuffer{e.binding, le.type, impl_of(e.buffer), e.offset, size});
  }
  std::sort(g->bound.begin(), g->bound.end(),
            [](auto& a, auto& b) { return a.binding < b.binding; });

  // Vulkan objects: a small pool per group keeps lifetime trivial.
  BufferCounts counts;
  for (auto& bb : g->bound) counts.add(bb.type);
  std::vector<VkDescriptorPoolSize> sizes;
  if (counts.storage) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, counts.storage});
  if (counts.uniform) sizes.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, counts.uniform});
  if (sizes.empty()) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1});
  VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  pci.maxSets = 1;
  pci.poolSizeCount = uint32_t(sizes.size());
  pci.pPoolSizes = sizes.data();
  check_vk(vkCreateDescriptorPool(core->device, &pci, nullptr, &g->pool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = g->pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout.layout;
  check_vk(vkAllocateDescriptorSets(core->device, &ai, &g->set), "vkAllocateDescriptorSets");
  core->name_object(VK_OBJECT_TYPE_DESCRIPTOR_SET, uint64_t(g->set), desc.label);

  // R8: the exact effective range, never VK_WHOLE_SIZE, so arrayLength() matches WebGPU.
  std::vector<VkDescriptorBufferInfo> infos(g->bound.size());
  std::vector<VkWriteDescriptorSet> writes(g->bound.size());
  for (size_t i = 0; i < g->bound.size(); ++i) {
    const auto& bb = g->bound[i];
    infos[i] = {bb.buffer->buffer, bb.offset, bb.size};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = g->set;
    writes[i].dstBinding = bb.binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = descriptor_type(bb.type);
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(core->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  if (core->trace) core->trace->bind_group(*g);
  BindGroup out;
  impl_of(out) = g;
  return out;
}

// ---- pipelines ----------------------------------------------------------------------------------

ComputePipeline Device::create_compute_pipeline(const ComputePipelineDescriptor& desc) {
  require_live(impl_, "Device::create_compute_pipeline");
  auto& core = impl_->core;
  const Limits& lim = core->limits;
  if (!desc.kernel)
    throw ValidationError("state", quoted("ComputePipeline", desc.label) + " has no kernel");
  const KernelInfo& k = *desc.kernel;
  std::string kname = k.qualified_name();
  auto p = std::make_shared<PipelineImpl>();
  p->core = core;
  p->kernel = desc.kernel;
  p->label = desc.label.empty() ? kname : desc.label;
  std::string name = quoted("ComputePipeline", p->label);

  // Features (R22 for f16, as WebGPU refuses `enable f16;` without "shader-f16").
  if (k.needs_shader_f16 && !core->has(Feature::ShaderF16))
    throw ValidationError(
        "R22", name + ": kernel " + kname +
                   " uses f16 (enable f16;), which needs the \"shader-f16\" feature; " +
                   quoted("Device", core->label) + " was not created with it" +
                   (core->adapter->features.end() != std::find(core->adapter->features.begin(),
                                                               core->adapter->features.end(),
                                                               Feature::ShaderF16)
                        ? " (the adapter supports it: request it)"
                        : " (adapter \"" + core->adapter->info.name + "\" does not support it)"));
  if (kernel_uses_subgroup_matrix(k)) {
    if (!core->has(Feature::SubgroupMatrix))
      throw ValidationError(
          "feature", name + ": kernel " + kname +
                         " uses subgroup matrices (SPIR-V CooperativeMatrixKHR), which need the "
                         "\"chromium-experimental-subgroup-matrix\" feature; " +
                         quoted("Device", core->label) + " was not created with it" +
                         (core->adapter->has_subgroup_matrix
                              ? " (the adapter supports it: request it)"
                              : " (adapter \"" + core->adapter->info.name +
                                    "\" does not offer VK_KHR_cooperative_matrix with a 16x16x16 "
                                    "f16/f32 subgroup configuration)"));
    // Dawn's rule: the workgroup's x size is a multiple of the subgroup size.
    const uint32_t sg = core->adapter->subgroup_size;
    if (sg == 0 || k.workgroup_size[0] % sg != 0)
      throw ValidationError("feature", name + ": kernel " + kname +
                                           " uses subgroup matrices: its workgroup size x (" +
                                           std::to_string(k.workgroup_size[0]) +
                                           ") is not a multiple of the subgroup size (" +
                                           std::to_string(sg) + ")");
  }
  if (k.needs_float_atomics && !core->has(Feature::Float32AtomicAdd))
    throw ValidationError(
        "feature", name + ": kernel " + kname +
                       " uses float atomics, which need the \"float32-atomic-add\" feature; " +
                       quoted("Device", core->label) + " was not created with it");

  // R13
  auto [wx, wy, wz] = k.workgroup_size;
  uint64_t inv = uint64_t(wx) * wy * wz;
  auto r13 = [&](const std::string& what, uint64_t v, uint64_t max, const char* limit) {
    if (v > max)
      throw ValidationError("R13", name + ": kernel " + kname + " workgroup size (" + num(wx) +
                                       ", " + num(wy) + ", " + num(wz) + "): " + what + " (" +
                                       num(v) + ") is larger than " + limit + " (" + num(max) +
                                       ")");
  };
  r13("x", wx, lim.max_compute_workgroup_size_x, "maxComputeWorkgroupSizeX");
  r13("y", wy, lim.max_compute_workgroup_size_y, "maxComputeWorkgroupSizeY");
  r13("z", wz, lim.max_compute_workgroup_size_z, "maxComputeWorkgroupSizeZ");
  r13("x*y*z", inv, lim.max_compute_invocations_per_workgroup, "maxComputeInvocationsPerWorkgroup");
  if (k.workgroup_storage_bytes > lim.max_compute_workgroup_storage_size)
    throw ValidationError(
        "R13", name + ": kernel " + kname + " uses " + num(k.workgroup_storage_bytes) +
                   " bytes of workgroup memory, more than maxComputeWorkgroupStorageSize (" +
                   num(lim.max_compute_workgroup_storage_size) + ")");
  // The same from the module itself, unwrapped, and the private memory per invocation: a
  // run-time port is untrusted, and a private `uint big[1 << 30]` crashed the driver's pipeline
  // creation (1 << 24: an uncaught std::bad_alloc). Checked before Vulkan sees the module.
  const ShaderMemory mem = shader_memory(k.spirv);
  if (mem.workgroup_bytes > lim.max_compute_workgroup_storage_size)
    throw ValidationError(
        "R13", name + ": kernel " + kname + " declares " +
                   (mem.workgroup_bytes == UINT64_MAX ? std::string("more than 2^64")
                                                      : num(mem.workgroup_bytes)) +
                   " bytes of workgroup memory, more than maxComputeWorkgroupStorageSize (" +
                   num(lim.max_compute_workgroup_storage_size) + ")");
  if (mem.private_bytes > kMaxPrivateMemoryBytes)
    throw ValidationError("limits",
                          name + ": kernel " + kname + " declares " +
                              (mem.private_bytes == UINT64_MAX ? std::string("more than 2^64")
                                                               : num(mem.private_bytes)) +
                              " bytes of function and private variables per invocation, more than "
                              "wgslvk's limit of " +
                              num(kMaxPrivateMemoryBytes) + " bytes");

  uint32_t max_group = 0;
  bool any = false;
  for (const auto& b : k.bindings)
    if (b.statically_used) {
      max_group = std::max(max_group, b.group);
      any = true;
    }
  uint32_t n_groups = any ? max_group + 1 : 0;

  if (desc.layout.empty()) {
    // R10: auto layout, statically used bindings only, minBindingSize from the shader.
    if (n_groups > lim.max_bind_groups)
      throw ValidationError("limits", name + ": kernel " + kname + " uses bind group " +
                                          num(max_group) + ", not below maxBindGroups (" +
                                          num(lim.max_bind_groups) + ")");
    for (uint32_t g = 0; g < n_groups; ++g) {
      BindGroupLayoutDescriptor ld;
      ld.label = p->label + " group " + num(g) + " (auto)";
      for (const auto& b : k.bindings)
        if (b.statically_used && b.group == g)
          ld.entries.push_back({b.binding, b.type, b.min_binding_size});
      p->groups.push_back(make_layout(core, ld));
    }
  } else {
    if (desc.layout.size() > lim.max_bind_groups)
      throw ValidationError("limits", name + " layout has " + num(desc.layout.size()) +
                                          " bind group layouts, more than maxBindGroups (" +
                                          num(lim.max_bind_groups) + ")");
    // R9: every binding the shader uses is in the layout with the same type.
    for (const auto& b : k.bindings) {
      if (!b.statically_used) continue;
      std::string at = name + ": shader binding @group(" + num(b.group) + ") @binding(" +
                       num(b.binding) + ") '" + std::string(b.name) + "' (" +
                       std::string(binding_type_name(b.type)) + ")";
      const BindGroupLayoutImpl* gl = b.group < desc.layout.size() && desc.layout[b.group]
                                          ? impl_of(desc.layout[b.group]).get()
                                          : nullptr;
      const BindGroupLayoutEntry* le = gl ? gl->find(b.binding) : nullptr;
      if (!le)
        throw ValidationError("R9", at + " is not in the explicit layout" +
                                        (gl ? " " + quoted("BindGroupLayout", gl->label)
                                            : std::string(" (no layout for that group)")));
      if (le->type != b.type)
        throw ValidationError("R9", at + " does not match " + quoted("BindGroupLayout", gl->label) +
                                        " entry type (" + std::string(binding_type_name(le->type)) +
                                        ")");
      if (le->min_binding_size && le->min_binding_size < b.min_binding_size)
        throw ValidationError("R7", at + " needs at least " + num(b.min_binding_size) +
                                        " bytes but " + quoted("BindGroupLayout", gl->label) +
                                        " minBindingSize is " + num(le->min_binding_size));
    }
    for (size_t g = 0; g < desc.layout.size(); ++g) {
      if (desc.layout[g]) {
        if (impl_of(desc.layout[g])->core != core)
          throw ValidationError("state",
                                name + " layout " + num(g) + " belongs to a different device");
        p->groups.push_back(impl_of(desc.layout[g]));
      } else {
        p->groups.push_back(make_layout(core, {p->label + " group " + num(g) + " (empty)", {}}));
      }
    }
  }
  BufferCounts counts;
  for (auto& g : p->groups)
    for (auto& e : g->entries) counts.add(e.type);
  check_per_stage(lim, name + " layout", counts);

  std::span<const uint32_t> code = desc.optimized_spirv ? k.spirv_opt : k.spirv;
  if (code.empty())
    throw ValidationError("state", name + ": kernel " + kname + " has no " +
                                       (desc.optimized_spirv ? "optimized " : "") + "SPIR-V");
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = code.size_bytes();
  mi.pCode = code.data();
  check_vk(vkCreateShaderModule(core->device, &mi, nullptr, &p->module), "vkCreateShaderModule");
  std::vector<VkDescriptorSetLayout> sets;
  for (auto& g : p->groups) sets.push_back(g->layout);
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = uint32_t(sets.size());
  li.pSetLayouts = sets.data();
  check_vk(vkCreatePipelineLayout(core->device, &li, nullptr, &p->layout),
           "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.flags = executable_capture_flags(core->capture);  // 0 unless the device captures
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = p->module;
  ci.stage.pName = "main";
  ci.layout = p->layout;
  VkResult r =
      vkCreateComputePipelines(core->device, VK_NULL_HANDLE, 1, &ci, nullptr, &p->pipeline);
  if (r != VK_SUCCESS)
    throw VulkanError("creating " + name + " (kernel " + kname + ") failed: VkResult " +
                      std::to_string(int(r)));
  core->name_object(VK_OBJECT_TYPE_PIPELINE, uint64_t(p->pipeline), p->label);
  if (core->trace) core->trace->pipeline(*p, desc.layout);
  ComputePipeline out;
  impl_of(out) = p;
  return out;
}

}  // namespace wgslvk

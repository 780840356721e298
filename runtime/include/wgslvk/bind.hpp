// Kernels by their generated headers (wgslvk/kernels/<file>/<entry>.hpp, translator/README.md),
// and the two records every host shares: one pipeline cache and one dispatch.
//
//   namespace ln = wgslvk::kernels::norm::layernorm_forward;
//   PipelineCache pipes(device);
//   Buffer u = make_uniform(device, ln::binding::lf, ln::LnParams{.rows = R, .d = d, ...});
//   Dispatch op = make_dispatch(device, pipes, ln::Kernel{},
//                               {bind(ln::binding::lf_x, x), ..., bind(ln::binding::lf, u)},
//                               ln::Kernel::grid(rows * 32, device.limits()));
//   op.record(pass);  // or, once and waited for: run_dispatch(device, ln::Kernel{}, {...}, grid)
//
// A slot of another kernel, a binding name the kernel lacks, or a uniform value of another type
// does not compile.
#pragma once

#include <array>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wgslvk/kernel_slot.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk {

// A bind group entry known to belong to kernel K (converts to a plain BindGroupEntry).
template <class K>
struct KernelEntry {
  BindGroupEntry entry;
  uint32_t group = 0;
  BindingType type = BindingType::Storage;
  operator BindGroupEntry() const { return entry; }
};

// bind(slot, buffer[, offset[, size]]): `buffer` (from `offset`, `size` bytes; default: to its
// end) at `slot`'s binding. A function object rather than a function template: a slot whose
// element type is a std type (std::array<float, 4> for vec4<f32>) brings namespace std into
// argument-dependent lookup, where std::bind (<functional>) is the better match for a non-const
// or temporary Buffer; an object found by ordinary lookup turns argument-dependent lookup off.
struct BindSlotFn {
  template <class K, class T>
  KernelEntry<K> operator()(const BindingSlot<K, T>& slot, const Buffer& buffer,
                            uint64_t offset = 0,
                            std::optional<uint64_t> size = std::nullopt) const {
    return {BindGroupEntry{slot.binding, buffer, offset, size}, slot.group, slot.type};
  }
};
inline constexpr BindSlotFn bind{};

// K's entries for kernel `k`: K itself, or a variant with K's bindings (each of K's slots in
// `entries` at the same group and binding, of the same kind and WGSL type: attention's wide
// kernels, norm's lean backward, matmul's variants). Else std::invalid_argument naming both.
template <class K>
std::vector<BindGroupEntry> entries_for(const KernelInfo& k,
                                        std::initializer_list<KernelEntry<K>> entries) {
  std::vector<BindGroupEntry> out;
  const KernelInfo* own = k.qualified_name() == K::name ? nullptr : &K::info();
  for (const auto& e : entries) {
    if (own) {
      const KernelBinding* mine = own->find_binding(e.group, e.entry.binding);
      const KernelBinding* theirs = k.find_binding(e.group, e.entry.binding);
      if (!mine || !theirs || theirs->type != mine->type || theirs->wgsl_type != mine->wgsl_type)
        throw std::invalid_argument(
            "binding (" + std::to_string(e.group) + ", " + std::to_string(e.entry.binding) +
            ") of " + std::string(K::name) + " does not match " + k.qualified_name() + "'s");
    }
    out.push_back(e.entry);
  }
  return out;
}

// A uniform buffer holding `value` for `slot` (zero-padded to 16 bytes, utils::make_uniform).
template <class K, class T>
Buffer make_uniform(Device& d, const BindingSlot<K, T>& slot, const std::type_identity_t<T>& value,
                    const std::string& label = {}) {
  static_assert(!std::is_void_v<T>, "make_uniform: the slot's type is opaque (not a uniform)");
  return utils::make_uniform(d, label.empty() ? std::string(slot.name) : label, value);
}

// Writes `value` into a uniform buffer made for `slot` (at `offset`).
template <class K, class T>
void write_uniform(Device& d, const BindingSlot<K, T>& slot, const Buffer& buffer,
                   const std::type_identity_t<T>& value, uint64_t offset = 0) {
  static_assert(!std::is_void_v<T>, "write_uniform: the slot's type is opaque (not a uniform)");
  (void)slot;
  d.queue().write_buffer(buffer, offset, &value, sizeof(T));
}

// One compute pipeline per kernel (layout "auto"), made on first use. The one cache of the host
// APIs, the GPT model, the case runner and the bench.
class PipelineCache {
 public:
  PipelineCache() = default;
  explicit PipelineCache(Device device, bool optimized_spirv = false)
      : device_(std::move(device)), optimized_(optimized_spirv) {}

  const ComputePipeline& get(const KernelInfo& k) {
    auto it = pipelines_.find(&k);
    if (it == pipelines_.end()) {
      ComputePipelineDescriptor pd;
      pd.label = k.qualified_name();
      pd.kernel = &k;
      pd.optimized_spirv = optimized_;
      it = pipelines_.emplace(&k, device_.create_compute_pipeline(pd)).first;
    }
    return it->second;
  }
  // By qualified name (wgslvk::kernel: throws std::invalid_argument for an unknown one).
  const ComputePipeline& get(std::string_view name) { return get(kernel(name)); }
  // By a generated header's tag, e.g. get(kernels::norm::layernorm_forward::Kernel{}).
  template <class K>
  requires requires { K::info(); }
  const ComputePipeline& get(K) { return get(K::info()); }
  size_t size() const { return pipelines_.size(); }
  void clear() { pipelines_.clear(); }

 private:
  Device device_;
  bool optimized_ = false;
  std::map<const KernelInfo*, ComputePipeline> pipelines_;
};

// One dispatch ready to record: its pipeline, its bind groups by group index, its workgroup
// counts. The one record of the host APIs, the GPT model and the case runner.
struct Dispatch {
  std::string label;  // the kernel's qualified name unless the caller names it otherwise
  ComputePipeline pipeline;
  std::vector<std::pair<uint32_t, BindGroup>> groups;
  std::array<uint32_t, 3> workgroups{1, 1, 1};

  // Sets the pipeline and the groups and dispatches, into an open pass.
  void record(ComputePass& pass) const {
    pass.set_pipeline(pipeline);
    for (const auto& [index, group] : groups) pass.set_bind_group(index, group);
    pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
  }
};

// A dispatch of `k` with group 0 bound to `entries` on `grid` (x, y workgroups) or on (x, y, z).
inline Dispatch make_dispatch(Device& d, PipelineCache& pipes, const KernelInfo& k,
                              std::vector<BindGroupEntry> entries, std::array<uint32_t, 3> xyz,
                              std::string label = {}) {
  if (label.empty()) label = k.qualified_name();
  Dispatch op;
  op.pipeline = pipes.get(k);
  op.groups.emplace_back(
      0, d.create_bind_group({label, op.pipeline.get_bind_group_layout(0), std::move(entries)}));
  op.workgroups = xyz;
  op.label = std::move(label);
  return op;
}
inline Dispatch make_dispatch(Device& d, PipelineCache& pipes, const KernelInfo& k,
                              std::vector<BindGroupEntry> entries, Grid grid,
                              std::string label = {}) {
  return make_dispatch(d, pipes, k, std::move(entries), {grid.x, grid.y, 1}, std::move(label));
}
// The typed form: every entry must be a slot of K (bind(K's slot, ...)).
template <class K>
Dispatch make_dispatch(Device& d, PipelineCache& pipes, K, std::initializer_list<KernelEntry<K>> e,
                       Grid grid, std::string label = {}) {
  return make_dispatch(d, pipes, K::info(), entries_for(K::info(), e), grid, std::move(label));
}
template <class K>
Dispatch make_dispatch(Device& d, PipelineCache& pipes, K, std::initializer_list<KernelEntry<K>> e,
                       std::array<uint32_t, 3> xyz, std::string label = {}) {
  return make_dispatch(d, pipes, K::info(), entries_for(K::info(), e), xyz, std::move(label));
}

// One dispatch of a generated header's kernel on `grid`, submitted and waited for (a fresh pipeline,
// layout "auto": utils::run_dispatch); every entry must be a slot of K.
template <class K>
requires requires { K::info(); }
void run_dispatch(Device& d, K, std::initializer_list<KernelEntry<K>> e, Grid grid,
                  std::string label = {}) {
  utils::run_dispatch(d, K::info(), entries_for(K::info(), e), grid, std::move(label));
}

}  // namespace wgslvk

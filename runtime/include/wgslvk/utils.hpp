// Helpers on top of the object model, in the spirit of Dawn's utils::MakeBindGroup: a bind group
// from {binding, buffer[, offset, size]} lists against a pipeline's layout, a buffer made from
// data, a uniform padded to 16 bytes, one dispatch run to completion. Used by the families' host
// code, benchmarks and tests instead of private copies.
#pragma once

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "wgslvk/runtime.hpp"

namespace wgslvk::utils {

inline constexpr BufferUsage kStorageUsage =
    BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst;
inline constexpr BufferUsage kUniformUsage = BufferUsage::Uniform | BufferUsage::CopyDst;

// A buffer of at least `size` bytes (rounded up to 4, never 0) with `usage`.
inline Buffer make_buffer(Device& d, const std::string& label, uint64_t size,
                          BufferUsage usage = kStorageUsage) {
  return d.create_buffer({label, align_up(std::max<uint64_t>(size, 4), 4), usage});
}

// A storage buffer holding `data`.
template <class T>
Buffer make_buffer_from(Device& d, const std::string& label, const std::vector<T>& data,
                        BufferUsage usage = kStorageUsage) {
  Buffer b = make_buffer(d, label, data.size() * sizeof(T), usage);
  if (!data.empty()) d.queue().write_buffer(b, 0, data.data(), data.size() * sizeof(T));
  return b;
}

// A uniform buffer of `size` bytes of `data`, zero-padded to a multiple of 16 (WGSL uniform
// structs are 16-byte aligned).
inline Buffer make_uniform(Device& d, const std::string& label, const void* data, uint64_t size) {
  uint64_t padded = align_up(std::max<uint64_t>(size, 16), 16);
  Buffer b = make_buffer(d, label, padded, kUniformUsage);
  std::vector<uint8_t> bytes(padded, 0);
  std::memcpy(bytes.data(), data, size);
  d.queue().write_buffer(b, 0, bytes.data(), bytes.size());
  return b;
}

// A uniform buffer holding `value` (a uniform struct or a scalar), zero-padded as above.
template <class T>
Buffer make_uniform(Device& d, const std::string& label, const T& value) {
  static_assert(
      std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
      "make_uniform(label, value) copies the value's bytes; pass (data, size) for a pointer");
  return make_uniform(d, label, &value, sizeof(T));
}

// A bind group for group `index` of `pipeline` from {binding, buffer, offset, size} entries.
inline BindGroup make_bind_group(Device& d, const ComputePipeline& pipeline,
                                 std::vector<BindGroupEntry> entries,
                                 const std::string& label = "group", uint32_t index = 0) {
  return d.create_bind_group({label, pipeline.get_bind_group_layout(index), std::move(entries)});
}

// One pass, one dispatch of an explicit `grid` (x, y workgroups), submitted and waited for.
inline void run_dispatch(Device& d, const ComputePipeline& pipeline,
                         const std::vector<BindGroup>& groups, Grid g,
                         const std::string& label = "dispatch") {
  CommandEncoder enc = d.create_command_encoder({label});
  ComputePass pass = enc.begin_compute_pass({label});
  pass.set_pipeline(pipeline);
  for (uint32_t i = 0; i < groups.size(); ++i) pass.set_bind_group(i, groups[i]);
  pass.dispatch_workgroups(g.x, g.y);
  pass.end();
  d.queue().submit(enc.finish());
  d.wait_idle();
}

// The same for `workgroups`, a 1-D count laid out by grid_for_workgroups.
inline void run_dispatch(Device& d, const ComputePipeline& pipeline,
                         const std::vector<BindGroup>& groups, uint64_t workgroups,
                         const std::string& label = "dispatch") {
  run_dispatch(d, pipeline, groups,
               grid_for_workgroups(std::max<uint64_t>(1, workgroups), d.limits()), label);
}

// One dispatch of `kernel` (a fresh pipeline with layout "auto", group 0 bound to `entries`) on
// `grid`, waited for. Labels default to the kernel's qualified name.
inline void run_dispatch(Device& d, const KernelInfo& kernel, std::vector<BindGroupEntry> entries,
                         Grid grid, std::string label = {}) {
  if (label.empty()) label = kernel.qualified_name();
  ComputePipeline p = d.create_compute_pipeline({label, &kernel, {}, false});
  run_dispatch(d, p, {make_bind_group(d, p, std::move(entries), label)}, grid, label);
}

}  // namespace wgslvk::utils

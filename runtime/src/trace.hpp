// A device's WebGPU call trace (DeviceDescriptor::trace_dir or env WGSLVK_TRACE=DIR), so a WebGPU
// implementation can replay exactly what wgslvk ran (bench/peers/dawn_trace.mjs replays it on
// Dawn and compares every read-back). Format "wgslvk-trace-1", in DIR:
//   trace.jsonl   one JSON object per call, in call order ("op" names it; ids are per trace)
//   blob.bin      the bytes of every write_buffer and read_buffer ("blob": byte offset in it)
//   shaders/<family>/<file>.wgsl  the WGSL each pipeline's entry point was declared in (the
//                 copy embedded in the build, so the trace replays without the source tree)
// Lines:
//   {"op":"device","format":"wgslvk-trace-1","adapter":..,"features":[..],"limits":{..},
//    "storage_alignment":..,"uniform_alignment":..}
//   {"op":"buffer","id","label","size","usage"}                    usage: GPUBufferUsage bits
//   {"op":"bgl","id","label","auto","entries":[{"binding","type","min_binding_size"}]}
//        type: "uniform" | "storage" | "read-only-storage"; "auto": made for a pipeline's layout
//        "auto" (emitted just before that pipeline) or an empty gap group of an explicit layout
//   {"op":"pipeline","id","label","kernel","entry","wgsl","source","in_wgsl","shader_f16",
//    "layout":"auto"|"explicit","groups":[bgl ids]}  wgsl: wgsl_ports/<family>/<file> for an
//        embedded kernel, the file's name for one loaded at run time (wgsl_source_path,
//        wgslvk/kernel_registry.hpp); source: the copy under shaders/ (relative to DIR)
//   {"op":"bind_group","id","label","layout","entries":[{"binding","buffer","offset","size"}]}
//   {"op":"encoder","id","label"}   {"op":"begin_pass","enc","label"}   {"op":"end_pass","enc"}
//   {"op":"set_pipeline","enc","pipeline"}   {"op":"set_bind_group","enc","index","group"}
//   {"op":"dispatch","enc","x","y","z"}
//   {"op":"copy","enc","src","src_offset","dst","dst_offset","size"}
//   {"op":"clear","enc","buffer","offset","size"}
//   {"op":"finish","enc","id"}   (id: the command buffer)   {"op":"submit","command_buffers":[..]}
//   {"op":"write","buffer","offset","size","blob"}   queue.writeBuffer
//   {"op":"read","buffer","label","offset","size","blob"}   the bytes wgslvk read back
// Decisions: timestamps (pass timestampWrites, write_timestamp) are not traced: they change no
// buffer. Calls are traced after they pass validation (a call that throws is not in the trace).
// Internal staging buffers and zero-fills are not traced (WebGPU zero-initializes buffers too).
// Only successful calls on a traced device are written; with no trace the hooks cost one null
// check each.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "wgslvk/runtime.hpp"

namespace wgslvk {

struct DeviceCore;
struct BufferImpl;
struct BindGroupLayoutImpl;
struct BindGroupImpl;
struct PipelineImpl;
struct EncoderImpl;
struct CommandBufferImpl;

class Trace {
 public:
  // The trace a new device gets: desc.trace_dir, else env WGSLVK_TRACE, else none (nullptr).
  // With the env var, the process's first traced device writes DIR, later ones DIR.1, DIR.2...
  // (a test binary opens several devices). Throws std::runtime_error naming the folder when it
  // cannot be created or written.
  static std::shared_ptr<Trace> open_for(const DeviceDescriptor& desc, const DeviceCore& core);
  Trace(const std::string& dir, const DeviceCore& core);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  const std::string& dir() const { return dir_; }

  void buffer(const BufferImpl& b);
  void bind_group_layout(const BindGroupLayoutImpl& l, bool auto_layout);
  // explicit_layouts: the descriptor's layouts (empty: layout "auto"); every other group layout
  // of `p` (auto, or an explicit layout's gap) was made for it and is written just before it.
  void pipeline(const PipelineImpl& p, std::span<const BindGroupLayout> explicit_layouts);
  void bind_group(const BindGroupImpl& g);
  void encoder(const EncoderImpl& e);
  void begin_pass(const EncoderImpl& e, const std::string& label);
  void set_pipeline(const EncoderImpl& e, const PipelineImpl& p);
  void set_bind_group(const EncoderImpl& e, uint32_t index, const BindGroupImpl& g);
  void dispatch(const EncoderImpl& e, uint32_t x, uint32_t y, uint32_t z);
  void end_pass(const EncoderImpl& e);
  void copy(const EncoderImpl& e, const BufferImpl& src, uint64_t src_offset, const BufferImpl& dst,
            uint64_t dst_offset, uint64_t size);
  void clear(const EncoderImpl& e, const BufferImpl& b, uint64_t offset, uint64_t size);
  void finish(const EncoderImpl& e, const CommandBufferImpl& cb);
  void submit(std::span<const CommandBufferImpl* const> cbs);
  void write_buffer(const BufferImpl& b, uint64_t offset, const void* data, uint64_t size);
  void read_buffer(const BufferImpl& b, uint64_t offset, const uint8_t* data, uint64_t size);

 private:
  uint64_t assign(const void* object);  // a new id (an address may be reused after a free)
  uint64_t id_of(const void* object, const char* what);
  std::string shader_copy(const PipelineImpl& p);
  void line(const std::string& s);
  uint64_t append_blob(const void* data, uint64_t size);

  std::mutex mutex_;
  std::string dir_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* blob_ = nullptr;
  uint64_t blob_size_ = 0;
  uint64_t next_id_ = 1;
  std::unordered_map<const void*, uint64_t> ids_;
  std::map<std::string, std::string> shaders_;  // path under shaders/ -> source written there
};

}  // namespace wgslvk

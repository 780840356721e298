// The WebGPU call trace (trace.hpp describes the format).
#include "trace.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "internal.hpp"
#include "wgslvk/kernel_registry.hpp"
#include "wgslvk/output_file.hpp"

namespace wgslvk {

namespace {
namespace fs = std::filesystem;

std::string esc(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  o += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (u < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", u);
      o += b;
    } else {
      o += c;
    }
  }
  o += '"';
  return o;
}
std::string n(uint64_t v) { return std::to_string(v); }

// Never through a symlink planted at the trace's file names (output_file.hpp).
std::FILE* open_file(const fs::path& p, const std::string& dir) {
  try {
    return open_output_stream(p.string());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(
        "WGSLVK_TRACE / DeviceDescriptor::trace_dir: cannot write in trace "
        "folder '" +
        dir + "': " + e.what());
  }
}
}  // namespace

std::shared_ptr<Trace> Trace::open_for(const DeviceDescriptor& desc, const DeviceCore& core) {
  std::string dir = desc.trace_dir;
  if (dir.empty()) {
    const char* env = std::getenv("WGSLVK_TRACE");
    if (!env || !*env) return nullptr;
    static std::atomic<unsigned> traced{0};
    unsigned k = traced.fetch_add(1);
    dir = env;
    if (k) dir += "." + std::to_string(k);
  }
  return std::make_shared<Trace>(dir, core);
}

Trace::Trace(const std::string& dir, const DeviceCore& core) : dir_(dir) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "shaders", ec);
  if (ec)
    throw std::runtime_error(
        "WGSLVK_TRACE / DeviceDescriptor::trace_dir: cannot create trace folder '" + dir +
        "': " + ec.message());
  jsonl_ = open_file(fs::path(dir) / "trace.jsonl", dir);
  blob_ = open_file(fs::path(dir) / "blob.bin", dir);
  const Limits& l = core.limits;
  std::string feats;
  for (Feature f : core.features) feats += (feats.empty() ? "" : ",") + esc(feature_name(f));
  line("{\"op\":\"device\",\"format\":\"wgslvk-trace-1\",\"label\":" + esc(core.label) +
       ",\"adapter\":" + esc(core.adapter->info.name) + ",\"features\":[" + feats +
       "],\"limits\":{\"minStorageBufferOffsetAlignment\":" +
       n(l.min_storage_buffer_offset_alignment) +
       ",\"minUniformBufferOffsetAlignment\":" + n(l.min_uniform_buffer_offset_alignment) +
       ",\"maxStorageBufferBindingSize\":" + n(l.max_storage_buffer_binding_size) +
       ",\"maxUniformBufferBindingSize\":" + n(l.max_uniform_buffer_binding_size) +
       ",\"maxBufferSize\":" + n(l.max_buffer_size) +
       ",\"maxComputeWorkgroupsPerDimension\":" + n(l.max_compute_workgroups_per_dimension) +
       ",\"maxComputeInvocationsPerWorkgroup\":" + n(l.max_compute_invocations_per_workgroup) +
       ",\"maxComputeWorkgroupSizeX\":" + n(l.max_compute_workgroup_size_x) +
       ",\"maxComputeWorkgroupSizeY\":" + n(l.max_compute_workgroup_size_y) +
       ",\"maxComputeWorkgroupSizeZ\":" + n(l.max_compute_workgroup_size_z) +
       ",\"maxComputeWorkgroupStorageSize\":" + n(l.max_compute_workgroup_storage_size) +
       ",\"maxStorageBuffersPerShaderStage\":" + n(l.max_storage_buffers_per_shader_stage) +
       ",\"maxUniformBuffersPerShaderStage\":" + n(l.max_uniform_buffers_per_shader_stage) +
       ",\"maxBindGroups\":" + n(l.max_bind_groups) + "},\"storage_alignment\":" +
       n(core.storage_alignment) + ",\"uniform_alignment\":" + n(core.uniform_alignment) + "}");
}

Trace::~Trace() {
  if (jsonl_) std::fclose(jsonl_);
  if (blob_) std::fclose(blob_);
}

void Trace::line(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), jsonl_);
  std::fputc('\n', jsonl_);
}

uint64_t Trace::assign(const void* object) {
  uint64_t id = next_id_++;
  ids_[object] = id;
  return id;
}

uint64_t Trace::id_of(const void* object, const char* what) {
  auto it = ids_.find(object);
  if (it == ids_.end())
    throw std::logic_error(std::string("trace: a ") + what + " that the trace never saw created");
  return it->second;
}

uint64_t Trace::append_blob(const void* data, uint64_t size) {
  uint64_t at = blob_size_;
  if (size && std::fwrite(data, 1, size, blob_) != size)
    throw std::runtime_error("trace: writing " + n(size) + " bytes to " + dir_ +
                             "/blob.bin failed");
  blob_size_ += size;
  return at;
}

void Trace::buffer(const BufferImpl& b) {
  std::lock_guard lock(mutex_);
  uint64_t id = assign(&b);
  line("{\"op\":\"buffer\",\"id\":" + n(id) + ",\"label\":" + esc(b.label) +
       ",\"size\":" + n(b.size) + ",\"usage\":" + n(uint32_t(b.usage)) + "}");
}

void Trace::bind_group_layout(const BindGroupLayoutImpl& l, bool auto_layout) {
  std::lock_guard lock(mutex_);
  uint64_t id = assign(&l);
  std::string e;
  for (const auto& en : l.entries)
    e += std::string(e.empty() ? "" : ",") + "{\"binding\":" + n(en.binding) + ",\"type\":\"" +
         std::string(binding_type_name(en.type)) +
         "\",\"min_binding_size\":" + n(en.min_binding_size) + "}";
  line("{\"op\":\"bgl\",\"id\":" + n(id) + ",\"label\":" + esc(l.label) +
       ",\"auto\":" + (auto_layout ? "true" : "false") + ",\"entries\":[" + e + "]}");
}

std::string Trace::shader_copy(const PipelineImpl& p) {
  const KernelInfo& k = *p.kernel;
  std::string base = std::string(k.file) + "/" + std::string(k.wgsl_file);
  std::string rel = "shaders/" + base;
  for (int v = 1;; ++v) {
    auto it = shaders_.find(rel);
    if (it == shaders_.end()) break;
    if (it->second == k.wgsl_source) return rel;
    // Same name, other source (a run-time port over an embedded one): a numbered copy.
    rel = "shaders/" + base + "." + std::to_string(v) + ".wgsl";
  }
  fs::path path = fs::path(dir_) / rel;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::FILE* f = open_file(path, dir_);
  std::fwrite(k.wgsl_source.data(), 1, k.wgsl_source.size(), f);
  std::fclose(f);
  shaders_[rel] = std::string(k.wgsl_source);
  return rel;
}

void Trace::pipeline(const PipelineImpl& p, std::span<const BindGroupLayout> explicit_layouts) {
  // The layouts made for this pipeline (auto layout's groups, an explicit layout's gaps) are new
  // objects: written here, as "auto" (an address is never looked up before it is assigned, since
  // a freed layout's address may be reused).
  const bool auto_layout = explicit_layouts.empty();
  for (size_t g = 0; g < p.groups.size(); ++g)
    if (auto_layout || g >= explicit_layouts.size() || !explicit_layouts[g])
      bind_group_layout(*p.groups[g], true);
  std::lock_guard lock(mutex_);
  const KernelInfo& k = *p.kernel;
  uint64_t id = assign(&p);
  std::string groups;
  for (const auto& g : p.groups)
    groups += (groups.empty() ? "" : ",") + n(id_of(g.get(), "bind group layout"));
  const bool runtime_port = !is_embedded(k);
  line("{\"op\":\"pipeline\",\"id\":" + n(id) + ",\"label\":" + esc(p.label) +
       ",\"kernel\":" + esc(k.qualified_name()) + ",\"entry\":" + esc(k.name) +
       ",\"wgsl\":" + esc(wgsl_source_path(k)) + ",\"source\":" + esc(shader_copy(p)) +
       ",\"in_wgsl\":" + (k.in_wgsl ? "true" : "false") +
       ",\"runtime_port\":" + (runtime_port ? "true" : "false") +
       ",\"shader_f16\":" + (k.needs_shader_f16 ? "true" : "false") + ",\"workgroup_size\":[" +
       n(k.workgroup_size[0]) + "," + n(k.workgroup_size[1]) + "," + n(k.workgroup_size[2]) +
       "],\"layout\":\"" + (auto_layout ? "auto" : "explicit") + "\",\"groups\":[" + groups + "]}");
}

void Trace::bind_group(const BindGroupImpl& g) {
  std::lock_guard lock(mutex_);
  uint64_t layout = id_of(g.layout.get(), "bind group layout");
  uint64_t id = assign(&g);
  std::string e;
  for (const auto& b : g.bound)
    e += std::string(e.empty() ? "" : ",") + "{\"binding\":" + n(b.binding) +
         ",\"buffer\":" + n(id_of(b.buffer.get(), "buffer")) + ",\"offset\":" + n(b.offset) +
         ",\"size\":" + n(b.size) + "}";
  line("{\"op\":\"bind_group\",\"id\":" + n(id) + ",\"label\":" + esc(g.label) +
       ",\"layout\":" + n(layout) + ",\"entries\":[" + e + "]}");
}

void Trace::encoder(const EncoderImpl& e) {
  std::lock_guard lock(mutex_);
  uint64_t id = assign(&e);
  line("{\"op\":\"encoder\",\"id\":" + n(id) + ",\"label\":" + esc(e.label) + "}");
}

void Trace::begin_pass(const EncoderImpl& e, const std::string& label) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"begin_pass\",\"enc\":" + n(id_of(&e, "command encoder")) +
       ",\"label\":" + esc(label) + "}");
}

void Trace::set_pipeline(const EncoderImpl& e, const PipelineImpl& p) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"set_pipeline\",\"enc\":" + n(id_of(&e, "command encoder")) +
       ",\"pipeline\":" + n(id_of(&p, "pipeline")) + "}");
}

void Trace::set_bind_group(const EncoderImpl& e, uint32_t index, const BindGroupImpl& g) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"set_bind_group\",\"enc\":" + n(id_of(&e, "command encoder")) +
       ",\"index\":" + n(index) + ",\"group\":" + n(id_of(&g, "bind group")) + "}");
}

void Trace::dispatch(const EncoderImpl& e, uint32_t x, uint32_t y, uint32_t z) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"dispatch\",\"enc\":" + n(id_of(&e, "command encoder")) + ",\"x\":" + n(x) +
       ",\"y\":" + n(y) + ",\"z\":" + n(z) + "}");
}

void Trace::end_pass(const EncoderImpl& e) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"end_pass\",\"enc\":" + n(id_of(&e, "command encoder")) + "}");
}

void Trace::copy(const EncoderImpl& e, const BufferImpl& src, uint64_t src_offset,
                 const BufferImpl& dst, uint64_t dst_offset, uint64_t size) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"copy\",\"enc\":" + n(id_of(&e, "command encoder")) +
       ",\"src\":" + n(id_of(&src, "buffer")) + ",\"src_offset\":" + n(src_offset) +
       ",\"dst\":" + n(id_of(&dst, "buffer")) + ",\"dst_offset\":" + n(dst_offset) +
       ",\"size\":" + n(size) + "}");
}

void Trace::clear(const EncoderImpl& e, const BufferImpl& b, uint64_t offset, uint64_t size) {
  std::lock_guard lock(mutex_);
  line("{\"op\":\"clear\",\"enc\":" + n(id_of(&e, "command encoder")) + ",\"buffer\":" +
       n(id_of(&b, "buffer")) + ",\"offset\":" + n(offset) + ",\"size\":" + n(size) + "}");
}

void Trace::finish(const EncoderImpl& e, const CommandBufferImpl& cb) {
  std::lock_guard lock(mutex_);
  uint64_t enc = id_of(&e, "command encoder");
  line("{\"op\":\"finish\",\"enc\":" + n(enc) + ",\"id\":" + n(assign(&cb)) + "}");
}

void Trace::submit(std::span<const CommandBufferImpl* const> cbs) {
  std::lock_guard lock(mutex_);
  std::string ids;
  for (const auto* cb : cbs) ids += (ids.empty() ? "" : ",") + n(id_of(cb, "command buffer"));
  line("{\"op\":\"submit\",\"command_buffers\":[" + ids + "]}");
}

void Trace::write_buffer(const BufferImpl& b, uint64_t offset, const void* data, uint64_t size) {
  std::lock_guard lock(mutex_);
  uint64_t at = append_blob(data, size);
  line("{\"op\":\"write\",\"buffer\":" + n(id_of(&b, "buffer")) + ",\"offset\":" + n(offset) +
       ",\"size\":" + n(size) + ",\"blob\":" + n(at) + "}");
}

void Trace::read_buffer(const BufferImpl& b, uint64_t offset, const uint8_t* data, uint64_t size) {
  std::lock_guard lock(mutex_);
  uint64_t at = append_blob(data, size);
  line("{\"op\":\"read\",\"buffer\":" + n(id_of(&b, "buffer")) + ",\"label\":" + esc(b.label) +
       ",\"offset\":" + n(offset) + ",\"size\":" + n(size) + ",\"blob\":" + n(at) + "}");
  // A read is where a replay compares: everything up to it is on disk (a crash after it leaves a
  // usable prefix).
  std::fflush(jsonl_);
  std::fflush(blob_);
}

}  // namespace wgslvk

// wgslvk serve: one WebGPU adapter and device over a pipe, for a JavaScript `navigator.gpu` shim
// (cts/provider/wgslvk.cjs) that runs the WebGPU CTS against wgslvk. One JSON object per line
// each way (protocol in cts/README.md). WebGPU's calls that return no promise are sent without
// waiting; the client names every new object (`id`), so a call never needs an answer to go on, and
// the pipe's order is WebGPU's queue-timeline order. Calls that return a promise carry `r` and are
// answered with the same `r`.
//
// The runtime throws a ValidationError at the offending call; WebGPU instead reports it through
// the device's error scopes and hands back an invalid object. So every call is caught here: the
// error goes to the innermost matching scope (or out as an uncaptured-error event), and the object
// it was creating is recorded as invalid, which makes every later use of it a validation error.
// Whatever wgslvk does not implement is reported as an internal error "not implemented in wgslvk:
// X" and counted in an event, never silently accepted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include <sys/resource.h>
#include <vulkan/vulkan.h>

#include <nlohmann/json.hpp>

#include "cli_device.hpp"
#include "command.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::cli {
namespace {

using json = nlohmann::json;

const std::string kUsage = R"(usage: wgslvk serve [--device D]

Serves one WebGPU adapter and device of wgslvk on stdin/stdout, one JSON object a line, for the
JavaScript GPU provider in cts/provider/ (which starts it; cts/README.md has the protocol). Not
for interactive use. Exits at end of input or on {"op":"exit"}.

  --device D   the adapter (index or name substring; default as every command)

Environment: WGSLVK_SERVE_DUMP=DIR writes the WGSL and the GLSL the front end made of it for every
pipeline, numbered (for triage of a CTS failure).
)";

int run_serve(const std::vector<std::string>& args);
const Command kServe{"serve", "serve a WebGPU device over a pipe (the CTS provider's backend)",
                     kUsage, run_serve};

// GPUBufferUsage bits the runtime has no use for in compute (vertex, index, indirect): the
// runtime refuses unknown bits, so they are kept here and stripped before it sees them.
constexpr uint32_t kUsageMapRead = 0x1, kUsageMapWrite = 0x2, kUsageCopySrc = 0x4,
                   kUsageCopyDst = 0x8, kUsageIndirect = 0x100;
constexpr uint32_t kUsageAll = 0x3ff;      // every GPUBufferUsage bit
constexpr uint32_t kUsageRuntime = 0x2cf;  // all but INDEX 0x10, VERTEX 0x20, INDIRECT 0x100

// A call the client made that wgslvk does not implement.
struct NotImplemented : std::runtime_error {
  explicit NotImplemented(const std::string& what)
      : std::runtime_error("not implemented in wgslvk: " + what) {}
};
// A WebGPU validation error raised here (rules the runtime does not model: mapping, usage of the
// bits kept here, destroyed buffers).
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string b64_encode(const uint8_t* p, size_t n) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0) |
                 (i + 2 < n ? uint32_t(p[i + 2]) : 0);
    out += t[v >> 18 & 63];
    out += t[v >> 12 & 63];
    out += i + 1 < n ? t[v >> 6 & 63] : '=';
    out += i + 2 < n ? t[v & 63] : '=';
  }
  return out;
}

std::vector<uint8_t> b64_decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<uint8_t> out;
  out.reserve(s.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    int v = val(c);
    if (v < 0) throw std::invalid_argument("data: not base64");
    acc = acc << 6 | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits & 0xff));
    }
  }
  return out;
}

// This thread's CPU seconds: on a shared machine the wall time of a stage says more about the
// other processes than about the stage.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// WGSLVK_SERVE_TIMING=1: each stage of a pipeline's creation timed on stderr ("serve-timing
// STAGE BYTES WALL_SECONDS CPU_SECONDS", the CPU seconds of serve's own thread), to see where a
// slow createComputePipeline spends its time.
struct Timer {
  const char* stage;
  size_t bytes;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double cpu0 = thread_cpu_s();
  Timer(const char* s, size_t b) : stage(s), bytes(b) {}
  ~Timer() {
    static const bool on = std::getenv("WGSLVK_SERVE_TIMING") != nullptr;
    if (!on) return;
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    std::fprintf(stderr, "serve-timing %s %zu %.4f %.4f\n", stage, bytes, d.count(),
                 thread_cpu_s() - cpu0);
  }
};

// What a KernelInfo of a pipeline points to; owned by the pipeline (and by encoders and command
// buffers that use it), so shaders do not accumulate over a CTS run.
struct OwnedKernel {
  std::string file = "cts", name, wgsl_file, glsl, wgsl;
  std::deque<std::string> strings;
  std::vector<KernelBinding> bindings;
  std::vector<uint32_t> spirv;
  KernelInfo info;
};

struct BufferObj {
  Buffer buffer;
  uint32_t usage = 0;  // WebGPU's bits, including those the runtime does not take
  uint64_t size = 0;
  std::string label;
  bool destroyed = false;
  bool mapped = false;  // mapped or mappedAtCreation, until unmap
};
// hasDynamicOffset: the runtime has no dynamic offsets, so a layout's dynamic buffer entries are
// ordinary ones there, and setBindGroup with offsets binds a bind group made here with each
// dynamic entry's offset moved by its dynamic offset (cached per offsets), which is what the
// dynamic offset means. WebGPU's rules on them are checked here; `dynamic` (the dynamic
// bindings, ascending: the order of the offsets) is also compared at dispatch, since the
// runtime's layout compatibility cannot see it.
struct LayoutObj {
  BindGroupLayout layout;
  std::vector<uint32_t> dynamic;
  uint32_t dynamic_uniform = 0, dynamic_storage = 0;
};
struct PipelineLayoutObj {
  std::vector<BindGroupLayout> groups;
  std::vector<std::vector<uint32_t>> dynamic;  // per group
};
struct ModuleObj {
  std::string source, label;
  json messages = json::array();  // GPUCompilationMessage-like
  std::string error;              // the validation error createShaderModule raised, if any
};
struct PipelineObj {
  ComputePipeline pipeline;
  std::shared_ptr<OwnedKernel> kernel;
  std::vector<std::vector<uint32_t>> dynamic;  // its explicit layout's, per group
};
struct BindGroupObj {
  BindGroup group;
  std::vector<uint64_t> buffers;
  // With dynamic entries: what a group with moved offsets is made of.
  std::vector<uint32_t> dynamic;
  BindGroupDescriptor descriptor;
  std::vector<uint64_t> buffer_sizes;  // per descriptor entry
  std::vector<bool> uniform;           // per descriptor entry: a uniform binding
  std::map<std::vector<uint32_t>, BindGroup> moved;
};
// dispatchWorkgroupsIndirect: the runtime dispatches only counts known when it records, so an
// encoder is cut there into segments; at submit the counts are read from the buffer once the
// segments before it have run, and the dispatch is recorded then with the pass state it had.
struct IndirectDispatch {
  ComputePipeline pipeline;
  std::map<uint32_t, BindGroup> groups;
  Buffer buffer;
  uint64_t offset = 0;
};
using Segment = std::variant<CommandBuffer, IndirectDispatch>;
struct EncoderObj {
  CommandEncoder encoder;
  std::optional<ComputePass> pass;
  uint64_t pass_id = 0;
  std::string pass_label;
  ComputePipeline pipeline;                                 // the pass state, replayed after a cut
  std::map<uint32_t, BindGroup> groups;                     // likewise
  std::vector<std::vector<uint32_t>> pipeline_dynamic;      // the pipeline's dynamic bindings
  std::map<uint32_t, std::vector<uint32_t>> group_dynamic;  // and the groups'
  std::vector<Segment> done;                                // segments before the current encoder
  std::string error;            // the first error recorded: reported at finish() (WebGPU's rule)
  bool error_internal = false;  // ... and it is "not implemented", not the user's
  std::vector<uint64_t> buffers;
  std::vector<std::shared_ptr<OwnedKernel>> kernels;
  bool finished = false;
};
struct PassObj {
  uint64_t encoder = 0;
  bool ended = false;
};
struct CommandBufferObj {
  std::vector<Segment> segments;
  std::vector<uint64_t> buffers;
  std::vector<std::shared_ptr<OwnedKernel>> kernels;
  bool submitted = false;
};
struct InvalidObj {
  std::string why;
};
using Object = std::variant<InvalidObj, BufferObj, LayoutObj, PipelineLayoutObj, ModuleObj,
                            PipelineObj, BindGroupObj, EncoderObj, PassObj, CommandBufferObj>;

enum class ErrorKind { Validation, OutOfMemory, Internal };
const char* kind_name(ErrorKind k) {
  return k == ErrorKind::Validation    ? "validation"
         : k == ErrorKind::OutOfMemory ? "out-of-memory"
                                       : "internal";
}

struct Limit {
  const char* name;
  std::variant<uint32_t Limits::*, uint64_t Limits::*> field;
  bool alignment;  // a "better" value is smaller
};
const Limit kLimits[] = {
    {"minStorageBufferOffsetAlignment", &Limits::min_storage_buffer_offset_alignment, true},
    {"minUniformBufferOffsetAlignment", &Limits::min_uniform_buffer_offset_alignment, true},
    {"maxStorageBufferBindingSize", &Limits::max_storage_buffer_binding_size, false},
    {"maxUniformBufferBindingSize", &Limits::max_uniform_buffer_binding_size, false},
    {"maxBufferSize", &Limits::max_buffer_size, false},
    {"maxComputeWorkgroupsPerDimension", &Limits::max_compute_workgroups_per_dimension, false},
    {"maxComputeInvocationsPerWorkgroup", &Limits::max_compute_invocations_per_workgroup, false},
    {"maxComputeWorkgroupSizeX", &Limits::max_compute_workgroup_size_x, false},
    {"maxComputeWorkgroupSizeY", &Limits::max_compute_workgroup_size_y, false},
    {"maxComputeWorkgroupSizeZ", &Limits::max_compute_workgroup_size_z, false},
    {"maxComputeWorkgroupStorageSize", &Limits::max_compute_workgroup_storage_size, false},
    {"maxStorageBuffersPerShaderStage", &Limits::max_storage_buffers_per_shader_stage, false},
    {"maxUniformBuffersPerShaderStage", &Limits::max_uniform_buffers_per_shader_stage, false},
    {"maxBindGroups", &Limits::max_bind_groups, false},
    {"maxBindingsPerBindGroup", &Limits::max_bindings_per_bind_group, false},
};

json limits_json(const Limits& l) {
  json j = json::object();
  for (const auto& lim : kLimits)
    std::visit([&](auto field) { j[lim.name] = l.*field; }, lim.field);
  return j;
}

// WebGPU's "subgroups" feature: the runtime has no such Feature (Vulkan needs nothing enabled for
// subgroup operations, only their support), so serve asks the Vulkan driver itself, on an
// instance of its own, for the adapter's VkPhysicalDeviceSubgroupProperties: offered when compute
// shaders have every operation WGSL's subgroup and quad builtins use (basic, vote, ballot,
// shuffle, shuffle relative, arithmetic, quad), as Dawn's Vulkan backend requires. The sizes are
// GPUAdapterInfo's subgroupMinSize/subgroupMaxSize (VK 1.3 subgroup size control, else the one
// subgroupSize). "subgroups-f16" is not offered: it needs shaderSubgroupExtendedTypes enabled
// at device creation, which the runtime does not do.
struct SubgroupSupport {
  bool ok = false;
  uint32_t min_size = 0, max_size = 0;
};

SubgroupSupport query_subgroups(const AdapterInfo& a) {
  SubgroupSupport s;
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  VkInstance inst = VK_NULL_HANDLE;
  if (vkCreateInstance(&ci, nullptr, &inst) != VK_SUCCESS) return s;
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(inst, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  if (n) vkEnumeratePhysicalDevices(inst, &n, pds.data());
  for (VkPhysicalDevice pd : pds) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (p.vendorID != a.vendor_id || p.deviceID != a.device_id || a.name != p.deviceName) continue;
    if (p.apiVersion < VK_API_VERSION_1_1) break;
    VkPhysicalDeviceSubgroupSizeControlProperties sc{};
    sc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
    VkPhysicalDeviceSubgroupProperties sg{};
    sg.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    const bool size_control = p.apiVersion >= VK_API_VERSION_1_3;
    if (size_control) sg.pNext = &sc;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &sg;
    vkGetPhysicalDeviceProperties2(pd, &p2);
    const VkSubgroupFeatureFlags need =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
        VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
        VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
        VK_SUBGROUP_FEATURE_QUAD_BIT;
    s.ok = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
           (sg.supportedOperations & need) == need && sg.subgroupSize >= 4;
    s.min_size = size_control && sc.minSubgroupSize ? sc.minSubgroupSize : sg.subgroupSize;
    s.max_size = size_control && sc.maxSubgroupSize ? sc.maxSubgroupSize : sg.subgroupSize;
    break;
  }
  vkDestroyInstance(inst, nullptr);
  return s;
}

class Server {
 public:
  explicit Server(std::optional<std::string> selector) : selector_(std::move(selector)) {}
  int run();

 private:
  void handle(const json& m);
  void reply(const json& m, json body);
  void reply_error(const json& m, const std::string& name, const std::string& message);
  void event(json e);
  void report(ErrorKind kind, const std::string& message);
  void not_implemented(const std::string& what);

  template <class T>
  T& get(uint64_t id, const char* what);
  Object& lookup(uint64_t id);
  void put(uint64_t id, Object o) { objects_[id] = std::move(o); }

  void create_buffer(const json& m);
  void map_async(const json& m);
  void unmap(const json& m);
  void write_buffer(const json& m);
  void create_bind_group_layout(const json& m);
  void create_pipeline_layout(const json& m);
  void create_shader_module(const json& m);
  void create_compute_pipeline(const json& m, bool async);
  void create_bind_group(const json& m);
  void encoder_op(const json& m);
  void submit(const json& m);

  std::shared_ptr<OwnedKernel> compile(const ModuleObj& mod, const json& m);
  BindGroup dynamic_group(BindGroupObj& g, const std::vector<uint32_t>& offsets);
  void check_dynamic_layouts(const EncoderObj& e, const std::string& op);
  // Runs `f`; a failure is reported as the error WebGPU would raise there. Returns whether it
  // succeeded.
  template <class F>
  bool guarded(F&& f, std::string* message = nullptr);

  std::optional<std::string> selector_;
  Instance instance_;
  Adapter adapter_;
  SubgroupSupport subgroups_;
  Device device_;
  bool destroyed_ = false;
  std::unordered_map<uint64_t, Object> objects_;
  struct Scope {
    ErrorKind filter;
    std::optional<std::pair<ErrorKind, std::string>> error;
  };
  std::vector<Scope> scopes_;
  static constexpr size_t kKernelCacheSize = 256;
  std::unordered_map<std::string, std::shared_ptr<OwnedKernel>> kernel_cache_;
  // A map from a string key bounded at kKernelCacheSize entries: when full it is emptied before
  // the next insertion (memory stays bounded; a miss only costs the work again).
  template <class V>
  class BoundedCache {
   public:
    const V* find(const std::string& key) const {
      auto it = map_.find(key);
      return it == map_.end() ? nullptr : &it->second;
    }
    void put(std::string key, V value) {
      if (map_.size() >= kKernelCacheSize) map_.clear();
      map_.emplace(std::move(key), std::move(value));
    }
    void clear() { map_.clear(); }

   private:
    std::unordered_map<std::string, V> map_;
  };
  // The same kernels by what they were translated from (label, entry point, constants, WGSL).
  BoundedCache<std::shared_ptr<OwnedKernel>> source_cache_;
  // Pipelines by their kernel (a kernel_cache_ hit) and layout ("auto", or the explicit groups'
  // entries): one Vulkan pipeline for all (the CTS makes the same one again and again, e.g.
  // zero_init's "fill" pipeline 15 times a case, and vkCreateComputePipelines is lavapipe's LLVM
  // compile). Nothing but the label can differ between them: an auto layout and every check of
  // create_compute_pipeline depend on the kernel, the layout's entries and the device alone, and
  // the runtime compares bind group layouts by their entries (binding, type, minimum size), not
  // by identity; the dynamic entries stay serve's own, per pipeline. The entry holds its kernel,
  // so a key's address is never reused while it is cached.
  BoundedCache<std::pair<std::shared_ptr<OwnedKernel>, ComputePipeline>> pipeline_cache_;
  // WGSLVK_SERVE_TIMING: time per request kind (count, sum, max), printed at exit.
  bool timing_ = std::getenv("WGSLVK_SERVE_TIMING") != nullptr;
  std::map<std::string, std::tuple<unsigned long, double, double>> op_time_;
};

Object& Server::lookup(uint64_t id) {
  auto it = objects_.find(id);
  if (it == objects_.end()) throw Invalid("object #" + std::to_string(id) + " does not exist");
  return it->second;
}

template <class T>
T& Server::get(uint64_t id, const char* what) {
  Object& o = lookup(id);
  if (auto* inv = std::get_if<InvalidObj>(&o))
    throw Invalid(std::string(what) + " is invalid (" + inv->why + ")");
  if (auto* t = std::get_if<T>(&o)) return *t;
  throw Invalid(std::string("object #") + std::to_string(id) + " is not a " + what);
}

void Server::reply(const json& m, json body) {
  body["r"] = m.at("r");
  std::cout << body.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  std::cout.flush();
}

void Server::reply_error(const json& m, const std::string& name, const std::string& message) {
  reply(m, {{"error", {{"name", name}, {"message", message}}}});
}

void Server::event(json e) {
  std::cout << e.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  std::cout.flush();
}

void Server::report(ErrorKind kind, const std::string& message) {
  if (destroyed_) return;  // a lost device reports nothing
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (it->filter == kind) {
      if (!it->error) it->error = std::make_pair(kind, message);
      return;
    }
  event({{"ev", "uncapturederror"}, {"kind", kind_name(kind)}, {"message", message}});
}

void Server::not_implemented(const std::string& message) {
  event({{"ev", "notimplemented"}, {"message", message}});
  report(ErrorKind::Internal, message);
}

template <class F>
bool Server::guarded(F&& f, std::string* message) {
  auto fail = [&](ErrorKind k, const std::string& msg) {
    if (message) *message = msg;
    report(k, msg);
    return false;
  };
  try {
    f();
    return true;
  } catch (const NotImplemented& e) {
    if (message) *message = e.what();
    not_implemented(e.what());
    return false;
  } catch (const ValidationError& e) {
    return fail(ErrorKind::Validation, e.what());
  } catch (const Invalid& e) {
    return fail(ErrorKind::Validation, e.what());
  } catch (const VulkanError& e) {
    std::string w = e.what();
    bool oom = w.find("allocat") != std::string::npos;
    return fail(oom ? ErrorKind::OutOfMemory : ErrorKind::Internal, w);
  } catch (const std::bad_alloc&) {
    return fail(ErrorKind::OutOfMemory, "out of host memory");
  } catch (const json::exception& e) {
    return fail(ErrorKind::Validation, std::string("malformed request: ") + e.what());
  } catch (const std::exception& e) { return fail(ErrorKind::Internal, e.what()); }
}

// ---- buffers --------------------------------------------------------------------------------------

void Server::create_buffer(const json& m) {
  const uint64_t id = m.at("id");
  BufferObj b;
  b.size = m.at("size");
  b.usage = m.at("usage");
  b.label = m.value("label", "");
  bool at_creation = m.value("mappedAtCreation", false);
  std::string why;
  bool ok = guarded(
      [&] {
        std::string name = "[Buffer \"" + b.label + "\"]";
        if (b.usage & ~kUsageAll) throw Invalid(name + " usage has unknown bits");
        if ((b.usage & kUsageMapRead) && (b.usage & ~(kUsageMapRead | kUsageCopyDst)))
          throw Invalid(name + " usage: MAP_READ may only be combined with COPY_DST");
        if ((b.usage & kUsageMapWrite) && (b.usage & ~(kUsageMapWrite | kUsageCopySrc)))
          throw Invalid(name + " usage: MAP_WRITE may only be combined with COPY_SRC");
        if (at_creation && b.size % 4)
          throw Invalid(name + " mappedAtCreation needs a size that is a multiple of 4 (" +
                        std::to_string(b.size) + ")");
        BufferDescriptor d;
        d.label = b.label;
        d.size = b.size;
        // Copy bits always: mapping goes through the runtime's staging copies. Usage rules for
        // copies and writes are checked here against the WebGPU bits.
        d.usage = BufferUsage((b.usage & kUsageRuntime) | kUsageCopySrc | kUsageCopyDst);
        b.buffer = device_.create_buffer(d);
      },
      &why);
  b.mapped = at_creation;
  if (ok)
    put(id, std::move(b));
  else
    put(id, InvalidObj{why});
}

void Server::map_async(const json& m) {
  const uint64_t id = m.at("id");
  const uint32_t mode = m.at("mode");  // GPUMapMode: READ 1, WRITE 2
  const uint64_t offset = m.at("offset"), size = m.at("size");
  std::string why;
  std::vector<uint8_t> bytes;
  bool ok = guarded(
      [&] {
        auto& b = get<BufferObj>(id, "buffer");
        std::string name = "mapAsync on [Buffer \"" + b.label + "\"]";
        if (b.destroyed) throw Invalid(name + ": the buffer is destroyed");
        if (b.mapped) throw Invalid(name + ": the buffer is already mapped");
        if (mode != 1 && mode != 2) throw Invalid(name + ": mode must be READ or WRITE");
        if (mode == 1 && !(b.usage & kUsageMapRead)) throw Invalid(name + ": no MAP_READ usage");
        if (mode == 2 && !(b.usage & kUsageMapWrite)) throw Invalid(name + ": no MAP_WRITE usage");
        if (offset % 8 || size % 4 || offset > b.size || size > b.size - offset)
          throw Invalid(name + ": range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                        ") is misaligned or outside the buffer");
        device_.queue().on_submitted_work_done();
        if (size) bytes = device_.read_buffer(b.buffer, offset, size);
        b.mapped = true;
      },
      &why);
  if (ok)
    reply(m, {{"data", b64_encode(bytes.data(), bytes.size())}});
  else
    reply_error(m, "OperationError", why);
}

void Server::unmap(const json& m) {
  const uint64_t id = m.at("id");
  guarded([&] {
    auto& b = get<BufferObj>(id, "buffer");
    // The client sends the bytes of a mapping it may have written (WRITE or mappedAtCreation).
    if (m.contains("writes") && !b.destroyed)
      for (const auto& w : m["writes"]) {
        auto bytes = b64_decode(w.at("data"));
        device_.queue().write_buffer(b.buffer, w.at("offset"), bytes.data(), bytes.size());
      }
    b.mapped = false;
  });
}

void Server::write_buffer(const json& m) {
  guarded([&] {
    auto& b = get<BufferObj>(m.at("id"), "buffer");
    const uint64_t offset = m.at("offset");
    auto bytes = b64_decode(m.at("data"));
    std::string name = "writeBuffer to [Buffer \"" + b.label + "\"]";
    if (b.destroyed) throw Invalid(name + ": the buffer is destroyed");
    if (b.mapped) throw Invalid(name + ": the buffer is mapped");
    if (!(b.usage & kUsageCopyDst)) throw Invalid(name + ": no COPY_DST usage");
    device_.queue().write_buffer(b.buffer, offset, bytes.data(), bytes.size());
  });
}

// ---- layouts, shaders, pipelines, bind groups ----------------------------------------------------

// WebGPU's default maxDynamicUniformBuffersPerPipelineLayout and ...StorageBuffers... (the
// provider reports these defaults).
constexpr uint32_t kMaxDynamicUniform = 8, kMaxDynamicStorage = 4;
void check_dynamic_limits(uint32_t uniform, uint32_t storage) {
  if (uniform > kMaxDynamicUniform)
    throw Invalid(std::to_string(uniform) +
                  " dynamic uniform buffers exceed maxDynamicUniformBuffersPerPipelineLayout (" +
                  std::to_string(kMaxDynamicUniform) + ")");
  if (storage > kMaxDynamicStorage)
    throw Invalid(std::to_string(storage) +
                  " dynamic storage buffers exceed maxDynamicStorageBuffersPerPipelineLayout (" +
                  std::to_string(kMaxDynamicStorage) + ")");
}

void Server::create_bind_group_layout(const json& m) {
  std::string why;
  BindGroupLayout layout;
  LayoutObj dyn;
  bool ok = guarded(
      [&] {
        BindGroupLayoutDescriptor d;
        d.label = m.value("label", "");
        for (const auto& e : m.at("entries")) {
          if (!e.contains("buffer"))
            throw NotImplemented("bind group layout entries other than buffers (binding " +
                                 std::to_string(int(e.at("binding"))) + ")");
          const auto& b = e["buffer"];
          std::string type = b.value("type", "uniform");
          if (b.value("hasDynamicOffset", false)) {
            dyn.dynamic.push_back(e.at("binding"));
            (type == "uniform" ? dyn.dynamic_uniform : dyn.dynamic_storage)++;
          }
          BindGroupLayoutEntry le;
          le.binding = e.at("binding");
          le.type = type == "uniform"   ? BindingType::Uniform
                    : type == "storage" ? BindingType::Storage
                    : type == "read-only-storage"
                        ? BindingType::ReadOnlyStorage
                        : throw Invalid("buffer binding type '" + type + "' is unknown");
          le.min_binding_size = b.value("minBindingSize", uint64_t(0));
          d.entries.push_back(le);
        }
        // WebGPU checks a layout against the per-pipeline-layout limits too.
        check_dynamic_limits(dyn.dynamic_uniform, dyn.dynamic_storage);
        std::sort(dyn.dynamic.begin(), dyn.dynamic.end());
        layout = device_.create_bind_group_layout(d);
      },
      &why);
  dyn.layout = layout;
  if (ok)
    put(m.at("id"), std::move(dyn));
  else
    put(m.at("id"), InvalidObj{why});
}

void Server::create_pipeline_layout(const json& m) {
  std::string why;
  PipelineLayoutObj p;
  bool ok = guarded(
      [&] {
        uint32_t uniform = 0, storage = 0;
        for (const auto& g : m.at("bindGroupLayouts")) {
          const auto& l = get<LayoutObj>(g, "bind group layout");
          p.groups.push_back(l.layout);
          p.dynamic.push_back(l.dynamic);
          uniform += l.dynamic_uniform;
          storage += l.dynamic_storage;
        }
        check_dynamic_limits(uniform, storage);
        if (p.groups.size() > device_.limits().max_bind_groups)
          throw Invalid("pipeline layout has more bind group layouts than maxBindGroups");
      },
      &why);
  if (ok)
    put(m.at("id"), std::move(p));
  else
    put(m.at("id"), InvalidObj{why});
}

json diagnostics_json(const std::vector<wgsl::Diagnostic>& ds) {
  json out = json::array();
  for (const auto& d : ds)
    out.push_back({{"type", d.severity},
                   {"message", d.message + " [" + d.rule + "]"},
                   {"lineNum", d.line},
                   {"linePos", d.col},
                   {"rule", d.rule}});
  return out;
}

// Rules of the front end that mean "this implementation cannot", not "the WGSL is invalid".
bool is_limitation(const std::string& rule) { return rule == "unsupported" || rule == "limit"; }

void Server::create_shader_module(const json& m) {
  ModuleObj mod;
  mod.source = m.at("code");
  mod.label = m.value("label", "");
  // getCompilationInfo's messages: the errors, then the warnings and infos (which do not fail it).
  std::vector<wgsl::Diagnostic> warnings;
  try {
    Timer tm("check_module", mod.source.size());
    wgsl::check_module(mod.source, mod.label.empty() ? "shader.wgsl" : mod.label, &warnings);
    mod.messages = diagnostics_json(warnings);
  } catch (const wgsl::Error& e) {
    mod.messages = diagnostics_json(e.diagnostics);
    for (auto& w : diagnostics_json(warnings)) mod.messages.push_back(std::move(w));
    mod.error = e.what();
    bool limitation = false;
    for (const auto& d : e.diagnostics) limitation |= is_limitation(d.rule);
    if (limitation)
      not_implemented("not implemented in wgslvk: WGSL front end: " + mod.error);
    else
      report(ErrorKind::Validation, mod.error);
  } catch (const std::exception& e) {
    mod.error = e.what();
    report(ErrorKind::Internal, std::string("WGSL front end: ") + e.what());
  }
  put(m.at("id"), std::move(mod));
}

std::shared_ptr<OwnedKernel> Server::compile(const ModuleObj& mod, const json& m) {
  wgsl::TranslateOptions o;
  o.file_name = mod.label.empty() ? "shader.wgsl" : mod.label;
  o.entry_point = m.value("entryPoint", "");
  if (m.contains("constants"))
    for (const auto& [k, v] : m["constants"].items()) o.constants[k] = v.get<double>();
  // The same module, entry point and constants again (zero_init's "fill" pipeline, 15 times a
  // case): the kernel translated from them before, without translating again (the front end is
  // deterministic; only successes are kept). WGSLVK_SERVE_DUMP dumps every pipeline, so it
  // bypasses this.
  const bool dump = std::getenv("WGSLVK_SERVE_DUMP") != nullptr;
  std::string source_key = o.file_name + '\n' + o.entry_point + '\n';
  for (const auto& [k, v] : o.constants) {
    char num[40];
    std::snprintf(num, sizeof num, "%.17g", v);
    source_key += k + '=' + num + '\n';
  }
  source_key += '\n' + mod.source;
  if (!dump)
    if (const auto* k = source_cache_.find(source_key)) return *k;
  wgsl::TranslatedEntry t;
  try {
    Timer tm("translate", mod.source.size());
    t = wgsl::translate_to_glsl(mod.source, o);
  } catch (const wgsl::Error& e) {
    for (const auto& d : e.diagnostics)
      if (is_limitation(d.rule)) throw NotImplemented(std::string("WGSL front end: ") + e.what());
    throw Invalid(e.what());
  }
  if (const char* dir = std::getenv("WGSLVK_SERVE_DUMP")) {
    // Triage: the WGSL and the GLSL the front end wrote for every pipeline, numbered.
    static int n = 0;
    std::string base = std::string(dir) + "/" + std::to_string(++n) + "_" + t.entry_point;
    std::ofstream(base + ".wgsl") << mod.source;
    std::ofstream(base + ".comp") << t.glsl;
  }
  // Compiled kernels by GLSL text: the CTS creates many pipelines whose WGSL differs but whose
  // GLSL does not (a faceForward file: 114 pipelines, 7 distinct GLSL texts), and glslang +
  // spirv-val are the costly part here. A pipeline still gets a ComputePipeline of its own
  // (WebGPU: a "auto" layout is its pipeline's alone).
  const std::string key = o.file_name + '\n' + t.entry_point + '\n' + t.glsl;
  auto remember = [&](const std::shared_ptr<OwnedKernel>& k) {
    if (dump) return;
    source_cache_.put(std::move(source_key), k);
  };
  if (auto it = kernel_cache_.find(key); it != kernel_cache_.end()) {
    remember(it->second);
    return it->second;
  }
  auto k = std::make_shared<OwnedKernel>();
  k->name = t.entry_point;
  k->wgsl_file = o.file_name;
  k->wgsl = mod.source;
  // The hand port's path minus the ABI check: the check compares a hand port with the WGSL
  // declaration reader, while here both sides come from the front end's one parse. A failure
  // below is the front end's bug (its GLSL does not compile), reported as an internal error.
  translator::CompileOptions co;
  co.kernel = "cts/" + t.entry_point;
  co.source_path = o.file_name;
  co.optimize = false;
  translator::CompiledModule cm;
  try {
    Timer tm("glslang+spirv-val", t.glsl.size());
    cm = translator::compile_glsl(t.glsl, co);
  } catch (const translator::Error& e) {
    throw std::runtime_error(
        std::string("wgslvk WGSL front end wrote GLSL that does not compile: ") + e.what());
  }
  translator::Reflection r;
  {
    Timer tm("reflect", cm.spirv.size() * 4);
    r = translator::reflect(cm.spirv);
  }
  k->glsl = cm.expanded_source;
  k->spirv = std::move(cm.spirv);
  for (const auto& b : r.bindings) {
    KernelBinding kb;
    kb.group = b.group;
    kb.binding = b.binding;
    kb.type = b.type;
    kb.name = k->strings.emplace_back(b.glsl_name);
    kb.wgsl_type = k->strings.emplace_back(b.block.wgsl());
    kb.glsl_name = kb.name;
    kb.min_binding_size = b.min_binding_size;
    kb.array_stride = b.array_stride;
    kb.statically_used = b.statically_used;
    k->bindings.push_back(kb);
  }
  KernelInfo& info = k->info;
  info.file = k->file;
  info.name = k->name;
  info.wgsl_file = k->wgsl_file;
  info.workgroup_size = r.workgroup_size;
  info.workgroup_storage_bytes = r.workgroup_storage_bytes;
  info.needs_shader_f16 = r.needs_shader_f16 || t.uses_f16;
  info.needs_float_atomics = r.needs_float_atomics;
  info.bindings = k->bindings;
  info.spirv = k->spirv;
  info.glsl_source = k->glsl;
  info.wgsl_source = k->wgsl;
  if (kernel_cache_.size() >= kKernelCacheSize) kernel_cache_.clear();  // bounded memory
  kernel_cache_.emplace(key, k);
  remember(k);
  return k;
}

void Server::create_compute_pipeline(const json& m, bool async) {
  std::string why;
  PipelineObj p;
  bool internal = false;
  bool ok = guarded(
      [&] {
        const auto& mod = get<ModuleObj>(m.at("module"), "shader module");
        if (!mod.error.empty()) throw Invalid("the shader module is invalid: " + mod.error);
        try {
          p.kernel = compile(mod, m);
        } catch (const std::runtime_error& e) {
          if (dynamic_cast<const Invalid*>(&e) || dynamic_cast<const NotImplemented*>(&e)) throw;
          internal = true;
          throw;
        }
        ComputePipelineDescriptor d;
        d.label = m.value("label", "");
        d.kernel = &p.kernel->info;
        if (m.at("layout") != "auto") {
          auto& pl = get<PipelineLayoutObj>(m.at("layout"), "pipeline layout");
          d.layout = pl.groups;
          p.dynamic = pl.dynamic;
          // The runtime's "empty means auto": an explicit empty layout is still explicit.
          if (d.layout.empty()) {
            for (const auto& b : p.kernel->bindings)
              if (b.statically_used)
                throw Invalid("shader binding @group(" + std::to_string(b.group) + ") @binding(" +
                              std::to_string(b.binding) +
                              ") is not in the explicit (empty) pipeline layout");
          }
        } else {
          // layout "auto": no dynamic offsets in any group the shader uses.
          for (const auto& b : p.kernel->bindings)
            if (b.group >= p.dynamic.size()) p.dynamic.resize(b.group + 1);
        }
        std::string key = std::to_string(reinterpret_cast<uintptr_t>(p.kernel.get()));
        if (m.at("layout") == "auto") {
          key += " auto";
        } else {
          for (const auto& g : d.layout) {
            key += " |";
            for (const auto& e : g.entries())
              key += ' ' + std::to_string(e.binding) + ':' + std::to_string(int(e.type)) + ':' +
                     std::to_string(e.min_binding_size);
          }
        }
        if (const auto* hit = pipeline_cache_.find(key)) {
          p.pipeline = hit->second;
          return;
        }
        Timer tm("vkCreateComputePipelines", p.kernel->spirv.size() * 4);
        p.pipeline = device_.create_compute_pipeline(d);
        pipeline_cache_.put(std::move(key), std::make_pair(p.kernel, p.pipeline));
      },
      &why);
  if (ok)
    put(m.at("id"), std::move(p));
  else
    put(m.at("id"), InvalidObj{why});
  if (async) {
    if (ok)
      reply(m, json::object());
    else
      reply(m, {{"error",
                 {{"name", "GPUPipelineError"},
                  {"reason", internal ? "internal" : "validation"},
                  {"message", why}}}});
  }
}

void Server::create_bind_group(const json& m) {
  std::string why;
  BindGroupObj g;
  bool ok = guarded(
      [&] {
        BindGroupDescriptor d;
        d.label = m.value("label", "");
        const auto& lo = get<LayoutObj>(m.at("layout"), "bind group layout");
        d.layout = lo.layout;
        g.dynamic = lo.dynamic;
        for (const auto& e : m.at("entries")) {
          if (!e.contains("buffer"))
            throw NotImplemented("bind group entries other than buffers (binding " +
                                 std::to_string(int(e.at("binding"))) + ")");
          const uint64_t bid = e["buffer"];
          auto& b = get<BufferObj>(bid, "buffer");
          BindGroupEntry be;
          be.binding = e.at("binding");
          be.buffer = b.buffer;
          be.offset = e.value("offset", uint64_t(0));
          if (e.contains("size") && !e["size"].is_null()) be.size = e["size"].get<uint64_t>();
          d.entries.push_back(be);
          g.buffers.push_back(bid);
          g.buffer_sizes.push_back(b.size);
          bool uniform = false;
          for (const auto& le : lo.layout.entries())
            if (le.binding == be.binding) uniform = le.type == BindingType::Uniform;
          g.uniform.push_back(uniform);
        }
        g.group = device_.create_bind_group(d);
        if (!g.dynamic.empty()) g.descriptor = std::move(d);
      },
      &why);
  if (ok)
    put(m.at("id"), std::move(g));
  else
    put(m.at("id"), InvalidObj{why});
}

// setBindGroup's dynamic offsets (WebGPU's rules): one per dynamic entry, in binding order, each
// a multiple of the binding type's minimum offset alignment, the moved range inside the buffer.
BindGroup Server::dynamic_group(BindGroupObj& g, const std::vector<uint32_t>& offsets) {
  if (offsets.size() != g.dynamic.size())
    throw Invalid("setBindGroup: " + std::to_string(offsets.size()) +
                  " dynamic offsets given, the bind group's layout has " +
                  std::to_string(g.dynamic.size()) + " dynamic entries");
  if (offsets.empty()) return g.group;
  auto it = g.moved.find(offsets);
  if (it != g.moved.end()) return it->second;
  BindGroupDescriptor d = g.descriptor;
  for (size_t i = 0; i < d.entries.size(); i++) {
    auto& be = d.entries[i];
    auto k = std::find(g.dynamic.begin(), g.dynamic.end(), be.binding);
    if (k == g.dynamic.end()) continue;
    const uint64_t off = offsets[size_t(k - g.dynamic.begin())];
    const uint32_t align = g.uniform[i] ? device_.limits().min_uniform_buffer_offset_alignment
                                        : device_.limits().min_storage_buffer_offset_alignment;
    if (off % align)
      throw Invalid(
          "setBindGroup: dynamic offset " + std::to_string(off) + " of binding " +
          std::to_string(be.binding) + " is not a multiple of " +
          (g.uniform[i] ? "minUniformBufferOffsetAlignment" : "minStorageBufferOffsetAlignment") +
          " (" + std::to_string(align) + ")");
    const uint64_t size = be.size ? *be.size : g.buffer_sizes[i] - be.offset;
    if (be.offset + off + size > g.buffer_sizes[i])
      throw Invalid("setBindGroup: binding " + std::to_string(be.binding) + " at offset " +
                    std::to_string(be.offset) + " + dynamic offset " + std::to_string(off) +
                    " with size " + std::to_string(size) + " is past the end of its buffer (" +
                    std::to_string(g.buffer_sizes[i]) + " bytes)");
    be.offset += off;
    be.size = size;
  }
  BindGroup b = device_.create_bind_group(d);
  if (g.moved.size() < 64) g.moved.emplace(offsets, b);
  return b;
}

// The dynamic entries are part of a layout's identity in WebGPU (a group made with a dynamic
// layout does not fit a pipeline whose layout has none), which the runtime does not see.
void Server::check_dynamic_layouts(const EncoderObj& e, const std::string& op) {
  for (const auto& [i, dyn] : e.group_dynamic) {
    if (i >= e.pipeline_dynamic.size()) continue;  // a group the pipeline does not use
    if (dyn != e.pipeline_dynamic[i])
      throw Invalid(op + ": the bind group at index " + std::to_string(i) +
                    " has a layout whose dynamic offsets differ from the pipeline layout's");
  }
}

// ---- command encoders and passes ----------------------------------------------------------------

void Server::encoder_op(const json& m) {
  const std::string op = m.at("op");
  if (op == "createCommandEncoder") {
    EncoderObj e;
    guarded([&] {
      CommandEncoderDescriptor d;
      d.label = m.value("label", "");
      e.encoder = device_.create_command_encoder(d);
    });
    put(m.at("id"), std::move(e));
    return;
  }
  // Every other encoder/pass call: an error is recorded in the encoder and reported at finish.
  uint64_t enc_id = m.at("encoder");
  Object& o = lookup(enc_id);
  auto* e = std::get_if<EncoderObj>(&o);
  if (!e) {
    if (op == "finish") put(m.at("id"), InvalidObj{"the command encoder is invalid"});
    if (op == "beginComputePass") put(m.at("id"), PassObj{enc_id, false});
    return;
  }
  if (op == "finish") {
    std::string why = e->error;
    if (why.empty() && e->finished) why = "the command encoder is already finished";
    if (why.empty() && e->pass) why = "finish() with a compute pass still open";
    CommandBufferObj cb;
    if (why.empty()) {
      guarded(
          [&] {
            cb.segments = std::move(e->done);
            cb.segments.push_back(e->encoder.finish());
          },
          &why);
    } else {
      report(e->error_internal ? ErrorKind::Internal : ErrorKind::Validation, why);
    }
    e->finished = true;
    cb.buffers = std::move(e->buffers);
    cb.kernels = std::move(e->kernels);
    if (why.empty())
      put(m.at("id"), std::move(cb));
    else
      put(m.at("id"), InvalidObj{why});
    return;
  }
  if (op == "beginComputePass") put(m.at("id"), PassObj{enc_id, false});
  if (e->finished) {
    // WebGPU: a call on a finished encoder is a validation error of the device right away.
    report(ErrorKind::Validation, op + ": the command encoder is already finished");
    return;
  }
  if (!e->error.empty()) return;
  auto record = [&](auto&& f) {
    try {
      f();
    } catch (const NotImplemented& x) {
      e->error = x.what();
      e->error_internal = true;
      event({{"ev", "notimplemented"}, {"message", x.what()}});
    } catch (const std::exception& x) { e->error = x.what(); }
  };
  record([&] {
    if (op == "beginComputePass") {
      if (e->pass) throw Invalid("beginComputePass with a pass already open");
      if (m.contains("timestampWrites")) throw NotImplemented("compute pass timestampWrites");
      ComputePassDescriptor d;
      d.label = m.value("label", "");
      e->pass = e->encoder.begin_compute_pass(d);
      e->pass_id = m.at("id");
      e->pass_label = d.label;
      e->pipeline = {};
      e->groups.clear();
    } else if (op == "copyBufferToBuffer") {
      auto& src = get<BufferObj>(m.at("src"), "source buffer");
      auto& dst = get<BufferObj>(m.at("dst"), "destination buffer");
      if (!(src.usage & kUsageCopySrc)) throw Invalid("copyBufferToBuffer: source lacks COPY_SRC");
      if (!(dst.usage & kUsageCopyDst))
        throw Invalid("copyBufferToBuffer: destination lacks COPY_DST");
      if (m.at("src") == m.at("dst"))
        throw Invalid("copyBufferToBuffer: source and destination are the same buffer");
      e->encoder.copy_buffer_to_buffer(src.buffer, m.at("srcOffset"), dst.buffer, m.at("dstOffset"),
                                       m.at("size"));
      e->buffers.push_back(m.at("src"));
      e->buffers.push_back(m.at("dst"));
    } else if (op == "clearBuffer") {
      auto& b = get<BufferObj>(m.at("buffer"), "buffer");
      if (!(b.usage & kUsageCopyDst)) throw Invalid("clearBuffer: the buffer lacks COPY_DST");
      std::optional<uint64_t> size;
      if (m.contains("size") && !m["size"].is_null()) size = m["size"].get<uint64_t>();
      e->encoder.clear_buffer(b.buffer, m.value("offset", uint64_t(0)), size);
      e->buffers.push_back(m.at("buffer"));
    } else if (op == "end") {
      if (!e->pass || e->pass_id != m.at("pass")) throw Invalid("end(): the pass is not open");
      e->pass->end();
      e->pass.reset();
    } else {
      if (!e->pass || e->pass_id != m.at("pass"))
        throw Invalid(op + ": the compute pass is not open");
      if (op == "setPipeline") {
        auto& p = get<PipelineObj>(m.at("pipeline"), "compute pipeline");
        e->pass->set_pipeline(p.pipeline);
        e->pipeline = p.pipeline;
        e->pipeline_dynamic = p.dynamic;
        e->kernels.push_back(p.kernel);
      } else if (op == "setBindGroup") {
        if (m.at("group").is_null()) throw NotImplemented("setBindGroup(index, null)");
        auto& g = get<BindGroupObj>(m.at("group"), "bind group");
        std::vector<uint32_t> offsets;
        if (m.contains("dynamicOffsets"))
          for (const auto& o : m["dynamicOffsets"]) offsets.push_back(o.get<uint32_t>());
        BindGroup bound = dynamic_group(g, offsets);
        e->pass->set_bind_group(m.at("index"), bound);
        e->groups[m.at("index")] = bound;
        e->group_dynamic[m.at("index")] = g.dynamic;
        for (auto b : g.buffers) e->buffers.push_back(b);
      } else if (op == "dispatchWorkgroups") {
        check_dynamic_layouts(*e, op);
        e->pass->dispatch_workgroups(m.at("x"), m.value("y", 1u), m.value("z", 1u));
      } else if (op == "dispatchWorkgroupsIndirect") {
        check_dynamic_layouts(*e, op);
        auto& b = get<BufferObj>(m.at("buffer"), "indirect buffer");
        const uint64_t offset = m.at("offset");
        if (!(b.usage & kUsageIndirect))
          throw Invalid("dispatchWorkgroupsIndirect: [Buffer \"" + b.label + "\"] lacks INDIRECT");
        if (offset % 4 || offset > b.size || b.size - offset < 12)
          throw Invalid("dispatchWorkgroupsIndirect: offset " + std::to_string(offset) +
                        " is not a multiple of 4 or leaves less than 12 bytes of [Buffer \"" +
                        b.label + "\"]");
        // Every dispatch-time rule (pipeline, groups, R7, R11), checked by an empty dispatch.
        e->pass->dispatch_workgroups(0, 0, 0);
        e->buffers.push_back(m.at("buffer"));
        e->pass->end();
        e->done.push_back(e->encoder.finish());
        e->done.push_back(IndirectDispatch{e->pipeline, e->groups, b.buffer, offset});
        e->encoder = device_.create_command_encoder({});
        ComputePassDescriptor d;
        d.label = e->pass_label;
        e->pass = e->encoder.begin_compute_pass(d);
        if (e->pipeline) e->pass->set_pipeline(e->pipeline);
        for (const auto& [i, g] : e->groups) e->pass->set_bind_group(i, g);
      } else {
        throw NotImplemented("compute pass call " + op);
      }
    }
  });
}

void Server::submit(const json& m) {
  guarded([&] {
    std::vector<Segment> segments;
    for (const auto& id : m.at("commandBuffers")) {
      auto& cb = get<CommandBufferObj>(id, "command buffer");
      if (cb.submitted) throw Invalid("submit: a command buffer was already submitted");
      for (auto bid : cb.buffers) {
        // A buffer the client released can no longer be destroyed or mapped.
        auto it = objects_.find(bid);
        if (it == objects_.end() || !std::holds_alternative<BufferObj>(it->second)) continue;
        auto& b = std::get<BufferObj>(it->second);
        if (b.destroyed)
          throw Invalid("submit: [Buffer \"" + b.label + "\"] used in a command is destroyed");
        if (b.mapped)
          throw Invalid("submit: [Buffer \"" + b.label + "\"] used in a command is mapped");
      }
      segments.insert(segments.end(), cb.segments.begin(), cb.segments.end());
    }
    for (const auto& id : m.at("commandBuffers")) get<CommandBufferObj>(id, "").submitted = true;
    std::vector<CommandBuffer> run;
    auto flush = [&] {
      if (!run.empty()) device_.queue().submit(run);
      run.clear();
    };
    for (auto& seg : segments) {
      if (auto* cb = std::get_if<CommandBuffer>(&seg)) {
        run.push_back(*cb);
        continue;
      }
      flush();
      auto& d = std::get<IndirectDispatch>(seg);
      // read_buffer runs after everything submitted so far, so it sees the counts they wrote.
      auto bytes = device_.read_buffer(d.buffer, d.offset, 12);
      uint32_t xyz[3];
      std::memcpy(xyz, bytes.data(), 12);
      const uint32_t max = device_.limits().max_compute_workgroups_per_dimension;
      // WebGPU: an indirect dispatch with a count above the limit does nothing.
      if (xyz[0] > max || xyz[1] > max || xyz[2] > max) continue;
      auto enc = device_.create_command_encoder({});
      auto pass = enc.begin_compute_pass({});
      pass.set_pipeline(d.pipeline);
      for (const auto& [i, g] : d.groups) pass.set_bind_group(i, g);
      pass.dispatch_workgroups(xyz[0], xyz[1], xyz[2]);
      pass.end();
      run.push_back(enc.finish());
      flush();
    }
    flush();
  });
}

// ---- dispatch -------------------------------------------------------------------------------------

void Server::handle(const json& m) {
  const std::string op = m.at("op");
  if (op == "adapter") {
    instance_ = Instance::create();
    adapter_ = instance_.select_adapter(selector_);
    const AdapterInfo& i = adapter_.info();
    json features = json::array();
    for (Feature f : adapter_.features())
      if (f != Feature::Float32AtomicAdd) features.push_back(std::string(feature_name(f)));
    // WGSLVK_SERVE_NO_SUBGROUPS=1: the adapter without "subgroups" (as before it was offered).
    subgroups_ = std::getenv("WGSLVK_SERVE_NO_SUBGROUPS") ? SubgroupSupport{} : query_subgroups(i);
    if (subgroups_.ok) features.push_back("subgroups");
    reply(m, {{"name", i.name},
              {"subgroupMinSize", subgroups_.min_size},
              {"subgroupMaxSize", subgroups_.max_size},
              {"driver", i.driver},
              {"vendorId", i.vendor_id},
              {"deviceId", i.device_id},
              {"type", std::string(adapter_type_name(i.type))},
              {"limits", limits_json(adapter_.limits())},
              {"features", features}});
    return;
  }
  if (op == "requestDevice") {
    try {
      DeviceDescriptor d;
      d.label = m.value("label", "");
      for (const auto& f : m.value("requiredFeatures", json::array())) {
        std::string name = f;
        if (name == "subgroups" && subgroups_.ok) continue;  // nothing to enable in Vulkan
        std::optional<Feature> feat;
        for (Feature x : adapter_.features())
          if (feature_name(x) == name) feat = x;
        if (!feat) throw Invalid("requiredFeatures: the adapter does not support \"" + name + "\"");
        d.required_features.push_back(*feat);
      }
      // Held here: items() of the temporary value() returns would outlive it in the loop.
      const json required_limits = m.value("requiredLimits", json::object());
      for (const auto& [k, v] : required_limits.items()) {
        if (v.is_null()) continue;
        const Limit* lim = nullptr;
        for (const auto& l : kLimits)
          if (k == l.name) lim = &l;
        if (!lim) {
          // A WebGPU limit wgslvk does not model (textures, vertex buffers, ...): accepted when it
          // asks no more than WebGPU's default, which the client checked.
          continue;
        }
        std::visit(
            [&](auto field) {
              using T = std::remove_reference_t<decltype(d.required_limits.*field)>;
              d.required_limits.*field = T(v.get<uint64_t>());
            },
            lim->field);
      }
      device_ = adapter_.request_device(d);
      reply(m, {{"limits", limits_json(device_.limits())}});
    } catch (const std::exception& e) { reply_error(m, "OperationError", e.what()); }
    return;
  }
  if (!device_) {
    if (m.contains("r")) reply_error(m, "OperationError", "no device: requestDevice first");
    return;
  }
  if (op == "pushErrorScope") {
    std::string f = m.at("filter");
    scopes_.push_back({f == "validation"      ? ErrorKind::Validation
                       : f == "out-of-memory" ? ErrorKind::OutOfMemory
                                              : ErrorKind::Internal,
                       std::nullopt});
  } else if (op == "popErrorScope") {
    if (scopes_.empty()) {
      reply_error(m, "OperationError", "popErrorScope: the error scope stack is empty");
      return;
    }
    Scope s = scopes_.back();
    scopes_.pop_back();
    if (s.error)
      reply(m, {{"error", {{"kind", kind_name(s.error->first)}, {"message", s.error->second}}}});
    else
      reply(m, {{"error", nullptr}});
  } else if (op == "createBuffer") {
    create_buffer(m);
  } else if (op == "destroyBuffer") {
    if (auto* b = std::get_if<BufferObj>(&lookup(m.at("id")))) {
      b->destroyed = true;
      b->mapped = false;
    }
  } else if (op == "mapAsync") {
    map_async(m);
  } else if (op == "unmap") {
    unmap(m);
  } else if (op == "writeBuffer") {
    write_buffer(m);
  } else if (op == "createBindGroupLayout") {
    create_bind_group_layout(m);
  } else if (op == "createPipelineLayout") {
    create_pipeline_layout(m);
  } else if (op == "createShaderModule") {
    create_shader_module(m);
  } else if (op == "getCompilationInfo") {
    auto* mod = std::get_if<ModuleObj>(&lookup(m.at("id")));
    reply(m, {{"messages", mod ? mod->messages : json::array()}});
  } else if (op == "createComputePipeline") {
    create_compute_pipeline(m, m.contains("r"));
  } else if (op == "getBindGroupLayout") {
    std::string why;
    LayoutObj l;
    bool ok = guarded(
        [&] {
          const auto& p = get<PipelineObj>(m.at("pipeline"), "compute pipeline");
          const uint32_t index = m.at("index");
          l.layout = p.pipeline.get_bind_group_layout(index);
          // An explicit layout's group keeps its dynamic entries.
          if (index < p.dynamic.size()) l.dynamic = p.dynamic[index];
        },
        &why);
    if (ok)
      put(m.at("id"), std::move(l));
    else
      put(m.at("id"), InvalidObj{why});
  } else if (op == "createBindGroup") {
    create_bind_group(m);
  } else if (op == "createCommandEncoder" || op == "finish" || op == "beginComputePass" ||
             op == "end" || op == "setPipeline" || op == "setBindGroup" ||
             op == "dispatchWorkgroups" || op == "dispatchWorkgroupsIndirect" ||
             op == "copyBufferToBuffer" || op == "clearBuffer") {
    encoder_op(m);
  } else if (op == "submit") {
    submit(m);
  } else if (op == "onSubmittedWorkDone") {
    guarded([&] { device_.queue().on_submitted_work_done(); });
    reply(m, json::object());
  } else if (op == "release") {
    // The client's object was garbage-collected: nothing can name it any more.
    objects_.erase(m.at("id").get<uint64_t>());
  } else if (op == "destroyDevice") {
    guarded([&] { device_.queue().on_submitted_work_done(); });
    destroyed_ = true;
    objects_.clear();
    pipeline_cache_.clear();
  } else if (op == "reportError") {
    // A rule the client checks itself (a second mapAsync on a buffer being mapped), reported
    // through the device's scopes like every other error.
    report(ErrorKind::Validation, m.at("message"));
  } else if (op == "notImplemented") {
    // The client refused a call itself (textures, render pipelines, ...); counted here too so a
    // server log has every refusal.
    not_implemented(m.at("message"));
  } else {
    not_implemented("not implemented in wgslvk: " + op);
  }
}

int Server::run() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json m;
    try {
      m = json::parse(line);
    } catch (const json::exception& e) {
      event({{"ev", "protocol"}, {"message", std::string("not JSON: ") + e.what()}});
      continue;
    }
    if (m.value("op", "") == "exit") break;
    try {
      const auto t0 = std::chrono::steady_clock::now();
      handle(m);
      if (timing_) {
        std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
        auto& [n, sum, max] = op_time_[m.value("op", "")];
        n++;
        sum += d.count();
        max = std::max(max, d.count());
      }
      // Under WGSLVK_VALIDATION=1 a Khronos validation layer message is wgslvk's bug: reported
      // as an internal error, so the CTS case that caused it fails.
      if (instance_ && instance_.validation_enabled())
        for (const auto& msg : instance_.take_validation_messages())
          report(ErrorKind::Internal, "Vulkan validation layer: " + msg);
    } catch (const std::exception& e) {
      // A request that did not even name its objects: answer it if it waits, never hang it.
      if (m.contains("r"))
        reply_error(m, "OperationError", e.what());
      else
        report(ErrorKind::Validation, e.what());
    }
  }
  if (timing_) {
    for (const auto& [op, t] : op_time_)
      std::fprintf(stderr, "serve-timing-op %s n=%lu sum=%.3fs max=%.3fs\n", op.c_str(),
                   std::get<0>(t), std::get<1>(t), std::get<2>(t));
    // The whole process (lavapipe's worker threads included): what a CTS speed run adds up.
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::fprintf(stderr, "serve-cpu user=%.3f sys=%.3f\n",
                 double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) * 1e-6,
                 double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) * 1e-6);
  }
  return 0;
}

int run_serve(const std::vector<std::string>& args_in) {
  if (wants_help(args_in, kServe)) return 0;
  std::vector<std::string> args = args_in;
  auto selector = take_device_flag(args);
  if (!args.empty()) {
    std::fprintf(stderr, "wgslvk serve: unknown argument '%s'\n%s", args[0].c_str(),
                 kUsage.c_str());
    return 2;
  }
  Server s(selector);
  return s.run();
}

}  // namespace
}  // namespace wgslvk::cli

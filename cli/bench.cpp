// wgslvk bench: device time of every ported kernel over a sweep of sizes, its effective bandwidth
// from the kernel's minimum byte count (bench/bench_util.hpp), and the share of the copy roofline
// measured by wgslvk_util/copy_vec4 over the same number of bytes in the same run; then the whole
// optimizer step on the 111-tensor layout of shared/anchors.md, multi-tensor against per-tensor,
// with a profile table in the seed's format (shared/seeds/000, "Performance").
//
// Timing: each repeat is one compute pass with WebGPU pass timestamps (timestamp_writes), all
// repeats in one command buffer after a warm-up submit; the median of the repeats is reported.
// Every kernel's output is checked against a CPU reference once before it is timed.
#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../bench/bench_util.hpp"
#include "../bench/png.hpp"
#include "command.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::cli {
namespace {

using nlohmann::json;
using namespace wgslvk::bench;

constexpr std::string_view kUsage = R"(usage: wgslvk bench [options]

Times every ported kernel over a sweep of sizes (device timestamps, median of the repeats after a
warm-up), reports effective bandwidth from each kernel's minimum byte count and its share of the
copy roofline (wgslvk_util/copy_vec4 over the same bytes, same run), then the whole optimizer step
on the 111-tensor, 110M-parameter layout: multi-tensor (2 update dispatches) against per-tensor
(111), for fp32, the f16 mirror and 8-bit state.

options:
  --device SEL     adapter index or name substring (default: WGSLVK_DEVICE, else the first GPU)
  --quick          small sizes and 5 repeats (lavapipe / CI smoke; numbers meaningless)
  --reps N         timed repeats per measurement (default 25; --quick 5)
  --warmup N       untimed repeats before timing (default 3), and at least
  --warm-ms MS     MS milliseconds of busy warm-up per measurement (default 200; --quick 0)
  --only LIST      comma-separated kernel names or groups (optimizer, embedding, step, norm:
                   every gradient-norm row, seed CAS and two-level)
  --json FILE      write every number as JSON
  --png FILE       plot bandwidth against bytes per kernel, with the copy roofline
  --dump DIR       write the inputs and outputs of the correctness checks (raw little-endian
                   binaries + case.json) for bench/peers/dawn_bench.mjs --compare
  --max-elems N    cap on the optimizer sweep (elements)
  --opt            run the spirv-opt output of the bench's own pipelines (the optimizer API's
                   step rows keep glslang's output)
)";

// ---- options -------------------------------------------------------------------------------------

struct Options {
  std::optional<std::string> device;
  bool quick = false;
  int reps = 25, warmup = 3;
  double warm_ms = 200;  // minimum busy warm-up per measurement
  std::set<std::string> only;
  std::string json_path, png_path, dump_dir;
  uint64_t max_elems = 0;
  bool reps_set = false;
};

bool selected(const Options& o, std::string_view group, std::string_view name) {
  if (o.only.empty()) return true;
  return o.only.count(std::string(group)) || o.only.count(std::string(name));
}

// ---- context -------------------------------------------------------------------------------------

struct Ctx {
  Options opt;
  Instance instance;
  Adapter adapter;
  Device dev;
  json out;
  // copy roofline: buffers sized for the largest request, bound as sub-ranges
  ComputePipeline copy_pipe;
  Buffer copy_src, copy_dst, copy_n;
  uint64_t copy_max_half = 0;  // largest src (= dst) range in bytes
  std::map<uint32_t, std::pair<Buffer, BindGroup>> copy_slots;  // vec4 count -> uniform, group
  std::vector<std::string> notes;
};

Buffer make_buffer(Device& d, const std::string& label, uint64_t size, uint32_t usage) {
  return d.create_buffer({label, align_up(std::max<uint64_t>(size, 4), 4), usage});
}
constexpr uint32_t kStorage = kUsageStorage | kUsageCopyDst | kUsageCopySrc;
constexpr uint32_t kUniform = kUsageUniform | kUsageCopyDst;

Buffer uniform_buffer(Device& d, const std::string& label, const void* data, uint64_t size) {
  Buffer b = make_buffer(d, label, std::max<uint64_t>(size, 16), kUniform);
  std::vector<uint8_t> bytes(b.size(), 0);
  std::memcpy(bytes.data(), data, size);
  d.write_buffer(b, 0, bytes.data(), bytes.size());
  return b;
}

// Buffers for a kernel's bindings, keyed by binding number: the seed's ABI tables fix the numbers
// (names in reflection may be GLSL names). Only the bindings the pipeline's (auto) layout holds
// are used.
struct Bound {
  Bound() = default;
  Bound(Buffer b, uint64_t o = 0, std::optional<uint64_t> s = std::nullopt)
      : buffer(std::move(b)), offset(o), size(s) {}
  Buffer buffer;
  uint64_t offset = 0;
  std::optional<uint64_t> size;
};
using Bindings = std::map<uint32_t, Bound>;

BindGroup make_group(Device& d, const ComputePipeline& pipe, const Bindings& by_binding,
                     const std::string& label) {
  const KernelInfo& k = pipe.kernel();
  BindGroupLayout layout = pipe.get_bind_group_layout(0);
  BindGroupDescriptor desc{label, layout, {}};
  for (const auto& e : layout.entries()) {
    auto it = by_binding.find(e.binding);
    if (it == by_binding.end()) {
      const KernelBinding* kb = k.find_binding(0, e.binding);
      throw std::runtime_error("bench: no buffer for binding " + std::to_string(e.binding) +
                               " '" + std::string(kb ? kb->name : "?") + "' of " +
                               k.qualified_name());
    }
    desc.entries.push_back({e.binding, it->second.buffer, it->second.offset, it->second.size});
  }
  return d.create_bind_group(desc);
}

bool g_optimized_spirv = false;  // --opt

ComputePipeline pipeline_for(Device& d, const KernelInfo& k) {
  ComputePipelineDescriptor desc;
  desc.kernel = &k;
  desc.optimized_spirv = g_optimized_spirv;
  return d.create_compute_pipeline(desc);
}

// ---- timing --------------------------------------------------------------------------------------

using Recorder = std::function<void(ComputePass&)>;

// Warm-up: untimed repeats until at least `--warmup` of them ran AND `--warm-ms` of wall time
// passed with the GPU busy (an idle GPU drops its clocks during the host-side fills between
// measurements; a few milliseconds of warm-up do not bring them back: seen on an H200).
void warm_up(Ctx& c, const std::function<void(CommandEncoder&)>& record_one) {
  auto t0 = std::chrono::steady_clock::now();
  int done = 0, batch = std::max(c.opt.warmup, 1);
  for (;;) {
    CommandEncoder enc = c.dev.create_command_encoder("bench warmup");
    for (int i = 0; i < batch; ++i) record_one(enc);
    c.dev.submit(enc.finish());
    c.dev.wait_idle();
    done += batch;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if ((done >= c.opt.warmup && ms >= c.opt.warm_ms) || done >= 20000) break;
    batch = std::min(batch * 2, 512);
  }
}

void record_pass(CommandEncoder& enc, const Recorder& rec, const QuerySet* qs, uint32_t q) {
  ComputePassDescriptor pd{"bench", std::nullopt};
  if (qs) pd.timestamp_writes = PassTimestampWrites{*qs, q, q + 1};
  ComputePass p = enc.begin_compute_pass(pd);
  rec(p);
  p.end();
}

Stats stats_from(const std::vector<uint64_t>& ts, int reps, int stride, int first) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    uint64_t a = ts[size_t(stride * i + first)], b = ts[size_t(stride * i + first + 1)];
    if (b >= a) ms.push_back(double(b - a) * 1e-6);
  }
  if (ms.empty()) throw std::runtime_error("bench: no valid timestamps were read");
  return stats_of(ms);
}

void dispatch_1d(ComputePass& p, const Device& d, uint64_t threads, uint32_t wg = 256) {
  Grid g = grid_for_workgroups(std::max<uint64_t>(1, div_ceil(threads, wg)), d.limits());
  p.dispatch_workgroups(g.x, g.y);
}

// ---- copy roofline -------------------------------------------------------------------------------

// copy_vec4's bindings by type: the read-only array is the source, the writable one the
// destination, a uniform the vec4 count.
Bindings copy_bindings(Ctx& c, uint64_t half) {
  Bindings b;
  for (const auto& kb : c.copy_pipe.kernel().bindings) {
    if (kb.type == BindingType::ReadOnlyStorage) b[kb.binding] = {c.copy_src, 0, half};
    else if (kb.type == BindingType::Storage) b[kb.binding] = {c.copy_dst, 0, half};
    else b[kb.binding] = {c.copy_n, 0, 16};
  }
  return b;
}

// copy_vec4 over `bytes` total traffic: `bytes/2` read and `bytes/2` written, capped at the
// largest binding the device allows (bandwidth is what the roofline uses; copy_bytes says what
// was copied).
struct CopyResult {
  Stats t;
  uint64_t bytes = 0;  // traffic actually copied (read + write)
  double gbps() const { return t.median > 0 ? double(bytes) / (t.median * 1e-3) / 1e9 : 0; }
};

struct CopyRec {
  Recorder rec;
  uint64_t bytes = 0;
};
Bindings copy_bindings(Ctx& c, uint64_t half);
CopyRec copy_recorder(Ctx& c, uint64_t bytes) {
  uint64_t half = align_up(std::max<uint64_t>(bytes / 2, 16), 16);
  half = std::min(half, c.copy_max_half);
  uint32_t n4 = uint32_t(half / 16);
  // each size gets its own 16-byte uniform slot (kept for the whole run)
  auto it = c.copy_slots.find(n4);
  if (it == c.copy_slots.end()) {
    Buffer nb = make_buffer(c.dev, "copy_n", 16, kUniform);
    uint32_t nv[4] = {n4, 0, 0, 0};
    c.dev.write_buffer(nb, 0, nv, 16);
    Bindings b;
    for (const auto& kb : c.copy_pipe.kernel().bindings) {
      if (kb.type == BindingType::ReadOnlyStorage) b[kb.binding] = {c.copy_src, 0, half};
      else if (kb.type == BindingType::Storage) b[kb.binding] = {c.copy_dst, 0, half};
      else b[kb.binding] = {nb, 0, 16};
    }
    it = c.copy_slots.emplace(n4, std::make_pair(nb, make_group(c.dev, c.copy_pipe, b, "copy_vec4"))).first;
  }
  BindGroup g = it->second.second;
  uint32_t wg = c.copy_pipe.kernel().workgroup_size[0];
  Device* dev = &c.dev;
  ComputePipeline pipe = c.copy_pipe;
  return {[=](ComputePass& p) {
            p.set_pipeline(pipe);
            p.set_bind_group(0, g);
            Grid gr = grid_for_workgroups(std::max<uint64_t>(1, div_ceil(n4, wg)), dev->limits());
            p.dispatch_workgroups(gr.x, gr.y);
          },
          2 * half};
}

// The kernel and the copy roofline of the same byte count, in the same conditions: after one
// warm-up of both, `reps` pairs of passes (kernel, copy) alternate in one submission. The copy
// between kernel repeats also keeps small inputs from being served from L2 by the previous repeat.
std::pair<Stats, CopyResult> time_pair(Ctx& c, const Recorder& rec, uint64_t bytes) {
  CopyRec cr = copy_recorder(c, bytes);
  int reps = c.opt.reps;
  warm_up(c, [&](CommandEncoder& enc) {
    record_pass(enc, rec, nullptr, 0);
    record_pass(enc, cr.rec, nullptr, 0);
  });
  QuerySet qs = c.dev.create_query_set(uint32_t(4 * reps), "bench pair timestamps");
  CommandEncoder enc = c.dev.create_command_encoder("bench timed pair");
  for (int i = 0; i < reps; ++i) {
    record_pass(enc, rec, &qs, uint32_t(4 * i));
    record_pass(enc, cr.rec, &qs, uint32_t(4 * i + 2));
  }
  c.dev.submit(enc.finish());
  c.dev.wait_idle();
  auto ts = c.dev.read_timestamps(qs);
  CopyResult r;
  r.bytes = cr.bytes;
  r.t = stats_from(ts, reps, 4, 2);
  return {stats_from(ts, reps, 4, 0), r};
}

void check_copy(Ctx& c) {
  uint64_t n4 = 4099;  // odd count: exercises the tail
  uint64_t half = n4 * 16;
  std::vector<float> src(n4 * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = rand_sym(7, i);
  c.dev.write_buffer(c.copy_src, 0, src.data(), half);
  std::vector<float> poison(n4 * 4 + 4, -12345.0f);
  c.dev.write_buffer(c.copy_dst, 0, poison.data(), poison.size() * 4);
  uint32_t nv[4] = {uint32_t(n4), 0, 0, 0};
  c.dev.write_buffer(c.copy_n, 0, nv, 16);
  Bindings b = copy_bindings(c, half);
  const KernelInfo& k = c.copy_pipe.kernel();
  BindGroup g = make_group(c.dev, c.copy_pipe, b, "copy_vec4 check");
  CommandEncoder enc = c.dev.create_command_encoder();
  ComputePass p = enc.begin_compute_pass();
  p.set_pipeline(c.copy_pipe);
  p.set_bind_group(0, g);
  dispatch_1d(p, c.dev, n4, k.workgroup_size[0]);
  p.end();
  c.dev.submit(enc.finish());
  auto got = read<float>(c.dev, c.copy_dst, 0, n4 * 4 + 4);
  for (size_t i = 0; i < src.size(); ++i)
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(src[i]))
      throw std::runtime_error("bench: copy_vec4 check failed: element " + std::to_string(i) +
                               " is " + std::to_string(got[i]) + ", want " + std::to_string(src[i]));
  if (got[n4 * 4] != -12345.0f) throw std::runtime_error("bench: copy_vec4 wrote past its range");
}

// ---- result rows ---------------------------------------------------------------------------------

struct Row {
  std::string kernel, label;
  json dims;
  uint64_t bytes = 0;
  std::string bytes_rule;
  Stats t;
  CopyResult copy;
  std::string check;
  bool plot = true;  // false: JSON and table only (sweeps of one kernel's launch choices)
  double gbps() const { return t.median > 0 ? double(bytes) / (t.median * 1e-3) / 1e9 : 0; }
  double share() const { return copy.gbps() > 0 ? gbps() / copy.gbps() : 0; }
};

void print_header() {
  std::printf("%-34s %-22s %12s %10s %9s %9s %7s  %s\n", "kernel", "size", "bytes", "median_ms",
              "GB/s", "copyGB/s", "roof%", "check");
}

void print_row(const Row& r) {
  std::printf("%-34s %-22s %12llu %10.4f %9.1f %9.1f %6.1f%%  %s\n", r.kernel.c_str(),
              r.label.c_str(), (unsigned long long)r.bytes, r.t.median, r.gbps(), r.copy.gbps(),
              100 * r.share(), r.check.c_str());
  std::fflush(stdout);
}

json row_json(const Row& r) {
  return {{"kernel", r.kernel},
          {"label", r.label},
          {"dims", r.dims},
          {"bytes", r.bytes},
          {"bytes_rule", r.bytes_rule},
          {"median_ms", r.t.median},
          {"p10_ms", r.t.p10},
          {"p90_ms", r.t.p90},
          {"min_ms", r.t.min},
          {"reps", r.t.n},
          {"gbps", r.gbps()},
          {"copy_bytes", r.copy.bytes},
          {"copy_median_ms", r.copy.t.median},
          {"copy_gbps", r.copy.gbps()},
          {"roofline_share", r.share()},
          {"check", r.check},
          {"plot", r.plot}};
}

// ---- dump for the Dawn faithfulness check ---------------------------------------------------------

void dump_bytes(const std::string& dir, const std::string& name, const void* p, size_t n) {
  std::filesystem::create_directories(dir);
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f.write(static_cast<const char*>(p), std::streamsize(n));
}
template <class T>
void dump_vec(const std::string& dir, const std::string& name, const std::vector<T>& v) {
  dump_bytes(dir, name, v.data(), v.size() * sizeof(T));
}

// ---- checks --------------------------------------------------------------------------------------

bool close_f32(float got, float want, double rel, double abs_tol) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(double(got) - double(want)) <= abs_tol + rel * std::fabs(double(want));
}

}  // namespace

// Forward declarations of the sections (defined below, same file).
namespace {
void run_optimizer_kernels(Ctx& c, std::vector<Row>& rows);
void run_embedding_kernels(Ctx& c, std::vector<Row>& rows);
void run_step(Ctx& c);
void write_png(const Ctx& c, const std::vector<Row>& rows, const std::string& path);
}  // namespace

int run_bench(const std::vector<std::string>& args);
static const Command kBench{"bench", "time every kernel against the copy roofline", kUsage,
                            run_bench};

int run_bench(const std::vector<std::string>& args) {
  if (wants_help(args, kBench)) return 0;
  Ctx c;
  bool warm_set = false;
  for (size_t i = 0; i < args.size(); ++i) {
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    const std::string& a = args[i];
    if (a == "--device") c.opt.device = next();
    else if (a == "--quick") c.opt.quick = true;
    else if (a == "--opt") g_optimized_spirv = true;
    else if (a == "--reps") { c.opt.reps = std::stoi(next()); c.opt.reps_set = true; }
    else if (a == "--warmup") c.opt.warmup = std::stoi(next());
    else if (a == "--warm-ms") { c.opt.warm_ms = std::stod(next()); warm_set = true; }
    else if (a == "--json") c.opt.json_path = next();
    else if (a == "--png") c.opt.png_path = next();
    else if (a == "--dump") c.opt.dump_dir = next();
    else if (a == "--max-elems") c.opt.max_elems = std::stoull(next());
    else if (a == "--only") {
      std::stringstream ss(next());
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) c.opt.only.insert(s);
    } else throw std::invalid_argument("unknown option '" + a + "' (see wgslvk bench --help)");
  }
  if (c.opt.quick && !c.opt.reps_set) c.opt.reps = 5;
  if (c.opt.quick && !warm_set) c.opt.warm_ms = 0;
  if (c.opt.reps < 1 || c.opt.reps > 1000) throw std::invalid_argument("--reps must be 1..1000");

  c.instance = Instance::create();
  c.adapter = c.instance.select_adapter(c.opt.device);
  const AdapterInfo& ai = c.adapter.info();
  if (!c.adapter.has_feature(Feature::TimestampQuery))
    throw std::runtime_error("bench: adapter '" + ai.name + "' has no timestamp-query");

  // As a WebGPU user would: ask for the features we use and for the adapter's largest buffers.
  DeviceDescriptor dd;
  dd.label = "wgslvk bench";
  dd.required_features.push_back(Feature::TimestampQuery);
  if (c.adapter.has_feature(Feature::ShaderF16)) dd.required_features.push_back(Feature::ShaderF16);
  if (c.adapter.has_feature(Feature::FloatAtomics))
    dd.required_features.push_back(Feature::FloatAtomics);
  dd.required_limits.maxBufferSize = c.adapter.limits().maxBufferSize;
  dd.required_limits.maxStorageBufferBindingSize = c.adapter.limits().maxStorageBufferBindingSize;
  c.dev = c.adapter.request_device(dd);
  const Limits& L = c.dev.limits();

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  c.out["tool"] = "wgslvk bench";
  c.out["date"] = date;
  c.out["args"] = args;
  c.out["device"] = {{"name", ai.name},
                     {"driver", ai.driver},
                     {"type", std::string(adapter_type_name(ai.type))},
                     {"vendor_id", ai.vendor_id},
                     {"device_id", ai.device_id},
                     {"vulkan_api_version",
                      std::to_string(ai.vulkan_api_version >> 22) + "." +
                          std::to_string((ai.vulkan_api_version >> 12) & 0x3ff) + "." +
                          std::to_string(ai.vulkan_api_version & 0xfff)},
                     {"shader_f16", c.dev.has_feature(Feature::ShaderF16)},
                     {"float_atomics", c.dev.has_feature(Feature::FloatAtomics)},
                     {"maxBufferSize", L.maxBufferSize},
                     {"maxStorageBufferBindingSize", L.maxStorageBufferBindingSize}};
  c.out["options"] = {{"quick", c.opt.quick}, {"reps", c.opt.reps}, {"warmup", c.opt.warmup},
                      {"warm_ms", c.opt.warm_ms}};
  std::printf("wgslvk bench on %s (%s), driver %s\n", ai.name.c_str(),
              std::string(adapter_type_name(ai.type)).c_str(), ai.driver.c_str());
  std::printf("limits granted: maxBufferSize %llu, maxStorageBufferBindingSize %llu; shader-f16 %s, "
              "float atomics %s; %d repeats after %d warm-up, medians\n",
              (unsigned long long)L.maxBufferSize,
              (unsigned long long)L.maxStorageBufferBindingSize,
              c.dev.has_feature(Feature::ShaderF16) ? "yes" : "no",
              c.dev.has_feature(Feature::FloatAtomics) ? "yes" : "no", c.opt.reps, c.opt.warmup);

  // Copy roofline buffers: as large as the biggest kernel's traffic needs, within the limits.
  const KernelInfo* ck = find_kernel("wgslvk_util/copy_vec4");
  if (!ck) throw std::runtime_error("bench: kernel wgslvk_util/copy_vec4 is not in this build");
  c.copy_pipe = pipeline_for(c.dev, *ck);
  uint64_t want_half = c.opt.quick ? (uint64_t(32) << 20) : (uint64_t(2) << 30);
  uint64_t cap = std::min<uint64_t>(L.maxStorageBufferBindingSize, L.maxBufferSize);
  cap = std::min<uint64_t>(cap, uint64_t(65535) * 65535 * 16 * ck->workgroup_size[0] / 2);
  c.copy_max_half = std::min(want_half, cap) / 256 * 256;
  c.copy_src = make_buffer(c.dev, "copy_src", c.copy_max_half, kStorage);
  c.copy_dst = make_buffer(c.dev, "copy_dst", c.copy_max_half + 16, kStorage);
  c.copy_n = make_buffer(c.dev, "copy_n", 16, kUniform);
  check_copy(c);
  // Fill the source with non-zero data once (never time on zeros).
  {
    std::vector<float> chunk(1 << 20);
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = rand_sym(11, i);
    for (uint64_t off = 0; off < c.copy_max_half; off += chunk.size() * 4)
      c.dev.write_buffer(c.copy_src, off, chunk.data(),
                         std::min<uint64_t>(chunk.size() * 4, c.copy_max_half - off));
  }

  std::vector<Row> rows;
  print_header();
  run_optimizer_kernels(c, rows);  // each kernel checks --only itself
  run_embedding_kernels(c, rows);
  json jrows = json::array();
  for (auto& r : rows) jrows.push_back(row_json(r));
  c.out["kernels"] = jrows;

  if (selected(c.opt, "step", "step")) run_step(c);
  c.out["notes"] = c.notes;
  for (auto& n : c.notes) std::printf("note: %s\n", n.c_str());

  if (!c.opt.json_path.empty()) {
    std::ofstream f(c.opt.json_path);
    f << c.out.dump(1) << "\n";
    if (!f) throw std::runtime_error("bench: cannot write " + c.opt.json_path);
    std::printf("wrote %s\n", c.opt.json_path.c_str());
  }
  if (!c.opt.png_path.empty()) {
    write_png(c, rows, c.opt.png_path);
    std::printf("wrote %s\n", c.opt.png_path.c_str());
  }
  // With WGSLVK_VALIDATION=1 (and WGSLVK_SYNC_VALIDATION=1) a layer message fails the run, as in
  // the tests: lavapipe runs commands in order, so only the layer sees a missing barrier there.
  auto messages = c.instance.take_validation_messages();
  for (const auto& m : messages) std::fprintf(stderr, "Vulkan validation layer: %s\n", m.c_str());
  if (!messages.empty()) {
    std::fprintf(stderr, "bench: FAILED: %zu validation-layer message(s)\n", messages.size());
    return 1;
  }
  return 0;
}

}  // namespace wgslvk::cli

#include "../bench/bench_kernels.inc"

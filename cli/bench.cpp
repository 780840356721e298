// wgslvk bench: parses the options, makes the device as a WebGPU user would (the features the
// kernels use, the adapter's largest buffers), runs every registered section
// (wgsl_ports/<family>/bench.cpp) with the bench library (bench/), and writes the table, JSON and
// PNG. Names no family: sections register themselves.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "flag_number.hpp"
#include "ports_option.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/bench/report.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/case.hpp"

namespace wgslvk::cli {
namespace {

using namespace wgslvk::bench;

const std::string kUsage = R"(usage: wgslvk bench [options]

Times every ported kernel over a sweep of sizes (device timestamps, median of the repeats after a
warm-up), reports effective bandwidth from each kernel's minimum byte count and its share of the
copy roofline (wgslvk_util/copy_vec4 over the same bytes, same run), then each family's own
sections (wgsl_ports/<family>/bench.cpp: sweeps of its case builders, checked with the same
references and bounds as `wgslvk validate`, and whole-step timings where a family has them).

options:
  --device SEL     adapter index or name substring (default: WGSLVK_DEVICE, else the first GPU)
  --quick          small sizes and 5 repeats (lavapipe / CI smoke; numbers meaningless)
  --reps N         timed repeats per measurement (default 25; --quick 5)
  --warmup N       untimed repeats before timing (default 3), and at least
  --warm-ms MS     MS milliseconds of busy warm-up per measurement (default 200; --quick 0)
  --only LIST      comma-separated kernel names or groups (a family's folder name, or a
                   group a family defines: step (the whole optimizer step), grad_norm (every
                   gradient-norm row))
  --json FILE      write every number as JSON
  --png FILE       plot bandwidth against bytes per kernel, with the copy roofline
  --dump DIR       write the timed cases as wgslvk-case/1 folders (+ actual/: our outputs up to
                   the last checked element), which bench/peers/dawn_cases.mjs replays under Dawn
  --max-elems N    cap on element-count sweeps
  --timeout S      per-case time limit of --cases in seconds (default 120; 0: none), as in
                   validate: a case past it is an ERROR row, the device is abandoned and later
                   cases are not run; with a limit, a case of more than 2^36 invocations is an
                   ERROR before it dispatches. A case that does not load is its own ERROR row.
  --list           list the registered sections and exit
  --cases DIR      time every case folder under DIR (wgslvk-case/1), each checked first;
                   with --port/--wgsl below, a kernel that is not built into wgslvk. With
                   --cases, only those are timed (add --only to time built-in sweeps too)
  --translate      run the shipped kernels as wgslvk's WGSL front end translates their WGSL
                   instead of their hand ports (the bench's own pipelines and the case rows;
                   host APIs that make their own pipelines included), to compare the two
  --opt            run the spirv-opt output of the bench's own pipelines (host APIs that make
                   their own pipelines keep glslang's output)
)" + std::string(kPortOptionsUsage);

}  // namespace

int run_bench(const std::vector<std::string>& args);
static const Command kBench{"bench", "time every kernel against the copy roofline", kUsage,
                            run_bench};

int run_bench(const std::vector<std::string>& args) {
  if (wants_help(args, kBench)) return 0;
  Options opt;
  bool warm_set = false, reps_set = false, list = false, translate = false;
  PortOptions ports;
  std::string cases_dir;
  double timeout_s = 120;
  for (size_t i = 0; i < args.size(); ++i) {
    if (take_port_option(args, i, ports)) continue;
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    const std::string& a = args[i];
    if (a == "--device")
      opt.device = next();
    else if (a == "--quick")
      opt.quick = true;
    else if (a == "--opt")
      opt.optimized_spirv = true;
    else if (a == "--translate")
      translate = true;
    else if (a == "--list")
      list = true;
    else if (a == "--cases")
      cases_dir = next();
    else if (a == "--reps") {
      opt.reps = int(parse_flag_uint(a, next(), 1, 1000));
      reps_set = true;
    } else if (a == "--warmup")
      opt.warmup = int(parse_flag_uint(a, next(), 0, 100000));
    else if (a == "--warm-ms") {
      opt.warm_ms = parse_flag_real(a, next(), 0, 600000);
      warm_set = true;
    } else if (a == "--timeout") {
      timeout_s = parse_flag_real(a, next(), 0, 1e9);
    } else if (a == "--json")
      opt.json_path = next();
    else if (a == "--png")
      opt.png_path = next();
    else if (a == "--dump")
      opt.dump_dir = next();
    else if (a == "--max-elems")
      opt.max_elems = parse_flag_uint(a, next(), 1, UINT64_MAX);
    else if (a == "--only") {
      std::stringstream ss(next());
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) opt.only.insert(s);
    } else
      throw std::invalid_argument("unknown option '" + a + "' (see wgslvk bench --help)");
  }
  if (list) {
    for (const auto& s : sections()) std::printf("%-16s %s\n", s.group.c_str(), s.source.c_str());
    return 0;
  }
  load_ports(ports);
  if (translate) {
    // Every shipped WGSL entry point through the front end; a kernel it cannot translate stops
    // the bench (timing a mixture would compare nothing).
    size_t n = 0;
    for (const KernelInfo* k : embedded_kernels())
      if (k->in_wgsl && !kernel_uses_subgroup_matrix(*k)) {  // (the front end has no subgroup
        replace_kernel(&translator::translate_shipped(*k));  // matrices: hand port kept)
        ++n;
      }
    std::printf("translate: %zu shipped kernels run as the WGSL front end translates them\n", n);
  }
  if (opt.quick && !reps_set) opt.reps = 5;
  if (opt.quick && !warm_set) opt.warm_ms = 0;
  if (opt.reps < 1 || opt.reps > 1000) throw std::invalid_argument("--reps must be 1..1000");

  Instance instance = Instance::create();
  Adapter adapter = instance.select_adapter(opt.device);
  const AdapterInfo& ai = adapter.info();
  if (!adapter.has_feature(Feature::TimestampQuery))
    throw std::runtime_error("bench: adapter '" + ai.name + "' has no timestamp-query");

  // As a WebGPU user would: ask for the features we use and for the adapter's largest buffers.
  DeviceDescriptor dd;
  dd.label = "wgslvk bench";
  dd.required_features.push_back(Feature::TimestampQuery);
  if (adapter.has_feature(Feature::ShaderF16)) dd.required_features.push_back(Feature::ShaderF16);
  if (adapter.has_feature(Feature::Float32AtomicAdd))
    dd.required_features.push_back(Feature::Float32AtomicAdd);
  dd.required_limits.max_buffer_size = adapter.limits().max_buffer_size;
  dd.required_limits.max_storage_buffer_binding_size =
      adapter.limits().max_storage_buffer_binding_size;
  Device dev = adapter.request_device(dd);
  const Limits& L = dev.limits();
  json out = json::object();

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out["tool"] = "wgslvk bench";
  out["date"] = date;
  out["args"] = args;
  out["device"] = {
      {"name", ai.name},
      {"driver", ai.driver},
      {"type", std::string(adapter_type_name(ai.type))},
      {"vendor_id", ai.vendor_id},
      {"device_id", ai.device_id},
      {"vulkan_api_version", std::to_string(ai.vulkan_api_version >> 22) + "." +
                                 std::to_string((ai.vulkan_api_version >> 12) & 0x3ff) + "." +
                                 std::to_string(ai.vulkan_api_version & 0xfff)},
      {"shader_f16", dev.has_feature(Feature::ShaderF16)},
      {"float_atomics", dev.has_feature(Feature::Float32AtomicAdd)},
      {"maxBufferSize", L.max_buffer_size},
      {"maxStorageBufferBindingSize", L.max_storage_buffer_binding_size}};
  out["options"] = {{"quick", opt.quick},
                    {"reps", opt.reps},
                    {"warmup", opt.warmup},
                    {"warm_ms", opt.warm_ms},
                    {"translate", translate}};
  std::printf("wgslvk bench on %s (%s), driver %s\n", ai.name.c_str(),
              std::string(adapter_type_name(ai.type)).c_str(), ai.driver.c_str());
  std::printf(
      "limits granted: maxBufferSize %llu, maxStorageBufferBindingSize %llu; shader-f16 %s, "
      "float atomics %s; %d repeats after %d warm-up, medians\n",
      (unsigned long long)L.max_buffer_size, (unsigned long long)L.max_storage_buffer_binding_size,
      dev.has_feature(Feature::ShaderF16) ? "yes" : "no",
      dev.has_feature(Feature::Float32AtomicAdd) ? "yes" : "no", opt.reps, opt.warmup);

  Ctx c(opt, dev);
  c.out() = out;
  print_header();
  // With --cases, the built-in sweeps run only when --only asks for them.
  const bool sweeps = cases_dir.empty() || !opt.only.empty();
  for (const auto& s : sections()) {
    if (!sweeps) break;
    c.current_group = s.group;
    s.fn(c);  // each section checks --only itself
  }
  bool abandoned = false;
  if (!cases_dir.empty()) {
    // Cases from elsewhere (a browser capture, a user's port): untrusted, each checked under
    // validate's limits, then timed. Bytes are what the case's buffers hold (an upper bound on
    // what the kernel must move).
    c.current_group = "cases";
    abandoned = time_case_folders(c, cases_dir, timeout_s);
  }
  json jrows = json::array();
  for (const auto& r : c.rows()) jrows.push_back(row_json(r));
  c.out()["kernels"] = jrows;
  c.out()["notes"] = c.notes();
  for (const auto& n : c.notes()) std::printf("note: %s\n", n.c_str());

  if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    f << c.out().dump(1) << "\n";
    if (!f) throw std::runtime_error("bench: cannot write " + opt.json_path);
    std::printf("wrote %s\n", opt.json_path.c_str());
  }
  if (!opt.png_path.empty()) {
    write_png(ai.name, c.rows(), opt.png_path);
    std::printf("wrote %s\n", opt.png_path.c_str());
  }
  // A case past the time limit left its dispatch in flight: leave without tearing the device
  // down (destructors would wait for that dispatch, or crash), as validate does.
  if (abandoned) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(1);
  }
  // With WGSLVK_VALIDATION=1 (and WGSLVK_SYNC_VALIDATION=1) a layer message fails the run, as in
  // the tests: lavapipe runs commands in order, so only the layer sees a missing barrier there.
  auto messages = instance.take_validation_messages();
  for (const auto& m : messages) std::fprintf(stderr, "Vulkan validation layer: %s\n", m.c_str());
  if (!messages.empty()) {
    std::fprintf(stderr, "bench: FAILED: %zu validation-layer message(s)\n", messages.size());
    return 1;
  }
  return 0;
}

}  // namespace wgslvk::cli

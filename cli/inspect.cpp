// wgslvk inspect: a kernel's WGSL declarations beside what its SPIR-V reflects, the module as
// SPIRV-Tools and SPIRV-Cross render it, and (--stats) what the device's driver compiled it to.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_device.hpp"
#include "command.hpp"
#include "inspect_stats.hpp"
#include "ports_option.hpp"
#include "wgslvk/kernel.hpp"
#include "wgslvk/output_file.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::cli {
namespace {

const std::string kUsage =
    "usage: wgslvk inspect <file>/<kernel> [--emit "
    "spvasm|glsl|msl|hlsl|reflect-json|port|wgsl|header] [--opt]\n"
    "       wgslvk inspect --list\n"
    "       wgslvk inspect --stats [KERNEL...] [--json] [--internal] [--opt] [--device SEL]\n"
    "\n"
    "Without --emit: the kernel's bindings, WGSL declaration beside the reflected SPIR-V binding\n"
    "(group, binding, WGSL name, type and access; SPIR-V kind, access and type; minimum binding\n"
    "size, array stride, static use), its workgroup size, workgroup memory and features.\n"
    "\n"
    "  --emit FORMAT  print the module instead: spvasm (SPIRV-Tools disassembler), glsl (GLSL "
    "450,\n"
    "                 Vulkan), msl (MSL 2.1, no argument buffers), hlsl (SM 6.2 with 16-bit "
    "types,\n"
    "                 else 5.1), reflect-json (SPIRV-Cross reflection)\n"
    "  --emit port    print the GLSL port as compiled (includes expanded, defines written out)\n"
    "  --emit wgsl    print the WGSL file the kernel is checked against\n"
    "  --emit header  print the kernel's typed C++ header (named bindings, the uniform structs\n"
    "                 with WGSL's layout; the one the build generates for a shipped kernel, and\n"
    "                 the same for a --wgsl/--port kernel: translator/README.md)\n"
    "  --opt          use the spirv-opt -O module instead of glslang's\n"
    "  --list         list every embedded kernel\n"
    "  --stats        what the driver's compiler made of each kernel (every kernel, the ports\n"
    "                 given included, when none is named): one row per pipeline executable with\n"
    "                 its subgroup size and every statistic the driver reports (names and units\n"
    "                 are the driver's: on NVIDIA registers, shared/local memory, spills), their\n"
    "                 descriptions below. Needs VK_KHR_pipeline_executable_properties (GPU\n"
    "                 drivers; not lavapipe of Mesa 22): exit 3 with the reason when the device\n"
    "                 lacks it, 1 when the validation layer (WGSLVK_VALIDATION=1) reported a\n"
    "                 message. Kernels needing a feature the device lacks are listed as not\n"
    "                 compiled.\n"
    "  --json         with --stats: JSON on stdout (the device line goes to stderr)\n"
    "  --internal     with --stats: also the driver's internal representations (text) where\n"
    "                 it offers them, printed after the table (in --json: per executable)\n"
    "  --snapshots DIR [--check]\n"
    "                 write DIR/<file>/<kernel>.spvasm (glslang, disassembled) and .msl "
    "(SPIRV-Cross)\n"
    "                 for every embedded kernel, removing stale files; with --check write nothing\n"
    "                 and exit 1 when anything would change (a glslang or SPIRV-Cross upgrade\n"
    "                 shows up as a reviewed diff)\n"
    "  --device SEL   with --stats: adapter index or name substring (default: WGSLVK_DEVICE,\n"
    "                 else the first discrete GPU, else lavapipe)\n"
    "  --help         this text\n"
    "\n"
    "A bare kernel name works when it is unambiguous: wgslvk inspect adamw_update\n"
    "\n"
    "A port not built into wgslvk (checked as the build checks, then inspected; with one --port\n"
    "the kernel name may be left out):\n" +
    std::string(kPortOptionsUsage);

std::string features(const KernelInfo& k) {
  std::string f;
  if (k.needs_shader_f16) f += "shader-f16";
  if (k.needs_float_atomics)
    f += std::string(f.empty() ? "" : ", ") + "float atomics (native only)";
  return f.empty() ? "none" : f;
}

std::string wg(const KernelInfo& k) {
  return std::to_string(k.workgroup_size[0]) + "x" + std::to_string(k.workgroup_size[1]) + "x" +
         std::to_string(k.workgroup_size[2]);
}

int list() {
  std::vector<std::vector<std::string>> rows{
      {"kernel", "WGSL", "workgroup", "bindings", "features", ""}};
  for (const KernelInfo* k : all_kernels())
    rows.push_back({k->qualified_name(), std::string(k->wgsl_file), wg(*k),
                    std::to_string(k->bindings.size()), features(*k),
                    k->in_wgsl ? "" : "native variant, ABI of " + std::string(k->abi_of)});
  std::vector<size_t> w(rows[0].size(), 0);
  for (auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  for (auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  if (all_kernels().empty()) std::printf("(the build embedded no kernels)\n");
  return 0;
}

int show(const KernelInfo& k, bool opt) {
  using namespace translator;
  std::span<const uint32_t> spirv = opt ? k.spirv_opt : k.spirv;
  Reflection r = reflect(spirv);
  WgslModule w = parse_wgsl(k.wgsl_source, k.wgsl_file);

  std::printf("%s\n", k.qualified_name().c_str());
  std::printf("  WGSL          %.*s, entry point %.*s%s\n", int(k.wgsl_file.size()),
              k.wgsl_file.data(), int((k.in_wgsl ? k.name : k.abi_of).size()),
              (k.in_wgsl ? k.name : k.abi_of).data(),
              k.in_wgsl ? "" : " (native-only variant sharing its ABI)");
  bool embedded = std::find(embedded_kernels().begin(), embedded_kernels().end(), &k) !=
                  embedded_kernels().end();
  std::string port = embedded
                         ? "wgsl_ports/" + std::string(k.file) + "/" + std::string(k.name) + ".comp"
                     // The front end's GLSL opens with this line (emit_glsl.cpp).
                     : k.glsl_source.starts_with("// Translated from")
                         ? "written by the WGSL front end (--wgsl; --emit port shows it)"
                         : "loaded at run time (--port)";
  std::printf("  GLSL port     %s -> SPIR-V 1.3 (%s, %zu words)\n", port.c_str(),
              opt ? "spirv-opt -O" : "glslang", spirv.size());
  std::printf("  workgroup     %s (%u invocations), workgroup memory %u bytes\n", wg(k).c_str(),
              k.workgroup_size[0] * k.workgroup_size[1] * k.workgroup_size[2],
              k.workgroup_storage_bytes);
  std::printf("  features      %s\n\n", features(k).c_str());

  std::vector<std::vector<std::string>> rows{{"group", "binding", "WGSL name", "WGSL type",
                                              "WGSL access", "|", "SPIR-V kind", "GLSL block",
                                              "SPIR-V type", "min size", "stride", "used"}};
  for (const KernelBinding& b : k.bindings) {
    std::string access = "?";
    for (auto& wb : w.bindings)
      if (wb.name == b.name)
        access = wb.uniform ? "uniform" : wb.read_write ? "storage, read_write" : "storage, read";
    std::string spv_type = "?";
    for (auto& rb : r.bindings)
      if (rb.group == b.group && rb.binding == b.binding)
        spv_type = rb.block.members.size() == 1 ? rb.block.members[0].type.wgsl() : rb.block.wgsl();
    rows.push_back({std::to_string(b.group), std::to_string(b.binding), std::string(b.name),
                    std::string(b.wgsl_type), access, "|", std::string(binding_type_name(b.type)),
                    std::string(b.glsl_name), spv_type, std::to_string(b.min_binding_size),
                    b.array_stride ? std::to_string(b.array_stride) : "-",
                    b.statically_used ? "yes" : "no"});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  for (auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size(), ' ');
    }
    std::printf("%s\n", line.c_str());
  }
  if (k.bindings.empty()) std::printf("  (no bindings)\n");
  std::printf(
      "\n  min size: WebGPU's minimum binding size (WGSL SizeOf, a runtime array counted "
      "as one element);\n  used: statically used by the entry point (kept by an auto "
      "layout)\n");
  return 0;
}

// --stats: one device capturing statistics, one pipeline per kernel.
int stats(const std::vector<const KernelInfo*>& kernels, const std::optional<std::string>& device,
          bool opt, bool json, bool internal) {
  Instance instance = Instance::create();
  Adapter adapter = instance.select_adapter(device);
  std::fprintf(json ? stderr : stdout, "device: %s\n", describe_adapter(adapter).c_str());
  DeviceDescriptor desc;
  desc.label = "wgslvk inspect --stats";
  desc.required_features = adapter.features();
  desc.capture_executable_statistics = true;
  desc.capture_internal_representations = internal;
  Device dev;
  try {
    dev = adapter.request_device(desc);
  } catch (const ValidationError& e) {
    if (e.rule() != "feature") throw;
    // The device cannot do what was asked: "could not start", as validate's exit 3.
    std::fprintf(stderr, "wgslvk inspect: error: %s\n", e.what());
    return 3;
  }
  std::vector<KernelExecutables> out;
  for (const KernelInfo* k : kernels) {
    KernelExecutables ke{k->qualified_name(), {}, {}};
    try {
      ComputePipeline p = dev.create_compute_pipeline({.kernel = k, .optimized_spirv = opt});
      ke.executables = p.executable_statistics();
    } catch (const ValidationError& e) {
      // A feature or limit this device lacks: the other kernels still get their row.
      ke.skipped = e.what();
    }
    out.push_back(std::move(ke));
  }
  if (json) {
    std::string text =
        executable_stats_json(out).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
  } else {
    std::printf("\n%s", executable_stats_table(out).c_str());
    if (internal)
      for (const auto& k : out)
        for (const auto& e : k.executables)
          for (const auto& r : e.internal_representations)
            std::printf("\n==== %s, %s: %s (%s)\n%s\n", k.kernel.c_str(), e.name.c_str(),
                        r.name.c_str(), r.description.c_str(), r.text.c_str());
  }
  std::fflush(stdout);
  auto messages = instance.take_validation_messages();
  for (const auto& m : messages)
    std::fprintf(stderr, "wgslvk inspect: validation layer: %s\n", m.c_str());
  return messages.empty() ? 0 : 1;
}

int run_inspect(const std::vector<std::string>& args);
// naga's tests/out style: what the toolchain made of every shipped kernel, committed, so an
// upgrade of glslang or SPIRV-Cross is a diff to review rather than a silent change.
int write_snapshots(const std::string& dir, bool check) {
  namespace fs = std::filesystem;
  std::map<fs::path, std::string> want;
  for (const KernelInfo* k : embedded_kernels()) {
    fs::path base = fs::path(dir) / std::string(k->file) / std::string(k->name);
    want[base.string() + ".spvasm"] = translator::emit(k->spirv, translator::EmitFormat::Spvasm);
    want[base.string() + ".msl"] = translator::emit(k->spirv, translator::EmitFormat::Msl);
  }
  size_t changed = 0;
  for (const auto& [path, text] : want) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream old;
    if (f) old << f.rdbuf();
    if (f && old.str() == text) continue;
    ++changed;
    std::printf("%s  %s\n", f ? "changed" : "new    ", path.string().c_str());
    if (!check) {
      fs::create_directories(path.parent_path());
      write_output_file(
          path.string(),
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }
  }
  // Stale: only names this command writes (<dir>/<file>/<kernel>.spvasm or .msl); anything else
  // under DIR is someone else's and stays (issue 26: a stray src/main.c was deleted, rc 0).
  auto generated_name = [&](const fs::path& p) {
    const fs::path rel = p.lexically_relative(dir);
    const auto ext = rel.extension();
    return std::distance(rel.begin(), rel.end()) == 2 && (ext == ".spvasm" || ext == ".msl");
  };
  if (fs::is_directory(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (!e.is_symlink() && e.is_regular_file() && !want.count(e.path()) &&
          generated_name(e.path())) {
        ++changed;
        std::printf("stale    %s\n", e.path().string().c_str());
        if (!check) fs::remove(e.path());
      }
  std::printf("%s: %zu kernels, %zu file(s) %s\n", dir.c_str(), embedded_kernels().size(), changed,
              check ? "would change" : "written or removed");
  return check && changed ? 1 : 0;
}

const Command kInspect{"inspect",
                       "show a kernel's WGSL and SPIR-V bindings side by side, or emit it", kUsage,
                       run_inspect};

int run_inspect(const std::vector<std::string>& args_in) {
  if (wants_help(args_in, kInspect)) return 0;
  std::vector<std::string> args = args_in;
  std::optional<std::string> device = take_device_flag(args);
  std::string name, emit_format;
  std::vector<std::string> names;  // --stats takes several
  bool opt = false, do_list = false, check = false, do_stats = false, json = false,
       internal = false;
  std::string snapshots;
  PortOptions ports;
  for (size_t i = 0; i < args.size(); ++i) {
    if (take_port_option(args, i, ports)) continue;
    const std::string& a = args[i];
    if (a == "--list") {
      do_list = true;
    } else if (a == "--stats") {
      do_stats = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--internal") {
      internal = true;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--snapshots") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "wgslvk inspect: --snapshots needs a folder\n");
        return 2;
      }
      snapshots = args[++i];
    } else if (a == "--opt") {
      opt = true;
    } else if (a == "--emit" || a.rfind("--emit=", 0) == 0) {
      if (a == "--emit") {
        if (i + 1 >= args.size()) {
          std::fprintf(stderr, "wgslvk inspect: --emit needs a format\n%.*s", int(kUsage.size()),
                       kUsage.data());
          return 2;
        }
        emit_format = args[++i];
      } else {
        emit_format = a.substr(7);
      }
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "wgslvk inspect: unknown option '%s'\n%.*s", a.c_str(),
                   int(kUsage.size()), kUsage.data());
      return 2;
    } else {
      names.push_back(a);
    }
  }
  if (names.size() > 1 && !do_stats) {
    std::fprintf(stderr,
                 "wgslvk inspect: one kernel at a time ('%s' and '%s'); --stats takes several\n",
                 names[0].c_str(), names[1].c_str());
    return 2;
  }
  if (!names.empty()) name = names[0];
  if ((json || internal) && !do_stats) {
    std::fprintf(stderr, "wgslvk inspect: --json and --internal go with --stats\n");
    return 2;
  }
  if (device && !do_stats) {
    std::fprintf(stderr,
                 "wgslvk inspect: --device goes with --stats (nothing else uses a device)\n");
    return 2;
  }
  load_ports(ports);
  if (do_stats) {
    std::vector<const KernelInfo*> ks;
    for (const auto& n : names) ks.push_back(&kernel(n));  // throws with the known kernels listed
    if (names.empty()) ks.assign(all_kernels().begin(), all_kernels().end());
    return stats(ks, device, opt, json, internal);
  }
  // One kernel brought at run time (a port, or a WGSL with one compute entry point) is the default.
  if (name.empty() && all_kernels().size() == embedded_kernels().size() + 1)
    name = all_kernels().back()->qualified_name();
  if (do_list) return list();
  if (!snapshots.empty()) return write_snapshots(snapshots, check);
  if (name.empty()) {
    std::fprintf(stderr, "%.*s", int(kUsage.size()), kUsage.data());
    return 2;
  }
  const KernelInfo& k = kernel(name);  // throws with the known kernels listed
  if (emit_format.empty()) return show(k, opt);
  if (emit_format == "header") {
    std::string text = translator::kernel_header(k);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (emit_format == "port" || emit_format == "wgsl") {
    std::string_view text = emit_format == "port" ? k.glsl_source : k.wgsl_source;
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  auto fmt = translator::parse_emit_format(emit_format);
  if (!fmt) {
    std::fprintf(stderr,
                 "wgslvk inspect: unknown --emit format '%s' (spvasm, glsl, msl, hlsl, "
                 "reflect-json, port, wgsl, header)\n",
                 emit_format.c_str());
    return 2;
  }
  std::string text = translator::emit(opt ? k.spirv_opt : k.spirv, *fmt);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return 0;
}

}  // namespace
}  // namespace wgslvk::cli

// Kernels users bring at run time (hand ports, and WGSL through the front end): the build's own checks (glslang, spirv-val, spirv-opt,
// reflection, the ABI check against the WGSL), then a KernelInfo owned for the life of the
// process and registered beside the embedded kernels.
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "wgslvk/translator.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::translator {
namespace {

namespace fs = std::filesystem;

struct OwnedKernel {
  std::string file, name, wgsl_file, glsl, wgsl, abi_of;
  std::deque<std::string> strings;              // binding names (stable addresses)
  std::deque<std::vector<KernelField>> fields;  // each uniform's fields (stable addresses)
  std::vector<KernelBinding> bindings;
  std::vector<uint32_t> spirv, spirv_opt;
  KernelInfo info;
};

std::deque<std::unique_ptr<OwnedKernel>>& owned() {
  static std::deque<std::unique_ptr<OwnedKernel>> v;
  return v;
}

std::string read_text(const std::string& path, const char* what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error(std::string(what) + " '" + path + "' is not a readable file");
  // Sources are untrusted: refuse a file far beyond any shader before reading it.
  constexpr uintmax_t kMaxSourceFile = 16u << 20;
  if (uintmax_t n = fs::file_size(path, ec); !ec && n > kMaxSourceFile)
    throw Error(std::string(what) + " '" + path + "' is " + std::to_string(n) +
                " bytes; sources are read up to " + std::to_string(kMaxSourceFile));
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  if (!f) throw Error(std::string(what) + " '" + path + "' could not be read");
  return s.str();
}

}  // namespace

namespace {

// Owns what a KernelInfo points to, for the life of the process.
OwnedKernel& own(const KernelSource& src, const TranslatedKernel& t, std::string wgsl_file) {
  auto k = std::make_unique<OwnedKernel>();
  k->file = src.file;
  k->name = src.name;
  k->wgsl_file = std::move(wgsl_file);
  k->glsl = t.module.expanded_source;
  k->wgsl = src.wgsl;
  k->abi_of = src.abi_of;
  k->spirv = t.module.spirv;
  k->spirv_opt = t.module.spirv_opt;
  for (const auto& b : t.abi.bindings) {
    KernelBinding kb;
    kb.group = b.group;
    kb.binding = b.binding;
    kb.type = b.type;
    kb.name = k->strings.emplace_back(b.name);
    kb.wgsl_type = k->strings.emplace_back(b.wgsl_type);
    kb.glsl_name = k->strings.emplace_back(b.glsl_name);
    kb.min_binding_size = b.min_binding_size;
    kb.array_stride = b.array_stride;
    kb.statically_used = b.statically_used;
    auto& fields = k->fields.emplace_back();
    for (const auto& f : b.fields)
      fields.push_back({k->strings.emplace_back(f.name), k->strings.emplace_back(f.wgsl_type),
                        f.offset, f.size});
    kb.fields = fields;
    k->bindings.push_back(kb);
  }
  KernelInfo& info = k->info;
  info.file = k->file;
  info.name = k->name;
  info.wgsl_file = k->wgsl_file;
  info.workgroup_size = t.reflection.workgroup_size;
  info.workgroup_storage_bytes = t.reflection.workgroup_storage_bytes;
  info.needs_shader_f16 = t.abi.needs_shader_f16;
  info.needs_float_atomics = t.reflection.needs_float_atomics;
  info.in_wgsl = src.abi_of.empty();
  info.abi_of = k->abi_of;
  info.bindings = k->bindings;
  info.spirv = k->spirv;
  info.spirv_opt = k->spirv_opt;
  info.glsl_source = k->glsl;
  info.wgsl_source = k->wgsl;
  owned().push_back(std::move(k));
  return *owned().back();
}

// The front end's GLSL for one entry point, then the hand port's path (glslang, spirv-val,
// spirv-opt, reflection, the ABI check against the same WGSL).
TranslatedKernel translate_entry(KernelSource& src, const std::string& wgsl_name,
                                 const std::map<std::string, double>& constants) {
  wgsl::TranslateOptions o;
  o.file_name = wgsl_name;
  o.entry_point = src.name;
  o.constants = constants;
  try {
    wgsl::TranslatedEntry t = wgsl::translate_to_glsl(src.wgsl, o);
    src.glsl = std::move(t.glsl);
    if (!constants.empty()) src.workgroup_size = t.workgroup_size;
  } catch (const wgsl::Error& e) { throw Error(e.what()); }
  src.glsl_path = wgsl_name;  // for messages: the GLSL came from this file
  try {
    return translate(src);
  } catch (const Error& e) {
    // A front-end bug, not the user's: say where the GLSL came from and how to see it.
    throw Error(std::string(e.what()) + "\n(in the GLSL the WGSL front end wrote for " + wgsl_name +
                " entry point " + src.name + ": `wgslvk port " + wgsl_name + " --entry " +
                src.name + "` prints it)");
  }
}

}  // namespace

const KernelInfo& load_port(const PortFiles& p) {
  KernelSource src;
  src.glsl_path = p.comp_path;
  src.wgsl_path = p.wgsl_path;
  src.glsl = read_text(p.comp_path, "--port");
  src.wgsl = read_text(p.wgsl_path, "--wgsl");
  src.file = p.family.empty() ? fs::path(p.wgsl_path).stem().string() : p.family;
  src.name = p.entry.empty() ? fs::path(p.comp_path).stem().string() : p.entry;
  src.abi_of = p.abi_of;
  src.include_dirs.push_back(fs::path(p.comp_path).parent_path().string());
  for (const auto& d : p.include_dirs) src.include_dirs.push_back(d);
  // `#include "wgsl.glsl"` (the shipped ports' flat_id, is_finite) needs no include dir: the
  // translator embeds it (src/compile.cpp).
  TranslatedKernel t = translate(src);  // throws Error with the build-time check's message
  OwnedKernel& k = own(src, t, fs::path(p.wgsl_path).filename().string());
  register_kernel(&k.info);  // throws if the name is taken
  return k.info;
}

std::vector<const KernelInfo*> load_wgsl(const WgslFiles& w) {
  std::string text = read_text(w.wgsl_path, "--wgsl");
  const std::string name = fs::path(w.wgsl_path).filename().string();
  std::vector<std::string> entries = w.entries;
  if (entries.empty()) {
    std::vector<wgsl::EntryPointInfo> eps;
    try {
      eps = wgsl::check_module(text, w.wgsl_path);
    } catch (const wgsl::Error& e) { throw Error(e.what()); }
    for (const auto& ep : eps)
      if (ep.stage == "compute") entries.push_back(ep.name);
    if (entries.empty()) throw Error(w.wgsl_path + ": the module has no @compute entry point");
  }
  // Translate every entry point first, so a failure registers none of them.
  std::vector<OwnedKernel*> made;
  for (const auto& e : entries) {
    KernelSource src;
    src.file = w.family.empty() ? fs::path(w.wgsl_path).stem().string() : w.family;
    src.name = e;
    src.wgsl = text;
    src.wgsl_path = w.wgsl_path;
    TranslatedKernel t = translate_entry(src, w.wgsl_path, w.constants);
    made.push_back(&own(src, t, name));
  }
  std::vector<const KernelInfo*> out;
  for (OwnedKernel* k : made) {
    register_kernel(&k->info);
    out.push_back(&k->info);
  }
  return out;
}

const KernelInfo& translate_shipped(const KernelInfo& hand_port) {
  const std::string q = hand_port.qualified_name();
  if (!hand_port.in_wgsl)
    throw Error(q + " is a native variant (the ABI of " + std::string(hand_port.abi_of) +
                "), not an entry point of its WGSL: there is nothing to translate");
  KernelSource src;
  src.file = std::string(hand_port.file);
  src.name = std::string(hand_port.name);
  src.wgsl = std::string(hand_port.wgsl_source);
  const std::string wgsl_name = std::string(hand_port.wgsl_file);
  TranslatedKernel t = translate_entry(src, wgsl_name, {});
  return own(src, t, wgsl_name).info;
}

}  // namespace wgslvk::translator

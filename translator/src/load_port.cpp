// Ports users bring at run time: the build's own checks (glslang, spirv-val, spirv-opt,
// reflection, the ABI check against the WGSL), then a KernelInfo owned for the life of the
// process and registered beside the embedded kernels.
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace {

namespace fs = std::filesystem;

struct OwnedKernel {
  std::string file, name, wgsl_file, glsl, wgsl, abi_of;
  std::deque<std::string> strings;  // binding names (stable addresses)
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
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  if (!f) throw Error(std::string(what) + " '" + path + "' could not be read");
  return s.str();
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
#ifdef WGSLVK_COMMON_INCLUDE_DIR
  // The shared includes of the shipped ports (wgsl.glsl: flat_id, is_finite), when this build's
  // source tree is still there.
  if (std::error_code ec; fs::is_directory(WGSLVK_COMMON_INCLUDE_DIR, ec))
    src.include_dirs.push_back(WGSLVK_COMMON_INCLUDE_DIR);
#endif
  TranslatedKernel t = translate(src);  // throws Error with the build-time check's message

  auto k = std::make_unique<OwnedKernel>();
  k->file = src.file;
  k->name = src.name;
  k->wgsl_file = fs::path(p.wgsl_path).filename().string();
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
  register_kernel(&info);  // throws if the name is taken
  owned().push_back(std::move(k));
  return owned().back()->info;
}

}  // namespace wgslvk::translator

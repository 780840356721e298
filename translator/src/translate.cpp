// translate(): compile, validate, optimize, reflect, read the WGSL, check the ABI.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "wgslvk/translator.hpp"

namespace wgslvk::translator {

namespace {
std::string read_file(const std::string& path, const std::string& kernel) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(kernel + ": cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TranslatedKernel translate(const KernelSource& src) {
  const std::string kernel = src.file + "/" + src.name;
  TranslatedKernel t;
  CompileOptions o;
  o.kernel = kernel;
  o.source_path = src.glsl_path;
  o.include_dirs = src.include_dirs;
  o.defines = src.defines;
  o.optimize = src.optimize;
  std::string glsl = src.glsl.empty() ? read_file(src.glsl_path, kernel) : src.glsl;
  t.module = compile_glsl(glsl, o);

  try {
    t.reflection = reflect(t.module.spirv);
  } catch (const Error& e) { throw Error(kernel + ": " + e.what()); }

  std::string wgsl_text = src.wgsl.empty() ? read_file(src.wgsl_path, kernel) : src.wgsl;
  std::string wgsl_name = src.wgsl_path.empty()
                              ? src.file + ".wgsl"
                              : std::filesystem::path(src.wgsl_path).filename().string();
  t.wgsl = parse_wgsl(wgsl_text, wgsl_name);

  AbiCheckInput in;
  in.kernel = kernel;
  in.entry_point = src.abi_of.empty() ? src.name : src.abi_of;
  in.native_variant = !src.abi_of.empty();
  in.glsl_source = t.module.expanded_source;
  in.workgroup_size = src.workgroup_size;
  t.abi = check_abi(in, t.reflection, t.wgsl);
  // The uniforms' layouts as WGSL declares them (the ABI check compared them with the port's).
  // By name: entry points of one file reuse binding numbers with variables of their own.
  for (auto& b : t.abi.bindings) {
    if (b.type != BindingType::Uniform) continue;
    for (const auto& w : t.wgsl.bindings)
      if (w.name == b.name) b.fields = uniform_fields(w.type, w.name);
  }
  return t;
}

}  // namespace wgslvk::translator
